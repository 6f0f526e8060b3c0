// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=znver4 %s | FileCheck %s --check-prefix=CONFIG
// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=V4
// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=V3
// RUN: kiln-opt --kiln-cpu-codegen=cpu=znver4 %s | FileCheck %s --check-prefix=KERNEL

// Convolutions as GEMM (ContractionToLinalg.cpp) multiply the constant
// filter (A, [Cout, C*K], broadcast per row) by computed im2col columns
// (B, [N, C*K, P], lanes along P). These are the dispatches kilnc forms
// for an int8 (i8 x i8 -> i32) and a bf16 (bf16 x bf16 -> f32) 3x3 conv
// with C = 5 (K = 45, not a multiple of 4 or 2) and 9x11 outputs (P = 99,
// a masked last tile). B is not a constant, so the data tiling cannot pack
// it; the config asks the kernel to pack it, `pack_b = "panels"`, on the
// target's native path: vpdpbusd (znver4), pmaddwd (AVX-512 or AVX2
// without VNNI), vdpbf16ps (znver4); without AVX512-BF16 bf16 converts on
// load. Two output channels are too few rows to repay the packing.

// CONFIG-LABEL: func.func private @dispatch_0(
// CONFIG-SAME: native = "vnni", operand_type = i8, pack_b = "panels", reduction_tile = 0 : i64, register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 0, 64, 64, 0>
// CONFIG-LABEL: func.func private @dispatch_1(
// CONFIG-SAME: native = "dpbf16", operand_type = bf16, pack_b = "panels", reduction_tile = 0 : i64, register_tile = array<i64: 8, 32>
// CONFIG-LABEL: func.func private @dispatch_2(
// CONFIG-SAME: native = "convert", operand_type = i8, reduction_tile = 0 : i64, register_tile = array<i64: 2, 128>

// V4-LABEL: func.func private @dispatch_0(
// V4-SAME: native = "pmaddwd", operand_type = i8, pack_b = "panels", reduction_tile = 0 : i64, register_tile = array<i64: 8, 32>
// V4-LABEL: func.func private @dispatch_1(
// V4-SAME: native = "convert", operand_type = bf16, reduction_tile

// V3-LABEL: func.func private @dispatch_0(
// V3-SAME: native = "pmaddwd", operand_type = i8, pack_b = "panels", reduction_tile = 0 : i64, register_tile = array<i64: 6, 16>

