// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=KERNEL
// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=AVX2

// The kernels of implicit-gemm.mlir's gathered convolutions (the
// dispatches kiln-cpu-implicit-gemm leaves): the contraction reads no
// column buffer; per K block and lane tile it gathers its B panel from the
// conv input. Conv 1 (3x3, stride 1, pads 1, output rows of 19): per
// (kh, kw) and output-row segment of the 32-lane tile (1 + ceil(31 / 19)
// = 3 segments), a table of lane ranges [lo, hi) and first elements is
// built once per tile; each panel row is then 3 masked loads at integer
// addresses (inttoptr: masked-off lanes may lie before the input) merged
// into one vector, stored in the 45 x 32 stack panel that the 8 x 32
// register tiles read. No buffer of the columns is left: the allocas are
// the two tables, the contraction's output tile (read by the bias + Relu
// epilogue) and the panel. Conv 2 (stride 3) gathers lane by lane:
// unsigned bounds compares of (ih, iw) and a masked gather, on 16-lane
// tiles (its 36 pixels cost 2.5 zmm per row in 16 x 16 tiles, 3 in
// 8 x 32 ones), so the panel is 256 x 16.
// The two @override dispatches carry hand-set configurations (the lit
// override): without gather_b the gather generic is fused into each
// workgroup tile (a tile-sized column buffer, 45 x 64), with loop order
// likewise; both still compile.

// KERNEL-LABEL: llvm.func internal @dispatch_2_im2col_impl(
// KERNEL-NOT: llvm.alloca
// KERNEL: %[[ENTRIES:.*]] = llvm.mlir.constant(27 : index) : i64
// KERNEL: llvm.alloca %[[ENTRIES]] x i64
// KERNEL-NOT: llvm.alloca
// KERNEL: %[[RANGES:.*]] = llvm.mlir.constant(54 : index) : i64
// KERNEL: llvm.alloca %[[RANGES]] x i32
// KERNEL-NOT: llvm.alloca
// KERNEL: llvm.alloca %{{.*}} x f32
// KERNEL-NOT: llvm.alloca
// KERNEL: %[[PANEL:.*]] = llvm.mlir.constant(1440 : index) : i64
// KERNEL-NEXT: llvm.alloca %[[PANEL]] x f32
// KERNEL-NOT: llvm.alloca
// The tables: is the segment's input row ih inside [0, 17) (unsigned)?
// KERNEL: llvm.icmp "ult" %{{.*}} : i64
// Per panel row and segment, lanes lo <= j < hi (as hi > j, lo <= j).
// KERNEL: llvm.icmp "sgt" %{{.*}} : vector<32xi32>
// KERNEL: llvm.icmp "sle" %{{.*}} : vector<32xi32>
// KERNEL: llvm.inttoptr
// KERNEL: %[[R0:.*]] = llvm.intr.masked.load %{{.*}} : (!llvm.ptr, vector<32xi1>, vector<32xf32>) -> vector<32xf32>
// KERNEL: %[[R1:.*]] = llvm.intr.masked.load %{{.*}}, %{{.*}}, %[[R0]] {{.*}} -> vector<32xf32>
// KERNEL: %[[R2:.*]] = llvm.intr.masked.load %{{.*}}, %{{.*}}, %[[R1]] {{.*}} -> vector<32xf32>
// KERNEL: llvm.store %[[R2]], %{{.*}} : vector<32xf32>, !llvm.ptr
// KERNEL-COUNT-8: llvm.intr.fmuladd(%{{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// KERNEL-NOT: llvm.intr.masked.gather
// KERNEL-NOT: llvm.call @malloc
// KERNEL-LABEL: llvm.func internal @dispatch_5_im2col_impl(
// KERNEL: %[[PANEL2:.*]] = llvm.mlir.constant(4096 : index) : i64
// KERNEL-NEXT: llvm.alloca %[[PANEL2]] x f32
// KERNEL-NOT: llvm.alloca
// KERNEL: llvm.icmp "ult" %{{.*}} : vector<16xi32>
// KERNEL: llvm.icmp "ult" %{{.*}} : vector<16xi32>
// KERNEL: llvm.intr.masked.gather %{{.*}} : (vector<16x!llvm.ptr>, vector<16xi1>, vector<16xf32>) -> vector<16xf32>
// KERNEL-LABEL: llvm.func internal @override_tiles_impl(
// KERNEL-NOT: llvm.inttoptr
// KERNEL: llvm.intr.fmuladd
// KERNEL-LABEL: llvm.func internal @override_loop_order_impl(
// KERNEL-NOT: llvm.inttoptr
// KERNEL: llvm.return

