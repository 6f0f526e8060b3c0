// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=KERNEL
// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=AVX2

// The kernels of implicit-gemm-rows.mlir's row gathers (`gather_b =
// "rows"`): conv 1 (3x3, stride 1) and the stem (7x7, stride 2) with the
// configurations kiln-cpu-lowering-config gives them on x86-64-v4
// (@dispatch_2_im2col, @stem_v4: K blocks of whole windows) and on -v3
// (@stem_v3), and the stem with a hand-set K block of 128, not whole
// windows (@dispatch_5_im2col).
// Lane tiles stop at output row ends: the tile loop is an scf.while whose
// step is min(lanes, the rest of the row, the rest of the workgroup), so
// the 60-pixel rows of conv 1 are a 32-lane tile and a 28-lane edge tile.
// There is no segment table: the only alloca is the panel (27 x 32
// floats for conv 1; one K block for the stem: 98 x 32, 128 x 32, 245 x
// 16). With whole windows, once per tile: per kh whether the input row is
// inside the plane (an unsigned compare), per kw the run's column mask
// (iw0 + j inside [0, W): a broadcast, an add of 0..n-1 and an unsigned
// vector compare); per channel and kh a branch on the row, then KW masked
// loads with those masks at integer addresses (inttoptr: a masked-off run
// may start before the input), no compare; at stride 2 each load is 2 x
// lanes wide and its even elements are kept (one shuffle). Without whole
// windows each panel row computes its row compare and column mask and
// combines them with a select. No lane-by-lane gather anywhere.

// KERNEL-LABEL: llvm.func internal @dispatch_2_im2col_impl(
// KERNEL-NOT: llvm.alloca %{{.*}} x i32
// KERNEL-NOT: llvm.alloca %{{.*}} x i64
// KERNEL: %[[PANEL:.*]] = llvm.mlir.constant(864 : index) : i64
// KERNEL-NEXT: llvm.alloca %[[PANEL]] x f32
// KERNEL-NOT: llvm.alloca
// KERNEL: %[[ROW0:.*]] = llvm.icmp "ult" %{{.*}} : i64
// KERNEL-COUNT-2: llvm.icmp "ult" %{{.*}} : i64
// KERNEL: %[[COL0:.*]] = llvm.icmp "ult" %{{.*}} : vector<32xi32>
// KERNEL: %[[COL1:.*]] = llvm.icmp "ult" %{{.*}} : vector<32xi32>
// KERNEL: %[[COL2:.*]] = llvm.icmp "ult" %{{.*}} : vector<32xi32>
// KERNEL: llvm.cond_br %[[ROW0]]
// KERNEL-NOT: llvm.icmp "ult"
// KERNEL: llvm.inttoptr
// KERNEL-NOT: llvm.icmp "ult"
// KERNEL: %[[L0:.*]] = llvm.intr.masked.load %{{.*}}, %[[COL0]], %{{.*}} : (!llvm.ptr, vector<32xi1>, vector<32xf32>) -> vector<32xf32>
// KERNEL: llvm.store %[[L0]], %{{.*}} : vector<32xf32>, !llvm.ptr
// KERNEL-NOT: llvm.icmp "ult"
// KERNEL: llvm.intr.masked.load %{{.*}}, %[[COL1]], %{{.*}} : (!llvm.ptr, vector<32xi1>, vector<32xf32>) -> vector<32xf32>
// KERNEL-NOT: llvm.icmp "ult"
// KERNEL: llvm.intr.masked.load %{{.*}}, %[[COL2]], %{{.*}} : (!llvm.ptr, vector<32xi1>, vector<32xf32>) -> vector<32xf32>
// KERNEL-COUNT-8: llvm.intr.fmuladd(%{{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// KERNEL-NOT: llvm.intr.masked.gather
// KERNEL-NOT: llvm.call @malloc
// KERNEL-LABEL: llvm.func internal @dispatch_5_im2col_impl(
// KERNEL-NOT: llvm.alloca %{{.*}} x i32
// KERNEL-NOT: llvm.alloca %{{.*}} x i64
// KERNEL: %[[PANEL5:.*]] = llvm.mlir.constant(4096 : index) : i64
// KERNEL-NEXT: llvm.alloca %[[PANEL5]] x f32
// KERNEL: %[[COLS5:.*]] = llvm.icmp "ult" %{{.*}} : vector<64xi32>
// KERNEL: %[[MASK5:.*]] = llvm.select %{{.*}}, %[[COLS5]], %{{.*}} : i1, vector<64xi1>
// KERNEL: %[[WIDE:.*]] = llvm.intr.masked.load %{{.*}}, %[[MASK5]], %{{.*}} : (!llvm.ptr, vector<64xi1>, vector<64xf32>) -> vector<64xf32>
// KERNEL: %[[EVEN:.*]] = llvm.shufflevector %[[WIDE]], %[[WIDE]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62] : vector<64xf32>
// KERNEL: llvm.store %[[EVEN]], %{{.*}} : vector<32xf32>, !llvm.ptr
// KERNEL-COUNT-5: llvm.intr.fmuladd(%{{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// KERNEL-NOT: llvm.intr.masked.gather
// KERNEL-LABEL: llvm.func internal @stem_v4_impl(
// KERNEL-NOT: llvm.alloca %{{.*}} x i32
// KERNEL-NOT: llvm.alloca %{{.*}} x i64
// KERNEL: %[[PANEL4:.*]] = llvm.mlir.constant(3136 : index) : i64
// KERNEL-NEXT: llvm.alloca %[[PANEL4]] x f32
// KERNEL-COUNT-7: llvm.icmp "ult" %{{.*}} : i64
// KERNEL: %[[SCOL0:.*]] = llvm.icmp "ult" %{{.*}} : vector<64xi32>
// KERNEL-COUNT-6: llvm.icmp "ult" %{{.*}} : vector<64xi32>
// KERNEL: llvm.cond_br
// KERNEL-NOT: llvm.icmp "ult"
// KERNEL: %[[SWIDE:.*]] = llvm.intr.masked.load %{{.*}}, %[[SCOL0]], %{{.*}} : (!llvm.ptr, vector<64xi1>, vector<64xf32>) -> vector<64xf32>
// KERNEL: %[[SEVEN:.*]] = llvm.shufflevector %[[SWIDE]], %[[SWIDE]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62] : vector<64xf32>
// KERNEL: llvm.store %[[SEVEN]], %{{.*}} : vector<32xf32>, !llvm.ptr
// KERNEL-COUNT-6: llvm.intr.masked.load %{{.*}} : (!llvm.ptr, vector<64xi1>, vector<64xf32>) -> vector<64xf32>
// KERNEL-COUNT-5: llvm.intr.fmuladd(%{{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// KERNEL-NOT: llvm.intr.masked.gather
// KERNEL-LABEL: llvm.func internal @stem_v3_impl(

