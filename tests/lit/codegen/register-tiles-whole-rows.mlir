// RUN: kiln-opt --kiln-cpu-codegen %s | FileCheck %s --implicit-check-not=llvm.intr.smin

// M = 64 is a static multiple of the 8-row register tile, so every row
// tile is whole: rows are read at m0 + i (constant offsets from one
// address, folded into the broadcasts' displacements by LLVM) instead of
// m0 + min(i, valid rows - 1), each of which held its own pointer
// register. Only the tile's valid-row count and the lane edge remain
// clamped; rows are not (7 more smin ops with clamped rows).

// CHECK-LABEL: llvm.func internal @dispatch_0_impl(
// CHECK-COUNT-2: llvm.intr.smin
// CHECK-COUNT-8: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
module {
  func.func private @dispatch_0(%arg0: tensor<64x64xf32>, %arg1: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {kiln.dispatch, kiln.lowering_config = {register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 32, 64, 0>}} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<64x64xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64x64xf32>) -> tensor<64x64xf32>
    %2 = linalg.matmul ins(%arg0, %arg1 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%1 : tensor<64x64xf32>) -> tensor<64x64xf32>
    return %2 : tensor<64x64xf32>
  }
}
