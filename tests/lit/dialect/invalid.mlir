// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// One case per error of the Kiln verifiers and of type inference (which runs
// while parsing the custom form, and again when verifying the generic form).

//===----------------------------------------------------------------------===//
// constant and custom_call
//===----------------------------------------------------------------------===//

func.func @constant_not_ranked_tensor() {
  // expected-error @+1 {{'kiln.constant' op value must be a ranked tensor constant}}
  %0 = kiln.constant dense<1.0> : vector<2xf32>
  return
}

// -----

// The generic form reaches the verifier without type inference in between.
func.func @constant_not_ranked_tensor_generic() {
  // expected-error @+1 {{'kiln.constant' op value must be a ranked tensor constant}}
  %0 = "kiln.constant"() {value = dense<1.0> : vector<2xf32>} : () -> tensor<2xf32>
  return
}

// -----

func.func @constant_dynamic_shape() {
  // expected-error @+1 {{'kiln.constant' op value must have a static shape, got 'tensor<?xf32>'}}
  %0 = "kiln.constant"() {value = dense_resource<blob> : tensor<?xf32>} : () -> tensor<?xf32>
  return
}

// -----

func.func @constant_element_type() {
  // expected-error @+1 {{'kiln.constant' op result #0 must be ranked tensor of Kiln element type (f32, f16, bf16, f64, i8, i32, i64, i1) values, but got 'tensor<2xi16>'}}
  %0 = kiln.constant dense<1> : tensor<2xi16>
  return
}

// -----

func.func @constant_missing_value() {
  // expected-error @+1 {{'kiln.constant' op requires attribute 'value'}}
  %0 = "kiln.constant"() : () -> tensor<2xf32>
  return
}

// -----

func.func @constant_wrong_result_type() {
  // expected-error @+2 {{'kiln.constant' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'kiln.constant' op failed to infer returned types}}
  %0 = "kiln.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return
}

// -----

func.func @custom_call_empty_target(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.custom_call' op call_target must name a registered custom operator}}
  %0 = kiln.custom_call ""(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

// -----

func.func @sigmoid_on_integers(%x: tensor<4xi32>) {
  // expected-error @+1 {{'kiln.sigmoid' op operand #0 must be ranked tensor of floating-point (f32, f16, bf16, f64) values, but got 'tensor<4xi32>'}}
  %0 = kiln.sigmoid %x : tensor<4xi32>
  return
}

// -----

func.func @not_on_floats(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.not' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = kiln.not %x : tensor<4xf32>
  return
}

// -----

func.func @relu_on_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{'kiln.relu' op operand #0 must be ranked tensor of numeric (f32, f16, bf16, f64, i8, i32, i64) values, but got 'tensor<4xi1>'}}
  %0 = kiln.relu %x : tensor<4xi1>
  return
}

// -----

func.func @exp_on_f8(%x: tensor<4xf8E5M2>) {
  // expected-error @+1 {{'kiln.exp' op operand #0 must be ranked tensor of floating-point (f32, f16, bf16, f64) values, but got 'tensor<4xf8E5M2>'}}
  %0 = kiln.exp %x : tensor<4xf8E5M2>
  return
}

// -----

func.func @unary_result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.tanh' op requires the same type for all operands and results}}
  %0 = "kiln.tanh"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @gelu_on_integers(%x: tensor<4xi8>) {
  // expected-error @+1 {{'kiln.gelu' op operand #0 must be ranked tensor of floating-point (f32, f16, bf16, f64) values, but got 'tensor<4xi8>'}}
  %0 = kiln.gelu %x : tensor<4xi8>
  return
}

// -----

func.func @gelu_bad_approximation(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.gelu' op attribute 'approximate' failed to satisfy constraint: formula used by gelu}}
  %0 = kiln.gelu %x {approximate = 2 : i32} : tensor<4xf32>
  return
}

// -----

func.func @clip_min_greater_than_max(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.clip' op min (6.000000e+00) is greater than max (0.000000e+00)}}
  %0 = kiln.clip %x {min = 6.0, max = 0.0} : tensor<4xf32>
  return
}

// -----

func.func @clip_on_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{'kiln.clip' op operand #0 must be ranked tensor of numeric (f32, f16, bf16, f64, i8, i32, i64) values, but got 'tensor<4xi1>'}}
  %0 = kiln.clip %x {min = 0.0} : tensor<4xi1>
  return
}

// -----

func.func @cast_to_unsupported_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.cast' op attribute 'to' failed to satisfy constraint: type attribute of Kiln element type (f32, f16, bf16, f64, i8, i32, i64, i1)}}
  %0 = kiln.cast %x to i16 : tensor<4xf32>
  return
}

// -----

func.func @cast_to_non_element_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.cast' op attribute 'to' failed to satisfy constraint: type attribute of Kiln element type (f32, f16, bf16, f64, i8, i32, i64, i1)}}
  %0 = kiln.cast %x to memref<2xf32> : tensor<4xf32>
  return
}

// -----

func.func @cast_missing_to(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.cast' op requires attribute 'to'}}
  %0 = "kiln.cast"(%x) : (tensor<4xf32>) -> tensor<4xi32>
  return
}

// -----

