// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// Verifier errors of kiln.quantize, kiln.dequantize and the integer
// contractions.

func.func @quantize_scale_not_f32(%x: tensor<4xf32>, %s: tensor<f16>, %zp: tensor<i8>) -> tensor<4xi8> {
  // expected-error @+1 {{'kiln.quantize' op scale must have element type f32, got 'f16'}}
  %q = kiln.quantize %x, %s, %zp : tensor<4xf32>, tensor<f16>, tensor<i8>
  return %q : tensor<4xi8>
}

// -----

func.func @quantize_input_not_f32(%x: tensor<4xf16>, %s: tensor<f32>, %zp: tensor<i8>) -> tensor<4xi8> {
  // expected-error @+1 {{'kiln.quantize' op input must have element type f32, got 'f16'}}
  %q = kiln.quantize %x, %s, %zp : tensor<4xf16>, tensor<f32>, tensor<i8>
  return %q : tensor<4xi8>
}

// -----

func.func @quantize_zero_point_not_i8(%x: tensor<4xf32>, %s: tensor<f32>, %zp: tensor<i32>) -> tensor<4xi8> {
  // expected-error @+1 {{'kiln.quantize' op zero_point must have element type i8, got 'i32'}}
  %q = kiln.quantize %x, %s, %zp : tensor<4xf32>, tensor<f32>, tensor<i32>
  return %q : tensor<4xi8>
}

// -----

func.func @quantize_shapes_differ(%x: tensor<4x3xf32>, %s: tensor<4xf32>, %zp: tensor<i8>) -> tensor<4x3xi8> {
  // expected-error @+1 {{'kiln.quantize' op scale shape [4] differs from zero_point shape []}}
  %q = kiln.quantize %x, %s, %zp {axis = 0 : i64} : tensor<4x3xf32>, tensor<4xf32>, tensor<i8>
  return %q : tensor<4x3xi8>
}

// -----

func.func @quantize_scale_rank_2(%x: tensor<4x3xf32>, %s: tensor<4x3xf32>, %zp: tensor<4x3xi8>) -> tensor<4x3xi8> {
  // expected-error @+1 {{'kiln.quantize' op scale must have rank 0 (per tensor) or 1 (per axis), got rank 2}}
  %q = kiln.quantize %x, %s, %zp : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xi8>
  return %q : tensor<4x3xi8>
}

// -----

func.func @quantize_axis_out_of_range(%x: tensor<4x3xf32>, %s: tensor<4xf32>, %zp: tensor<4xi8>) -> tensor<4x3xi8> {
  // expected-error @+1 {{'kiln.quantize' op axis 2 is out of range for an input of rank 2}}
  %q = kiln.quantize %x, %s, %zp {axis = 2 : i64} : tensor<4x3xf32>, tensor<4xf32>, tensor<4xi8>
  return %q : tensor<4x3xi8>
}

// -----

func.func @quantize_axis_size_mismatch(%x: tensor<4x3xf32>, %s: tensor<4xf32>, %zp: tensor<4xi8>) -> tensor<4x3xi8> {
  // expected-error @+1 {{'kiln.quantize' op per-axis scale has 4 entries but dimension 1 of the input has size 3}}
  %q = kiln.quantize %x, %s, %zp : tensor<4x3xf32>, tensor<4xf32>, tensor<4xi8>
  return %q : tensor<4x3xi8>
}

// -----

func.func @quantize_generic_wrong_result(%x: tensor<4xf32>, %s: tensor<f32>, %zp: tensor<i8>) -> tensor<4xi32> {
  // expected-error @+1 {{'kiln.quantize' op result #0 must be ranked tensor of 8-bit signless integer values, but got 'tensor<4xi32>'}}
  %q = "kiln.quantize"(%x, %s, %zp) : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi32>
  return %q : tensor<4xi32>
}

// -----

func.func @dequantize_input_i64(%q: tensor<4xi64>, %s: tensor<f32>, %zp: tensor<i64>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.dequantize' op input must have element type i8 or i32, got 'i64'}}
  %y = kiln.dequantize %q, %s, %zp : tensor<4xi64>, tensor<f32>, tensor<i64>
  return %y : tensor<4xf32>
}

// -----

func.func @dequantize_zero_point_type(%q: tensor<4xi32>, %s: tensor<f32>, %zp: tensor<i8>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.dequantize' op zero_point element type 'i8' differs from input element type 'i32'}}
  %y = kiln.dequantize %q, %s, %zp : tensor<4xi32>, tensor<f32>, tensor<i8>
  return %y : tensor<4xf32>
}

// -----

func.func @dequantize_axis_size_mismatch(%q: tensor<2x5xi8>, %s: tensor<3xf32>, %zp: tensor<3xi8>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'kiln.dequantize' op per-axis scale has 3 entries but dimension 0 of the input has size 2}}
  %y = kiln.dequantize %q, %s, %zp {axis = -2 : i64} : tensor<2x5xi8>, tensor<3xf32>, tensor<3xi8>
  return %y : tensor<2x5xf32>
}

// -----

func.func @matmul_i8_times_f32(%a: tensor<2x8xi8>, %b: tensor<8x4xf32>) -> tensor<2x4xi32> {
  // expected-error @+1 {{'kiln.matmul' op lhs element type i8 differs from rhs element type f32}}
  %c = kiln.matmul %a, %b : tensor<2x8xi8>, tensor<8x4xf32>
  return %c : tensor<2x4xi32>
}

// -----

func.func @matmul_i8_result_i8(%a: tensor<2x8xi8>, %b: tensor<8x4xi8>) -> tensor<2x4xi8> {
  // expected-error @+2 {{'kiln.matmul' op inferred type(s) 'tensor<2x4xi32>' are incompatible with return type(s) of operation 'tensor<2x4xi8>'}}
  // expected-error @+1 {{'kiln.matmul' op failed to infer returned types}}
  %c = "kiln.matmul"(%a, %b) : (tensor<2x8xi8>, tensor<8x4xi8>) -> tensor<2x4xi8>
  return %c : tensor<2x4xi8>
}

// -----

func.func @conv_i8_float_bias(%x: tensor<1x3x5x5xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xf32>) -> tensor<1x4x3x3xi32> {
  // expected-error @+1 {{'kiln.conv' op bias element type f32 is not the result element type i32}}
  %y = kiln.conv %x, %w, %b : tensor<1x3x5x5xi8>, tensor<4x3x3x3xi8>, tensor<4xf32>
  return %y : tensor<1x4x3x3xi32>
}

// -----

func.func @conv_i32_input(%x: tensor<1x3x5x5xi32>, %w: tensor<4x3x3x3xi32>) -> tensor<1x4x3x3xi32> {
  // expected-error @+1 {{'kiln.conv' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or 64-bit float or 8-bit signless integer values, but got 'tensor<1x3x5x5xi32>'}}
  %y = kiln.conv %x, %w : tensor<1x3x5x5xi32>, tensor<4x3x3x3xi32>
  return %y : tensor<1x4x3x3xi32>
}
