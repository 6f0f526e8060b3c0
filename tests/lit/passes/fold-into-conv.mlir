// RUN: kiln-opt %s --kiln-graph-cleanup | FileCheck %s

// A conv with constant weights absorbs a following per-channel affine map
// (batch_norm, or mul / add by a [C, 1, 1] constant) into its filter and
// bias: W'[o] = W[o] * s[o], b'[o] = b[o] * s[o] + t[o]. Expected values are
// worked by hand; see each comment.

// s = scale / sqrt(var + eps) = [1, 2] / sqrt([3, 0] + 1) = [0.5, 2]
// W' = [[1, 2] * 0.5, [3, -4] * 2] = [[0.5, 1], [6, -8]]
// b' = (0 - mean) * s + beta = [-1 * 0.5 + 0.5, 1 * 2 + 0] = [0, 2]
// CHECK-LABEL: func.func @conv_bn(
// CHECK-DAG: %[[W:.*]] = kiln.constant dense<{{\[\[\[\[}}5.000000e-01]], {{\[\[}}1.000000e+00]]], {{\[\[\[}}6.000000e+00]], {{\[\[}}-8.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-DAG: %[[B:.*]] = kiln.constant dense<[0.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: %[[Y:.*]] = kiln.conv %arg0, %[[W]], %[[B]] {pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x2x5x5xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>
// CHECK-NOT: kiln.batch_norm
// CHECK: return %[[Y]] : tensor<1x2x3x3xf32>
func.func @conv_bn(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %w = kiln.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[-4.0]]]]> : tensor<2x2x1x1xf32>
  %scale = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = kiln.constant dense<[0.5, 0.0]> : tensor<2xf32>
  %mean = kiln.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %var = kiln.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %y = kiln.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : tensor<1x2x5x5xf32>, tensor<2x2x1x1xf32>
  %z = kiln.batch_norm %y, %scale, %beta, %mean, %var {epsilon = 1.0 : f32} : tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  return %z : tensor<1x2x3x3xf32>
}

// With a conv bias b = [2, 1]: b' = (b - mean) * s + beta = [1, 4]. A
// depthwise (groups = 2) 1-D conv scales each filter by its channel's s.
// CHECK-LABEL: func.func @conv_bias_bn_depthwise(
// CHECK-DAG: %[[W:.*]] = kiln.constant dense<{{\[\[\[}}5.000000e-01, -5.000000e-01]], {{\[\[}}2.000000e+00, 6.000000e+00]]]> : tensor<2x1x2xf32>
// CHECK-DAG: %[[B:.*]] = kiln.constant dense<[1.000000e+00, 4.000000e+00]> : tensor<2xf32>
// CHECK: %[[Y:.*]] = kiln.conv %arg0, %[[W]], %[[B]] {groups = 2 : i64} : tensor<1x2x8xf32>, tensor<2x1x2xf32>, tensor<2xf32>
// CHECK-NEXT: return %[[Y]] : tensor<1x2x7xf32>
func.func @conv_bias_bn_depthwise(%x: tensor<1x2x8xf32>) -> tensor<1x2x7xf32> {
  %w = kiln.constant dense<[[[1.0, -1.0]], [[1.0, 3.0]]]> : tensor<2x1x2xf32>
  %b = kiln.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %scale = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %beta = kiln.constant dense<[0.5, 0.0]> : tensor<2xf32>
  %mean = kiln.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %var = kiln.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %y = kiln.conv %x, %w, %b {groups = 2 : i64} : tensor<1x2x8xf32>, tensor<2x1x2xf32>, tensor<2xf32>
  %z = kiln.batch_norm %y, %scale, %beta, %mean, %var {epsilon = 1.0 : f32} : tensor<1x2x7xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  return %z : tensor<1x2x7xf32>
}

// f16 is computed in double and rounded once: s = 1 / sqrt(2 + 0.25) = 2/3,
// W' = [3 * 2/3, 1 * 2/3] = [2, 0.6665] (0.66650390625 is the f16 nearest
// to 2/3), b' = (0 - 0.5) * 2/3 + 1 = 0.6665.
// CHECK-LABEL: func.func @conv_bn_f16(
// CHECK-DAG: %[[W:.*]] = kiln.constant dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}6.665040e-01]]]]> : tensor<1x2x1x1xf16>
// CHECK-DAG: %[[B:.*]] = kiln.constant dense<6.665040e-01> : tensor<1xf16>
// CHECK: %[[Y:.*]] = kiln.conv %arg0, %[[W]], %[[B]] : tensor<1x2x4x4xf16>, tensor<1x2x1x1xf16>, tensor<1xf16>
// CHECK-NEXT: return %[[Y]]
func.func @conv_bn_f16(%x: tensor<1x2x4x4xf16>) -> tensor<1x1x4x4xf16> {
  %w = kiln.constant dense<[[[[3.0]], [[1.0]]]]> : tensor<1x2x1x1xf16>
  %scale = kiln.constant dense<1.0> : tensor<1xf16>
  %beta = kiln.constant dense<1.0> : tensor<1xf16>
  %mean = kiln.constant dense<0.5> : tensor<1xf16>
  %var = kiln.constant dense<2.0> : tensor<1xf16>
  %y = kiln.conv %x, %w : tensor<1x2x4x4xf16>, tensor<1x2x1x1xf16>
  %z = kiln.batch_norm %y, %scale, %beta, %mean, %var {epsilon = 0.25 : f32} : tensor<1x1x4x4xf16>, tensor<1xf16>, tensor<1xf16>, tensor<1xf16>, tensor<1xf16>
  return %z : tensor<1x1x4x4xf16>
}