func.func @cast_wrong_result_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.cast' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "kiln.cast"(%x) {to = i32} : (tensor<4xf32>) -> tensor<5xi32>
  return
}

// -----

func.func @add_broadcast_mismatch(%x: tensor<2x3xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.add' op operand shapes [2, 3] and [4] are not broadcast-compatible: dimension 1 (3) vs dimension 0 (4)}}
  %0 = kiln.add %x, %y : tensor<2x3xf32>, tensor<4xf32>
  return
}

// -----

func.func @mul_broadcast_mismatch_dynamic(%x: tensor<?x3xf16>, %y: tensor<5x2xf16>) {
  // expected-error @+1 {{'kiln.mul' op operand shapes [?, 3] and [5, 2] are not broadcast-compatible: dimension 1 (3) vs dimension 1 (2)}}
  %0 = kiln.mul %x, %y : tensor<?x3xf16>, tensor<5x2xf16>
  return
}

// -----

func.func @sub_element_type_mismatch(%x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{'kiln.sub' op lhs element type f32 differs from rhs element type f16}}
  %0 = kiln.sub %x, %y : tensor<4xf32>, tensor<4xf16>
  return
}

// -----

func.func @div_on_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{'kiln.div' op operand #0 must be ranked tensor of numeric (f32, f16, bf16, f64, i8, i32, i64) values, but got 'tensor<4xi1>'}}
  %0 = kiln.div %x, %x : tensor<4xi1>, tensor<4xi1>
  return
}

// -----

func.func @and_on_integers(%x: tensor<4xi32>) {
  // expected-error @+1 {{'kiln.and' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = kiln.and %x, %x : tensor<4xi32>, tensor<4xi32>
  return
}

// -----

func.func @add_wrong_result_type(%x: tensor<2x3xf32>, %y: tensor<3xf32>) {
  // expected-error @+2 {{'kiln.add' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'kiln.add' op failed to infer returned types}}
  %0 = "kiln.add"(%x, %y) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @compare_element_type_mismatch(%x: tensor<4xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{'kiln.compare' op lhs element type f32 differs from rhs element type i32}}
  %0 = kiln.compare eq, %x, %y : tensor<4xf32>, tensor<4xi32>
  return
}

// -----

func.func @compare_broadcast_mismatch(%x: tensor<4xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'kiln.compare' op operand shapes [4] and [3] are not broadcast-compatible: dimension 0 (4) vs dimension 0 (3)}}
  %0 = kiln.compare lt, %x, %y : tensor<4xf32>, tensor<3xf32>
  return
}

// -----

func.func @compare_bad_direction(%x: tensor<4xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'direction' [eq, ne, lt, le, gt, ge]}}
  %0 = kiln.compare lte, %x, %x : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @compare_wrong_result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.compare' op result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = "kiln.compare"(%x, %x) {direction = 0 : i32} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @compare_wrong_result_shape(%x: tensor<4xf32>) {
  // expected-error @+2 {{'kiln.compare' op inferred type(s) 'tensor<4xi1>' are incompatible with return type(s) of operation 'tensor<3xi1>'}}
  // expected-error @+1 {{'kiln.compare' op failed to infer returned types}}
  %0 = "kiln.compare"(%x, %x) {direction = 0 : i32} : (tensor<4xf32>, tensor<4xf32>) -> tensor<3xi1>
  return
}

// -----

func.func @select_element_type_mismatch(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{'kiln.select' op on_true element type f32 differs from on_false element type f16}}
  %0 = kiln.select %c, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf16>
  return
}

// -----

func.func @select_broadcast_mismatch(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'kiln.select' op operand shapes [4] and [3] are not broadcast-compatible: dimension 0 (4) vs dimension 0 (3) (operands 0 and 2)}}
  %0 = kiln.select %c, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<3xf32>
  return
}

// -----

func.func @select_condition_not_bool(%c: tensor<4xi8>, %x: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.select' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = kiln.select %c, %x, %x : tensor<4xi8>, tensor<4xf32>, tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_contraction_mismatch(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'kiln.matmul' op contraction dimensions of lhs [2, 3] and rhs [4, 5] do not match: dimension 1 (3) vs dimension 0 (4)}}
  %0 = kiln.matmul %a, %b : tensor<2x3xf32>, tensor<4x5xf32>
  return
}

// -----

func.func @matmul_vector_contraction_mismatch(%a: tensor<2x3xf32>, %v: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.matmul' op contraction dimensions of lhs [2, 3] and rhs [4] do not match: dimension 1 (3) vs dimension 0 (4)}}
  %0 = kiln.matmul %a, %v : tensor<2x3xf32>, tensor<4xf32>
  return
}

// -----

func.func @matmul_rank0_lhs(%a: tensor<f32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'kiln.matmul' op lhs must have rank >= 1 for matmul, got []}}
  %0 = kiln.matmul %a, %b : tensor<f32>, tensor<4x5xf32>
  return
}

// -----

func.func @matmul_rank0_rhs(%a: tensor<4x5xf32>, %b: tensor<f32>) {
  // expected-error @+1 {{'kiln.matmul' op rhs must have rank >= 1 for matmul, got []}}
  %0 = kiln.matmul %a, %b : tensor<4x5xf32>, tensor<f32>
  return
}

// -----

