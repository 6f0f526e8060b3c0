// RUN: kiln-opt --kiln-fold-qdq --kiln-graph-cleanup -split-input-file %s | FileCheck %s

// kiln-fold-qdq: contractions of dequantized int8 values become integer
// contractions (i8 x i8 -> i32) with zero-point corrections computed at
// compile time, and a dequantize by sa * sb; the epilogue (bias, relu, the
// next quantize) stays after it, elementwise. Cases that must not fold stay
// dequantize -> f32 op.

// za = -3: matmul(qa, qb) - za * colsum(qb) = ... - (-3) * [-1, 8]; per-column
// weight scales give a per-column result scale 0.5 * [0.25, 0.125].
// CHECK-LABEL: func.func @matmul_per_column
// CHECK-DAG: %[[ZY:.*]] = kiln.constant dense<5> : tensor<i8>
// CHECK-DAG: %[[SY:.*]] = kiln.constant dense<1.000000e-01> : tensor<f32>
// CHECK-DAG: %[[ZERO:.*]] = kiln.constant dense<0> : tensor<2xi32>
// CHECK-DAG: %[[SCALE:.*]] = kiln.constant dense<[1.250000e-01, 6.250000e-02]> : tensor<2xf32>
// CHECK-DAG: %[[CORR:.*]] = kiln.constant dense<[3, -24]> : tensor<2xi32>
// CHECK-DAG: %[[QB:.*]] = kiln.constant dense<{{\[\[}}1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
// CHECK: %[[ACC:.*]] = kiln.matmul %arg0, %[[QB]] : tensor<4x3xi8>, tensor<3x2xi8>
// CHECK: %[[SUB:.*]] = kiln.sub %[[ACC]], %[[CORR]] : tensor<4x2xi32>, tensor<2xi32>
// CHECK: %[[DQ:.*]] = kiln.dequantize %[[SUB]], %[[SCALE]], %[[ZERO]] : tensor<4x2xi32>, tensor<2xf32>, tensor<2xi32>
// CHECK: %[[ADD:.*]] = kiln.add %[[DQ]]
// CHECK: %[[RELU:.*]] = kiln.relu %[[ADD]]
// CHECK: kiln.quantize %[[RELU]], %[[SY]], %[[ZY]]
// CHECK-NOT: kiln.dequantize
func.func @matmul_per_column(%x: tensor<4x3xi8>) -> tensor<4x2xi8> {
  %sa = kiln.constant dense<0.5> : tensor<f32>
  %za = kiln.constant dense<-3> : tensor<i8>
  %a = kiln.dequantize %x, %sa, %za : tensor<4x3xi8>, tensor<f32>, tensor<i8>
  %qb = kiln.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %sb = kiln.constant dense<[0.25, 0.125]> : tensor<2xf32>
  %zb = kiln.constant dense<0> : tensor<2xi8>
  %b = kiln.dequantize %qb, %sb, %zb : tensor<3x2xi8>, tensor<2xf32>, tensor<2xi8>
  %c = kiln.matmul %a, %b : tensor<4x3xf32>, tensor<3x2xf32>
  %bias = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %d = kiln.add %c, %bias : tensor<4x2xf32>, tensor<2xf32>
  %r = kiln.relu %d : tensor<4x2xf32>
  %sy = kiln.constant dense<0.1> : tensor<f32>
  %zy = kiln.constant dense<5> : tensor<i8>
  %y = kiln.quantize %r, %sy, %zy : tensor<4x2xf32>, tensor<f32>, tensor<i8>
  return %y : tensor<4x2xi8>
}

// -----

