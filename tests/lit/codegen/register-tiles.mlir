// RUN: kiln-opt --kiln-cpu-codegen %s | FileCheck %s --implicit-check-not=malloc --implicit-check-not=llvm.alloca

// A contraction configured for register tiles becomes, per workgroup, a
// loop nest whose k loop carries one accumulator vector per tile row
// (here 8 rows x 32 lanes: 8 x vector<32xf32>) and issues one FMA per row
// per k step, on B vectors loaded once per k. Three variants of the tile:
// whole tiles with plain loads and stores; right edges with at most half
// the lanes valid (200 = 6 x 32 + 8) as 16-lane tiles with masks; wider
// edges as masked 32-lane tiles. The output's zero fill becomes the
// accumulators' start value, so nothing fills the output tile, and
// nothing allocates: the 64x64 workgroup tile of this matmul is written
// straight into the output.

// CHECK-LABEL: llvm.func internal @dispatch_0_impl(
// Whole tiles: one B load, 8 broadcast FMAs, 8 plain row stores.
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
// CHECK-COUNT-8: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
// Narrow edges: 16 lanes, masked.
// CHECK: llvm.intr.masked.load %{{.*}} : (!llvm.ptr, vector<16xi1>, vector<16xf32>) -> vector<16xf32>
// CHECK-COUNT-8: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK-COUNT-8: llvm.intr.masked.store %{{.*}} : vector<16xf32>, vector<16xi1> into !llvm.ptr
// Wide edges: 32 lanes, masked.
// CHECK: llvm.intr.masked.load %{{.*}} : (!llvm.ptr, vector<32xi1>, vector<32xf32>) -> vector<32xf32>
// CHECK-COUNT-8: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// CHECK-COUNT-8: llvm.intr.masked.store %{{.*}} : vector<32xf32>, vector<32xi1> into !llvm.ptr
// CHECK-LABEL: llvm.func internal @dispatch_1_impl(
// Depthwise whole tiles: one weight scalar per step, then per row its own
// input vector and one FMA; 8 plain row stores.
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
// CHECK-COUNT-8: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<32xf32>, !llvm.ptr
// CHECK-LABEL: llvm.func internal @dispatch_0(
module {
  func.func private @dispatch_0(%arg0: tensor<100x64xf32>, %arg1: tensor<64x200xf32>) -> tensor<100x200xf32> attributes {kiln.dispatch, kiln.lowering_config = {register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 64, 64, 0>}} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<100x200xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<100x200xf32>) -> tensor<100x200xf32>
    %2 = linalg.matmul ins(%arg0, %arg1 : tensor<100x64xf32>, tensor<64x200xf32>) outs(%1 : tensor<100x200xf32>) -> tensor<100x200xf32>
    return %2 : tensor<100x200xf32>
  }

  // Depthwise 3x3: each of the 8 rows loads its own input vector at
  // (oh + kh, ow + kw) and all rows share one broadcast weight per step.
  func.func private @dispatch_1(%x: tensor<1x16x1x58x58xf32>, %w: tensor<16x1x1x3x3xf32>) -> tensor<1x16x1x56x56xf32> attributes {kiln.dispatch, kiln.lowering_config = {reduction_tile = 0 : i64, register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 0, 1, 0, 56, 56, 0, 0, 0>}} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<1x16x1x56x56xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x16x1x56x56xf32>) -> tensor<1x16x1x56x56xf32>
    %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x16x1x58x58xf32>, tensor<16x1x1x3x3xf32>) outs(%1 : tensor<1x16x1x56x56xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %3 = arith.mulf %in, %in_0 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    } -> tensor<1x16x1x56x56xf32>
    return %2 : tensor<1x16x1x56x56xf32>
  }
}