func.func @matmul_batch_mismatch(%a: tensor<2x4x5xf32>, %b: tensor<3x5x6xf32>) {
  // expected-error @+1 {{'kiln.matmul' op batch dimensions of lhs [2, 4, 5] and rhs [3, 5, 6] are not broadcast-compatible: dimension 0 (2) vs dimension 0 (3)}}
  %0 = kiln.matmul %a, %b : tensor<2x4x5xf32>, tensor<3x5x6xf32>
  return
}

// -----

func.func @matmul_element_type_mismatch(%a: tensor<2x3xf32>, %b: tensor<3x4xbf16>) {
  // expected-error @+1 {{'kiln.matmul' op lhs element type f32 differs from rhs element type bf16}}
  %0 = kiln.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xbf16>
  return
}

// -----

func.func @matmul_on_bool(%a: tensor<2x2xi1>) {
  // expected-error @+1 {{'kiln.matmul' op operand #0 must be ranked tensor of numeric (f32, f16, bf16, f64, i8, i32, i64) values, but got 'tensor<2x2xi1>'}}
  %0 = kiln.matmul %a, %a : tensor<2x2xi1>, tensor<2x2xi1>
  return
}

//===----------------------------------------------------------------------===//
// conv
//===----------------------------------------------------------------------===//

// -----

func.func @conv_input_rank(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>) {
  // expected-error @+1 {{'kiln.conv' op input [2, 3] must have rank >= 3 (batch, channels and at least one spatial dimension), got rank 2}}
  %0 = kiln.conv %x, %w : tensor<2x3xf32>, tensor<4x3xf32>
  return
}

// -----

func.func @conv_filter_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+1 {{'kiln.conv' op filter [4, 3, 3] must have the same rank as input [1, 3, 8, 8]: 3 vs 4}}
  %0 = kiln.conv %x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3xf32>
  return
}

// -----

func.func @conv_channel_mismatch(%x: tensor<1x3x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+1 {{'kiln.conv' op input channel count 3 (dimension 1 of input [1, 3, 8, 8]) does not equal filter dimension 1 (4) of filter [4, 4, 3, 3] times groups (1)}}
  %0 = kiln.conv %x, %w : tensor<1x3x8x8xf32>, tensor<4x4x3x3xf32>
  return
}

// -----

func.func @conv_channel_mismatch_groups(%x: tensor<1x8x8x8xf32>, %w: tensor<4x8x3x3xf32>) {
  // expected-error @+1 {{'kiln.conv' op input channel count 8 (dimension 1 of input [1, 8, 8, 8]) does not equal filter dimension 1 (8) of filter [4, 8, 3, 3] times groups (2)}}
  %0 = kiln.conv %x, %w {groups = 2 : i64} : tensor<1x8x8x8xf32>, tensor<4x8x3x3xf32>
  return
}

// -----

func.func @conv_groups_output_channels(%x: tensor<1x8x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error @+1 {{'kiln.conv' op filter output channel count 6 (dimension 0 of filter [6, 2, 3, 3]) is not divisible by groups (4)}}
  %0 = kiln.conv %x, %w {groups = 4 : i64} : tensor<1x8x8x8xf32>, tensor<6x2x3x3xf32>
  return
}

// -----

func.func @conv_groups_zero(%x: tensor<1x8x8x8xf32>, %w: tensor<8x8x3x3xf32>) {
  // expected-error @+1 {{'kiln.conv' op groups (0) must be at least 1}}
  %0 = kiln.conv %x, %w {groups = 0 : i64} : tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>
  return
}

// -----

func.func @conv_groups_negative(%x: tensor<1x8x8x8xf32>, %w: tensor<8x8x3x3xf32>) {
  // expected-error @+1 {{'kiln.conv' op groups (-2) must be at least 1}}
  %0 = kiln.conv %x, %w {groups = -2 : i64} : tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>
  return
}

// -----

func.func @conv_groups_wrong_kind(%x: tensor<1x8x8x8xf32>, %w: tensor<8x8x3x3xf32>) {
  // expected-error @+1 {{'kiln.conv' op attribute 'groups' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = kiln.conv %x, %w {groups = 1.0 : f32} : tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>
  return
}

// -----

