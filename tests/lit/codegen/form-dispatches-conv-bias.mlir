// RUN: kiln-opt --kiln-to-linalg --kiln-form-dispatches %s | FileCheck %s

// conv + bias + ReLU is one dispatch: the conv contraction grouped with
// its elementwise consumer. (A regression test: the bias used to be viewed
// as [M, 1, 1] through the map (d1, 0, 0), which kept the reshape between
// the contraction and the add from folding, so they became two dispatches.)

// CHECK-LABEL: func.func @conv2d_bias_relu(
// CHECK: call @dispatch_0(
// CHECK-NOT: call @dispatch_1
// CHECK: func.func private @dispatch_0(
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK-NEXT: arith.maxnumf
// CHECK-NOT: func.func private @dispatch_1
func.func @conv2d_bias_relu(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x1x1xf32>, %b: tensor<32xf32>) -> tensor<1x32x8x8xf32> {
  %0 = kiln.conv %x, %w, %b : tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>, tensor<32xf32>
  %1 = kiln.relu %0 : tensor<1x32x8x8xf32>
  return %1 : tensor<1x32x8x8xf32>
}