// An exporter's per-channel mul and add ([C, 1, 1] and a scalar):
// W' = W * [2, 0.5], b' = [0, 0] * [2, 0.5] + [1, 1] = [1, 1].
// CHECK-LABEL: func.func @conv_mul_add(
// CHECK-DAG: %[[W:.*]] = kiln.constant dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}4.000000e+00]]], {{\[\[\[}}1.500000e+00]], {{\[\[}}-2.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-DAG: %[[B:.*]] = kiln.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK: %[[Y:.*]] = kiln.conv %arg0, %[[W]], %[[B]] :
// CHECK-NEXT: return %[[Y]] : tensor<1x2x3x3xf32>
func.func @conv_mul_add(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = kiln.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[-4.0]]]]> : tensor<2x2x1x1xf32>
  %k = kiln.constant dense<[[[2.0]], [[0.5]]]> : tensor<2x1x1xf32>
  %one = kiln.constant dense<1.0> : tensor<f32>
  %y = kiln.conv %x, %w : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>
  %m = kiln.mul %k, %y : tensor<2x1x1xf32>, tensor<1x2x3x3xf32>
  %a = kiln.add %m, %one : tensor<1x2x3x3xf32>, tensor<f32>
  return %a : tensor<1x2x3x3xf32>
}

//===----------------------------------------------------------------------===//
// Not folded
//===----------------------------------------------------------------------===//

// A run-time filter: the batch_norm stays.
// CHECK-LABEL: func.func @conv_bn_dynamic_filter(
// CHECK: %[[Y:.*]] = kiln.conv %arg0, %arg1 :
// CHECK: %[[Z:.*]] = kiln.batch_norm %[[Y]]
// CHECK: return %[[Z]]
func.func @conv_bn_dynamic_filter(%x: tensor<1x2x3x3xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32> {
  %p = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = kiln.conv %x, %w : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>
  %z = kiln.batch_norm %y, %p, %p, %p, %p : tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  return %z : tensor<1x2x3x3xf32>
}

// A run-time bias or statistics: the batch_norm stays.
// CHECK-LABEL: func.func @conv_bn_dynamic_parameters(
// CHECK: %[[Y:.*]] = kiln.conv %arg0, %{{.*}}, %arg1 :
// CHECK: %[[Z:.*]] = kiln.batch_norm %[[Y]]
// CHECK: %[[Y2:.*]] = kiln.conv %arg0, %{{.*}} :
// CHECK: %[[Z2:.*]] = kiln.batch_norm %[[Y2]], %{{.*}}, %{{.*}}, %arg1,
// CHECK: return %[[Z]], %[[Z2]]
func.func @conv_bn_dynamic_parameters(%x: tensor<1x2x3x3xf32>, %v: tensor<2xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %w = kiln.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[-4.0]]]]> : tensor<2x2x1x1xf32>
  %p = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = kiln.conv %x, %w, %v : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>
  %z = kiln.batch_norm %y, %p, %p, %p, %p : tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  %y2 = kiln.conv %x, %w : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>
  %z2 = kiln.batch_norm %y2, %p, %p, %v, %p : tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  return %z, %z2 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// The conv result has a second user, which needs the unnormalized values.
// CHECK-LABEL: func.func @conv_bn_shared(
// CHECK: %[[Y:.*]] = kiln.conv
// CHECK: %[[Z:.*]] = kiln.batch_norm %[[Y]]
// CHECK: return %[[Z]], %[[Y]]
func.func @conv_bn_shared(%x: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) {
  %w = kiln.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[-4.0]]]]> : tensor<2x2x1x1xf32>
  %p = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = kiln.conv %x, %w : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>
  %z = kiln.batch_norm %y, %p, %p, %p, %p : tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  return %z, %y : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}

// A batch_norm whose input is not a conv stays.
// CHECK-LABEL: func.func @bn_without_conv(
// CHECK: %[[Z:.*]] = kiln.batch_norm %arg0
// CHECK: return %[[Z]]
func.func @bn_without_conv(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %p = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %z = kiln.batch_norm %x, %p, %p, %p, %p : tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  return %z : tensor<1x2x3x3xf32>
}

// Constants that vary along a spatial dim, or that broadcast the conv
// result to a larger shape, are not per-channel maps.
// CHECK-LABEL: func.func @conv_mul_not_per_channel(
// CHECK: %[[Y:.*]] = kiln.conv
// CHECK: %[[M:.*]] = kiln.mul %[[Y]], %{{.*}} : tensor<1x2x3x3xf32>, tensor<1x1x3xf32>
// CHECK: %[[Y2:.*]] = kiln.conv
// CHECK: %[[A:.*]] = kiln.add %[[Y2]], %{{.*}} : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>
// CHECK: return %[[M]], %[[A]]
func.func @conv_mul_not_per_channel(%x: tensor<1x2x3x3xf32>, %x2: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<2x2x3x3xf32>) {
  %w = kiln.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[-4.0]]]]> : tensor<2x2x1x1xf32>
  %k = kiln.constant dense<[[[1.0, 2.0, 3.0]]]> : tensor<1x1x3xf32>
  %y = kiln.conv %x, %w : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>
  %m = kiln.mul %y, %k : tensor<1x2x3x3xf32>, tensor<1x1x3xf32>
  %y2 = kiln.conv %x2, %w : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>
  %a = kiln.add %y2, %w : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>
  return %m, %a : tensor<1x2x3x3xf32>, tensor<2x2x3x3xf32>
}