func.func @conv_strides_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'kiln.conv' op strides must have 2 entries (one per spatial dimension of input [1, 3, 8, 8]), got 1}}
  %0 = kiln.conv %x, %w {strides = array<i64: 2>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_dilations_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'kiln.conv' op dilations must have 2 entries (one per spatial dimension of input [1, 3, 8, 8]), got 3}}
  %0 = kiln.conv %x, %w {dilations = array<i64: 1, 1, 1>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_pads_length(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'kiln.conv' op pads must have 4 entries (begin and end for each spatial dimension of input [1, 3, 8, 8]), got 2}}
  %0 = kiln.conv %x, %w {pads = array<i64: 1, 1>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_zero_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'kiln.conv' op strides entry 1 (0) must be at least 1}}
  %0 = kiln.conv %x, %w {strides = array<i64: 1, 0>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_zero_dilation(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'kiln.conv' op dilations entry 0 (-1) must be at least 1}}
  %0 = kiln.conv %x, %w {dilations = array<i64: -1, 1>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_negative_pad(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'kiln.conv' op pads entry 2 (-1) must be non-negative}}
  %0 = kiln.conv %x, %w {pads = array<i64: 0, 0, -1, 0>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_empty_filter_window(%x: tensor<1x3x8xf32>, %w: tensor<4x3x0xf32>) {
  // expected-error @+1 {{'kiln.conv' op filter [4, 3, 0] dimension 2 (0) must be at least 1}}
  %0 = kiln.conv %x, %w : tensor<1x3x8xf32>, tensor<4x3x0xf32>
  return
}

// -----

func.func @conv_window_does_not_fit(%x: tensor<1x3x4x4xf32>, %w: tensor<4x3x5x5xf32>) {
  // expected-error @+1 {{'kiln.conv' op window does not fit in dimension 2 of input [1, 3, 4, 4]: size 4 with pads 0 and 0, filter size 5, dilation 1, stride 1 gives output size 0}}
  %0 = kiln.conv %x, %w : tensor<1x3x4x4xf32>, tensor<4x3x5x5xf32>
  return
}

// -----

func.func @conv_dilated_window_does_not_fit(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'kiln.conv' op window does not fit in dimension 3 of input [1, 3, 8, 8]: size 8 with pads 0 and 0, filter size 3, dilation 4, stride 1 gives output size 0}}
  %0 = kiln.conv %x, %w {dilations = array<i64: 1, 4>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  return
}

// -----

func.func @conv_bias_shape(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'kiln.conv' op bias shape [3] is not [4] (the filter's output channels)}}
  %0 = kiln.conv %x, %w, %b : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @conv_bias_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<?x3x3x3xf32>, %b: tensor<1x4xf32>) {
  // expected-error @+1 {{'kiln.conv' op bias shape [1, 4] is not [?] (the filter's output channels)}}
  %0 = kiln.conv %x, %w, %b : tensor<1x3x8x8xf32>, tensor<?x3x3x3xf32>, tensor<1x4xf32>
  return
}

// -----

func.func @conv_bias_element_type(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'kiln.conv' op bias element type f16 is not the result element type f32}}
  %0 = kiln.conv %x, %w, %b : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf16>
  return
}

// -----

func.func @conv_filter_element_type(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xbf16>) {
  // expected-error @+1 {{'kiln.conv' op input element type f32 differs from filter element type bf16}}
  %0 = kiln.conv %x, %w : tensor<1x3x8x8xf32>, tensor<4x3x3x3xbf16>
  return
}

// -----

// i8 is the integer convolution (quantization-invalid.mlir); wider integers
// are not convolved.
func.func @conv_on_integers(%x: tensor<1x3x8x8xi32>, %w: tensor<4x3x3x3xi32>) {
  // expected-error @+1 {{'kiln.conv' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float or 8-bit signless integer values, but got 'tensor<1x3x8x8xi32>'}}
  %0 = kiln.conv %x, %w : tensor<1x3x8x8xi32>, tensor<4x3x3x3xi32>
  return
}

// -----

func.func @conv_wrong_result_type(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+2 {{'kiln.conv' op inferred type(s) 'tensor<1x4x6x6xf32>' are incompatible with return type(s) of operation 'tensor<1x4x8x8xf32>'}}
  // expected-error @+1 {{'kiln.conv' op failed to infer returned types}}
  %0 = "kiln.conv"(%x, %w) : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

// -----

func.func @pool_kernel_length(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'kiln.max_pool' op kernel must have 2 entries (one per spatial dimension of input [1, 3, 8, 8]), got 1}}
  %0 = kiln.max_pool %x {kernel_shape = array<i64: 2>} : tensor<1x3x8x8xf32>
  return
}

// -----

func.func @pool_missing_kernel(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'kiln.avg_pool' op requires attribute 'kernel_shape'}}
  %0 = kiln.avg_pool %x : tensor<1x3x8x8xf32>
  return
}

// -----

func.func @pool_kernel_entry(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'kiln.avg_pool' op kernel [2, 0] entry 1 (0) must be at least 1}}
  %0 = kiln.avg_pool %x {kernel_shape = array<i64: 2, 0>} : tensor<1x3x8x8xf32>
  return
}

// -----

func.func @pool_input_rank(%x: tensor<3x8xf32>) {
  // expected-error @+1 {{'kiln.max_pool' op input [3, 8] must have rank >= 3 (batch, channels and at least one spatial dimension), got rank 2}}
  %0 = kiln.max_pool %x {kernel_shape = array<i64: 2>} : tensor<3x8xf32>
  return
}

// -----

func.func @pool_strides_length(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'kiln.max_pool' op strides must have 2 entries (one per spatial dimension of input [1, 3, 8, 8]), got 3}}
  %0 = kiln.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1, 1>} : tensor<1x3x8x8xf32>
  return
}

// -----

func.func @pool_pads_length(%x: tensor<1x3x8xf32>) {
  // expected-error @+1 {{'kiln.avg_pool' op pads must have 2 entries (begin and end for each spatial dimension of input [1, 3, 8]), got 1}}
  %0 = kiln.avg_pool %x {kernel_shape = array<i64: 2>, pads = array<i64: 1>} : tensor<1x3x8xf32>
  return
}

// -----