// Per K block (here all of K) and 32-lane column tile, the kernel packs
// the panel once into a 64-byte aligned stack buffer of ceil(45 / 4) = 12
// quads x 32 lanes: four masked loads of 32 columns of B (rows past K and
// lanes past P load as zero), two levels of interleaving shuffles, and for
// vpdpbusd 128 * the panel's column sums (vpdpbusd of 0x80 bytes by the
// packed quads, one per zmm), kept in a second buffer. Every row tile then
// starts its accumulators that much lower, flips its A quads to unsigned
// (xor) and issues 8 rows x 2 zmm vpdpbusd per quad.
// KERNEL-LABEL: llvm.func internal @dispatch_0_impl(
// KERNEL-DAG: %[[M128:.*]] = llvm.mlir.constant(dense<-128> : vector<64xi8>) : vector<64xi8>
// KERNEL-DAG: %[[PANEL_SIZE:.*]] = llvm.mlir.constant(1536 : index) : i64
// KERNEL: llvm.alloca %[[PANEL_SIZE]] x i8 {alignment = 64 : i64}
// KERNEL: llvm.alloca %{{.*}} x i32 {alignment = 64 : i64}
// KERNEL-COUNT-4: llvm.intr.masked.load %{{.*}} : (!llvm.ptr, vector<32xi1>, vector<32xi8>) -> vector<32xi8>
// KERNEL: llvm.shufflevector %{{.*}}, %{{.*}} [0, 32, 1, 33, 2, 34,
// KERNEL: llvm.shufflevector %{{.*}}, %{{.*}} [0, 32, 1, 33, 2, 34,
// KERNEL: llvm.shufflevector %{{.*}}, %{{.*}} [0, 1, 64, 65, 2, 3, 66, 67,
// KERNEL: llvm.store %{{.*}} : vector<128xi8>, !llvm.ptr
// KERNEL-COUNT-2: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%{{.*}}, %[[M128]], %{{.*}}) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// KERNEL: llvm.sub %{{.*}} : vector<16xi32>
// KERNEL: llvm.xor %{{.*}}, %{{.*}} : vector<16xi32>
// KERNEL-COUNT-16: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// bf16: pairs, no flip and no sums.
// KERNEL-LABEL: llvm.func internal @dispatch_1_impl(
// KERNEL: llvm.alloca %{{.*}} x bf16 {alignment = 64 : i64}
// KERNEL-NOT: llvm.alloca
// KERNEL-COUNT-2: llvm.intr.masked.load %{{.*}} : (!llvm.ptr, vector<32xi1>, vector<32xi16>) -> vector<32xi16>
// KERNEL: llvm.shufflevector %{{.*}}, %{{.*}} [0, 32, 1, 33, 2, 34,
// KERNEL-NOT: llvm.xor
// KERNEL-COUNT-16: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<32xbf16>, vector<32xbf16>) -> vector<16xf32>
// KERNEL-LABEL: llvm.func internal @dispatch_2_impl(
// KERNEL-NOT: llvm.call_intrinsic
// KERNEL: llvm.return
#filter = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#cols = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
module {
  func.func private @dispatch_0(%arg0: tensor<64x45xi8>, %arg1: tensor<1x45x99xi8>) -> tensor<1x64x99xi32> attributes {kiln.dispatch} {
    %c0_i32 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<1x64x99xi32>
    %1 = linalg.fill ins(%c0_i32 : i32) outs(%0 : tensor<1x64x99xi32>) -> tensor<1x64x99xi32>
    %2 = linalg.generic {indexing_maps = [#filter, #cols, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<64x45xi8>, tensor<1x45x99xi8>) outs(%1 : tensor<1x64x99xi32>) {
    ^bb0(%in: i8, %in_0: i8, %out: i32):
      %3 = arith.extsi %in : i8 to i32
      %4 = arith.extsi %in_0 : i8 to i32
      %5 = arith.muli %3, %4 : i32
      %6 = arith.addi %out, %5 : i32
      linalg.yield %6 : i32
    } -> tensor<1x64x99xi32>
    return %2 : tensor<1x64x99xi32>
  }
  func.func private @dispatch_1(%arg0: tensor<64x45xbf16>, %arg1: tensor<1x45x99xbf16>) -> tensor<1x64x99xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<1x64x99xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x64x99xf32>) -> tensor<1x64x99xf32>
    %2 = linalg.generic {indexing_maps = [#filter, #cols, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<64x45xbf16>, tensor<1x45x99xbf16>) outs(%1 : tensor<1x64x99xf32>) {
    ^bb0(%in: bf16, %in_0: bf16, %out: f32):
      %3 = arith.extf %in : bf16 to f32
      %4 = arith.extf %in_0 : bf16 to f32
      %5 = arith.mulf %3, %4 : f32
      %6 = arith.addf %out, %5 : f32
      linalg.yield %6 : f32
    } -> tensor<1x64x99xf32>
    return %2 : tensor<1x64x99xf32>
  }
  func.func private @dispatch_2(%arg0: tensor<2x45xi8>, %arg1: tensor<1x45x99xi8>) -> tensor<1x2x99xi32> attributes {kiln.dispatch} {
    %c0_i32 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<1x2x99xi32>
    %1 = linalg.fill ins(%c0_i32 : i32) outs(%0 : tensor<1x2x99xi32>) -> tensor<1x2x99xi32>
    %2 = linalg.generic {indexing_maps = [#filter, #cols, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<2x45xi8>, tensor<1x45x99xi8>) outs(%1 : tensor<1x2x99xi32>) {
    ^bb0(%in: i8, %in_0: i8, %out: i32):
      %3 = arith.extsi %in : i8 to i32
      %4 = arith.extsi %in_0 : i8 to i32
      %5 = arith.muli %3, %4 : i32
      %6 = arith.addi %out, %5 : i32
      linalg.yield %6 : i32
    } -> tensor<1x2x99xi32>
    return %2 : tensor<1x2x99xi32>
  }
}
