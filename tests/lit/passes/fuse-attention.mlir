// RUN: kiln-opt %s --kiln-fuse-attention | FileCheck %s

// kiln-fuse-attention: matmul(softmax(scores), V) with scores built from
// matmul(Q, K^T) by scalar scales, additive masks and -inf-filling selects
// becomes one kiln.attention; anything it cannot prove is left alone.

// TorchScript's BERT: Div by sqrt(d), Add of the [B, 1, 1, Sk] padding mask.
// CHECK-LABEL: func.func @torchscript(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<2x3x7x8xf32>, %[[K:[^:]*]]: tensor<2x3x5x8xf32>, %[[V:[^:]*]]: tensor<2x3x5x4xf32>, %[[M:[^:]*]]: tensor<2x1x1x5xf32>
// CHECK: %[[KT:.*]] = kiln.transpose %[[K]]
// CHECK-NEXT: %[[O:.*]] = kiln.attention %[[Q]], %[[KT]], %[[V]] mask %[[M]] {scale = 0.353553385 : f32} : tensor<2x3x7x8xf32>, tensor<2x3x8x5xf32>, tensor<2x3x5x4xf32>, tensor<2x1x1x5xf32> -> tensor<2x3x7x4xf32>
// CHECK-NEXT: return %[[O]]
func.func @torchscript(%q: tensor<2x3x7x8xf32>, %k: tensor<2x3x5x8xf32>, %v: tensor<2x3x5x4xf32>, %mask: tensor<2x1x1x5xf32>) -> tensor<2x3x7x4xf32> {
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x5x8xf32>
  %s = kiln.matmul %q, %kt : tensor<2x3x7x8xf32>, tensor<2x3x8x5xf32>
  %c = kiln.constant dense<2.82842708> : tensor<f32>
  %s1 = kiln.div %s, %c : tensor<2x3x7x5xf32>, tensor<f32>
  %s2 = kiln.add %s1, %mask : tensor<2x3x7x5xf32>, tensor<2x1x1x5xf32>
  %p = kiln.softmax %s2 {axis = -1 : i64} : tensor<2x3x7x5xf32>
  %o = kiln.matmul %p, %v : tensor<2x3x7x5xf32>, tensor<2x3x5x4xf32>
  return %o : tensor<2x3x7x4xf32>
}

// The dynamo exporter: both operands scaled by d^-1/4 (the scales
// multiply), the mask added first and 2-D (reshaped to the scores' rank),
// the softmax axis given as a positive number.
// CHECK-LABEL: func.func @dynamo(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x2x3x16xf32>, %[[KT:[^:]*]]: tensor<1x2x16x6xf32>, %[[V:[^:]*]]: tensor<1x2x6x16xf32>, %[[M:[^:]*]]: tensor<3x6xf32>
// CHECK-NOT: kiln.mul
// CHECK: %[[M4:.*]] = kiln.reshape %[[M]] {shape = array<i64: 1, 1, 3, 6>} : tensor<3x6xf32>{{$}}
// CHECK-NEXT: %[[O:.*]] = kiln.attention %[[Q]], %[[KT]], %[[V]] mask %[[M4]] {scale = 2.500000e-01 : f32}
// CHECK-NOT: kiln.softmax
// CHECK: return %[[O]]
func.func @dynamo(%q: tensor<1x2x3x16xf32>, %kt: tensor<1x2x16x6xf32>, %v: tensor<1x2x6x16xf32>, %mask: tensor<3x6xf32>) -> tensor<1x2x3x16xf32> {
  %c = kiln.constant dense<0.5> : tensor<f32>
  %qs = kiln.mul %q, %c : tensor<1x2x3x16xf32>, tensor<f32>
  %ks = kiln.mul %c, %kt : tensor<f32>, tensor<1x2x16x6xf32>
  %s = kiln.matmul %qs, %ks : tensor<1x2x3x16xf32>, tensor<1x2x16x6xf32>
  %s1 = kiln.add %mask, %s : tensor<3x6xf32>, tensor<1x2x3x6xf32>
  %p = kiln.softmax %s1 {axis = 3 : i64} : tensor<1x2x3x6xf32>
  %o = kiln.matmul %p, %v : tensor<1x2x3x6xf32>, tensor<1x2x6x16xf32>
  return %o : tensor<1x2x3x16xf32>
}