// x86-64-v3: 6 x 16 tiles; a 16-lane tile spans 1 + ceil(15 / 19) = 2
// output-row segments.
// AVX2-LABEL: llvm.func internal @dispatch_2_im2col_impl(
// AVX2: %[[ENTRIES:.*]] = llvm.mlir.constant(18 : index) : i64
// AVX2: llvm.alloca %[[ENTRIES]] x i64
// AVX2: %[[PANEL:.*]] = llvm.mlir.constant(720 : index) : i64
// AVX2-NEXT: llvm.alloca %[[PANEL]] x f32
// AVX2: %[[R0:.*]] = llvm.intr.masked.load %{{.*}} : (!llvm.ptr, vector<16xi1>, vector<16xf32>) -> vector<16xf32>
// AVX2: llvm.intr.masked.load %{{.*}}, %{{.*}}, %[[R0]] {{.*}} -> vector<16xf32>
// AVX2-COUNT-6: llvm.intr.fmuladd(%{{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// AVX2-LABEL: llvm.func internal @dispatch_5_im2col_impl(
// AVX2: llvm.intr.masked.gather %{{.*}} : (vector<16x!llvm.ptr>, vector<16xi1>, vector<16xf32>) -> vector<16xf32>
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map4 = affine_map<(d0, d1, d2) -> (d1)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>
#map6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
module {
  func.func private @dispatch_2_im2col(%arg0: tensor<70x45xf32>, %arg1: tensor<2x5x17x19xf32>, %arg2: tensor<70xf32>) -> tensor<2x70x323xf32> attributes {kiln.dispatch} {
    %0 = tensor.empty() : tensor<2x45x323xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%0 : tensor<2x45x323xf32>) attrs =  {kiln.conv_gather = {dilations = array<i64: 1, 1>, input = 1 : i64, kernel = array<i64: 3, 3>, output = array<i64: 17, 19>, pads = array<i64: 1, 1>, strides = array<i64: 1, 1>}} {
    ^bb0(%out: f32):
      %7 = linalg.index 0 : index
      %8 = linalg.index 1 : index
      %9 = linalg.index 2 : index
      %c9 = arith.constant 9 : index
      %10 = arith.divui %8, %c9 : index
      %11 = arith.remui %8, %c9 : index
      %c3 = arith.constant 3 : index
      %12 = arith.divui %11, %c3 : index
      %c3_0 = arith.constant 3 : index
      %13 = arith.remui %11, %c3_0 : index
      %c19 = arith.constant 19 : index
      %14 = arith.divui %9, %c19 : index
      %c19_1 = arith.constant 19 : index
      %15 = arith.remui %9, %c19_1 : index
      %c1 = arith.constant 1 : index
      %16 = arith.muli %12, %c1 : index
      %c1_2 = arith.constant 1 : index
      %17 = arith.muli %14, %c1_2 : index
      %18 = arith.addi %17, %16 : index
      %c1_3 = arith.constant 1 : index
      %19 = arith.subi %18, %c1_3 : index
      %c1_4 = arith.constant 1 : index
      %20 = arith.muli %13, %c1_4 : index
      %c1_5 = arith.constant 1 : index
      %21 = arith.muli %15, %c1_5 : index
      %22 = arith.addi %21, %20 : index
      %c1_6 = arith.constant 1 : index
      %23 = arith.subi %22, %c1_6 : index
      %c19_7 = arith.constant 19 : index
      %24 = arith.cmpi ult, %23, %c19_7 : index
      %c17 = arith.constant 17 : index
      %25 = arith.cmpi ult, %19, %c17 : index
      %26 = arith.andi %25, %24 : i1
      %c0 = arith.constant 0 : index
      %27 = arith.select %26, %19, %c0 : index
      %28 = arith.select %26, %23, %c0 : index
      %extracted = tensor.extract %arg1[%7, %10, %27, %28] : tensor<2x5x17x19xf32>
      %cst_8 = arith.constant 0.000000e+00 : f32
      %29 = arith.select %26, %extracted, %cst_8 : f32
      linalg.yield %29 : f32
    } -> tensor<2x45x323xf32>
    %cst = arith.constant 0.000000e+00 : f32
    %2 = tensor.empty() : tensor<2x70x323xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<2x70x323xf32>) -> tensor<2x70x323xf32>
    %4 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %1 : tensor<70x45xf32>, tensor<2x45x323xf32>) outs(%3 : tensor<2x70x323xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %7 = arith.mulf %in, %in_0 : f32
      %8 = arith.addf %out, %7 : f32
      linalg.yield %8 : f32
    } -> tensor<2x70x323xf32>
    %5 = tensor.empty() : tensor<2x70x323xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map4, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4, %arg2 : tensor<2x70x323xf32>, tensor<70xf32>) outs(%5 : tensor<2x70x323xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %7 = arith.addf %in, %in_0 : f32
      %8 = arith.maxnumf %7, %cst : f32
      linalg.yield %8 : f32
    } -> tensor<2x70x323xf32>
    return %6 : tensor<2x70x323xf32>
  }
  func.func private @dispatch_5_im2col(%arg0: tensor<120x630xf32>, %arg1: tensor<2x70x17x19xf32>) -> tensor<2x120x36xf32> attributes {kiln.dispatch} {
    %0 = tensor.empty() : tensor<2x630x36xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%0 : tensor<2x630x36xf32>) attrs =  {kiln.conv_gather = {dilations = array<i64: 1, 1>, input = 1 : i64, kernel = array<i64: 3, 3>, output = array<i64: 6, 6>, pads = array<i64: 0, 1>, strides = array<i64: 3, 3>}} {
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
      %c6 = arith.constant 6 : index
      %12 = arith.divui %7, %c6 : index
      %c6_1 = arith.constant 6 : index
      %13 = arith.remui %7, %c6_1 : index
      %c1 = arith.constant 1 : index
      %14 = arith.muli %10, %c1 : index
      %c3_2 = arith.constant 3 : index
      %15 = arith.muli %12, %c3_2 : index
      %16 = arith.addi %15, %14 : index
      %c0 = arith.constant 0 : index
      %17 = arith.subi %16, %c0 : index
      %c1_3 = arith.constant 1 : index
      %18 = arith.muli %11, %c1_3 : index
      %c3_4 = arith.constant 3 : index
      %19 = arith.muli %13, %c3_4 : index
      %20 = arith.addi %19, %18 : index
      %c1_5 = arith.constant 1 : index
      %21 = arith.subi %20, %c1_5 : index
      %c19 = arith.constant 19 : index
      %22 = arith.cmpi ult, %21, %c19 : index
      %c17 = arith.constant 17 : index
      %23 = arith.cmpi ult, %17, %c17 : index
      %24 = arith.andi %23, %22 : i1
      %c0_6 = arith.constant 0 : index
      %25 = arith.select %24, %17, %c0_6 : index
      %26 = arith.select %24, %21, %c0_6 : index
      %extracted = tensor.extract %arg1[%5, %8, %25, %26] : tensor<2x70x17x19xf32>
      %cst_7 = arith.constant 0.000000e+00 : f32
      %27 = arith.select %24, %extracted, %cst_7 : f32
      linalg.yield %27 : f32
    } -> tensor<2x630x36xf32>
    %cst = arith.constant 0.000000e+00 : f32
    %2 = tensor.empty() : tensor<2x120x36xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<2x120x36xf32>) -> tensor<2x120x36xf32>
    %4 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %1 : tensor<120x630xf32>, tensor<2x630x36xf32>) outs(%3 : tensor<2x120x36xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %5 = arith.mulf %in, %in_0 : f32
      %6 = arith.addf %out, %5 : f32
      linalg.yield %6 : f32
    } -> tensor<2x120x36xf32>
    return %4 : tensor<2x120x36xf32>
  }
  func.func private @override_tiles(%arg0: tensor<70x45xf32>, %arg1: tensor<2x5x17x19xf32>, %arg2: tensor<70xf32>) -> tensor<2x70x323xf32> attributes {kiln.dispatch, kiln.lowering_config = {strategy = "contraction", register_tile = array<i64: 8, 32>, reduction_tile = 0 : i64, workgroup_tile = array<i64: 1, 64, 64>}} {
    %0 = tensor.empty() : tensor<2x45x323xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%0 : tensor<2x45x323xf32>) attrs =  {kiln.conv_gather = {dilations = array<i64: 1, 1>, input = 1 : i64, kernel = array<i64: 3, 3>, output = array<i64: 17, 19>, pads = array<i64: 1, 1>, strides = array<i64: 1, 1>}} {
    ^bb0(%out: f32):
      %7 = linalg.index 0 : index
      %8 = linalg.index 1 : index
      %9 = linalg.index 2 : index
      %c9 = arith.constant 9 : index
      %10 = arith.divui %8, %c9 : index
      %11 = arith.remui %8, %c9 : index
      %c3 = arith.constant 3 : index
      %12 = arith.divui %11, %c3 : index
      %c3_0 = arith.constant 3 : index
      %13 = arith.remui %11, %c3_0 : index
      %c19 = arith.constant 19 : index
      %14 = arith.divui %9, %c19 : index
      %c19_1 = arith.constant 19 : index
      %15 = arith.remui %9, %c19_1 : index
      %c1 = arith.constant 1 : index
      %16 = arith.muli %12, %c1 : index
      %c1_2 = arith.constant 1 : index
      %17 = arith.muli %14, %c1_2 : index
      %18 = arith.addi %17, %16 : index
      %c1_3 = arith.constant 1 : index
      %19 = arith.subi %18, %c1_3 : index
      %c1_4 = arith.constant 1 : index
      %20 = arith.muli %13, %c1_4 : index
      %c1_5 = arith.constant 1 : index
      %21 = arith.muli %15, %c1_5 : index
      %22 = arith.addi %21, %20 : index
      %c1_6 = arith.constant 1 : index
      %23 = arith.subi %22, %c1_6 : index
      %c19_7 = arith.constant 19 : index
      %24 = arith.cmpi ult, %23, %c19_7 : index
      %c17 = arith.constant 17 : index
      %25 = arith.cmpi ult, %19, %c17 : index
      %26 = arith.andi %25, %24 : i1
      %c0 = arith.constant 0 : index
      %27 = arith.select %26, %19, %c0 : index
      %28 = arith.select %26, %23, %c0 : index
      %extracted = tensor.extract %arg1[%7, %10, %27, %28] : tensor<2x5x17x19xf32>
      %cst_8 = arith.constant 0.000000e+00 : f32
      %29 = arith.select %26, %extracted, %cst_8 : f32
      linalg.yield %29 : f32
    } -> tensor<2x45x323xf32>
    %cst = arith.constant 0.000000e+00 : f32
    %2 = tensor.empty() : tensor<2x70x323xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<2x70x323xf32>) -> tensor<2x70x323xf32>
    %4 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %1 : tensor<70x45xf32>, tensor<2x45x323xf32>) outs(%3 : tensor<2x70x323xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %7 = arith.mulf %in, %in_0 : f32
      %8 = arith.addf %out, %7 : f32
      linalg.yield %8 : f32
    } -> tensor<2x70x323xf32>
    %5 = tensor.empty() : tensor<2x70x323xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map4, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4, %arg2 : tensor<2x70x323xf32>, tensor<70xf32>) outs(%5 : tensor<2x70x323xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %7 = arith.addf %in, %in_0 : f32
      %8 = arith.maxnumf %7, %cst : f32
      linalg.yield %8 : f32
    } -> tensor<2x70x323xf32>
    return %6 : tensor<2x70x323xf32>
  }
  func.func private @override_loop_order(%arg0: tensor<70x45xf32>, %arg1: tensor<2x5x17x19xf32>, %arg2: tensor<70xf32>) -> tensor<2x70x323xf32> attributes {kiln.dispatch, kiln.lowering_config = {strategy = "loop-order", workgroup_tile = array<i64: 1, 64, 64>}} {
    %0 = tensor.empty() : tensor<2x45x323xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%0 : tensor<2x45x323xf32>) attrs =  {kiln.conv_gather = {dilations = array<i64: 1, 1>, input = 1 : i64, kernel = array<i64: 3, 3>, output = array<i64: 17, 19>, pads = array<i64: 1, 1>, strides = array<i64: 1, 1>}} {
    ^bb0(%out: f32):
      %7 = linalg.index 0 : index
      %8 = linalg.index 1 : index
      %9 = linalg.index 2 : index
      %c9 = arith.constant 9 : index
      %10 = arith.divui %8, %c9 : index
      %11 = arith.remui %8, %c9 : index
      %c3 = arith.constant 3 : index
      %12 = arith.divui %11, %c3 : index
      %c3_0 = arith.constant 3 : index
      %13 = arith.remui %11, %c3_0 : index
      %c19 = arith.constant 19 : index
      %14 = arith.divui %9, %c19 : index
      %c19_1 = arith.constant 19 : index
      %15 = arith.remui %9, %c19_1 : index
      %c1 = arith.constant 1 : index
      %16 = arith.muli %12, %c1 : index
      %c1_2 = arith.constant 1 : index
      %17 = arith.muli %14, %c1_2 : index
      %18 = arith.addi %17, %16 : index
      %c1_3 = arith.constant 1 : index
      %19 = arith.subi %18, %c1_3 : index
      %c1_4 = arith.constant 1 : index
      %20 = arith.muli %13, %c1_4 : index
      %c1_5 = arith.constant 1 : index
      %21 = arith.muli %15, %c1_5 : index
      %22 = arith.addi %21, %20 : index
      %c1_6 = arith.constant 1 : index
      %23 = arith.subi %22, %c1_6 : index
      %c19_7 = arith.constant 19 : index
      %24 = arith.cmpi ult, %23, %c19_7 : index
      %c17 = arith.constant 17 : index
      %25 = arith.cmpi ult, %19, %c17 : index
      %26 = arith.andi %25, %24 : i1
      %c0 = arith.constant 0 : index
      %27 = arith.select %26, %19, %c0 : index
      %28 = arith.select %26, %23, %c0 : index
      %extracted = tensor.extract %arg1[%7, %10, %27, %28] : tensor<2x5x17x19xf32>
      %cst_8 = arith.constant 0.000000e+00 : f32
      %29 = arith.select %26, %extracted, %cst_8 : f32
      linalg.yield %29 : f32
    } -> tensor<2x45x323xf32>
    %cst = arith.constant 0.000000e+00 : f32
    %2 = tensor.empty() : tensor<2x70x323xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<2x70x323xf32>) -> tensor<2x70x323xf32>
    %4 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %1 : tensor<70x45xf32>, tensor<2x45x323xf32>) outs(%3 : tensor<2x70x323xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %7 = arith.mulf %in, %in_0 : f32
      %8 = arith.addf %out, %7 : f32
      linalg.yield %8 : f32
    } -> tensor<2x70x323xf32>
    %5 = tensor.empty() : tensor<2x70x323xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map4, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4, %arg2 : tensor<2x70x323xf32>, tensor<70xf32>) outs(%5 : tensor<2x70x323xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %7 = arith.addf %in, %in_0 : f32
      %8 = arith.maxnumf %7, %cst : f32
      linalg.yield %8 : f32
    } -> tensor<2x70x323xf32>
    return %6 : tensor<2x70x323xf32>
  }
}
