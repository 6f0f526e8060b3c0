// An external kernel needs static shapes like every other op.
// RUN: not kiln-opt --kiln-to-linalg %s 2>&1 | FileCheck %s

// CHECK: error: 'kiln.custom_call' op has a dynamic shape; the CPU back end needs static shapes
func.func @dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %y = kiln.custom_call "com.example.Swish"(%x) : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}