// GPT-2: a causal Where with finfo.min after the scale, then the padding
// mask; a bias added before the scales (0.5, then 0.25) is scaled with
// the scores. The Where
// becomes the additive select(causal, 0, min).
// CHECK-LABEL: func.func @causal(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x2x4x8xf32>, %[[KT:[^:]*]]: tensor<1x2x8x4xf32>, %[[V:[^:]*]]: tensor<1x2x4x8xf32>, %[[C:[^:]*]]: tensor<1x1x4x4xi1>, %[[M:[^:]*]]: tensor<1x1x1x4xf32>, %[[B:[^:]*]]: tensor<1x1x4x4xf32>
// CHECK-DAG: %[[ZERO:.*]] = kiln.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[MIN:.*]] = kiln.constant dense<-3.40282347E+38> : tensor<f32>
// CHECK-DAG: %[[EIGHTH:.*]] = kiln.constant dense<1.250000e-01> : tensor<f32>
// CHECK-DAG: %[[SEL:.*]] = kiln.select %[[C]], %[[ZERO]], %[[MIN]]
// CHECK-DAG: %[[BS:.*]] = kiln.mul %[[B]], %[[EIGHTH]]
// CHECK: %[[M1:.*]] = kiln.add %[[BS]], %[[SEL]]
// CHECK: %[[M2:.*]] = kiln.add %[[M1]], %[[M]]
// CHECK: kiln.attention %[[Q]], %[[KT]], %[[V]] mask %[[M2]] {scale = 1.250000e-01 : f32}
// CHECK-NOT: kiln.matmul
func.func @causal(%q: tensor<1x2x4x8xf32>, %kt: tensor<1x2x8x4xf32>, %v: tensor<1x2x4x8xf32>, %causal: tensor<1x1x4x4xi1>, %mask: tensor<1x1x1x4xf32>, %bias: tensor<1x1x4x4xf32>) -> tensor<1x2x4x8xf32> {
  %w = kiln.matmul %q, %kt : tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>
  %w0 = kiln.add %w, %bias : tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>
  %half = kiln.constant dense<0.5> : tensor<f32>
  %quarter = kiln.constant dense<0.25> : tensor<f32>
  %w1 = kiln.mul %w0, %half : tensor<1x2x4x4xf32>, tensor<f32>
  %w1b = kiln.mul %w1, %quarter : tensor<1x2x4x4xf32>, tensor<f32>
  %min = kiln.constant dense<-3.40282347E+38> : tensor<f32>
  %w2 = kiln.select %causal, %w1b, %min : tensor<1x1x4x4xi1>, tensor<1x2x4x4xf32>, tensor<f32>
  %w3 = kiln.add %w2, %mask : tensor<1x2x4x4xf32>, tensor<1x1x1x4xf32>
  %p = kiln.softmax %w3 {axis = -1 : i64} : tensor<1x2x4x4xf32>
  %o = kiln.matmul %p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}

// A constant causal mask folds: the attention reads a constant, no select
// is left to rebuild it every run.
// CHECK-LABEL: func.func @causal_constant(
// CHECK-NOT: kiln.select
// CHECK: %[[M:.*]] = kiln.constant dense<{{\[\[\[\[}}0.000000e+00, -3.40282347E+38], [0.000000e+00, 0.000000e+00]]]]> : tensor<1x1x2x2xf32>
// CHECK: kiln.attention %arg0, %arg1, %arg2 mask %[[M]] {scale = 1.000000e+00 : f32}
func.func @causal_constant(%q: tensor<1x2x2x8xf32>, %kt: tensor<1x2x8x2xf32>, %v: tensor<1x2x2x8xf32>) -> tensor<1x2x2x8xf32> {
  %w = kiln.matmul %q, %kt : tensor<1x2x2x8xf32>, tensor<1x2x8x2xf32>
  %causal = kiln.constant dense<[[[[true, false], [true, true]]]]> : tensor<1x1x2x2xi1>
  %min = kiln.constant dense<-3.40282347E+38> : tensor<f32>
  %w1 = kiln.select %causal, %w, %min : tensor<1x1x2x2xi1>, tensor<1x2x2x2xf32>, tensor<f32>
  %p = kiln.softmax %w1 {axis = -1 : i64} : tensor<1x2x2x2xf32>
  %o = kiln.matmul %p, %v : tensor<1x2x2x2xf32>, tensor<1x2x2x8xf32>
  return %o : tensor<1x2x2x8xf32>
}