// AVX2-LABEL: llvm.func internal @stem_v3_impl(
// AVX2-NOT: llvm.alloca %{{.*}} x i32
// AVX2-NOT: llvm.alloca %{{.*}} x i64
// AVX2: %[[PANEL3:.*]] = llvm.mlir.constant(3920 : index) : i64
// AVX2-NEXT: llvm.alloca %[[PANEL3]] x f32
// AVX2-COUNT-7: llvm.icmp "ult" %{{.*}} : i64
// AVX2: %[[COL3:.*]] = llvm.icmp "ult" %{{.*}} : vector<32xi32>
// AVX2-COUNT-6: llvm.icmp "ult" %{{.*}} : vector<32xi32>
// AVX2: llvm.cond_br
// AVX2-NOT: llvm.icmp "ult"
// AVX2: %[[WIDE3:.*]] = llvm.intr.masked.load %{{.*}}, %[[COL3]], %{{.*}} : (!llvm.ptr, vector<32xi1>, vector<32xf32>) -> vector<32xf32>
// AVX2: %[[EVEN3:.*]] = llvm.shufflevector %[[WIDE3]], %[[WIDE3]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<32xf32>
// AVX2: llvm.store %[[EVEN3]], %{{.*}} : vector<16xf32>, !llvm.ptr
// AVX2-COUNT-5: llvm.intr.fmuladd(%{{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// AVX2-NOT: llvm.intr.masked.gather

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
module {
  func.func private @dispatch_2_im2col(%arg0: tensor<8x27xf32>, %arg1: tensor<1x3x9x60xf32>) -> tensor<1x8x540xf32> attributes {kiln.dispatch, kiln.lowering_config = {gather_b = "rows", reduction_tile = 0 : i64, register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 0, 8, 60, 0>}} {
    %0 = tensor.empty() : tensor<1x27x540xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%0 : tensor<1x27x540xf32>) attrs =  {kiln.conv_gather = {dilations = array<i64: 1, 1>, input = 1 : i64, kernel = array<i64: 3, 3>, output = array<i64: 9, 60>, pads = array<i64: 1, 1>, strides = array<i64: 1, 1>}} {
    ^bb0(%out: f32):
      %5 = linalg.index 0 : index
      %6 = linalg.index 1 : index
      %7 = linalg.index 2 : index
      %c9 = arith.constant 9 : index
      %8 = arith.divui %6, %c9 : index
      %9 = arith.remui %6, %c9 : index
      %c3 = arith.constant 3 : index
      %10 = arith.divui %9, %c3 : index
      %c3_0 = arith.constant 3 : index
      %11 = arith.remui %9, %c3_0 : index
      %c60 = arith.constant 60 : index
      %12 = arith.divui %7, %c60 : index
      %c60_1 = arith.constant 60 : index
      %13 = arith.remui %7, %c60_1 : index
      %c1 = arith.constant 1 : index
      %14 = arith.muli %10, %c1 : index
      %c1_2 = arith.constant 1 : index
      %15 = arith.muli %12, %c1_2 : index
      %16 = arith.addi %15, %14 : index
      %c1_3 = arith.constant 1 : index
      %17 = arith.subi %16, %c1_3 : index
      %c1_4 = arith.constant 1 : index
      %18 = arith.muli %11, %c1_4 : index
      %c1_5 = arith.constant 1 : index
      %19 = arith.muli %13, %c1_5 : index
      %20 = arith.addi %19, %18 : index
      %c1_6 = arith.constant 1 : index
      %21 = arith.subi %20, %c1_6 : index
      %c60_7 = arith.constant 60 : index
      %22 = arith.cmpi ult, %21, %c60_7 : index
      %c9_8 = arith.constant 9 : index
      %23 = arith.cmpi ult, %17, %c9_8 : index
      %24 = arith.andi %23, %22 : i1
      %c0 = arith.constant 0 : index
      %25 = arith.select %24, %17, %c0 : index
      %26 = arith.select %24, %21, %c0 : index
      %extracted = tensor.extract %arg1[%5, %8, %25, %26] : tensor<1x3x9x60xf32>
      %cst_9 = arith.constant 0.000000e+00 : f32
      %27 = arith.select %24, %extracted, %cst_9 : f32
      linalg.yield %27 : f32
    } -> tensor<1x27x540xf32>
    %cst = arith.constant 0.000000e+00 : f32
    %2 = tensor.empty() : tensor<1x8x540xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<1x8x540xf32>) -> tensor<1x8x540xf32>
    %4 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %1 : tensor<8x27xf32>, tensor<1x27x540xf32>) outs(%3 : tensor<1x8x540xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %5 = arith.mulf %in, %in_0 : f32
      %6 = arith.addf %out, %5 : f32
      linalg.yield %6 : f32
    } -> tensor<1x8x540xf32>
    return %4 : tensor<1x8x540xf32>
  }
  func.func private @dispatch_5_im2col(%arg0: tensor<5x392xf32>, %arg1: tensor<1x8x9x60xf32>) -> tensor<1x5x150xf32> attributes {kiln.dispatch, kiln.lowering_config = {gather_b = "rows", reduction_tile = 128 : i64, register_tile = array<i64: 5, 32>, strategy = "contraction", workgroup_tile = array<i64: 0, 5, 60, 0>}} {
    %0 = tensor.empty() : tensor<1x392x150xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%0 : tensor<1x392x150xf32>) attrs =  {kiln.conv_gather = {dilations = array<i64: 1, 1>, input = 1 : i64, kernel = array<i64: 7, 7>, output = array<i64: 5, 30>, pads = array<i64: 3, 3>, strides = array<i64: 2, 2>}} {
    ^bb0(%out: f32):
      %5 = linalg.index 0 : index
      %6 = linalg.index 1 : index
      %7 = linalg.index 2 : index
      %c49 = arith.constant 49 : index
      %8 = arith.divui %6, %c49 : index
      %9 = arith.remui %6, %c49 : index
      %c7 = arith.constant 7 : index
      %10 = arith.divui %9, %c7 : index
      %c7_0 = arith.constant 7 : index
      %11 = arith.remui %9, %c7_0 : index
      %c30 = arith.constant 30 : index
      %12 = arith.divui %7, %c30 : index
      %c30_1 = arith.constant 30 : index
      %13 = arith.remui %7, %c30_1 : index
      %c1 = arith.constant 1 : index
      %14 = arith.muli %10, %c1 : index
      %c2 = arith.constant 2 : index
      %15 = arith.muli %12, %c2 : index
      %16 = arith.addi %15, %14 : index
      %c3 = arith.constant 3 : index
      %17 = arith.subi %16, %c3 : index
      %c1_2 = arith.constant 1 : index
      %18 = arith.muli %11, %c1_2 : index
      %c2_3 = arith.constant 2 : index
      %19 = arith.muli %13, %c2_3 : index
      %20 = arith.addi %19, %18 : index
      %c3_4 = arith.constant 3 : index
      %21 = arith.subi %20, %c3_4 : index
      %c60 = arith.constant 60 : index
      %22 = arith.cmpi ult, %21, %c60 : index
      %c9 = arith.constant 9 : index
      %23 = arith.cmpi ult, %17, %c9 : index
      %24 = arith.andi %23, %22 : i1
      %c0 = arith.constant 0 : index
      %25 = arith.select %24, %17, %c0 : index
      %26 = arith.select %24, %21, %c0 : index
      %extracted = tensor.extract %arg1[%5, %8, %25, %26] : tensor<1x8x9x60xf32>
      %cst_5 = arith.constant 0.000000e+00 : f32
      %27 = arith.select %24, %extracted, %cst_5 : f32
      linalg.yield %27 : f32
    } -> tensor<1x392x150xf32>
    %cst = arith.constant 0.000000e+00 : f32
    %2 = tensor.empty() : tensor<1x5x150xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<1x5x150xf32>) -> tensor<1x5x150xf32>
    %4 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %1 : tensor<5x392xf32>, tensor<1x392x150xf32>) outs(%3 : tensor<1x5x150xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %5 = arith.mulf %in, %in_0 : f32
      %6 = arith.addf %out, %5 : f32
      linalg.yield %6 : f32
    } -> tensor<1x5x150xf32>
    return %4 : tensor<1x5x150xf32>
  }
  func.func private @stem_v4(%arg0: tensor<5x392xf32>, %arg1: tensor<1x8x9x60xf32>) -> tensor<1x5x150xf32> attributes {kiln.dispatch, kiln.lowering_config = {gather_b = "rows", reduction_tile = 98 : i64, register_tile = array<i64: 5, 32>, strategy = "contraction", workgroup_tile = array<i64: 0, 5, 60, 0>}} {
    %0 = tensor.empty() : tensor<1x392x150xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%0 : tensor<1x392x150xf32>) attrs =  {kiln.conv_gather = {dilations = array<i64: 1, 1>, input = 1 : i64, kernel = array<i64: 7, 7>, output = array<i64: 5, 30>, pads = array<i64: 3, 3>, strides = array<i64: 2, 2>}} {
    ^bb0(%out: f32):
      %5 = linalg.index 0 : index
      %6 = linalg.index 1 : index
      %7 = linalg.index 2 : index
      %c49 = arith.constant 49 : index
      %8 = arith.divui %6, %c49 : index
      %9 = arith.remui %6, %c49 : index
      %c7 = arith.constant 7 : index
      %10 = arith.divui %9, %c7 : index
      %c7_0 = arith.constant 7 : index
      %11 = arith.remui %9, %c7_0 : index
      %c30 = arith.constant 30 : index
      %12 = arith.divui %7, %c30 : index
      %c30_1 = arith.constant 30 : index
      %13 = arith.remui %7, %c30_1 : index
      %c1 = arith.constant 1 : index
      %14 = arith.muli %10, %c1 : index
      %c2 = arith.constant 2 : index
      %15 = arith.muli %12, %c2 : index
      %16 = arith.addi %15, %14 : index
      %c3 = arith.constant 3 : index
      %17 = arith.subi %16, %c3 : index
      %c1_2 = arith.constant 1 : index
      %18 = arith.muli %11, %c1_2 : index
      %c2_3 = arith.constant 2 : index
      %19 = arith.muli %13, %c2_3 : index
      %20 = arith.addi %19, %18 : index
      %c3_4 = arith.constant 3 : index
      %21 = arith.subi %20, %c3_4 : index
      %c60 = arith.constant 60 : index
      %22 = arith.cmpi ult, %21, %c60 : index
      %c9 = arith.constant 9 : index
      %23 = arith.cmpi ult, %17, %c9 : index
      %24 = arith.andi %23, %22 : i1
      %c0 = arith.constant 0 : index
      %25 = arith.select %24, %17, %c0 : index
      %26 = arith.select %24, %21, %c0 : index
      %extracted = tensor.extract %arg1[%5, %8, %25, %26] : tensor<1x8x9x60xf32>
      %cst_5 = arith.constant 0.000000e+00 : f32
      %27 = arith.select %24, %extracted, %cst_5 : f32
      linalg.yield %27 : f32
    } -> tensor<1x392x150xf32>
    %cst = arith.constant 0.000000e+00 : f32
    %2 = tensor.empty() : tensor<1x5x150xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<1x5x150xf32>) -> tensor<1x5x150xf32>
    %4 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %1 : tensor<5x392xf32>, tensor<1x392x150xf32>) outs(%3 : tensor<1x5x150xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %5 = arith.mulf %in, %in_0 : f32
      %6 = arith.addf %out, %5 : f32
      linalg.yield %6 : f32
    } -> tensor<1x5x150xf32>
    return %4 : tensor<1x5x150xf32>
  }
  func.func private @stem_v3(%arg0: tensor<5x392xf32>, %arg1: tensor<1x8x9x60xf32>) -> tensor<1x5x150xf32> attributes {kiln.dispatch, kiln.lowering_config = {gather_b = "rows", reduction_tile = 245 : i64, register_tile = array<i64: 5, 16>, strategy = "contraction", workgroup_tile = array<i64: 0, 5, 60, 0>}} {
    %0 = tensor.empty() : tensor<1x392x150xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%0 : tensor<1x392x150xf32>) attrs =  {kiln.conv_gather = {dilations = array<i64: 1, 1>, input = 1 : i64, kernel = array<i64: 7, 7>, output = array<i64: 5, 30>, pads = array<i64: 3, 3>, strides = array<i64: 2, 2>}} {
    ^bb0(%out: f32):
      %5 = linalg.index 0 : index
      %6 = linalg.index 1 : index
      %7 = linalg.index 2 : index
      %c49 = arith.constant 49 : index
      %8 = arith.divui %6, %c49 : index
      %9 = arith.remui %6, %c49 : index
      %c7 = arith.constant 7 : index
      %10 = arith.divui %9, %c7 : index
      %c7_0 = arith.constant 7 : index
      %11 = arith.remui %9, %c7_0 : index
      %c30 = arith.constant 30 : index
      %12 = arith.divui %7, %c30 : index
      %c30_1 = arith.constant 30 : index
      %13 = arith.remui %7, %c30_1 : index
      %c1 = arith.constant 1 : index
      %14 = arith.muli %10, %c1 : index
      %c2 = arith.constant 2 : index
      %15 = arith.muli %12, %c2 : index
      %16 = arith.addi %15, %14 : index
      %c3 = arith.constant 3 : index
      %17 = arith.subi %16, %c3 : index
      %c1_2 = arith.constant 1 : index
      %18 = arith.muli %11, %c1_2 : index
      %c2_3 = arith.constant 2 : index
      %19 = arith.muli %13, %c2_3 : index
      %20 = arith.addi %19, %18 : index
      %c3_4 = arith.constant 3 : index
      %21 = arith.subi %20, %c3_4 : index
      %c60 = arith.constant 60 : index
      %22 = arith.cmpi ult, %21, %c60 : index
      %c9 = arith.constant 9 : index
      %23 = arith.cmpi ult, %17, %c9 : index
      %24 = arith.andi %23, %22 : i1
      %c0 = arith.constant 0 : index
      %25 = arith.select %24, %17, %c0 : index
      %26 = arith.select %24, %21, %c0 : index
      %extracted = tensor.extract %arg1[%5, %8, %25, %26] : tensor<1x8x9x60xf32>
      %cst_5 = arith.constant 0.000000e+00 : f32
      %27 = arith.select %24, %extracted, %cst_5 : f32
      linalg.yield %27 : f32
    } -> tensor<1x392x150xf32>
    %cst = arith.constant 0.000000e+00 : f32
    %2 = tensor.empty() : tensor<1x5x150xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<1x5x150xf32>) -> tensor<1x5x150xf32>
    %4 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %1 : tensor<5x392xf32>, tensor<1x392x150xf32>) outs(%3 : tensor<1x5x150xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %5 = arith.mulf %in, %in_0 : f32
      %6 = arith.addf %out, %5 : f32
      linalg.yield %6 : f32
    } -> tensor<1x5x150xf32>
    return %4 : tensor<1x5x150xf32>
  }
}

