// A kiln.custom_call with no registered lowering is an external kernel
// (kind b): kiln-to-linalg leaves it, and dispatch formation keeps it on the
// host between the dispatches around it, where the host plan makes it a
// CustomCall step.
// RUN: kiln-opt --kiln-to-linalg %s | FileCheck %s --check-prefix=LOWER
// RUN: kiln-opt --kiln-to-linalg --kiln-form-dispatches %s | FileCheck %s --check-prefix=HOST

// LOWER-LABEL: func.func @swish_between_ops
// LOWER: linalg.generic
// LOWER: %[[S:.*]] = kiln.custom_call "com.example.Swish"(%{{.*}}) {config = {beta = 1.500000e+00 : f32}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// LOWER: linalg.generic {{.*}} ins(%[[S]]

// HOST-LABEL: func.func @swish_between_ops
// HOST: %[[A:.*]] = call @dispatch_0(%arg0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// HOST-NEXT: %[[S:.*]] = kiln.custom_call "com.example.Swish"(%[[A]])
// HOST-NEXT: %[[B:.*]] = call @dispatch_1(%[[S]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// HOST-NEXT: return %[[B]]
func.func @swish_between_ops(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = kiln.relu %x : tensor<4x8xf32>
  %y = kiln.custom_call "com.example.Swish"(%a) {config = {beta = 1.5 : f32}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = kiln.neg %y : tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}