func.func @pool_negative_pad(%x: tensor<1x3x8xf32>) {
  // expected-error @+1 {{'kiln.max_pool' op pads entry 1 (-2) must be non-negative}}
  %0 = kiln.max_pool %x {kernel_shape = array<i64: 2>, pads = array<i64: 0, -2>} : tensor<1x3x8xf32>
  return
}

// -----

func.func @pool_window_does_not_fit(%x: tensor<1x3x2x8xf32>) {
  // expected-error @+1 {{'kiln.max_pool' op window does not fit in dimension 2 of input [1, 3, 2, 8]: size 2 with pads 0 and 0, kernel size 3, dilation 1, stride 1 gives output size 0}}
  %0 = kiln.max_pool %x {kernel_shape = array<i64: 3, 3>} : tensor<1x3x2x8xf32>
  return
}

// -----

func.func @pool_ceil_mode_wrong_kind(%x: tensor<1x3x8xf32>) {
  // expected-error @+1 {{'kiln.max_pool' op attribute 'ceil_mode' failed to satisfy constraint: bool attribute}}
  %0 = kiln.max_pool %x {kernel_shape = array<i64: 2>, ceil_mode = 1 : i64} : tensor<1x3x8xf32>
  return
}

// -----

func.func @pool_on_integers(%x: tensor<1x3x8xi32>) {
  // expected-error @+1 {{'kiln.max_pool' op operand #0 must be ranked tensor of floating-point (f32, f16, bf16, f64) values, but got 'tensor<1x3x8xi32>'}}
  %0 = kiln.max_pool %x {kernel_shape = array<i64: 2>} : tensor<1x3x8xi32>
  return
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.reduce' op axes entry 1 (2) is out of range for input [2, 3] of rank 2}}
  %0 = kiln.reduce sum %x {axes = array<i64: 0, 2>} : tensor<2x3xf32>
  return
}

// -----

func.func @reduce_negative_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.reduce' op axes entry 0 (-3) is out of range for input [2, 3] of rank 2}}
  %0 = kiln.reduce max %x {axes = array<i64: -3>} : tensor<2x3xf32>
  return
}

// -----

func.func @reduce_duplicate_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.reduce' op axes entry 1 (-1) repeats dimension 1 of input [2, 3]; axes [1, -1] must be distinct}}
  %0 = kiln.reduce mean %x {axes = array<i64: 1, -1>} : tensor<2x3xf32>
  return
}

// -----

func.func @reduce_l2_on_integers(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{'kiln.reduce' op reduction 'l2' needs a floating-point input, got element type 'i32'}}
  %0 = kiln.reduce l2 %x : tensor<2x3xi32>
  return
}

// -----

func.func @reduce_log_sum_exp_on_integers(%x: tensor<2x3xi8>) {
  // expected-error @+1 {{'kiln.reduce' op reduction 'log_sum_exp' needs a floating-point input, got element type 'i8'}}
  %0 = kiln.reduce log_sum_exp %x : tensor<2x3xi8>
  return
}

// -----

func.func @reduce_unknown_kind(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'kind' [sum, mean, max, min, prod, l1, l2, log_sum, log_sum_exp, sum_square]}}
  %0 = kiln.reduce avg %x : tensor<2x3xf32>
  return
}

// -----

func.func @reduce_keepdims_wrong_kind(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.reduce' op attribute 'keepdims' failed to satisfy constraint: bool attribute}}
  %0 = kiln.reduce sum %x {keepdims = 0 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @reduce_wrong_result_type(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'kiln.reduce' op inferred type(s) 'tensor<1x1xf32>' are incompatible with return type(s) of operation 'tensor<f32>'}}
  // expected-error @+1 {{'kiln.reduce' op failed to infer returned types}}
  %0 = "kiln.reduce"(%x) {kind = 0 : i32} : (tensor<2x3xf32>) -> tensor<f32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.softmax' op axis 2 is out of range for a tensor of rank 2}}
  %0 = kiln.softmax %x {axis = 2 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @softmax_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'kiln.softmax' op axis -1 is out of range for a tensor of rank 0}}
  %0 = kiln.softmax %x : tensor<f32>
  return
}

// -----

func.func @log_softmax_axis(%x: tensor<2x3xf16>) {
  // expected-error @+1 {{'kiln.log_softmax' op axis -3 is out of range for a tensor of rank 2}}
  %0 = kiln.log_softmax %x {axis = -3 : i64} : tensor<2x3xf16>
  return
}

// -----

func.func @layer_norm_scale_shape(%x: tensor<2x8x768xf32>, %g: tensor<512xf32>) {
  // expected-error @+1 {{'kiln.layer_norm' op scale shape [512] does not broadcast to the normalized shape [768]}}
  %0 = kiln.layer_norm %x, %g : tensor<2x8x768xf32>, tensor<512xf32>
  return
}

// -----

func.func @layer_norm_scale_rank(%x: tensor<2x8x768xf32>, %g: tensor<8x768xf32>) {
  // expected-error @+1 {{'kiln.layer_norm' op scale shape [8, 768] does not broadcast to the normalized shape [768]}}
  %0 = kiln.layer_norm %x, %g : tensor<2x8x768xf32>, tensor<8x768xf32>
  return
}

// -----

