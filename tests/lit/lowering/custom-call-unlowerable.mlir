// Custom calls have no lowering: the pass leaves them and reports them.
// RUN: not kiln-opt --kiln-to-linalg %s 2>&1 | FileCheck %s

// CHECK: error: 'kiln.custom_call' op cannot be lowered to linalg for the CPU back end
func.func @custom(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = kiln.custom_call "my_ops.swish"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