// masked_fill: Where(mask, -inf, scores), the fill first.
// CHECK-LABEL: func.func @masked_fill(
// CHECK-SAME: %[[C:[^:]*]]: tensor<2x1x5xi1>
// CHECK-DAG: %[[ZERO:.*]] = kiln.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[NINF:.*]] = kiln.constant dense<0xFF800000> : tensor<f32>
// CHECK: %[[M:.*]] = kiln.select %[[C]], %[[NINF]], %[[ZERO]] : tensor<2x1x5xi1>, tensor<f32>, tensor<f32>
// CHECK: kiln.attention %arg0, %arg1, %arg2 mask %[[M]] {scale = 1.000000e+00 : f32} : tensor<2x3x4xf32>, tensor<2x4x5xf32>, tensor<2x5x2xf32>, tensor<2x1x5xf32>
func.func @masked_fill(%q: tensor<2x3x4xf32>, %kt: tensor<2x4x5xf32>, %v: tensor<2x5x2xf32>, %c: tensor<2x1x5xi1>) -> tensor<2x3x2xf32> {
  %s = kiln.matmul %q, %kt : tensor<2x3x4xf32>, tensor<2x4x5xf32>
  %f = kiln.constant dense<0xFF800000> : tensor<f32>
  %s1 = kiln.select %c, %f, %s : tensor<2x1x5xi1>, tensor<f32>, tensor<2x3x5xf32>
  %p = kiln.softmax %s1 {axis = -1 : i64} : tensor<2x3x5xf32>
  %o = kiln.matmul %p, %v : tensor<2x3x5xf32>, tensor<2x5x2xf32>
  return %o : tensor<2x3x2xf32>
}

// A splat mask shifts every score alike: dropped. No scale: 1. Rank 3.
// CHECK-LABEL: func.func @splat_mask(
// CHECK: kiln.attention %arg0, %arg1, %arg2 {scale = 1.000000e+00 : f32} : tensor<6x3x4xf32>, tensor<6x4x5xf32>, tensor<6x5x2xf32> -> tensor<6x3x2xf32>
// CHECK-NOT: kiln.add
func.func @splat_mask(%q: tensor<6x3x4xf32>, %kt: tensor<6x4x5xf32>, %v: tensor<6x5x2xf32>) -> tensor<6x3x2xf32> {
  %s = kiln.matmul %q, %kt : tensor<6x3x4xf32>, tensor<6x4x5xf32>
  %m = kiln.constant dense<-7.0> : tensor<6x3x5xf32>
  %s1 = kiln.add %s, %m : tensor<6x3x5xf32>, tensor<6x3x5xf32>
  %p = kiln.softmax %s1 {axis = 2 : i64} : tensor<6x3x5xf32>
  %o = kiln.matmul %p, %v : tensor<6x3x5xf32>, tensor<6x5x2xf32>
  return %o : tensor<6x3x2xf32>
}

// Left alone: the probabilities have another user.
// CHECK-LABEL: func.func @probs_returned(
// CHECK-NOT: kiln.attention
// CHECK: kiln.softmax
func.func @probs_returned(%q: tensor<2x3x4xf32>, %kt: tensor<2x4x5xf32>, %v: tensor<2x5x2xf32>) -> (tensor<2x3x2xf32>, tensor<2x3x5xf32>) {
  %s = kiln.matmul %q, %kt : tensor<2x3x4xf32>, tensor<2x4x5xf32>
  %p = kiln.softmax %s {axis = -1 : i64} : tensor<2x3x5xf32>
  %o = kiln.matmul %p, %v : tensor<2x3x5xf32>, tensor<2x5x2xf32>
  return %o, %p : tensor<2x3x2xf32>, tensor<2x3x5xf32>
}

// Left alone: the scores have another user (a scale of one use only).
// CHECK-LABEL: func.func @scores_shared(
// CHECK-NOT: kiln.attention
func.func @scores_shared(%q: tensor<2x3x4xf32>, %kt: tensor<2x4x5xf32>, %v: tensor<2x5x2xf32>) -> (tensor<2x3x2xf32>, tensor<2x3x5xf32>) {
  %s = kiln.matmul %q, %kt : tensor<2x3x4xf32>, tensor<2x4x5xf32>
  %c = kiln.constant dense<0.5> : tensor<f32>
  %s1 = kiln.mul %s, %c : tensor<2x3x5xf32>, tensor<f32>
  %p = kiln.softmax %s1 {axis = -1 : i64} : tensor<2x3x5xf32>
  %o = kiln.matmul %p, %v : tensor<2x3x5xf32>, tensor<2x5x2xf32>
  return %o, %s : tensor<2x3x2xf32>, tensor<2x3x5xf32>
}