func.func @layer_norm_bias_shape(%x: tensor<2x8x768xf32>, %g: tensor<8x768xf32>, %b: tensor<8x1x768xf32>) {
  // expected-error @+1 {{'kiln.layer_norm' op bias shape [8, 1, 768] does not broadcast to the normalized shape [8, 768]}}
  %0 = kiln.layer_norm %x, %g, %b {axis = 1 : i64} : tensor<2x8x768xf32>, tensor<8x768xf32>, tensor<8x1x768xf32>
  return
}

// -----

func.func @layer_norm_axis(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'kiln.layer_norm' op axis 2 is out of range for a tensor of rank 2}}
  %0 = kiln.layer_norm %x, %g {axis = 2 : i64} : tensor<2x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @layer_norm_negative_axis(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'kiln.layer_norm' op axis -3 is out of range for a tensor of rank 2}}
  %0 = kiln.layer_norm %x, %g {axis = -3 : i64} : tensor<2x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @layer_norm_element_type(%x: tensor<2x8xf32>, %g: tensor<8xf16>) {
  // expected-error @+1 {{'kiln.layer_norm' op input element type f32 differs from scale element type f16}}
  %0 = kiln.layer_norm %x, %g : tensor<2x8xf32>, tensor<8xf16>
  return
}

// -----

func.func @batch_norm_param_shape(%x: tensor<1x64x8x8xf32>, %s: tensor<64xf32>, %m: tensor<32xf32>) {
  // expected-error @+1 {{'kiln.batch_norm' op mean shape [32] is not [64] (the input's channel dimension)}}
  %0 = kiln.batch_norm %x, %s, %s, %m, %s : tensor<1x64x8x8xf32>, tensor<64xf32>, tensor<64xf32>, tensor<32xf32>, tensor<64xf32>
  return
}

// -----

func.func @batch_norm_param_rank(%x: tensor<1x?x8x8xf32>, %s: tensor<64xf32>, %v: tensor<1x64xf32>) {
  // expected-error @+1 {{'kiln.batch_norm' op variance shape [1, 64] is not [?] (the input's channel dimension)}}
  %0 = kiln.batch_norm %x, %s, %s, %s, %v : tensor<1x?x8x8xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<1x64xf32>
  return
}

// -----

func.func @batch_norm_param_element_type(%x: tensor<1x4xf32>, %s: tensor<4xf32>, %b: tensor<4xbf16>) {
  // expected-error @+1 {{'kiln.batch_norm' op input element type f32 differs from bias element type bf16}}
  %0 = kiln.batch_norm %x, %s, %b, %s, %s : tensor<1x4xf32>, tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @batch_norm_input_rank(%x: tensor<4xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'kiln.batch_norm' op input must have rank >= 2 ([N, C, ...]), got [4]}}
  %0 = kiln.batch_norm %x, %s, %s, %s, %s : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

// -----

func.func @reshape_element_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.reshape' op cannot reshape input [2, 3] (6 elements) to [4, 2] (8 elements)}}
  %0 = kiln.reshape %x {shape = array<i64: 4, 2>} : tensor<2x3xf32>
  return
}

// -----

func.func @reshape_partial_element_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.reshape' op cannot reshape input [2, 3] (6 elements) to [4, ?]: the static dimensions hold 4 elements, which does not divide the input's element count}}
  %0 = kiln.reshape %x {shape = array<i64: 4, -1>} : tensor<2x3xf32>
  return
}

// -----

func.func @reshape_negative_entry(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.reshape' op newShape [-2, 3] entry 0 (-2) must be non-negative, or -1 for a dynamic dimension}}
  %0 = kiln.reshape %x {shape = array<i64: -2, 3>} : tensor<2x3xf32>
  return
}

// -----

func.func @reshape_overflow(%x: tensor<?xf32>) {
  // expected-error @+1 {{'kiln.reshape' op newShape [4294967296, 4294967296] has more elements than fit in int64}}
  %0 = kiln.reshape %x {shape = array<i64: 4294967296, 4294967296>} : tensor<?xf32>
  return
}

// -----

func.func @reshape_input_overflow(%x: tensor<4294967296x4294967296xi8>) {
  // expected-error @+1 {{'kiln.reshape' op input [4294967296, 4294967296] has more elements than fit in int64}}
  %0 = kiln.reshape %x {shape = array<i64: -1>} : tensor<4294967296x4294967296xi8>
  return
}

// -----

func.func @reshape_missing_shape(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.reshape' op requires attribute 'shape'}}
  %0 = kiln.reshape %x : tensor<2x3xf32>
  return
}

// -----

func.func @reshape_shape_wrong_kind(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.reshape' op attribute 'shape' failed to satisfy constraint: i64 dense array attribute}}
  %0 = kiln.reshape %x {shape = [3, 2]} : tensor<2x3xf32>
  return
}

// -----

func.func @transpose_missing_perm(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.transpose' op requires attribute 'perm'}}
  %0 = kiln.transpose %x : tensor<2x3xf32>
  return
}

// -----

