// RUN: kiln-opt --kiln-cpu-codegen %s | FileCheck %s --implicit-check-not=malloc --implicit-check-not=llvm.alloca

// A contraction configured for register tiles becomes, per workgroup, a
// loop nest whose k loop carries one accumulator vector per tile row
// (here 8 rows x 32 lanes: 8 x vector<32xf32>) and issues one FMA per row
// per k step, on B vectors loaded once per k: twice, once with plain loads
// for whole tiles and once with masked loads for the right edge. The
// output's zero fill becomes the accumulators' start value, so nothing
// fills the output tile, and nothing allocates: the 64x64 workgroup tile
// of this matmul is written straight into the output.

// CHECK-LABEL: llvm.func internal @dispatch_0_impl(
// The whole-tile k loop: one B load, 8 broadcast FMAs.
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
// CHECK-COUNT-8: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// The edge k loop: a masked B load, 8 FMAs.
// CHECK: llvm.intr.masked.load %{{.*}} {alignment = 4 : i32} : (!llvm.ptr, vector<32xi1>, vector<32xf32>) -> vector<32xf32>
// CHECK-COUNT-8: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// Rows are stored with the lane mask; rows past the edge are skipped.
// CHECK-COUNT-8: llvm.intr.masked.store
// CHECK-LABEL: llvm.func internal @dispatch_0(
module {
  func.func private @dispatch_0(%arg0: tensor<100x64xf32>, %arg1: tensor<64x200xf32>) -> tensor<100x200xf32> attributes {kiln.dispatch, kiln.lowering_config = {register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 64, 64, 0>}} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<100x200xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<100x200xf32>) -> tensor<100x200xf32>
    %2 = linalg.matmul ins(%arg0, %arg1 : tensor<100x64xf32>, tensor<64x200xf32>) outs(%1 : tensor<100x200xf32>) -> tensor<100x200xf32>
    return %2 : tensor<100x200xf32>
  }
}