// A Gemm's transB: the transpose moves into the int8 constant; a zero
// activation zero point needs no correction.
// CHECK-LABEL: func.func @gemm_transposed_weight
// CHECK-DAG: %[[QB:.*]] = kiln.constant dense<{{\[\[}}1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
// CHECK: %[[ACC:.*]] = kiln.matmul %arg0, %[[QB]] : tensor<4x3xi8>, tensor<3x2xi8>
// CHECK-NEXT: kiln.dequantize %[[ACC]], %{{.*}}, %{{.*}} : tensor<4x2xi32>, tensor<f32>, tensor<i32>
// CHECK-NOT: kiln.transpose
func.func @gemm_transposed_weight(%x: tensor<4x3xi8>) -> tensor<4x2xf32> {
  %sa = kiln.constant dense<0.5> : tensor<1xf32>
  %za = kiln.constant dense<0> : tensor<1xi8>
  %a = kiln.dequantize %x, %sa, %za : tensor<4x3xi8>, tensor<1xf32>, tensor<1xi8>
  %qb = kiln.constant dense<[[1, 3, -5], [-2, 4, 6]]> : tensor<2x3xi8>
  %sb = kiln.constant dense<0.25> : tensor<f32>
  %zb = kiln.constant dense<0> : tensor<i8>
  %b = kiln.dequantize %qb, %sb, %zb : tensor<2x3xi8>, tensor<f32>, tensor<i8>
  %bt = kiln.transpose %b {perm = array<i64: 1, 0>} : tensor<2x3xf32>
  %c = kiln.matmul %a, %bt : tensor<4x3xf32>, tensor<3x2xf32>
  return %c : tensor<4x2xf32>
}

// -----

// Batch matmul with a constant rhs: column sums per batch, [2, 1, 2].
// CHECK-LABEL: func.func @batch_matmul
// CHECK-DAG: %[[CORR:.*]] = kiln.constant dense<{{\[\[\[}}-1, 8]], {{\[\[}}3, 3]]]> : tensor<2x1x2xi32>
// CHECK: %[[ACC:.*]] = kiln.matmul %arg0, %{{.*}} : tensor<2x4x3xi8>, tensor<2x3x2xi8>
// CHECK: %[[SUB:.*]] = kiln.sub %[[ACC]], %[[CORR]] : tensor<2x4x2xi32>, tensor<2x1x2xi32>
// CHECK: kiln.dequantize %[[SUB]]
func.func @batch_matmul(%x: tensor<2x4x3xi8>) -> tensor<2x4x2xf32> {
  %sa = kiln.constant dense<0.5> : tensor<f32>
  %za = kiln.constant dense<1> : tensor<i8>
  %a = kiln.dequantize %x, %sa, %za : tensor<2x4x3xi8>, tensor<f32>, tensor<i8>
  %qb = kiln.constant dense<[[[1, -2], [3, 4], [-5, 6]], [[1, 1], [1, 1], [1, 1]]]> : tensor<2x3x2xi8>
  %sb = kiln.constant dense<0.25> : tensor<f32>
  %zb = kiln.constant dense<0> : tensor<i8>
  %b = kiln.dequantize %qb, %sb, %zb : tensor<2x3x2xi8>, tensor<f32>, tensor<i8>
  %c = kiln.matmul %a, %b : tensor<2x4x3xf32>, tensor<2x3x2xf32>
  return %c : tensor<2x4x2xf32>
}

// -----

