// RUN: kiln-opt %s -split-input-file -verify-diagnostics --kiln-quantize

// A quantizable op without its calibrated range.
func.func @missing_range(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = kiln.constant dense<1.0> : tensor<2x2xf32>
  // expected-error @+1 {{'kiln.matmul' op has no valid 'kiln.input_range' (array<f32: lo, hi>), the range of its activation input; calibrate the model (kilnc --quantize=int8 --calibration=DIR)}}
  %y = kiln.matmul %x, %w : tensor<3x2xf32>, tensor<2x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @range_not_f32_array(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = kiln.constant dense<1.0> : tensor<2x2xf32>
  // expected-error @+1 {{'kiln.matmul' op has no valid 'kiln.input_range'}}
  %y = kiln.matmul %x, %w {kiln.input_range = [0.0, 1.0]} : tensor<3x2xf32>, tensor<2x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @range_reversed(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = kiln.constant dense<1.0> : tensor<2x1x1x1xf32>
  // expected-error @+1 {{'kiln.conv' op 'kiln.input_range' must be two finite values lo <= hi, got array<f32: 2.000000e+00, 1.000000e+00>}}
  %y = kiln.conv %x, %w {kiln.input_range = array<f32: 2.0, 1.0>} : tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

func.func @range_three_values(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = kiln.constant dense<1.0> : tensor<2x2xf32>
  // expected-error @+1 {{'kiln.matmul' op 'kiln.input_range' must be two finite values lo <= hi, got array<f32: 0.000000e+00, 1.000000e+00, 2.000000e+00>}}
  %y = kiln.matmul %x, %w {kiln.input_range = array<f32: 0.0, 1.0, 2.0>} : tensor<3x2xf32>, tensor<2x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @range_not_finite(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = kiln.constant dense<1.0> : tensor<2x2xf32>
  // expected-error @+1 {{'kiln.matmul' op 'kiln.input_range' must be two finite values lo <= hi}}
  %y = kiln.matmul %x, %w {kiln.input_range = array<f32: 0.0, 0x7F800000>} : tensor<3x2xf32>, tensor<2x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// Ops that are not quantizable need no range: a matmul of a vector.
func.func @not_quantizable(%x: tensor<2xf32>, %w: tensor<2x2xf32>) -> tensor<2xf32> {
  %y = kiln.matmul %x, %w : tensor<2xf32>, tensor<2x2xf32>
  return %y : tensor<2xf32>
}

// -----

// A matmul of two activations needs a range for each.
func.func @two_activations_one_range(%a: tensor<3x2xf32>, %b: tensor<2x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'kiln.matmul' op 'kiln.input_range' must be 4 finite values lo <= hi per activation operand (#0, #1), got array<f32: 0.000000e+00, 1.000000e+00>}}
  %y = kiln.matmul %a, %b {kiln.input_range = array<f32: 0.0, 1.0>} : tensor<3x2xf32>, tensor<2x4xf32>
  return %y : tensor<3x4xf32>
}

// -----

func.func @two_activations_reversed(%a: tensor<3x2xf32>, %b: tensor<2x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'kiln.matmul' op 'kiln.input_range' must be 4 finite values lo <= hi per activation operand (#0, #1), got array<f32: 0.000000e+00, 1.000000e+00, 3.000000e+00, -3.000000e+00>}}
  %y = kiln.matmul %a, %b {kiln.input_range = array<f32: 0.0, 1.0, 3.0, -3.0>} : tensor<3x2xf32>, tensor<2x4xf32>
  return %y : tensor<3x4xf32>
}
