// RUN: kiln-opt %s --kiln-quantize="fold=false deny=fc" | FileCheck %s
// RUN: not kiln-opt %s --kiln-quantize="deny=nope" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not kiln-opt %s --kiln-quantize="deny=softmax" 2>&1 | FileCheck %s --check-prefix=NEVER

// deny names ONNX nodes (the names in an op's location) as well as op kinds.
// CHECK-LABEL: func.func @two_layers
// CHECK: kiln.matmul %arg0, %{{.*}} {kiln.input_range = {{.*}}} : tensor<1x4xf32>, tensor<4x4xf32>
// CHECK: kiln.quantize
// CHECK: kiln.matmul %{{.*}}, %{{.*}} : tensor<1x4xf32>, tensor<4x2xf32>
// UNKNOWN: error: kiln-quantize: deny: 'nope' is neither a quantized op (matmul conv) nor the name of a node of the model
// NEVER: error: kiln-quantize: deny: 'softmax' is never quantized (quantized ops: matmul conv)
func.func @two_layers(%x: tensor<1x4xf32>) -> tensor<1x2xf32> {
  %w1 = kiln.constant dense<0.5> : tensor<4x4xf32>
  %w2 = kiln.constant dense<0.25> : tensor<4x2xf32>
  %h = kiln.matmul %x, %w1 {kiln.input_range = array<f32: -1.0, 1.0>} : tensor<1x4xf32>, tensor<4x4xf32> loc("fc")
  %r = kiln.relu %h : tensor<1x4xf32>
  %y = kiln.matmul %r, %w2 {kiln.input_range = array<f32: 0.0, 2.0>} : tensor<1x4xf32>, tensor<4x2xf32> loc("head")
  return %y : tensor<1x2xf32>
}