// Conv with an input zero point, per-channel weights and an int32 bias
// dequantized by sx * sw: the input is padded with zx, and the bias minus
// zx * sum(w) = [10, -20, 30] - (-128 * 18) joins the i32 conv.
// CHECK-LABEL: func.func @conv_int32_bias
// CHECK-DAG: %[[BIAS:.*]] = kiln.constant dense<[2314, 2284, 2334]> : tensor<3xi32>
// CHECK-DAG: %[[SCALE:.*]] = kiln.constant dense<[1.250000e-01, 2.500000e-01, 5.000000e-01]> : tensor<3xf32>
// CHECK: %[[PAD:.*]] = kiln.pad %arg0 {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = -1.280000e+02 : f64} : tensor<1x2x4x4xi8>
// CHECK: %[[ACC:.*]] = kiln.conv %[[PAD]], %{{.*}}, %[[BIAS]] {{.*}}pads = array<i64: 0, 0, 0, 0>{{.*}} : tensor<1x2x6x6xi8>, tensor<3x2x3x3xi8>, tensor<3xi32>
// CHECK-NEXT: kiln.dequantize %[[ACC]], %[[SCALE]], %{{.*}} : tensor<1x3x4x4xi32>, tensor<3xf32>, tensor<3xi32>
func.func @conv_int32_bias(%x: tensor<1x2x4x4xi8>) -> tensor<1x3x4x4xf32> {
  %sx = kiln.constant dense<0.5> : tensor<f32>
  %zx = kiln.constant dense<-128> : tensor<i8>
  %dx = kiln.dequantize %x, %sx, %zx : tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>
  %qw = kiln.constant dense<1> : tensor<3x2x3x3xi8>
  %sw = kiln.constant dense<[0.25, 0.5, 1.0]> : tensor<3xf32>
  %zw = kiln.constant dense<0> : tensor<3xi8>
  %dw = kiln.dequantize %qw, %sw, %zw {axis = 0 : i64} : tensor<3x2x3x3xi8>, tensor<3xf32>, tensor<3xi8>
  %qb = kiln.constant dense<[10, -20, 30]> : tensor<3xi32>
  %sb = kiln.constant dense<[0.125, 0.25, 0.5]> : tensor<3xf32>
  %zb = kiln.constant dense<0> : tensor<3xi32>
  %db = kiln.dequantize %qb, %sb, %zb {axis = 0 : i64} : tensor<3xi32>, tensor<3xf32>, tensor<3xi32>
  %y = kiln.conv %dx, %dw, %db {pads = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

// Depthwise (groups = C): no padding, so no pad op; -zx * sum(w) = -3 * 18
// becomes the conv's bias; the bias whose scale is not sx * sw is added in
// f32 after the dequantize.
// CHECK-LABEL: func.func @depthwise_float_bias
// CHECK: %[[CORR:.*]] = kiln.constant dense<-54> : tensor<2xi32>
// CHECK: %[[ACC:.*]] = kiln.conv %arg0, %{{.*}}, %[[CORR]] {{.*}}groups = 2 : i64{{.*}} : tensor<1x2x4x4xi8>, tensor<2x1x3x3xi8>, tensor<2xi32>
// CHECK: %[[DQ:.*]] = kiln.dequantize %[[ACC]]
// CHECK: kiln.add %[[DQ]], %{{.*}} : tensor<1x2x2x2xf32>, tensor<2x1x1xf32>
func.func @depthwise_float_bias(%x: tensor<1x2x4x4xi8>) -> tensor<1x2x2x2xf32> {
  %sx = kiln.constant dense<0.5> : tensor<f32>
  %zx = kiln.constant dense<3> : tensor<i8>
  %dx = kiln.dequantize %x, %sx, %zx : tensor<1x2x4x4xi8>, tensor<f32>, tensor<i8>
  %qw = kiln.constant dense<2> : tensor<2x1x3x3xi8>
  %sw = kiln.constant dense<0.25> : tensor<f32>
  %zw = kiln.constant dense<0> : tensor<i8>
  %dw = kiln.dequantize %qw, %sw, %zw : tensor<2x1x3x3xi8>, tensor<f32>, tensor<i8>
  %qb = kiln.constant dense<[4, 8]> : tensor<2xi32>
  %sb = kiln.constant dense<0.5> : tensor<f32>
  %zb = kiln.constant dense<0> : tensor<i32>
  %db = kiln.dequantize %qb, %sb, %zb : tensor<2xi32>, tensor<f32>, tensor<i32>
  %y = kiln.conv %dx, %dw, %db {groups = 2 : i64} : tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// A weight with a per-tensor zero point of 1: the rowsum(qa) * zb term is
// a run-time sum of the activation over K.
// CHECK-LABEL: func.func @weight_zero_point
// CHECK-DAG: %[[S:.*]] = kiln.constant dense<1.250000e-01> : tensor<f32>
// CHECK: %[[ACC:.*]] = kiln.matmul %arg0, %{{.*}} : tensor<4x3xi8>, tensor<3x2xi8>
// CHECK: %[[A32:.*]] = kiln.cast %arg0 to i32 : tensor<4x3xi8>
// CHECK: %[[ROWS:.*]] = kiln.reduce sum %[[A32]] {axes = array<i64: 1>} : tensor<4x3xi32>
// CHECK: %[[SUB:.*]] = kiln.sub %[[ACC]], %[[ROWS]] : tensor<4x2xi32>, tensor<4x1xi32>
// CHECK: kiln.dequantize %[[SUB]], %[[S]]
// CHECK-NOT: kiln.matmul
func.func @weight_zero_point(%x: tensor<4x3xi8>) -> tensor<4x2xf32> {
  %sa = kiln.constant dense<0.5> : tensor<f32>
  %za = kiln.constant dense<0> : tensor<i8>
  %a = kiln.dequantize %x, %sa, %za : tensor<4x3xi8>, tensor<f32>, tensor<i8>
  %qb = kiln.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %sb = kiln.constant dense<0.25> : tensor<f32>
  %zb = kiln.constant dense<1> : tensor<i8>
  %b = kiln.dequantize %qb, %sb, %zb : tensor<3x2xi8>, tensor<f32>, tensor<i8>
  %c = kiln.matmul %a, %b : tensor<4x3xf32>, tensor<3x2xf32>
  return %c : tensor<4x2xf32>
}

// -----

// Two computed operands (attention's Q K^T, P V), per tensor: za = 2 costs
// za * colsum(qb), a run-time sum of the right operand over K; zb = 0
// costs nothing. Scale 0.5 * 0.25.
// CHECK-LABEL: func.func @runtime_rhs
// CHECK-DAG: %[[S:.*]] = kiln.constant dense<1.250000e-01> : tensor<f32>
// CHECK-DAG: %[[ZA:.*]] = kiln.constant dense<2> : tensor<i32>
// CHECK: %[[ACC:.*]] = kiln.matmul %arg0, %arg1 : tensor<4x3xi8>, tensor<3x2xi8>
// CHECK: %[[B32:.*]] = kiln.cast %arg1 to i32 : tensor<3x2xi8>
// CHECK: %[[COLS:.*]] = kiln.reduce sum %[[B32]] {axes = array<i64: 0>} : tensor<3x2xi32>
// CHECK: %[[COLV:.*]] = kiln.reshape %[[COLS]] {shape = array<i64: 2>}
// CHECK: %[[TERM:.*]] = kiln.mul %[[COLV]], %[[ZA]]
// CHECK: %[[SUB:.*]] = kiln.sub %[[ACC]], %[[TERM]]
// CHECK: kiln.dequantize %[[SUB]], %[[S]]
// CHECK-NOT: kiln.matmul
func.func @runtime_rhs(%x: tensor<4x3xi8>, %w: tensor<3x2xi8>) -> tensor<4x2xf32> {
  %sa = kiln.constant dense<0.5> : tensor<f32>
  %za = kiln.constant dense<2> : tensor<i8>
  %sb = kiln.constant dense<0.25> : tensor<f32>
  %zb = kiln.constant dense<0> : tensor<i8>
  %a = kiln.dequantize %x, %sa, %za : tensor<4x3xi8>, tensor<f32>, tensor<i8>
  %b = kiln.dequantize %w, %sb, %zb : tensor<3x2xi8>, tensor<f32>, tensor<i8>
  %c = kiln.matmul %a, %b : tensor<4x3xf32>, tensor<3x2xf32>
  return %c : tensor<4x2xf32>
}

// -----

// A constant left operand quantized per row (axis 0) times an activation
// with zero point 3: rowsum(qa) * zb = [-1, 8] * 3 is a constant, and the
// result is dequantized per row by [0.5, 0.25] * 0.1.
// CHECK-LABEL: func.func @constant_lhs_per_row
// CHECK-DAG: %[[CORR:.*]] = kiln.constant dense<{{\[\[}}-3], [24]]> : tensor<2x1xi32>
// CHECK-DAG: %[[S:.*]] = kiln.constant dense<[5.000000e-02, 2.500000e-02]> : tensor<2xf32>
// CHECK: %[[ACC:.*]] = kiln.matmul %{{.*}}, %arg0 : tensor<2x3xi8>, tensor<3x4xi8>
// CHECK: %[[SUB:.*]] = kiln.sub %[[ACC]], %[[CORR]] : tensor<2x4xi32>, tensor<2x1xi32>
// CHECK: kiln.dequantize %[[SUB]], %[[S]], %{{.*}} {axis = 0 : i64}
func.func @constant_lhs_per_row(%x: tensor<3x4xi8>) -> tensor<2x4xf32> {
  %qat = kiln.constant dense<[[1, 3, -5], [-2, 4, 6]]> : tensor<2x3xi8>
  %sa = kiln.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %za = kiln.constant dense<0> : tensor<2xi8>
  %a = kiln.dequantize %qat, %sa, %za {axis = 0 : i64} : tensor<2x3xi8>, tensor<2xf32>, tensor<2xi8>
  %sb = kiln.constant dense<0.1> : tensor<f32>
  %zb = kiln.constant dense<3> : tensor<i8>
  %b = kiln.dequantize %x, %sb, %zb : tensor<3x4xi8>, tensor<f32>, tensor<i8>
  %c = kiln.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf32>
  return %c : tensor<2x4xf32>
}

// -----

// Must not fold: an activation quantized per axis, and a weight quantized
// along its K axis (a constant lhs per column, i.e. along K, neither). Dequantizes of constants left over are evaluated.
// CHECK-LABEL: func.func @no_fold_per_axis
// CHECK: %[[W:.*]] = kiln.constant dense<{{\[\[}}2.500000e-01, -5.000000e-01], [1.500000e+00, 2.000000e+00], [-5.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK: %[[A:.*]] = kiln.dequantize %arg0, %{{.*}}, %{{.*}} {axis = 0 : i64}
// CHECK: kiln.matmul %[[A]], %[[W]] : tensor<4x3xf32>, tensor<3x2xf32>
func.func @no_fold_per_axis(%x: tensor<4x3xi8>) -> tensor<4x2xf32> {
  %sa = kiln.constant dense<[0.5, 0.25, 1.0, 2.0]> : tensor<4xf32>
  %za = kiln.constant dense<0> : tensor<4xi8>
  %a = kiln.dequantize %x, %sa, %za {axis = 0 : i64} : tensor<4x3xi8>, tensor<4xf32>, tensor<4xi8>
  %qb = kiln.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %sb = kiln.constant dense<[0.25, 0.5, 1.0]> : tensor<3xf32>
  %zb = kiln.constant dense<0> : tensor<3xi8>
  %b = kiln.dequantize %qb, %sb, %zb {axis = 0 : i64} : tensor<3x2xi8>, tensor<3xf32>, tensor<3xi8>
  %c = kiln.matmul %a, %b : tensor<4x3xf32>, tensor<3x2xf32>
  return %c : tensor<4x2xf32>
}

// -----

// Leftover dequantizes of constants are evaluated: per axis along the last
// dim, i32 input: (q - zp) * s.
// CHECK-LABEL: func.func @evaluate_dequantize
// CHECK: %[[C:.*]] = kiln.constant dense<{{\[\[}}1.000000e+00, 2.500000e-01], [-2.000000e+00, 5.000000e-01]]> : tensor<2x2xf32>
// CHECK: return %[[C]]
func.func @evaluate_dequantize() -> tensor<2x2xf32> {
  %b = kiln.constant dense<[[5, 3], [-1, 4]]> : tensor<2x2xi32>
  %bs = kiln.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %bz = kiln.constant dense<[3, 2]> : tensor<2xi32>
  %z = kiln.dequantize %b, %bs, %bz {axis = 1 : i64} : tensor<2x2xi32>, tensor<2xf32>, tensor<2xi32>
  return %z : tensor<2x2xf32>
}

// -----

// A clamp whose lower bound quantizes to -128 leaves the quantize: ReLU6
// into a [0, 6] quantize (zero point -128, i.e. uint8 0) saturates at both
// bounds anyway; a Relu likewise. quantize(clip(x, A, B)) equals
// clamp(quantize(x), q(A), q(B)) since every step of quantize is monotone,
// and a NaN ends at -128 either way.
// CHECK-LABEL: func.func @clamps_into_quantize
// CHECK-NOT: kiln.clip
// CHECK-NOT: kiln.relu
// CHECK: %[[Q0:.*]] = kiln.quantize %arg0, %{{.*}}, %{{.*}} : tensor<4x8xf32>
// CHECK: %[[Q1:.*]] = kiln.quantize %arg0, %{{.*}}, %{{.*}} : tensor<4x8xf32>
// CHECK: return %[[Q0]], %[[Q1]]
func.func @clamps_into_quantize(%x: tensor<4x8xf32>) -> (tensor<4x8xi8>, tensor<4x8xi8>) {
  %s = kiln.constant dense<0.0235294122> : tensor<f32>
  %z = kiln.constant dense<-128> : tensor<i8>
  %c = kiln.clip %x {min = 0.0, max = 6.0} : tensor<4x8xf32>
  %q0 = kiln.quantize %c, %s, %z : tensor<4x8xf32>, tensor<f32>, tensor<i8>
  %r = kiln.relu %x : tensor<4x8xf32>
  %q1 = kiln.quantize %r, %s, %z : tensor<4x8xf32>, tensor<f32>, tensor<i8>
  return %q0, %q1 : tensor<4x8xi8>, tensor<4x8xi8>
}

// -----

// An upper bound inside the range stays, as an i8 clip to q(2) = 85 - 128.
// The f32 clip stays for its other user.
// CHECK-LABEL: func.func @upper_bound_as_i8_clip
// CHECK: %[[C:.*]] = kiln.clip %arg0 {max = 2.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<4x8xf32>
// CHECK: %[[Q:.*]] = kiln.quantize %arg0, %{{.*}}, %{{.*}} : tensor<4x8xf32>
// CHECK: %[[QC:.*]] = kiln.clip %[[Q]] {max = -4.300000e+01 : f64} : tensor<4x8xi8>
// CHECK: return %[[QC]], %[[C]]
func.func @upper_bound_as_i8_clip(%x: tensor<4x8xf32>) -> (tensor<4x8xi8>, tensor<4x8xf32>) {
  %s = kiln.constant dense<0.0235294122> : tensor<f32>
  %z = kiln.constant dense<-128> : tensor<i8>
  %c = kiln.clip %x {min = 0.0, max = 2.0} : tensor<4x8xf32>
  %q = kiln.quantize %c, %s, %z : tensor<4x8xf32>, tensor<f32>, tensor<i8>
  return %q, %c : tensor<4x8xi8>, tensor<4x8xf32>
}

// -----

// Not folded: q(0) = -118 is above -128 (a clamped NaN or negative value
// gives -118, the quantize alone -128); a scale that is not a constant;
// per-channel upper bounds that differ (q(6) = 127, -1).
// CHECK-LABEL: func.func @clamps_that_stay
// CHECK: %[[C0:.*]] = kiln.clip %arg0 {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
// CHECK: kiln.quantize %[[C0]]
// CHECK: %[[R:.*]] = kiln.relu %arg0
// CHECK: kiln.quantize %[[R]], %arg1
// CHECK: %[[C1:.*]] = kiln.clip %arg2 {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
// CHECK: kiln.quantize %[[C1]]
func.func @clamps_that_stay(%x: tensor<4x8xf32>, %sx: tensor<f32>, %y: tensor<1x2x3xf32>)
    -> (tensor<4x8xi8>, tensor<4x8xi8>, tensor<1x2x3xi8>) {
  %s = kiln.constant dense<0.05> : tensor<f32>
  %z = kiln.constant dense<-118> : tensor<i8>
  %c = kiln.clip %x {min = 0.0, max = 6.0} : tensor<4x8xf32>
  %q0 = kiln.quantize %c, %s, %z : tensor<4x8xf32>, tensor<f32>, tensor<i8>
  %zz = kiln.constant dense<-128> : tensor<i8>
  %r = kiln.relu %x : tensor<4x8xf32>
  %q1 = kiln.quantize %r, %sx, %zz : tensor<4x8xf32>, tensor<f32>, tensor<i8>
  %sa = kiln.constant dense<[0.0235294122, 0.0470588244]> : tensor<2xf32>
  %za = kiln.constant dense<-128> : tensor<2xi8>
  %c1 = kiln.clip %y {min = 0.0, max = 6.0} : tensor<1x2x3xf32>
  %q2 = kiln.quantize %c1, %sa, %za : tensor<1x2x3xf32>, tensor<2xf32>, tensor<2xi8>
  return %q0, %q1, %q2 : tensor<4x8xi8>, tensor<4x8xi8>, tensor<1x2x3xi8>
}

// -----

// A weight with per-column zero points (onnxruntime's per-channel uint8
// weights) folds too: (qa - za)(qb - zb[n]) = qa qb - za colsum(qb)
// - rowsum(qa) zb[n] + K za zb[n]; rowsum(qa) is a run-time reduce,
// colsum(qb) = [-1, 8] and K za zb = 3 * -3 * [1, -2] constants.
// CHECK-LABEL: func.func @matmul_per_column_zero_points
// CHECK-DAG: %[[KZZ:.*]] = kiln.constant dense<[-9, 18]> : tensor<2xi32>
// CHECK-DAG: %[[ZB:.*]] = kiln.constant dense<[1, -2]> : tensor<2xi32>
// CHECK-DAG: %[[CORR:.*]] = kiln.constant dense<[3, -24]> : tensor<2xi32>
// CHECK: %[[ACC:.*]] = kiln.matmul %arg0, %{{.*}} : tensor<4x3xi8>, tensor<3x2xi8>
// CHECK: %[[S1:.*]] = kiln.sub %[[ACC]], %[[CORR]]
// CHECK: %[[WIDE:.*]] = kiln.cast %arg0 to i32
// CHECK: %[[ROWS:.*]] = kiln.reduce sum %[[WIDE]] {axes = array<i64: 1>}
// CHECK: %[[T:.*]] = kiln.mul %[[ROWS]], %[[ZB]]
// CHECK: %[[S2:.*]] = kiln.sub %[[S1]], %[[T]]
// CHECK: %[[S3:.*]] = kiln.add %[[S2]], %[[KZZ]]
// CHECK: kiln.dequantize %[[S3]]
func.func @matmul_per_column_zero_points(%x: tensor<4x3xi8>) -> tensor<4x2xf32> {
  %sa = kiln.constant dense<0.5> : tensor<f32>
  %za = kiln.constant dense<-3> : tensor<i8>
  %a = kiln.dequantize %x, %sa, %za : tensor<4x3xi8>, tensor<f32>, tensor<i8>
  %qb = kiln.constant dense<[[1, -2], [3, 4], [-5, 6]]> : tensor<3x2xi8>
  %sb = kiln.constant dense<[0.25, 0.125]> : tensor<2xf32>
  %zb = kiln.constant dense<[1, -2]> : tensor<2xi8>
  %b = kiln.dequantize %qb, %sb, %zb : tensor<3x2xi8>, tensor<2xf32>, tensor<2xi8>
  %c = kiln.matmul %a, %b : tensor<4x3xf32>, tensor<3x2xf32>
  return %c : tensor<4x2xf32>
}
