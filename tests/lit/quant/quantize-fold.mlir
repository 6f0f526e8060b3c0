// RUN: kiln-opt %s -split-input-file --kiln-quantize --kiln-graph-cleanup | FileCheck %s

// kiln-quantize with the folding (the default): the quantized matmul and
// conv become integer contractions (i8 x i8 -> i32) with the zero-point
// correction and a dequantize epilogue; no f32 weight is left.

// CHECK-LABEL: func.func @matmul
// CHECK-NOT: tensor<2x2xf32>
// CHECK: %[[Q:.*]] = kiln.quantize %arg0, {{.*}} : tensor<3x2xf32>, tensor<f32>, tensor<i8>
// CHECK: %[[P:.*]] = kiln.matmul %[[Q]], {{.*}} : tensor<3x2xi8>, tensor<2x2xi8>
// CHECK: %[[C:.*]] = kiln.sub %[[P]], {{.*}} : tensor<3x2xi32>
// CHECK: %[[Y:.*]] = kiln.dequantize %[[C]], {{.*}} : tensor<3x2xi32>, tensor<2xf32>, tensor<2xi32>
// CHECK: return %[[Y]]
func.func @matmul(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = kiln.constant dense<[[1.0, -2.0], [0.5, 4.0]]> : tensor<2x2xf32>
  %y = kiln.matmul %x, %w {kiln.input_range = array<f32: -1.0, 3.0>} : tensor<3x2xf32>, tensor<2x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// The conv's i32 bias joins the integer conv, with the zero-point
// correction folded into it: 3175 - (-128 * 63) = 11239,
// -12700 - (-128 * -127) = -28956.
// CHECK-LABEL: func.func @conv
// CHECK-NOT: tensor<2x1x1x2xf32>
// CHECK-DAG: %[[B:.*]] = kiln.constant dense<[11239, -28956]> : tensor<2xi32>
// CHECK: %[[Q:.*]] = kiln.quantize %arg0, {{.*}} : tensor<1x1x4x4xf32>, tensor<f32>, tensor<i8>
// CHECK: %[[C:.*]] = kiln.conv %[[Q]], %{{.*}}, %[[B]] {{.*}} : tensor<1x1x4x4xi8>, tensor<2x1x1x2xi8>, tensor<2xi32>
// CHECK: kiln.dequantize %[[C]], {{.*}} : tensor<1x2x4x3xi32>, tensor<2xf32>, tensor<2xi32>
func.func @conv(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x3xf32> {
  %w = kiln.constant dense<[[[[2.0, -1.0]]], [[[-1.0, 0.0]]]]> : tensor<2x1x1x2xf32>
  %b = kiln.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %y = kiln.conv %x, %w, %b {kiln.input_range = array<f32: 0.5, 2.55>} : tensor<1x1x4x4xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>
  return %y : tensor<1x2x4x3xf32>
}
