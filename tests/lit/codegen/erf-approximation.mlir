// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v3 %s | FileCheck %s
// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v4 %s | FileCheck %s

// math.erf becomes one rational function of the clamped argument
// (ErfApproximation.cpp): |x| clamped to 4 by an ordered compare (NaN
// passes), a * P(a^2) / Q(a^2) with five FMAs in each of P and Q, one
// division, the result kept <= 1 and given x's sign. No interval selects:
// MLIR's three-interval approximation compared |x| with 0.8 and 2 and
// selected every coefficient.

// CHECK-LABEL: llvm.func internal @dispatch_0_impl(
// CHECK-DAG: %[[FOUR:.*]] = llvm.mlir.constant(4.000000e+00 : f32) : f32
// CHECK-DAG: %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK: %[[A:.*]] = llvm.intr.fabs(%[[X]]) : (f32) -> f32
// CHECK: %[[BIG:.*]] = llvm.fcmp "ogt" %[[A]], %[[FOUR]] : f32
// CHECK: %[[AC:.*]] = llvm.select %[[BIG]], %[[FOUR]], %[[A]] : i1, f32
// CHECK: %[[S:.*]] = llvm.fmul %[[AC]], %[[AC]] : f32
// CHECK-COUNT-5: llvm.intr.fma
// CHECK: %[[NUM:.*]] = llvm.fmul %[[AC]], %{{.*}} : f32
// CHECK-COUNT-5: llvm.intr.fma
// CHECK: %[[R:.*]] = llvm.fdiv %[[NUM]], %{{.*}} : f32
// CHECK: %[[OVER:.*]] = llvm.fcmp "ogt" %[[R]], %[[ONE]] : f32
// CHECK: %[[RC:.*]] = llvm.select %[[OVER]], %[[ONE]], %[[R]] : i1, f32
// CHECK: llvm.intr.copysign(%[[RC]], %[[X]]) : (f32, f32) -> f32
// CHECK-NOT: llvm.mlir.constant(8.000000e-01 : f32)
// CHECK-NOT: llvm.mlir.constant(2.000000e+00 : f32)
// CHECK: llvm.return
func.func private @dispatch_0(%x: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {kiln.dispatch} {
  %0 = tensor.empty() : tensor<64x64xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x64xf32>) outs(%0 : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.erf %in : f32
    linalg.yield %e : f32
  } -> tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}

// A 16-bit erf is computed in f32 and rounded once.
// CHECK-LABEL: llvm.func internal @dispatch_1_impl(
// CHECK: llvm.fpext %{{.*}} : f16 to f32
// CHECK: llvm.intr.fabs
// CHECK: llvm.fdiv
// CHECK: llvm.intr.copysign
// CHECK: llvm.fptrunc %{{.*}} : f32 to f16
// CHECK: llvm.return
func.func private @dispatch_1(%x: tensor<64x64xf16>) -> tensor<64x64xf16> attributes {kiln.dispatch} {
  %0 = tensor.empty() : tensor<64x64xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x64xf16>) outs(%0 : tensor<64x64xf16>) {
  ^bb0(%in: f16, %out: f16):
    %e = math.erf %in : f16
    linalg.yield %e : f16
  } -> tensor<64x64xf16>
  return %1 : tensor<64x64xf16>
}