func.func @transpose_missing_perm_generic(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.transpose' op requires attribute 'perm'}}
  %0 = "kiln.transpose"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_perm_length(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.transpose' op perm [0] must have one entry per dimension of input [2, 3] (2), got 1}}
  %0 = kiln.transpose %x {perm = array<i64: 0>} : tensor<2x3xf32>
  return
}

// -----

func.func @transpose_perm_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.transpose' op perm [0, 2] is not a permutation of [0, 2): entry 1 (2) is out of range for input [2, 3]}}
  %0 = kiln.transpose %x {perm = array<i64: 0, 2>} : tensor<2x3xf32>
  return
}

// -----

func.func @transpose_perm_negative(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.transpose' op perm [-1, 0] is not a permutation of [0, 2): entry 0 (-1) is out of range for input [2, 3]}}
  %0 = kiln.transpose %x {perm = array<i64: -1, 0>} : tensor<2x3xf32>
  return
}

// -----

func.func @transpose_perm_repeated(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'kiln.transpose' op perm [1, 0, 1] is not a permutation of [0, 3): entry 2 repeats dimension 1}}
  %0 = kiln.transpose %x {perm = array<i64: 1, 0, 1>} : tensor<2x3x4xf32>
  return
}

// -----

func.func @concat_rank_mismatch(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'kiln.concat' op operand 1 [3] has rank 1 but operand 0 [2, 3] has rank 2}}
  %0 = kiln.concat %a, %b {axis = 0 : i64} : tensor<2x3xf32>, tensor<3xf32>
  return
}

// -----

func.func @concat_dim_mismatch(%a: tensor<2x3xf32>, %b: tensor<?x3xf32>, %c: tensor<2x4xf32>) {
  // expected-error @+1 {{'kiln.concat' op operand 2 [2, 4] dimension 1 (4) does not match operand 0 [2, 3] dimension 1 (3) outside the concatenation axis 0}}
  %0 = kiln.concat %a, %b, %c {axis = 0 : i64} : tensor<2x3xf32>, tensor<?x3xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.concat' op axis -3 is out of range for operands of rank 2}}
  %0 = kiln.concat %a, %a {axis = -3 : i64} : tensor<2x3xf32>, tensor<2x3xf32>
  return
}

// -----

func.func @concat_scalars(%a: tensor<f32>) {
  // expected-error @+1 {{'kiln.concat' op axis 0 is out of range for operands of rank 0}}
  %0 = kiln.concat %a, %a {axis = 0 : i64} : tensor<f32>, tensor<f32>
  return
}

// -----

func.func @concat_element_type(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{'kiln.concat' op input 0 element type f32 differs from input 1 element type i32}}
  %0 = kiln.concat %a, %b {axis = 0 : i64} : tensor<2xf32>, tensor<2xi32>
  return
}

// -----

func.func @concat_missing_axis(%a: tensor<2xf32>) {
  // expected-error @+1 {{'kiln.concat' op requires attribute 'axis'}}
  %0 = kiln.concat %a, %a : tensor<2xf32>, tensor<2xf32>
  return
}

// -----

func.func @concat_no_inputs() {
  // expected-error @+2 {{'kiln.concat' op needs at least one input}}
  // expected-error @+1 {{'kiln.concat' op failed to infer returned types}}
  %0 = "kiln.concat"() {axis = 0 : i64} : () -> tensor<0xf32>
  return
}

// -----

func.func @concat_size_overflow(%a: tensor<4611686018427387904xi8>) {
  // expected-error @+1 {{'kiln.concat' op concatenated size along axis 0 does not fit in int64}}
  %0 = kiln.concat %a, %a {axis = 0 : i64} : tensor<4611686018427387904xi8>, tensor<4611686018427387904xi8>
  return
}

// -----

func.func @slice_zero_step(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'kiln.slice' op steps entry 1 is 0; a slice step must be non-zero}}
  %0 = kiln.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 4, 8>, steps = array<i64: 1, 0>} : tensor<4x8xf32>
  return
}

// -----

func.func @slice_out_of_bounds(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'kiln.slice' op slice of dimension 1 (8) of input [4, 8] with start 2, end 9 and step 1 is out of bounds: a positive step requires 0 <= start <= end <= 8}}
  %0 = kiln.slice %x {starts = array<i64: 0, 2>, ends = array<i64: 4, 9>, steps = array<i64: 1, 1>} : tensor<4x8xf32>
  return
}

// -----

func.func @slice_start_after_end(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'kiln.slice' op slice of dimension 0 (4) of input [4, 8] with start 3, end 1 and step 2 is out of bounds: a positive step requires 0 <= start <= end <= 4}}
  %0 = kiln.slice %x {starts = array<i64: 3, 0>, ends = array<i64: 1, 8>, steps = array<i64: 2, 1>} : tensor<4x8xf32>
  return
}

// -----

func.func @slice_negative_step_out_of_bounds(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'kiln.slice' op slice of dimension 1 (8) of input [4, 8] with start 8, end -1 and step -1 is out of bounds: a negative step requires -1 <= end <= start <= 7}}
  %0 = kiln.slice %x {starts = array<i64: 0, 8>, ends = array<i64: 4, -1>, steps = array<i64: 1, -1>} : tensor<4x8xf32>
  return
}

// -----

func.func @slice_lengths(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'kiln.slice' op ends must have one entry per dimension of input [4, 8] (2), got 1}}
  %0 = kiln.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 4>, steps = array<i64: 1, 1>} : tensor<4x8xf32>
  return
}

