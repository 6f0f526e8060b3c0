// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v3 %s | FileCheck %s

// math.tanh is MLIR's rational approximation of the clamped argument (one
// division, no exp): not the exp-based expansion (1 - e^-2x) / (1 + e^-2x),
// whose exp would clamp its exponent to +-127 and build 2^n with a shift.

// CHECK-LABEL: llvm.func internal @dispatch_0_impl(
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK: llvm.intr.fma
// CHECK: llvm.fdiv
// CHECK-NOT: llvm.fdiv
// CHECK-NOT: llvm.mlir.constant(1.270000e+02 : f32)
// CHECK-NOT: llvm.shl
// CHECK: llvm.return
func.func private @dispatch_0(%x: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {kiln.dispatch} {
  %0 = tensor.empty() : tensor<64x64xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x64xf32>) outs(%0 : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}
