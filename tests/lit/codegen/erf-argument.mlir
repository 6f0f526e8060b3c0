// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v3 %s | FileCheck %s

// erf of a quotient by a constant (exporters' erf GELU: x / sqrt(2))
// multiplies by the reciprocal instead (a division has a fraction of a
// multiply's throughput); erf's own rational approximation keeps its one division.
// Other divisions stay divisions: by a computed divisor under erf, and by
// a constant anywhere else.

// (Elementwise loops reach LLVM scalar; its loop vectorizer widens them.)
// CHECK-LABEL: llvm.func internal @dispatch_0_impl(
// CHECK: %[[R:.*]] = llvm.mlir.constant(0.707106769 : f32) : f32
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NEXT: llvm.fmul %[[X]], %[[R]] : f32
// CHECK-COUNT-1: llvm.fdiv
// CHECK-NOT: llvm.fdiv
// CHECK: llvm.return
func.func private @dispatch_0(%x: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {kiln.dispatch} {
  %c = arith.constant 1.41421354 : f32
  %0 = tensor.empty() : tensor<64x64xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x64xf32>) outs(%0 : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %q = arith.divf %in, %c : f32
    %e = math.erf %q : f32
    linalg.yield %e : f32
  } -> tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}

// CHECK-LABEL: llvm.func internal @dispatch_1_impl(
// CHECK-COUNT-2: llvm.fdiv
// CHECK-NOT: llvm.fdiv
// CHECK: llvm.return
func.func private @dispatch_1(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {kiln.dispatch} {
  %0 = tensor.empty() : tensor<64x64xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<64x64xf32>, tensor<64x64xf32>) outs(%0 : tensor<64x64xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %q = arith.divf %in, %in_0 : f32
    %e = math.erf %q : f32
    linalg.yield %e : f32
  } -> tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}

// CHECK-LABEL: llvm.func internal @dispatch_2_impl(
// CHECK: %[[C:.*]] = llvm.mlir.constant(1.41421354 : f32) : f32
// CHECK: llvm.fdiv %{{.*}}, %[[C]] : f32
// CHECK-NOT: llvm.fmul
// CHECK: llvm.return
func.func private @dispatch_2(%x: tensor<64x64xf32>) -> tensor<64x64xf32> attributes {kiln.dispatch} {
  %c = arith.constant 1.41421354 : f32
  %0 = tensor.empty() : tensor<64x64xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x64xf32>) outs(%0 : tensor<64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %q = arith.divf %in, %c : f32
    linalg.yield %q : f32
  } -> tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}