// -----

func.func @slice_missing_steps(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'kiln.slice' op requires attribute 'steps'}}
  %0 = kiln.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 4, 8>} : tensor<4x8xf32>
  return
}

// -----

func.func @gather_axis(%d: tensor<4x8xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'kiln.gather' op axis 2 is out of range for data [4, 8] of rank 2}}
  %0 = kiln.gather %d, %i {axis = 2 : i64} : tensor<4x8xf32>, tensor<2xi64>
  return
}

// -----

func.func @gather_scalar_data(%d: tensor<f32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'kiln.gather' op data must have rank >= 1 for gather, got []}}
  %0 = kiln.gather %d, %i : tensor<f32>, tensor<2xi64>
  return
}

// -----

func.func @gather_float_indices(%d: tensor<4x8xf32>, %i: tensor<2xf32>) {
  // expected-error @+1 {{'kiln.gather' op operand #1 must be ranked tensor of index (i32, i64) values, but got 'tensor<2xf32>'}}
  %0 = kiln.gather %d, %i : tensor<4x8xf32>, tensor<2xf32>
  return
}

// -----

func.func @pad_wrong_length(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'kiln.pad' op pads must have 4 entries (begin and end for each dimension of input [4, 8]), got 2}}
  %0 = kiln.pad %x {pads = array<i64: 1, 1>} : tensor<4x8xf32>
  return
}

// -----

// The verifier of reflect and edge padding reads the pads: a wrong number
// of them must be reported, not read out of bounds.
func.func @pad_reflect_wrong_length_generic(%x: tensor<0x8xf32>) {
  // expected-error @+2 {{'kiln.pad' op pads must have 4 entries (begin and end for each dimension of input [0, 8]), got 0}}
  // expected-error @+1 {{'kiln.pad' op failed to infer returned types}}
  %0 = "kiln.pad"(%x) {pads = array<i64>, mode = 1 : i32} : (tensor<0x8xf32>) -> tensor<0x10xf32>
  return
}

// -----

func.func @pad_negative_size(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'kiln.pad' op padding dimension 0 (4) of input [4, 8] by -3 and -2 gives negative size -1}}
  %0 = kiln.pad %x {pads = array<i64: -3, 0, -2, 0>} : tensor<4x8xf32>
  return
}

// -----

func.func @pad_overflow(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'kiln.pad' op padding dimension 1 (8) of input [4, 8] by 9223372036854775807 and 0 overflows int64}}
  %0 = kiln.pad %x {pads = array<i64: 0, 9223372036854775807, 0, 0>} : tensor<4x8xf32>
  return
}

// -----

func.func @pad_reflect_too_large(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'kiln.pad' op reflect padding of dimension 0 by (1, 4) needs pads smaller than its size 4}}
  %0 = kiln.pad %x {pads = array<i64: 1, 0, 4, 0>, mode = 1 : i32} : tensor<4x8xf32>
  return
}

// -----

func.func @pad_reflect_single_element(%x: tensor<4x1xf32>) {
  // expected-error @+1 {{'kiln.pad' op reflect padding of dimension 1 by (0, 1) needs pads smaller than its size 1}}
  %0 = kiln.pad %x {pads = array<i64: 0, 0, 0, 1>, mode = 1 : i32} : tensor<4x1xf32>
  return
}

// -----

func.func @pad_edge_empty_dim(%x: tensor<0x8xf32>) {
  // expected-error @+1 {{'kiln.pad' op cannot pad empty dimension 0 in edge mode}}
  %0 = kiln.pad %x {pads = array<i64: 1, 0, 0, 0>, mode = 2 : i32} : tensor<0x8xf32>
  return
}

// -----

func.func @pad_missing_pads(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'kiln.pad' op requires attribute 'pads'}}
  %0 = kiln.pad %x {value = 1.0} : tensor<4x8xf32>
  return
}

// -----

func.func @broadcast_incompatible(%x: tensor<3xf32>) {
  // expected-error @+1 {{'kiln.broadcast' op input [3] cannot be broadcast to [4, 2]: input dimension 0 (3) vs target dimension 1 (2)}}
  %0 = kiln.broadcast %x {shape = array<i64: 4, 2>} : tensor<3xf32>
  return
}

// -----

func.func @broadcast_lower_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'kiln.broadcast' op input [2, 3] of rank 2 cannot be broadcast to lower-rank target [3] of rank 1}}
  %0 = kiln.broadcast %x {shape = array<i64: 3>} : tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_bad_entry(%x: tensor<3xf32>) {
  // expected-error @+1 {{'kiln.broadcast' op shape entry -2 is invalid (sizes are >= 0, or -1 for dynamic)}}
  %0 = kiln.broadcast %x {shape = array<i64: -2, 3>} : tensor<3xf32>
  return
}

// -----

func.func @broadcast_wrong_result_type(%x: tensor<3xf32>) {
  // expected-error @+2 {{'kiln.broadcast' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x3xf32>'}}
  // expected-error @+1 {{'kiln.broadcast' op failed to infer returned types}}
  %0 = "kiln.broadcast"(%x) {shape = array<i64: 2, 3>} : (tensor<3xf32>) -> tensor<3x3xf32>
  return
}
