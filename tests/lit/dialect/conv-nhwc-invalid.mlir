// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// kiln.conv_nhwc (written by kiln-channels-last, never by an importer):
// rank-4 NHWC input and HWIO filter, the input's channels the filter's
// dimension 2, a bias of one value per output channel.

func.func @conv_nhwc_rank(%x: tensor<1x8x8xf32>, %w: tensor<3x3x8x16xf32>) {
  // expected-error @+1 {{'kiln.conv_nhwc' op needs a rank-4 NHWC input and a rank-4 HWIO filter, got input [1, 8, 8] and filter [3, 3, 8, 16]}}
  %0 = kiln.conv_nhwc %x, %w : tensor<1x8x8xf32>, tensor<3x3x8x16xf32>
  return
}

// -----

func.func @conv_nhwc_channels(%x: tensor<1x8x8x4xf32>, %w: tensor<3x3x8x16xf32>) {
  // expected-error @+1 {{'kiln.conv_nhwc' op input channel count 4 (dimension 3 of NHWC input [1, 8, 8, 4]) does not equal dimension 2 (8) of HWIO filter [3, 3, 8, 16]}}
  %0 = kiln.conv_nhwc %x, %w : tensor<1x8x8x4xf32>, tensor<3x3x8x16xf32>
  return
}

// -----

func.func @conv_nhwc_bias(%x: tensor<1x8x8x8xf32>, %w: tensor<3x3x8x16xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'kiln.conv_nhwc' op bias shape [8] is not [16] (the filter's output channels)}}
  %0 = kiln.conv_nhwc %x, %w, %b : tensor<1x8x8x8xf32>, tensor<3x3x8x16xf32>, tensor<8xf32>
  return
}

// -----

func.func @conv_nhwc_window(%x: tensor<1x2x2x8xf32>, %w: tensor<3x3x8x16xf32>) {
  // expected-error @+1 {{'kiln.conv_nhwc' op}}
  %0 = kiln.conv_nhwc %x, %w : tensor<1x2x2x8xf32>, tensor<3x3x8x16xf32>
  return
}

// -----

func.func @conv_nhwc_int(%x: tensor<1x8x8x8xi8>, %w: tensor<3x3x8x16xi8>) {
  // expected-error @+1 {{'kiln.conv_nhwc' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %0 = kiln.conv_nhwc %x, %w : tensor<1x8x8x8xi8>, tensor<3x3x8x16xi8>
  return
}
