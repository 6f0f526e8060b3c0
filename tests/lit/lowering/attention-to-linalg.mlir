// RUN: kiln-opt %s --kiln-to-linalg | FileCheck %s
// RUN: kiln-opt %s --kiln-to-linalg=keep-attention=true | FileCheck %s --check-prefix=KEEP
// RUN: kiln-opt %s --kiln-to-linalg=keep-attention=true --kiln-form-dispatches | FileCheck %s --check-prefix=DISPATCH

// kiln.attention lowers back into the chain it stands for (QK^T batch
// matmul, the scale, the mask's add, softmax's max / exp-sum / normalize,
// the PV batch matmul) unless the back end keeps it for its own kernel;
// kept, it is a dispatch of its own.

// CHECK-LABEL: func.func @attention(
// CHECK-NOT: kiln.
// CHECK: linalg.batch_matmul
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: linalg.batch_matmul
// CHECK-NOT: kiln.

// KEEP-LABEL: func.func @attention(
// KEEP-NEXT: %[[O:.*]] = kiln.attention %arg0, %arg1, %arg2 mask %arg3 {scale = 5.000000e-01 : f32}
// KEEP-NEXT: return %[[O]]

// DISPATCH-LABEL: func.func @attention(
// DISPATCH-NEXT: %[[O:.*]] = call @dispatch_0(%arg0, %arg1, %arg2, %arg3)
// DISPATCH: func.func private @dispatch_0(
// DISPATCH-SAME: attributes {kiln.dispatch}
// DISPATCH-NEXT: kiln.attention
// DISPATCH-NEXT: return
func.func @attention(%q: tensor<2x3x4xf32>, %kt: tensor<2x4x5xf32>, %v: tensor<2x5x2xf32>, %m: tensor<1x1x5xf32>) -> tensor<2x3x2xf32> {
  %o = kiln.attention %q, %kt, %v mask %m {scale = 0.5 : f32} : tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<2x5x2xf32>, tensor<1x1x5xf32> -> tensor<2x3x2xf32>
  return %o : tensor<2x3x2xf32>
}
