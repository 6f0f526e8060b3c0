// RUN: kiln-opt %s --kiln-graph-cleanup | FileCheck %s

// kiln-graph-cleanup: the folders of the Kiln ops, constant folding and
// dead code elimination. One function per fold. Folded constants are
// created at the start of the function, so their CHECK lines come before
// the remaining ops.

//===----------------------------------------------------------------------===//
// Identity operands
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @add_zero(
// CHECK-NOT: kiln.
// CHECK: return %arg0, %arg0 : tensor<2x3xf32>, tensor<2x3xf32>
func.func @add_zero(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %zero = kiln.constant dense<0.0> : tensor<f32>
  %zeros = kiln.constant dense<0.0> : tensor<2x3xf32>
  %0 = kiln.add %x, %zero : tensor<2x3xf32>, tensor<f32>
  %1 = kiln.add %zeros, %x : tensor<2x3xf32>, tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @add_zero_int(
// CHECK-NOT: kiln.
// CHECK: return %arg0 : tensor<4xi32>
func.func @add_zero_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  %zero = kiln.constant dense<0> : tensor<1xi32>
  %0 = kiln.add %zero, %x : tensor<1xi32>, tensor<4xi32>
  return %0 : tensor<4xi32>
}

// A zero that broadcasts x to a larger shape changes the result type: the
// add stays.
// CHECK-LABEL: func.func @add_zero_broadcasting(
// CHECK: %[[Z:.*]] = kiln.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK: %[[R:.*]] = kiln.add %arg0, %[[Z]] : tensor<3xf32>, tensor<2x3xf32>
// CHECK: return %[[R]] : tensor<2x3xf32>
func.func @add_zero_broadcasting(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %zeros = kiln.constant dense<0.0> : tensor<2x3xf32>
  %0 = kiln.add %x, %zeros : tensor<3xf32>, tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// Same for a dynamic dim that the constant makes static.
// CHECK-LABEL: func.func @add_zero_refining(
// CHECK: %[[R:.*]] = kiln.add %arg0, %{{.*}} : tensor<?xf32>, tensor<4xf32>
// CHECK: return %[[R]] : tensor<4xf32>
func.func @add_zero_refining(%x: tensor<?xf32>) -> tensor<4xf32> {
  %zeros = kiln.constant dense<0.0> : tensor<4xf32>
  %0 = kiln.add %x, %zeros : tensor<?xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @sub_zero(
// CHECK-NOT: kiln.
// CHECK: return %arg0 : tensor<2x3xf16>
func.func @sub_zero(%x: tensor<2x3xf16>) -> tensor<2x3xf16> {
  %zero = kiln.constant dense<0.0> : tensor<3xf16>
  %0 = kiln.sub %x, %zero : tensor<2x3xf16>, tensor<3xf16>
  return %0 : tensor<2x3xf16>
}

// 0 - x is not x.
// CHECK-LABEL: func.func @zero_sub(
// CHECK: %[[R:.*]] = kiln.sub %{{.*}}, %arg0 : tensor<f32>, tensor<4xf32>
// CHECK: return %[[R]]
func.func @zero_sub(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = kiln.constant dense<0.0> : tensor<f32>
  %0 = kiln.sub %zero, %x : tensor<f32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @mul_one(
// CHECK-NOT: kiln.
// CHECK: return %arg0, %arg0 : tensor<2x3xbf16>, tensor<2x3xbf16>
func.func @mul_one(%x: tensor<2x3xbf16>) -> (tensor<2x3xbf16>, tensor<2x3xbf16>) {
  %one = kiln.constant dense<1.0> : tensor<3xbf16>
  %0 = kiln.mul %x, %one : tensor<2x3xbf16>, tensor<3xbf16>
  %1 = kiln.mul %one, %x : tensor<3xbf16>, tensor<2x3xbf16>
  return %0, %1 : tensor<2x3xbf16>, tensor<2x3xbf16>
}

// CHECK-LABEL: func.func @div_one(
// CHECK-NOT: kiln.
// CHECK: return %arg0, %arg1 : tensor<2x3xf32>, tensor<5xi64>
func.func @div_one(%x: tensor<2x3xf32>, %i: tensor<5xi64>) -> (tensor<2x3xf32>, tensor<5xi64>) {
  %one = kiln.constant dense<1.0> : tensor<f32>
  %ione = kiln.constant dense<1> : tensor<i64>
  %0 = kiln.div %x, %one : tensor<2x3xf32>, tensor<f32>
  %1 = kiln.div %i, %ione : tensor<5xi64>, tensor<i64>
  return %0, %1 : tensor<2x3xf32>, tensor<5xi64>
}

// 1 / x is not x.
// CHECK-LABEL: func.func @one_div(
// CHECK: %[[R:.*]] = kiln.div %{{.*}}, %arg0
// CHECK: return %[[R]]
func.func @one_div(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = kiln.constant dense<1.0> : tensor<4xf32>
  %0 = kiln.div %one, %x : tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @pow_one(
// CHECK-NOT: kiln.
// CHECK: return %arg0 : tensor<2x3xf32>
func.func @pow_one(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %one = kiln.constant dense<1.0> : tensor<f32>
  %0 = kiln.pow %x, %one : tensor<2x3xf32>, tensor<f32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @logical_identities(
// CHECK-NOT: kiln.
// CHECK: return %arg0, %arg0, %arg0, %arg0, %arg0 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
func.func @logical_identities(%x: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %t = kiln.constant dense<true> : tensor<i1>
  %f = kiln.constant dense<false> : tensor<4xi1>
  %0 = kiln.and %x, %t : tensor<4xi1>, tensor<i1>
  %1 = kiln.or %f, %x : tensor<4xi1>, tensor<4xi1>
  %2 = kiln.xor %x, %f : tensor<4xi1>, tensor<4xi1>
  %3 = kiln.and %x, %x : tensor<4xi1>, tensor<4xi1>
  %4 = kiln.or %x, %x : tensor<4xi1>, tensor<4xi1>
  return %0, %1, %2, %3, %4 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

//===----------------------------------------------------------------------===//
// Involutions and idempotent ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @neg_neg(
// CHECK-NOT: kiln.
// CHECK: return %arg0 : tensor<2x?xf32>
func.func @neg_neg(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %0 = kiln.neg %x : tensor<2x?xf32>
  %1 = kiln.neg %0 : tensor<2x?xf32>
  return %1 : tensor<2x?xf32>
}

// CHECK-LABEL: func.func @relu_relu(
// CHECK-NEXT: %[[R:.*]] = kiln.relu %arg0 : tensor<8xf32>
// CHECK-NEXT: return %[[R]] : tensor<8xf32>
func.func @relu_relu(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = kiln.relu %x : tensor<8xf32>
  %1 = kiln.relu %0 : tensor<8xf32>
  %2 = kiln.relu %1 : tensor<8xf32>
  return %2 : tensor<8xf32>
}

// CHECK-LABEL: func.func @not_not(
// CHECK-NOT: kiln.
// CHECK: return %arg0 : tensor<4xi1>
func.func @not_not(%x: tensor<4xi1>) -> tensor<4xi1> {
  %0 = kiln.not %x : tensor<4xi1>
  %1 = kiln.not %0 : tensor<4xi1>
  return %1 : tensor<4xi1>
}

// CHECK-LABEL: func.func @max_min_same_operand(
// CHECK-NOT: kiln.
// CHECK: return %arg0, %arg0 : tensor<3xi32>, tensor<3xi32>
func.func @max_min_same_operand(%x: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>) {
  %0 = kiln.max %x, %x : tensor<3xi32>, tensor<3xi32>
  %1 = kiln.min %x, %x : tensor<3xi32>, tensor<3xi32>
  return %0, %1 : tensor<3xi32>, tensor<3xi32>
}

//===----------------------------------------------------------------------===//
// Data movement no-ops and merges
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @transpose_transpose_identity(
// CHECK-NOT: kiln.
// CHECK: return %arg0 : tensor<2x3x4xf32>
func.func @transpose_transpose_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = kiln.transpose %x {perm = array<i64: 1, 2, 0>} : tensor<2x3x4xf32>
  %1 = kiln.transpose %0 {perm = array<i64: 2, 0, 1>} : tensor<3x4x2xf32>
  return %1 : tensor<2x3x4xf32>
}

// transpose(transpose(x, [1, 0, 2]), [0, 2, 1]) = transpose(x, [1, 2, 0]).
// CHECK-LABEL: func.func @transpose_transpose_compose(
// CHECK-NEXT: %[[T:.*]] = kiln.transpose %arg0 {perm = array<i64: 1, 2, 0>} : tensor<2x3x4xf32>
// CHECK-NEXT: return %[[T]] : tensor<3x4x2xf32>
func.func @transpose_transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %0 = kiln.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<2x3x4xf32>
  %1 = kiln.transpose %0 {perm = array<i64: 0, 2, 1>} : tensor<3x2x4xf32>
  return %1 : tensor<3x4x2xf32>
}

// The inner transpose keeps its other user.
// CHECK-LABEL: func.func @transpose_transpose_shared(
// CHECK-NEXT: %[[A:.*]] = kiln.transpose %arg0 {perm = array<i64: 1, 0, 2>} : tensor<2x3x4xf32>
// CHECK-NEXT: %[[B:.*]] = kiln.transpose %arg0 {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32>
// CHECK-NEXT: return %[[A]], %[[B]] : tensor<3x2x4xf32>, tensor<4x2x3xf32>
func.func @transpose_transpose_shared(%x: tensor<2x3x4xf32>) -> (tensor<3x2x4xf32>, tensor<4x2x3xf32>) {
  %0 = kiln.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<2x3x4xf32>
  %1 = kiln.transpose %0 {perm = array<i64: 2, 1, 0>} : tensor<3x2x4xf32>
  return %0, %1 : tensor<3x2x4xf32>, tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @transpose_identity(
// CHECK-NOT: kiln.
// CHECK: return %arg0, %arg1 : tensor<2x?xf32>, tensor<f32>
func.func @transpose_identity(%x: tensor<2x?xf32>, %s: tensor<f32>) -> (tensor<2x?xf32>, tensor<f32>) {
  %0 = kiln.transpose %x {perm = array<i64: 0, 1>} : tensor<2x?xf32>
  %1 = kiln.transpose %s {perm = array<i64>} : tensor<f32>
  return %0, %1 : tensor<2x?xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @reshape_reshape(
// CHECK-NEXT: %[[R:.*]] = kiln.reshape %arg0 {shape = array<i64: 3, 2>} : tensor<2x3xf32>
// CHECK-NEXT: return %[[R]] : tensor<3x2xf32>
func.func @reshape_reshape(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = kiln.reshape %x {shape = array<i64: 6>} : tensor<2x3xf32>
  %1 = kiln.reshape %0 {shape = array<i64: 1, 6, 1>} : tensor<6xf32>
  %2 = kiln.reshape %1 {shape = array<i64: 3, 2>} : tensor<1x6x1xf32>
  return %2 : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @reshape_reshape_dynamic(
// CHECK-NEXT: %[[R:.*]] = kiln.reshape %arg0 {shape = array<i64: -1, 4>} : tensor<?x2x2xf32>
// CHECK-NEXT: return %[[R]] : tensor<?x4xf32>
func.func @reshape_reshape_dynamic(%x: tensor<?x2x2xf32>) -> tensor<?x4xf32> {
  %0 = kiln.reshape %x {shape = array<i64: -1>} : tensor<?x2x2xf32>
  %1 = kiln.reshape %0 {shape = array<i64: -1, 4>} : tensor<?xf32>
  return %1 : tensor<?x4xf32>
}

// Merging would reshape 6 elements to 4, which does not verify; the pair
// (which fails at run time) is kept.
// CHECK-LABEL: func.func @reshape_reshape_mismatch(
// CHECK-NEXT: %[[A:.*]] = kiln.reshape %arg0 {shape = array<i64: -1>} : tensor<2x3xf32>
// CHECK-NEXT: %[[B:.*]] = kiln.reshape %[[A]] {shape = array<i64: 4>} : tensor<?xf32>
// CHECK-NEXT: return %[[B]] : tensor<4xf32>
func.func @reshape_reshape_mismatch(%x: tensor<2x3xf32>) -> tensor<4xf32> {
  %0 = kiln.reshape %x {shape = array<i64: -1>} : tensor<2x3xf32>
  %1 = kiln.reshape %0 {shape = array<i64: 4>} : tensor<?xf32>
  return %1 : tensor<4xf32>
}

// CHECK-LABEL: func.func @reshape_same_type(
// CHECK-NOT: kiln.
// CHECK: return %arg0 : tensor<2x3xf32>
func.func @reshape_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.reshape %x {shape = array<i64: 2, 3>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @broadcast_same_shape(
// CHECK-NOT: kiln.
// CHECK: return %arg0 : tensor<4x3xi8>
func.func @broadcast_same_shape(%x: tensor<4x3xi8>) -> tensor<4x3xi8> {
  %0 = kiln.broadcast %x {shape = array<i64: 4, 3>} : tensor<4x3xi8>
  return %0 : tensor<4x3xi8>
}

// CHECK-LABEL: func.func @broadcast_broadcast(
// CHECK-NEXT: %[[B:.*]] = kiln.broadcast %arg0 {shape = array<i64: 5, 4, 3>} : tensor<3xf32>
// CHECK-NEXT: return %[[B]] : tensor<5x4x3xf32>
func.func @broadcast_broadcast(%x: tensor<3xf32>) -> tensor<5x4x3xf32> {
  %0 = kiln.broadcast %x {shape = array<i64: 1, 3>} : tensor<3xf32>
  %1 = kiln.broadcast %0 {shape = array<i64: 4, 3>} : tensor<1x3xf32>
  %2 = kiln.broadcast %1 {shape = array<i64: 5, 4, 3>} : tensor<4x3xf32>
  return %2 : tensor<5x4x3xf32>
}

// Merging would broadcast [3] to [5], which does not verify; the pair
// (which fails at run time) is kept.
// CHECK-LABEL: func.func @broadcast_broadcast_mismatch(
// CHECK-NEXT: %[[A:.*]] = kiln.broadcast %arg0 {shape = array<i64: -1>} : tensor<3xf32>
// CHECK-NEXT: %[[B:.*]] = kiln.broadcast %[[A]] {shape = array<i64: 5>} : tensor<?xf32>
// CHECK-NEXT: return %[[B]] : tensor<5xf32>
func.func @broadcast_broadcast_mismatch(%x: tensor<3xf32>) -> tensor<5xf32> {
  %0 = kiln.broadcast %x {shape = array<i64: -1>} : tensor<3xf32>
  %1 = kiln.broadcast %0 {shape = array<i64: 5>} : tensor<?xf32>
  return %1 : tensor<5xf32>
}

// CHECK-LABEL: func.func @slice_full_range(
// CHECK-NOT: kiln.
// CHECK: return %arg0 : tensor<4x8xf32>
func.func @slice_full_range(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = kiln.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 4, 8>, steps = array<i64: 1, 1>} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// A reversal has the type of its input but is not a no-op.
// CHECK-LABEL: func.func @slice_reverse(
// CHECK-NEXT: %[[S:.*]] = kiln.slice %arg0
// CHECK-NEXT: return %[[S]] : tensor<4xf32>
func.func @slice_reverse(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.slice %x {starts = array<i64: 3>, ends = array<i64: -1>, steps = array<i64: -1>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @concat_single_input(
// CHECK-NOT: kiln.
// CHECK: return %arg0 : tensor<2x?xf32>
func.func @concat_single_input(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %0 = kiln.concat %x {axis = 1 : i64} : tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// CHECK-LABEL: func.func @pad_zero(
// CHECK-NOT: kiln.
// CHECK: return %arg0, %arg0 : tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>
func.func @pad_zero(%x: tensor<1x3x8x8xf32>) -> (tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>) {
  %0 = kiln.pad %x {pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>, value = 1.0} : tensor<1x3x8x8xf32>
  %1 = kiln.pad %x {pads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>, mode = 1 : i32} : tensor<1x3x8x8xf32>
  return %0, %1 : tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>
}

// CHECK-LABEL: func.func @cast_same_type(
// CHECK-NOT: kiln.
// CHECK: return %arg0 : tensor<4x?xf16>
func.func @cast_same_type(%x: tensor<4x?xf16>) -> tensor<4x?xf16> {
  %0 = kiln.cast %x to f16 : tensor<4x?xf16>
  return %0 : tensor<4x?xf16>
}

// CHECK-LABEL: func.func @clip_unbounded(
// CHECK-NOT: kiln.
// CHECK: return %arg0 : tensor<4xf32>
func.func @clip_unbounded(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.clip %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @select_constant_condition(
// CHECK-NOT: kiln.
// CHECK: return %arg0, %arg1, %arg0 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
func.func @select_constant_condition(%x: tensor<4xf32>, %y: tensor<4xf32>, %c: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %t = kiln.constant dense<true> : tensor<4xi1>
  %f = kiln.constant dense<false> : tensor<i1>
  %0 = kiln.select %t, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  %1 = kiln.select %f, %x, %y : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  %2 = kiln.select %c, %x, %x : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// The chosen operand is broadcast by the condition: not a no-op.
// CHECK-LABEL: func.func @select_constant_condition_broadcasting(
// CHECK: %[[S:.*]] = kiln.select
// CHECK: return %[[S]] : tensor<2x4xf32>
func.func @select_constant_condition_broadcasting(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<2x4xf32> {
  %t = kiln.constant dense<true> : tensor<2x1xi1>
  %0 = kiln.select %t, %x, %y : tensor<2x1xi1>, tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<2x4xf32>
}

// Reducing size-1 dims with keepdims leaves the tensor as it is (for the
// combiners that are the identity on one element).
// CHECK-LABEL: func.func @reduce_unit_dims(
// CHECK-NEXT: %[[L1:.*]] = kiln.reduce l1 %arg0 {axes = array<i64: 1>} : tensor<2x1x3xf32>
// CHECK-NEXT: %[[K:.*]] = kiln.reduce sum %arg0 {axes = array<i64: 1>, keepdims = false} : tensor<2x1x3xf32>
// CHECK-NEXT: return %arg0, %arg0, %arg0, %arg1, %[[L1]], %[[K]] : tensor<2x1x3xf32>, tensor<2x1x3xf32>, tensor<2x1x3xf32>, tensor<1x1xi32>, tensor<2x1x3xf32>, tensor<2x3xf32>
func.func @reduce_unit_dims(%x: tensor<2x1x3xf32>, %s: tensor<1x1xi32>)
    -> (tensor<2x1x3xf32>, tensor<2x1x3xf32>, tensor<2x1x3xf32>, tensor<1x1xi32>, tensor<2x1x3xf32>, tensor<2x3xf32>) {
  %0 = kiln.reduce sum %x {axes = array<i64: 1>} : tensor<2x1x3xf32>
  %1 = kiln.reduce mean %x {axes = array<i64: -2>, keepdims = true} : tensor<2x1x3xf32>
  %2 = kiln.reduce max %x {axes = array<i64: 1>} : tensor<2x1x3xf32>
  %3 = kiln.reduce prod %s : tensor<1x1xi32>
  // |x| is not x.
  %4 = kiln.reduce l1 %x {axes = array<i64: 1>} : tensor<2x1x3xf32>
  // Without keepdims the dim goes away: a reshape, not a no-op.
  %5 = kiln.reduce sum %x {axes = array<i64: 1>, keepdims = false} : tensor<2x1x3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x1x3xf32>, tensor<2x1x3xf32>, tensor<2x1x3xf32>, tensor<1x1xi32>, tensor<2x1x3xf32>, tensor<2x3xf32>
}

//===----------------------------------------------------------------------===//
// Constant folding: elementwise
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fold_unary_float(
// CHECK-DAG: %[[ABS:.*]] = kiln.constant dense<[0.000000e+00, 1.500000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[NEG:.*]] = kiln.constant dense<[-0.000000e+00, 1.500000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[SIGN:.*]] = kiln.constant dense<[0.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[RELU:.*]] = kiln.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-DAG: %[[SIGMOID:.*]] = kiln.constant dense<[5.000000e-01, 0.182425529]> : tensor<2xf32>
// CHECK-DAG: %[[TANH:.*]] = kiln.constant dense<[0.000000e+00, -0.905148268]> : tensor<2xf32>
// CHECK-DAG: %[[EXP:.*]] = kiln.constant dense<[1.000000e+00, 0.223130167]> : tensor<2xf32>
// CHECK-DAG: %[[LOG:.*]] = kiln.constant dense<[1.38629436, -1.38629436]> : tensor<2xf32>
// CHECK-DAG: %[[SQRT:.*]] = kiln.constant dense<[2.000000e+00, 5.000000e-01]> : tensor<2xf32>
// CHECK-DAG: %[[RSQRT:.*]] = kiln.constant dense<[5.000000e-01, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[RECIP:.*]] = kiln.constant dense<[2.500000e-01, 4.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[ERF:.*]] = kiln.constant dense<[0.000000e+00, -0.966105163]> : tensor<2xf32>
// CHECK-DAG: %[[FLOOR:.*]] = kiln.constant dense<[2.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[CEIL:.*]] = kiln.constant dense<[3.000000e+00, -0.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[ROUND:.*]] = kiln.constant dense<[2.000000e+00, -0.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[SIN:.*]] = kiln.constant dense<[0.000000e+00, -0.997494995]> : tensor<2xf32>
// CHECK-DAG: %[[COS:.*]] = kiln.constant dense<[1.000000e+00, 7.073720e-02]> : tensor<2xf32>
// CHECK-DAG: %[[GELU:.*]] = kiln.constant dense<[0.000000e+00, -0.100210801]> : tensor<2xf32>
// CHECK-DAG: %[[GELUT:.*]] = kiln.constant dense<[0.000000e+00, -0.100428425]> : tensor<2xf32>
// CHECK-DAG: %[[CLIP:.*]] = kiln.constant dense<[1.000000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK-NOT: kiln.{{[a-z_]+}} %
// CHECK: return %[[ABS]], %[[NEG]], %[[SIGN]], %[[RELU]], %[[SIGMOID]], %[[TANH]], %[[EXP]], %[[LOG]], %[[SQRT]], %[[RSQRT]], %[[RECIP]], %[[ERF]], %[[FLOOR]], %[[CEIL]], %[[ROUND]], %[[SIN]], %[[COS]], %[[GELU]], %[[GELUT]], %[[CLIP]] :
func.func @fold_unary_float() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
                                  tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
                                  tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a = kiln.constant dense<[0.0, -1.5]> : tensor<2xf32>
  %p = kiln.constant dense<[4.0, 0.25]> : tensor<2xf32>
  %h = kiln.constant dense<[2.5, -0.5]> : tensor<2xf32>
  %0 = kiln.abs %a : tensor<2xf32>
  %1 = kiln.neg %a : tensor<2xf32>
  %2 = kiln.sign %a : tensor<2xf32>
  %3 = kiln.relu %a : tensor<2xf32>
  // sigmoid(0) = 0.5
  %4 = kiln.sigmoid %a : tensor<2xf32>
  %5 = kiln.tanh %a : tensor<2xf32>
  // exp(0) = 1
  %6 = kiln.exp %a : tensor<2xf32>
  // log(4) = -log(0.25)
  %7 = kiln.log %p : tensor<2xf32>
  // sqrt(4) = 2
  %8 = kiln.sqrt %p : tensor<2xf32>
  %9 = kiln.rsqrt %p : tensor<2xf32>
  %10 = kiln.reciprocal %p : tensor<2xf32>
  %11 = kiln.erf %a : tensor<2xf32>
  %12 = kiln.floor %h : tensor<2xf32>
  %13 = kiln.ceil %h : tensor<2xf32>
  // Half to even: round(2.5) = 2, round(-0.5) = -0.
  %14 = kiln.round %h : tensor<2xf32>
  %15 = kiln.sin %a : tensor<2xf32>
  %16 = kiln.cos %a : tensor<2xf32>
  %17 = kiln.gelu %a : tensor<2xf32>
  %18 = kiln.gelu %a {approximate = 1 : i32} : tensor<2xf32>
  %19 = kiln.clip %h {min = 0.0, max = 1.0} : tensor<2xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19
      : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
        tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
        tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// Folded values are rounded to the element type.
// CHECK-LABEL: func.func @fold_unary_narrow_float(
// CHECK-DAG: %[[A:.*]] = kiln.constant dense<[2.718750e+00, 1.000000e+00]> : tensor<2xbf16>
// CHECK-DAG: %[[B:.*]] = kiln.constant dense<[1.414060e+00, 3.000000e+00]> : tensor<2xf16>
// CHECK: return %[[A]], %[[B]] : tensor<2xbf16>, tensor<2xf16>
func.func @fold_unary_narrow_float() -> (tensor<2xbf16>, tensor<2xf16>) {
  %a = kiln.constant dense<[1.0, 0.0]> : tensor<2xbf16>
  %b = kiln.constant dense<[2.0, 9.0]> : tensor<2xf16>
  %0 = kiln.exp %a : tensor<2xbf16>
  %1 = kiln.sqrt %b : tensor<2xf16>
  return %0, %1 : tensor<2xbf16>, tensor<2xf16>
}

// CHECK-LABEL: func.func @fold_unary_int(
// CHECK-DAG: %[[ABS:.*]] = kiln.constant dense<[5, 0, 7]> : tensor<3xi32>
// CHECK-DAG: %[[NEG:.*]] = kiln.constant dense<[5, 0, -7]> : tensor<3xi32>
// CHECK-DAG: %[[SIGN:.*]] = kiln.constant dense<[-1, 0, 1]> : tensor<3xi32>
// CHECK-DAG: %[[RELU:.*]] = kiln.constant dense<[0, 0, 7]> : tensor<3xi32>
// CHECK-DAG: %[[CLIP:.*]] = kiln.constant dense<[-2, 0, 2]> : tensor<3xi32>
// CHECK-DAG: %[[NOT:.*]] = kiln.constant dense<[false, true]> : tensor<2xi1>
// CHECK-DAG: %[[WRAP:.*]] = kiln.constant dense<-128> : tensor<i8>
// CHECK-NOT: kiln.{{[a-z_]+}} %
// CHECK: return %[[ABS]], %[[NEG]], %[[SIGN]], %[[RELU]], %[[CLIP]], %[[NOT]], %[[WRAP]] :
func.func @fold_unary_int() -> (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<2xi1>, tensor<i8>) {
  %a = kiln.constant dense<[-5, 0, 7]> : tensor<3xi32>
  %b = kiln.constant dense<[true, false]> : tensor<2xi1>
  %m = kiln.constant dense<-128> : tensor<i8>
  %0 = kiln.abs %a : tensor<3xi32>
  %1 = kiln.neg %a : tensor<3xi32>
  %2 = kiln.sign %a : tensor<3xi32>
  %3 = kiln.relu %a : tensor<3xi32>
  %4 = kiln.clip %a {min = -2.0, max = 2.0} : tensor<3xi32>
  %5 = kiln.not %b : tensor<2xi1>
  // Two's complement wrap-around: -(-128) is -128 in i8.
  %6 = kiln.neg %m : tensor<i8>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<2xi1>, tensor<i8>
}

// CHECK-LABEL: func.func @fold_binary_float(
// CHECK-DAG: %[[ADD:.*]] = kiln.constant dense<{{\[\[}}1.100000e+01, 2.100000e+01], [1.300000e+01, 2.300000e+01]]> : tensor<2x2xf32>
// CHECK-DAG: %[[SUB:.*]] = kiln.constant dense<{{\[\[}}-9.000000e+00, -1.900000e+01], [-7.000000e+00, -1.700000e+01]]> : tensor<2x2xf32>
// CHECK-DAG: %[[MUL:.*]] = kiln.constant dense<{{\[\[}}1.000000e+01, 2.000000e+01], [3.000000e+01, 6.000000e+01]]> : tensor<2x2xf32>
// CHECK-DAG: %[[DIV:.*]] = kiln.constant dense<{{\[\[}}1.000000e-01, 5.000000e-02], [3.000000e-01, 1.500000e-01]]> : tensor<2x2xf32>
// CHECK-DAG: %[[REM:.*]] = kiln.constant dense<[1.500000e+00, -1.500000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[POW:.*]] = kiln.constant dense<[8.000000e+00, 2.500000e-01]> : tensor<2xf32>
// CHECK-DAG: %[[MAX:.*]] = kiln.constant dense<[3.500000e+00, -2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[MIN:.*]] = kiln.constant dense<[2.000000e+00, -3.500000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[DIV0:.*]] = kiln.constant dense<[0x7F800000, 0xFF800000]> : tensor<2xf32>
// CHECK-NOT: kiln.{{[a-z_]+}} %
// CHECK: return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[REM]], %[[POW]], %[[MAX]], %[[MIN]], %[[DIV0]] :
func.func @fold_binary_float() -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>,
                                   tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %col = kiln.constant dense<[[1.0], [3.0]]> : tensor<2x1xf32>
  %row = kiln.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %row2 = kiln.constant dense<[[10.0, 20.0], [10.0, 20.0]]> : tensor<2x2xf32>
  // Broadcasting [2, 1] with [2] and [2, 2].
  %0 = kiln.add %col, %row : tensor<2x1xf32>, tensor<2xf32>
  %1 = kiln.sub %col, %row2 : tensor<2x1xf32>, tensor<2x2xf32>
  %2 = kiln.mul %row, %col : tensor<2xf32>, tensor<2x1xf32>
  %3 = kiln.div %col, %row : tensor<2x1xf32>, tensor<2xf32>
  %a = kiln.constant dense<[3.5, -3.5]> : tensor<2xf32>
  %b = kiln.constant dense<[2.0, -2.0]> : tensor<2xf32>
  %two = kiln.constant dense<2.0> : tensor<f32>
  // fmod keeps the sign of the dividend.
  %4 = kiln.rem %a, %b : tensor<2xf32>, tensor<2xf32>
  %exp = kiln.constant dense<[3.0, -2.0]> : tensor<2xf32>
  %pw = kiln.pow %two, %exp : tensor<f32>, tensor<2xf32>
  %6 = kiln.max %a, %b : tensor<2xf32>, tensor<2xf32>
  %7 = kiln.min %b, %a : tensor<2xf32>, tensor<2xf32>
  // Float division by zero is defined (IEEE infinities).
  %zero = kiln.constant dense<0.0> : tensor<f32>
  %8 = kiln.div %b, %zero : tensor<2xf32>, tensor<f32>
  return %0, %1, %2, %3, %4, %pw, %6, %7, %8 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>,
                                              tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// Integer division truncates toward zero, the remainder has the sign of
// the dividend, and arithmetic wraps around in the element width.
// CHECK-LABEL: func.func @fold_binary_int(
// CHECK-DAG: %[[ADD:.*]] = kiln.constant dense<[9, -5, -1]> : tensor<3xi32>
// CHECK-DAG: %[[SUB:.*]] = kiln.constant dense<[5, -9, 7]> : tensor<3xi32>
// CHECK-DAG: %[[MUL:.*]] = kiln.constant dense<[14, -14, -12]> : tensor<3xi32>
// CHECK-DAG: %[[DIV:.*]] = kiln.constant dense<[3, -3, 0]> : tensor<3xi32>
// CHECK-DAG: %[[REM:.*]] = kiln.constant dense<[1, -1, 3]> : tensor<3xi32>
// CHECK-DAG: %[[MAX:.*]] = kiln.constant dense<[7, 2, 3]> : tensor<3xi32>
// CHECK-DAG: %[[MIN:.*]] = kiln.constant dense<[2, -7, -4]> : tensor<3xi32>
// CHECK-DAG: %[[POW:.*]] = kiln.constant dense<[1, 8, 81]> : tensor<3xi64>
// CHECK-DAG: %[[WRAP:.*]] = kiln.constant dense<[-56, 0]> : tensor<2xi8>
// CHECK-DAG: %[[LOGIC:.*]] = kiln.constant dense<[false, true, true, false]> : tensor<4xi1>
// CHECK-NOT: kiln.{{[a-z_]+}} %
// CHECK: return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[REM]], %[[MAX]], %[[MIN]], %[[POW]], %[[WRAP]], %[[LOGIC]] :
func.func @fold_binary_int() -> (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>,
                                 tensor<3xi64>, tensor<2xi8>, tensor<4xi1>) {
  %i = kiln.constant dense<[7, -7, 3]> : tensor<3xi32>
  %j = kiln.constant dense<[2, 2, -4]> : tensor<3xi32>
  %0 = kiln.add %i, %j : tensor<3xi32>, tensor<3xi32>
  %1 = kiln.sub %i, %j : tensor<3xi32>, tensor<3xi32>
  %2 = kiln.mul %i, %j : tensor<3xi32>, tensor<3xi32>
  %3 = kiln.div %i, %j : tensor<3xi32>, tensor<3xi32>
  %4 = kiln.rem %i, %j : tensor<3xi32>, tensor<3xi32>
  %5 = kiln.max %i, %j : tensor<3xi32>, tensor<3xi32>
  %6 = kiln.min %i, %j : tensor<3xi32>, tensor<3xi32>
  %base = kiln.constant dense<[1, 2, 3]> : tensor<3xi64>
  %exp = kiln.constant dense<[0, 3, 4]> : tensor<3xi64>
  %7 = kiln.pow %base, %exp : tensor<3xi64>, tensor<3xi64>
  %k = kiln.constant dense<[100, -128]> : tensor<2xi8>
  %8 = kiln.add %k, %k : tensor<2xi8>, tensor<2xi8>
  %p = kiln.constant dense<[true, true, false, false]> : tensor<4xi1>
  %q = kiln.constant dense<[true, false, true, false]> : tensor<4xi1>
  %and = kiln.and %p, %q : tensor<4xi1>, tensor<4xi1>
  %or = kiln.or %p, %q : tensor<4xi1>, tensor<4xi1>
  %xor = kiln.xor %p, %q : tensor<4xi1>, tensor<4xi1>
  // (p and q) or (p xor q) = p or q, then xor with (p and q) = p xor q.
  %t = kiln.or %and, %xor : tensor<4xi1>, tensor<4xi1>
  %9 = kiln.xor %t, %and : tensor<4xi1>, tensor<4xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>,
                                                  tensor<3xi32>, tensor<3xi64>, tensor<2xi8>, tensor<4xi1>
}

// Integer division and remainder by zero have no value: not folded.
// CHECK-LABEL: func.func @fold_int_division_by_zero(
// CHECK-DAG: %[[I:.*]] = kiln.constant dense<[7, 8]> : tensor<2xi32>
// CHECK-DAG: %[[J:.*]] = kiln.constant dense<[2, 0]> : tensor<2xi32>
// CHECK-DAG: %[[Z:.*]] = kiln.constant dense<0> : tensor<i64>
// CHECK-DAG: %[[K:.*]] = kiln.constant dense<5> : tensor<i64>
// CHECK: %[[DIV:.*]] = kiln.div %[[I]], %[[J]] : tensor<2xi32>, tensor<2xi32>
// CHECK: %[[REM:.*]] = kiln.rem %[[I]], %[[J]] : tensor<2xi32>, tensor<2xi32>
// CHECK: %[[DIV2:.*]] = kiln.div %[[K]], %[[Z]] : tensor<i64>, tensor<i64>
// CHECK: return %[[DIV]], %[[REM]], %[[DIV2]]
func.func @fold_int_division_by_zero() -> (tensor<2xi32>, tensor<2xi32>, tensor<i64>) {
  %i = kiln.constant dense<[7, 8]> : tensor<2xi32>
  %j = kiln.constant dense<[2, 0]> : tensor<2xi32>
  %0 = kiln.div %i, %j : tensor<2xi32>, tensor<2xi32>
  %1 = kiln.rem %i, %j : tensor<2xi32>, tensor<2xi32>
  %k = kiln.constant dense<5> : tensor<i64>
  %z = kiln.constant dense<0> : tensor<i64>
  %2 = kiln.div %k, %z : tensor<i64>, tensor<i64>
  return %0, %1, %2 : tensor<2xi32>, tensor<2xi32>, tensor<i64>
}

// CHECK-LABEL: func.func @fold_compare(
// CHECK-DAG: %[[EQ:.*]] = kiln.constant dense<[false, true, false, false]> : tensor<4xi1>
// CHECK-DAG: %[[NE:.*]] = kiln.constant dense<[true, false, true, true]> : tensor<4xi1>
// CHECK-DAG: %[[LT:.*]] = kiln.constant dense<[true, false, false, false]> : tensor<4xi1>
// CHECK-DAG: %[[LE:.*]] = kiln.constant dense<[true, true, false, false]> : tensor<4xi1>
// CHECK-DAG: %[[GT:.*]] = kiln.constant dense<[false, false, true, false]> : tensor<4xi1>
// CHECK-DAG: %[[GE:.*]] = kiln.constant dense<[false, true, true, false]> : tensor<4xi1>
// CHECK-DAG: %[[INT:.*]] = kiln.constant dense<{{\[\[}}false, true], [false, false]]> : tensor<2x2xi1>
// CHECK-DAG: %[[BOOL:.*]] = kiln.constant dense<[true, false]> : tensor<2xi1>
// CHECK-NOT: kiln.compare
// CHECK: return %[[EQ]], %[[NE]], %[[LT]], %[[LE]], %[[GT]], %[[GE]], %[[INT]], %[[BOOL]] :
func.func @fold_compare() -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<2x2xi1>, tensor<2xi1>) {
  // The last element is NaN: every comparison but ne is false.
  %a = kiln.constant dense<[1.0, 2.0, 3.0, 0x7FC00000]> : tensor<4xf32>
  %b = kiln.constant dense<2.0> : tensor<f32>
  %0 = kiln.compare eq, %a, %b : tensor<4xf32>, tensor<f32>
  %1 = kiln.compare ne, %a, %b : tensor<4xf32>, tensor<f32>
  %2 = kiln.compare lt, %a, %b : tensor<4xf32>, tensor<f32>
  %3 = kiln.compare le, %a, %b : tensor<4xf32>, tensor<f32>
  %4 = kiln.compare gt, %a, %b : tensor<4xf32>, tensor<f32>
  %5 = kiln.compare ge, %a, %b : tensor<4xf32>, tensor<f32>
  %i = kiln.constant dense<[[3], [-1]]> : tensor<2x1xi64>
  %j = kiln.constant dense<[4, 3]> : tensor<2xi64>
  // [[3 >= 4, 3 >= 3], [-1 >= 4, -1 >= 3]]
  %6 = kiln.compare ge, %i, %j : tensor<2x1xi64>, tensor<2xi64>
  %t = kiln.constant dense<[true, false]> : tensor<2xi1>
  %f = kiln.constant dense<false> : tensor<2xi1>
  %7 = kiln.compare gt, %t, %f : tensor<2xi1>, tensor<2xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<2x2xi1>, tensor<2xi1>
}

// CHECK-LABEL: func.func @fold_select(
// CHECK-DAG: %[[F:.*]] = kiln.constant dense<{{\[\[}}1.000000e+00, -2.000000e+00, 3.000000e+00], [-1.000000e+00, 2.000000e+00, -3.000000e+00]]> : tensor<2x3xf32>
// CHECK-DAG: %[[I:.*]] = kiln.constant dense<[7, 0, 7]> : tensor<3xi8>
// CHECK-NOT: kiln.select
// CHECK: return %[[F]], %[[I]] : tensor<2x3xf32>, tensor<3xi8>
func.func @fold_select() -> (tensor<2x3xf32>, tensor<3xi8>) {
  %c = kiln.constant dense<[[true, false, true], [false, true, false]]> : tensor<2x3xi1>
  %x = kiln.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %y = kiln.constant dense<[-1.0, -2.0, -3.0]> : tensor<3xf32>
  %0 = kiln.select %c, %x, %y : tensor<2x3xi1>, tensor<3xf32>, tensor<3xf32>
  %m = kiln.constant dense<[true, false, true]> : tensor<3xi1>
  %seven = kiln.constant dense<7> : tensor<i8>
  %zero = kiln.constant dense<0> : tensor<3xi8>
  %1 = kiln.select %m, %seven, %zero : tensor<3xi1>, tensor<i8>, tensor<3xi8>
  return %0, %1 : tensor<2x3xf32>, tensor<3xi8>
}

// Float to integer truncates toward zero; integers to i1 test for non-zero;
// integer narrowing wraps; float narrowing rounds to nearest even.
// CHECK-LABEL: func.func @fold_cast(
// CHECK-DAG: %[[F2I:.*]] = kiln.constant dense<[-1, 0, 0, 2]> : tensor<4xi32>
// CHECK-DAG: %[[I2F:.*]] = kiln.constant dense<[-3.000000e+00, 0.000000e+00, 7.000000e+00, 1.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[I2B:.*]] = kiln.constant dense<[true, false, true, true]> : tensor<4xi1>
// CHECK-DAG: %[[F2B:.*]] = kiln.constant dense<true> : tensor<4xi1>
// CHECK-DAG: %[[B2I:.*]] = kiln.constant dense<[1, 0, 1, 1]> : tensor<4xi64>
// CHECK-DAG: %[[B2F:.*]] = kiln.constant dense<[1.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00]> : tensor<4xf16>
// CHECK-DAG: %[[NARROW:.*]] = kiln.constant dense<[44, 127, 5]> : tensor<3xi8>
// CHECK-DAG: %[[WIDEN:.*]] = kiln.constant dense<[-128, 127]> : tensor<2xi64>
// CHECK-DAG: %[[BF16:.*]] = kiln.constant dense<[1.000000e+00, 1.007810e+00]> : tensor<2xbf16>
// CHECK-NOT: kiln.cast
// CHECK: return %[[F2I]], %[[I2F]], %[[I2B]], %[[F2B]], %[[B2I]], %[[B2F]], %[[NARROW]], %[[WIDEN]], %[[BF16]] :
func.func @fold_cast() -> (tensor<4xi32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi64>, tensor<4xf16>, tensor<3xi8>, tensor<2xi64>, tensor<2xbf16>) {
  %f = kiln.constant dense<[-1.9, -0.5, 0.5, 2.99]> : tensor<4xf32>
  %0 = kiln.cast %f to i32 : tensor<4xf32>
  %i = kiln.constant dense<[-3, 0, 7, 1]> : tensor<4xi32>
  %1 = kiln.cast %i to f32 : tensor<4xi32>
  %2 = kiln.cast %i to i1 : tensor<4xi32>
  %3 = kiln.cast %f to i1 : tensor<4xf32>
  %4 = kiln.cast %2 to i64 : tensor<4xi1>
  %5 = kiln.cast %2 to f16 : tensor<4xi1>
  %w = kiln.constant dense<[300, -129, 5]> : tensor<3xi32>
  %6 = kiln.cast %w to i8 : tensor<3xi32>
  %n = kiln.constant dense<[-128, 127]> : tensor<2xi8>
  %7 = kiln.cast %n to i64 : tensor<2xi8>
  // bf16 has 7 fraction bits: 1 + 2^-8 is a tie that rounds to even (1.0),
  // 1 + 3 * 2^-9 rounds up to 1 + 2^-7 = 1.0078125.
  %g = kiln.constant dense<[1.00390625, 1.005859375]> : tensor<2xf32>
  %8 = kiln.cast %g to bf16 : tensor<2xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<4xi32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi64>, tensor<4xf16>, tensor<3xi8>, tensor<2xi64>, tensor<2xbf16>
}

// NaN and values out of the integer range have no defined conversion: not
// folded.
// CHECK-LABEL: func.func @fold_cast_out_of_range(
// CHECK: %[[A:.*]] = kiln.cast %{{.*}} to i8 : tensor<2xf32>
// CHECK: %[[B:.*]] = kiln.cast %{{.*}} to i32 : tensor<f32>
// CHECK: return %[[A]], %[[B]]
func.func @fold_cast_out_of_range() -> (tensor<2xi8>, tensor<i32>) {
  %f = kiln.constant dense<[1.0, 128.0]> : tensor<2xf32>
  %0 = kiln.cast %f to i8 : tensor<2xf32>
  %n = kiln.constant dense<0x7FC00000> : tensor<f32>
  %1 = kiln.cast %n to i32 : tensor<f32>
  return %0, %1 : tensor<2xi8>, tensor<i32>
}

//===----------------------------------------------------------------------===//
// Constant folding: data movement and reductions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fold_data_movement(
// CHECK-DAG: %[[RESHAPE:.*]] = kiln.constant dense<{{\[\[}}1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
// CHECK-DAG: %[[TRANSPOSE:.*]] = kiln.constant dense<{{\[\[}}1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
// CHECK-DAG: %[[CONCAT:.*]] = kiln.constant dense<{{\[\[}}1, 2, 3, 7, 8], [4, 5, 6, 9, 10]]> : tensor<2x5xi32>
// CHECK-DAG: %[[SLICE:.*]] = kiln.constant dense<{{\[\[}}3, 1], [6, 4]]> : tensor<2x2xi32>
// CHECK-DAG: %[[GATHER:.*]] = kiln.constant dense<{{\[\[}}4, 5, 6], [1, 2, 3], [4, 5, 6]]> : tensor<3x3xi32>
// CHECK-DAG: %[[PAD:.*]] = kiln.constant dense<{{\[\[}}-1, -1, -1, -1, -1], [1, 2, 3, -1, -1], [4, 5, 6, -1, -1], [-1, -1, -1, -1, -1]]> : tensor<4x5xi32>
// CHECK-DAG: %[[CROP:.*]] = kiln.constant dense<{{\[\[}}2, 3]]> : tensor<1x2xi32>
// CHECK-DAG: %[[BROADCAST:.*]] = kiln.constant dense<{{\[\[\[}}1, 2, 3], [4, 5, 6]], {{\[\[}}1, 2, 3], [4, 5, 6]]]> : tensor<2x2x3xi32>
// CHECK-NOT: kiln.{{[a-z_]+}} %
// CHECK: return %[[RESHAPE]], %[[TRANSPOSE]], %[[CONCAT]], %[[SLICE]], %[[GATHER]], %[[PAD]], %[[CROP]], %[[BROADCAST]] :
func.func @fold_data_movement() -> (tensor<3x2xi32>, tensor<3x2xi32>, tensor<2x5xi32>, tensor<2x2xi32>, tensor<3x3xi32>, tensor<4x5xi32>,
                                    tensor<1x2xi32>, tensor<2x2x3xi32>) {
  %c = kiln.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %d = kiln.constant dense<[[7, 8], [9, 10]]> : tensor<2x2xi32>
  %0 = kiln.reshape %c {shape = array<i64: 3, 2>} : tensor<2x3xi32>
  %1 = kiln.transpose %c {perm = array<i64: 1, 0>} : tensor<2x3xi32>
  %2 = kiln.concat %c, %d {axis = -1 : i64} : tensor<2x3xi32>, tensor<2x2xi32>
  %3 = kiln.slice %c {starts = array<i64: 0, 2>, ends = array<i64: 2, -1>, steps = array<i64: 1, -2>} : tensor<2x3xi32>
  // Negative indices count from the back.
  %idx = kiln.constant dense<[1, -2, -1]> : tensor<3xi64>
  %4 = kiln.gather %c, %idx {axis = 0 : i64} : tensor<2x3xi32>, tensor<3xi64>
  %5 = kiln.pad %c {pads = array<i64: 1, 0, 1, 2>, value = -1.0} : tensor<2x3xi32>
  %6 = kiln.pad %c {pads = array<i64: 0, -1, -1, 0>} : tensor<2x3xi32>
  %7 = kiln.broadcast %c {shape = array<i64: 2, 2, 3>} : tensor<2x3xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<3x2xi32>, tensor<3x2xi32>, tensor<2x5xi32>, tensor<2x2xi32>, tensor<3x3xi32>, tensor<4x5xi32>,
                                          tensor<1x2xi32>, tensor<2x2x3xi32>
}

// Higher-rank movement, checked against NumPy on arange(24).reshape(2, 3, 4).
// CHECK-LABEL: func.func @fold_data_movement_3d(
// CHECK-DAG: %[[T:.*]] = kiln.constant dense<{{\[\[\[}}0, 12], [1, 13], [2, 14], [3, 15]], {{\[\[}}4, 16], [5, 17], [6, 18], [7, 19]], {{\[\[}}8, 20], [9, 21], [10, 22], [11, 23]]]> : tensor<3x4x2xi32>
// CHECK-DAG: %[[S:.*]] = kiln.constant dense<{{\[\[\[}}23, 21]], {{\[\[}}11, 9]]]> : tensor<2x1x2xi32>
// CHECK-DAG: %[[G:.*]] = kiln.constant dense<{{\[\[}}20, 21, 22, 23], [12, 13, 14, 15]]> : tensor<2x4xi32>
// CHECK-DAG: %[[B:.*]] = kiln.constant dense<{{\[\[\[}}0, 0, 0], [1, 1, 1]], {{\[\[}}0, 0, 0], [1, 1, 1]]]> : tensor<2x2x3xi64>
// CHECK-NOT: kiln.{{[a-z_]+}} %
// CHECK: return %[[T]], %[[S]], %[[G]], %[[G]], %[[B]] :
func.func @fold_data_movement_3d() -> (tensor<3x4x2xi32>, tensor<2x1x2xi32>, tensor<2x4xi32>, tensor<2x4xi32>, tensor<2x2x3xi64>) {
  %c = kiln.constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]], [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]]> : tensor<2x3x4xi32>
  // c.transpose(1, 2, 0)
  %0 = kiln.transpose %c {perm = array<i64: 1, 2, 0>} : tensor<2x3x4xi32>
  // c[1::-1, 2::-2, 3::-2]
  %1 = kiln.slice %c {starts = array<i64: 1, 2, 3>, ends = array<i64: -1, 0, -1>, steps = array<i64: -1, -2, -2>} : tensor<2x3x4xi32>
  // take(take(c, [[2], [0]], axis=-2), 1, axis=0).reshape(2, 4)
  %idx = kiln.constant dense<[[2], [0]]> : tensor<2x1xi64>
  %g = kiln.gather %c, %idx {axis = -2 : i64} : tensor<2x3x4xi32>, tensor<2x1xi64>
  %one = kiln.constant dense<1> : tensor<i32>
  %g1 = kiln.gather %g, %one {axis = 0 : i64} : tensor<2x2x1x4xi32>, tensor<i32>
  %2 = kiln.reshape %g1 {shape = array<i64: 2, 4>} : tensor<2x1x4xi32>
  // concatenate([c, c], axis=-3)[3:4, 2::-2, :].reshape(2, 4): the same rows.
  %cc = kiln.concat %c, %c {axis = -3 : i64} : tensor<2x3x4xi32>, tensor<2x3x4xi32>
  %s = kiln.slice %cc {starts = array<i64: 3, 2, 0>, ends = array<i64: 4, -1, 4>, steps = array<i64: 1, -2, 1>} : tensor<4x3x4xi32>
  %3 = kiln.reshape %s {shape = array<i64: 2, 4>} : tensor<1x2x4xi32>
  // broadcast_to([[0], [1]], (2, 2, 3)): a size-1 dim in the middle.
  %col = kiln.constant dense<[[0], [1]]> : tensor<2x1xi64>
  %4 = kiln.broadcast %col {shape = array<i64: 2, 2, 3>} : tensor<2x1xi64>
  return %0, %1, %2, %3, %4 : tensor<3x4x2xi32>, tensor<2x1x2xi32>, tensor<2x4xi32>, tensor<2x4xi32>, tensor<2x2x3xi64>
}

// Out-of-range indices fail at run time: not folded.
// CHECK-LABEL: func.func @fold_gather_out_of_range(
// CHECK: %[[G:.*]] = kiln.gather
// CHECK: return %[[G]]
func.func @fold_gather_out_of_range() -> tensor<1x3xi32> {
  %c = kiln.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %idx = kiln.constant dense<[2]> : tensor<1xi64>
  %0 = kiln.gather %c, %idx : tensor<2x3xi32>, tensor<1xi64>
  return %0 : tensor<1x3xi32>
}

// CHECK-LABEL: func.func @fold_reduce(
// CHECK-DAG: %[[SUM:.*]] = kiln.constant dense<[2.000000e+00, 1.500000e+01]> : tensor<2xf32>
// CHECK-DAG: %[[MEAN:.*]] = kiln.constant dense<{{\[\[}}0.666666686], [5.000000e+00]]> : tensor<2x1xf32>
// CHECK-DAG: %[[MAX:.*]] = kiln.constant dense<{{\[\[}}4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<1x3xf32>
// CHECK-DAG: %[[MIN:.*]] = kiln.constant dense<-2.000000e+00> : tensor<f32>
// CHECK-DAG: %[[PROD:.*]] = kiln.constant dense<-7.200000e+02> : tensor<f32>
// CHECK-DAG: %[[IPROD:.*]] = kiln.constant dense<24> : tensor<i64>
// CHECK-DAG: %[[ISUM:.*]] = kiln.constant dense<[5, 7, 9]> : tensor<3xi32>
// CHECK-DAG: %[[IMAX:.*]] = kiln.constant dense<{{\[\[}}3], [6]]> : tensor<2x1xi32>
// CHECK-DAG: %[[EMPTY_SUM:.*]] = kiln.constant dense<0.000000e+00> : tensor<2x1xf32>
// CHECK-DAG: %[[EMPTY_PROD:.*]] = kiln.constant dense<1.000000e+00> : tensor<2x1xf32>
// CHECK: %[[L2:.*]] = kiln.reduce l2
// CHECK: %[[EMPTY_MAX:.*]] = kiln.reduce max
// CHECK: return %[[SUM]], %[[MEAN]], %[[MAX]], %[[MIN]], %[[PROD]], %[[IPROD]], %[[ISUM]], %[[IMAX]], %[[EMPTY_SUM]], %[[EMPTY_PROD]], %[[L2]], %[[EMPTY_MAX]] :
func.func @fold_reduce() -> (tensor<2xf32>, tensor<2x1xf32>, tensor<1x3xf32>, tensor<f32>, tensor<f32>, tensor<i64>, tensor<3xi32>, tensor<2x1xi32>,
                             tensor<2x1xf32>, tensor<2x1xf32>, tensor<f32>, tensor<2x1xf32>) {
  %c = kiln.constant dense<[[1.0, -2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %0 = kiln.reduce sum %c {axes = array<i64: 1>, keepdims = false} : tensor<2x3xf32>
  %1 = kiln.reduce mean %c {axes = array<i64: -1>} : tensor<2x3xf32>
  %2 = kiln.reduce max %c {axes = array<i64: 0>} : tensor<2x3xf32>
  %3 = kiln.reduce min %c {keepdims = false} : tensor<2x3xf32>
  %4 = kiln.reduce prod %c {axes = array<i64: 1, 0>, keepdims = false} : tensor<2x3xf32>
  %s = kiln.constant dense<[2, 3, 4]> : tensor<3xi64>
  %5 = kiln.reduce prod %s {keepdims = false} : tensor<3xi64>
  %i = kiln.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %6 = kiln.reduce sum %i {axes = array<i64: 0>, keepdims = false} : tensor<2x3xi32>
  %7 = kiln.reduce max %i {axes = array<i64: 1>} : tensor<2x3xi32>
  // Reducing an empty dim: the identity for sum and prod, no value for max.
  %e = kiln.constant dense<> : tensor<2x0xf32>
  %8 = kiln.reduce sum %e {axes = array<i64: 1>} : tensor<2x0xf32>
  %9 = kiln.reduce prod %e {axes = array<i64: 1>} : tensor<2x0xf32>
  // l1, l2, log_sum, log_sum_exp and sum_square are not folded.
  %10 = kiln.reduce l2 %c {keepdims = false} : tensor<2x3xf32>
  %11 = kiln.reduce max %e {axes = array<i64: 1>} : tensor<2x0xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11 : tensor<2xf32>, tensor<2x1xf32>, tensor<1x3xf32>, tensor<f32>, tensor<f32>, tensor<i64>,
                                                           tensor<3xi32>, tensor<2x1xi32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<f32>, tensor<2x1xf32>
}

//===----------------------------------------------------------------------===//
// Large constants
//===----------------------------------------------------------------------===//

// Splats fold at any size: only one value is computed.
// CHECK-LABEL: func.func @fold_large_splats(
// CHECK-DAG: %[[ADD:.*]] = kiln.constant dense<3.500000e+00> : tensor<1024x1024xf32>
// CHECK-DAG: %[[EXP:.*]] = kiln.constant dense<1.000000e+00> : tensor<1024x1024xf16>
// CHECK-DAG: %[[CMP:.*]] = kiln.constant dense<true> : tensor<1024x1024xi1>
// CHECK-DAG: %[[MOVED:.*]] = kiln.constant dense<2.000000e+00> : tensor<512x2048xf32>
// CHECK-DAG: %[[BCAST:.*]] = kiln.constant dense<7> : tensor<4096x4096xi32>
// CHECK-NOT: kiln.{{[a-z_]+}} %
// CHECK: return %[[ADD]], %[[EXP]], %[[CMP]], %[[MOVED]], %[[BCAST]] :
func.func @fold_large_splats() -> (tensor<1024x1024xf32>, tensor<1024x1024xf16>, tensor<1024x1024xi1>, tensor<512x2048xf32>, tensor<4096x4096xi32>) {
  %a = kiln.constant dense<1.5> : tensor<1024x1024xf32>
  %b = kiln.constant dense<2.0> : tensor<1024x1024xf32>
  %0 = kiln.add %a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>
  %z = kiln.constant dense<0.0> : tensor<1024x1024xf16>
  %1 = kiln.exp %z : tensor<1024x1024xf16>
  %2 = kiln.compare lt, %a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>
  %t = kiln.transpose %b {perm = array<i64: 1, 0>} : tensor<1024x1024xf32>
  %r = kiln.reshape %t {shape = array<i64: 2048, 512>} : tensor<1024x1024xf32>
  %3 = kiln.slice %r {starts = array<i64: 0, 0>, ends = array<i64: 2048, 512>, steps = array<i64: 4, 1>} : tensor<2048x512xf32>
  %tr = kiln.transpose %3 {perm = array<i64: 1, 0>} : tensor<512x512xf32>
  %cat = kiln.concat %tr, %tr, %tr, %tr {axis = 1 : i64} : tensor<512x512xf32>, tensor<512x512xf32>, tensor<512x512xf32>, tensor<512x512xf32>
  %seven = kiln.constant dense<7> : tensor<1xi32>
  %4 = kiln.broadcast %seven {shape = array<i64: 4096, 4096>} : tensor<1xi32>
  return %0, %1, %2, %cat, %4 : tensor<1024x1024xf32>, tensor<1024x1024xf16>, tensor<1024x1024xi1>, tensor<512x2048xf32>, tensor<4096x4096xi32>
}

// A non-splat result is computed only up to kMaxFoldElements (65536)
// elements. Concat only copies storage, so it folds past the limit.
// CHECK-LABEL: func.func @fold_size_limit(
// CHECK-DAG: %[[AT:.*]] = kiln.constant dense<"0x000080BF{{([0-9A-F]{8})+}}000000C0"> : tensor<256x256xf32>
// CHECK-DAG: %[[OVER:.*]] = kiln.constant dense<"0x0000803F{{([0-9A-F]{8})+}}00000040"> : tensor<32769x2xf32>
// CHECK: %[[NEG:.*]] = kiln.neg %[[OVER]] : tensor<32769x2xf32>
// CHECK: return %[[AT]], %[[NEG]] : tensor<256x256xf32>, tensor<32769x2xf32>
func.func @fold_size_limit() -> (tensor<256x256xf32>, tensor<32769x2xf32>) {
  %one = kiln.constant dense<1.0> : tensor<32768x2xf32>
  %two = kiln.constant dense<2.0> : tensor<1x2xf32>
  %half = kiln.constant dense<1.0> : tensor<128x256xf32>
  %other = kiln.constant dense<2.0> : tensor<128x256xf32>
  // 65536 elements: folded, then folded again by neg (-1.0 is 0xBF800000
  // and -2.0 is 0xC0000000, stored little-endian).
  %at = kiln.concat %half, %other {axis = 0 : i64} : tensor<128x256xf32>, tensor<128x256xf32>
  %0 = kiln.neg %at : tensor<256x256xf32>
  // 65538 elements: the concat folds, the neg is not computed.
  %over = kiln.concat %one, %two {axis = 0 : i64} : tensor<32768x2xf32>, tensor<1x2xf32>
  %1 = kiln.neg %over : tensor<32769x2xf32>
  return %0, %1 : tensor<256x256xf32>, tensor<32769x2xf32>
}

// A non-splat constant over the limit is not computed on, but it is
// reshaped: that copies its storage. (i1 data is bit-packed: 65537
// elements take 8193 bytes, unchanged by the reshape.)
// CHECK-LABEL: func.func @fold_large_constant(
// CHECK: %[[R:.*]] = kiln.constant dense<"[[BITS:0x[0-9A-F]+]]"> : tensor<1x65537xi1>
// CHECK: %[[C:.*]] = kiln.constant dense<"[[BITS]]"> : tensor<65537xi1>
// CHECK: %[[N:.*]] = kiln.not %[[C]] : tensor<65537xi1>
// CHECK: return %[[N]], %[[R]] : tensor<65537xi1>, tensor<1x65537xi1>
func.func @fold_large_constant() -> (tensor<65537xi1>, tensor<1x65537xi1>) {
  %c = kiln.constant dense<"0x499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499224499200"> : tensor<65537xi1>
  %0 = kiln.not %c : tensor<65537xi1>
  %1 = kiln.reshape %c {shape = array<i64: 1, 65537>} : tensor<65537xi1>
  return %0, %1 : tensor<65537xi1>, tensor<1x65537xi1>
}

//===----------------------------------------------------------------------===//
// Dead code and exported shape computations
//===----------------------------------------------------------------------===//

// Unused pure ops are erased, custom calls included unless they declare
// side effects. Identical constants are merged.
// CHECK-LABEL: func.func @dead_code(
// CHECK-NEXT: %[[C:.*]] = kiln.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[M:.*]] = kiln.mul %arg0, %[[C]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: %[[A:.*]] = kiln.add %[[M]], %[[C]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: kiln.custom_call "my_ops.print"(%[[A]]) {has_side_effects} : (tensor<4xf32>) -> ()
// CHECK-NEXT: return %[[A]] : tensor<4xf32>
func.func @dead_code(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = kiln.constant dense<2.0> : tensor<4xf32>
  %two_again = kiln.constant dense<2.0> : tensor<4xf32>
  %unused = kiln.constant dense<3.0> : tensor<4xf32>
  %0 = kiln.mul %x, %two : tensor<4xf32>, tensor<4xf32>
  %1 = kiln.add %0, %two_again : tensor<4xf32>, tensor<4xf32>
  %dead0 = kiln.exp %x : tensor<4xf32>
  %dead1 = kiln.matmul %dead0, %x : tensor<4xf32>, tensor<4xf32>
  %dead2 = kiln.custom_call "my_ops.swish"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  kiln.custom_call "my_ops.print"(%1) {has_side_effects} : (tensor<4xf32>) -> ()
  return %1 : tensor<4xf32>
}

// The shape sub-graph that exporters emit for x.view(x.size(0), -1, 1) on a
// static input: Shape -> Gather -> Unsqueeze -> Mul/ReduceProd -> Concat,
// checked against the input size, cast to i32 and back. kiln.reshape takes
// its shape as an attribute (the frontend resolved it), so the computed
// shape only feeds the returned value: it must collapse to one constant,
// and the element count, which is unused, must disappear.
// CHECK-LABEL: func.func @shape_subgraph(
// CHECK-NEXT: %[[SHAPE:.*]] = kiln.constant dense<[2, 12, 1]> : tensor<3xi64>
// CHECK-NEXT: %[[R:.*]] = kiln.reshape %arg0 {shape = array<i64: 2, 12, 1>} : tensor<2x3x4xf32>
// CHECK-NEXT: return %[[R]], %[[SHAPE]] : tensor<2x12x1xf32>, tensor<3xi64>
func.func @shape_subgraph(%x: tensor<2x3x4xf32>) -> (tensor<2x12x1xf32>, tensor<3xi64>) {
  %shape = kiln.constant dense<[2, 3, 4]> : tensor<3xi64>
  %c0 = kiln.constant dense<0> : tensor<i64>
  %c1 = kiln.constant dense<1> : tensor<i64>
  %c2 = kiln.constant dense<2> : tensor<i64>
  %d0 = kiln.gather %shape, %c0 {axis = 0 : i64} : tensor<3xi64>, tensor<i64>
  %d1 = kiln.gather %shape, %c1 {axis = 0 : i64} : tensor<3xi64>, tensor<i64>
  %d2 = kiln.gather %shape, %c2 {axis = 0 : i64} : tensor<3xi64>, tensor<i64>
  %u0 = kiln.reshape %d0 {shape = array<i64: 1>} : tensor<i64>
  %d12 = kiln.mul %d1, %d2 : tensor<i64>, tensor<i64>
  %u12 = kiln.reshape %d12 {shape = array<i64: 1>} : tensor<i64>
  %one = kiln.constant dense<[1]> : tensor<1xi64>
  %new_shape = kiln.concat %u0, %u12, %one {axis = 0 : i64} : tensor<1xi64>, tensor<1xi64>, tensor<1xi64>
  // The same count through ReduceProd over the tail of the input shape.
  %tail_idx = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %tail = kiln.gather %shape, %tail_idx {axis = 0 : i64} : tensor<3xi64>, tensor<2xi64>
  %tail_count = kiln.reduce prod %tail {axes = array<i64: 0>} : tensor<2xi64>
  %checked = kiln.compare eq, %tail_count, %u12 : tensor<1xi64>, tensor<1xi64>
  // ONNX Reshape's 0 entries copy the input dim: where(shape == 0, input shape, shape).
  %zero = kiln.constant dense<0> : tensor<i64>
  %is_zero = kiln.compare eq, %new_shape, %zero : tensor<3xi64>, tensor<i64>
  %copy = kiln.slice %shape {starts = array<i64: 0>, ends = array<i64: 3>, steps = array<i64: 1>} : tensor<3xi64>
  %resolved = kiln.select %is_zero, %copy, %new_shape : tensor<3xi1>, tensor<3xi64>, tensor<3xi64>
  %minus = kiln.constant dense<-1> : tensor<3xi64>
  %ok = kiln.broadcast %checked {shape = array<i64: 3>} : tensor<1xi1>
  %guarded = kiln.select %ok, %resolved, %minus : tensor<3xi1>, tensor<3xi64>, tensor<3xi64>
  %as_i32 = kiln.cast %guarded to i32 : tensor<3xi64>
  %final = kiln.cast %as_i32 to i64 : tensor<3xi32>
  %count = kiln.reduce prod %final {keepdims = false} : tensor<3xi64>
  %y = kiln.reshape %x {shape = array<i64: 2, 12, 1>} : tensor<2x3x4xf32>
  return %y, %final : tensor<2x12x1xf32>, tensor<3xi64>
}

// When nothing uses the computed shape, only the reshape remains.
// CHECK-LABEL: func.func @shape_subgraph_unused(
// CHECK-NEXT: %[[R:.*]] = kiln.reshape %arg0 {shape = array<i64: 6, 4>} : tensor<2x3x4xf32>
// CHECK-NEXT: return %[[R]] : tensor<6x4xf32>
func.func @shape_subgraph_unused(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %shape = kiln.constant dense<[2, 3, 4]> : tensor<3xi64>
  %head_idx = kiln.constant dense<[0, 1]> : tensor<2xi64>
  %head = kiln.gather %shape, %head_idx {axis = 0 : i64} : tensor<3xi64>, tensor<2xi64>
  %rows = kiln.reduce prod %head : tensor<2xi64>
  %last = kiln.slice %shape {starts = array<i64: 2>, ends = array<i64: 3>, steps = array<i64: 1>} : tensor<3xi64>
  %new_shape = kiln.concat %rows, %last {axis = 0 : i64} : tensor<1xi64>, tensor<1xi64>
  %y = kiln.reshape %x {shape = array<i64: 6, 4>} : tensor<2x3x4xf32>
  return %y : tensor<6x4xf32>
}