// Left alone: softmax over another axis than the keys.
// CHECK-LABEL: func.func @softmax_axis(
// CHECK-NOT: kiln.attention
func.func @softmax_axis(%q: tensor<2x3x4xf32>, %kt: tensor<2x4x5xf32>, %v: tensor<2x5x2xf32>) -> tensor<2x3x2xf32> {
  %s = kiln.matmul %q, %kt : tensor<2x3x4xf32>, tensor<2x4x5xf32>
  %p = kiln.softmax %s {axis = 1 : i64} : tensor<2x3x5xf32>
  %o = kiln.matmul %p, %v : tensor<2x3x5xf32>, tensor<2x5x2xf32>
  return %o : tensor<2x3x2xf32>
}

// Left alone: K^T broadcast over the batch (one key matrix for all heads).
// CHECK-LABEL: func.func @broadcast_keys(
// CHECK-NOT: kiln.attention
func.func @broadcast_keys(%q: tensor<2x3x4xf32>, %kt: tensor<1x4x5xf32>, %v: tensor<2x5x2xf32>) -> tensor<2x3x2xf32> {
  %s = kiln.matmul %q, %kt : tensor<2x3x4xf32>, tensor<1x4x5xf32>
  %p = kiln.softmax %s {axis = -1 : i64} : tensor<2x3x5xf32>
  %o = kiln.matmul %p, %v : tensor<2x3x5xf32>, tensor<2x5x2xf32>
  return %o : tensor<2x3x2xf32>
}

// Left alone: a Where filling with a finite value is not a mask.
// CHECK-LABEL: func.func @finite_fill(
// CHECK-NOT: kiln.attention
func.func @finite_fill(%q: tensor<2x3x4xf32>, %kt: tensor<2x4x5xf32>, %v: tensor<2x5x2xf32>, %c: tensor<2x3x5xi1>) -> tensor<2x3x2xf32> {
  %s = kiln.matmul %q, %kt : tensor<2x3x4xf32>, tensor<2x4x5xf32>
  %f = kiln.constant dense<-100.0> : tensor<f32>
  %s1 = kiln.select %c, %s, %f : tensor<2x3x5xi1>, tensor<2x3x5xf32>, tensor<f32>
  %p = kiln.softmax %s1 {axis = -1 : i64} : tensor<2x3x5xf32>
  %o = kiln.matmul %p, %v : tensor<2x3x5xf32>, tensor<2x5x2xf32>
  return %o : tensor<2x3x2xf32>
}

// Left alone: 16-bit matmuls (kiln-mixed-precision's) and a non-scalar
// scale.
// CHECK-LABEL: func.func @bf16(
// CHECK-NOT: kiln.attention
func.func @bf16(%q: tensor<2x3x4xbf16>, %kt: tensor<2x4x5xbf16>, %v: tensor<2x5x2xbf16>) -> tensor<2x3x2xf32> {
  %s = kiln.matmul %q, %kt : tensor<2x3x4xbf16>, tensor<2x4x5xbf16>
  %sf = kiln.cast %s to f32 : tensor<2x3x5xbf16>
  %p = kiln.softmax %sf {axis = -1 : i64} : tensor<2x3x5xf32>
  %pb = kiln.cast %p to bf16 : tensor<2x3x5xf32>
  %o = kiln.matmul %pb, %v : tensor<2x3x5xbf16>, tensor<2x5x2xbf16>
  %of = kiln.cast %o to f32 : tensor<2x3x2xbf16>
  return %of : tensor<2x3x2xf32>
}

// CHECK-LABEL: func.func @vector_scale(
// CHECK-NOT: kiln.attention
func.func @vector_scale(%q: tensor<2x3x4xf32>, %kt: tensor<2x4x5xf32>, %v: tensor<2x5x2xf32>) -> tensor<2x3x2xf32> {
  %s = kiln.matmul %q, %kt : tensor<2x3x4xf32>, tensor<2x4x5xf32>
  %c = kiln.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  %s1 = kiln.mul %s, %c : tensor<2x3x5xf32>, tensor<5xf32>
  %p = kiln.softmax %s1 {axis = -1 : i64} : tensor<2x3x5xf32>
  %o = kiln.matmul %p, %v : tensor<2x3x5xf32>, tensor<2x5x2xf32>
  return %o : tensor<2x3x2xf32>
}
