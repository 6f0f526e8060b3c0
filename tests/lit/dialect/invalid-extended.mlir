// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// One case per error of the recurrent, indexing and resampling ops.

//===----------------------------------------------------------------------===//
// Recurrent ops
//===----------------------------------------------------------------------===//

func.func @lstm_weight_rows(%x: tensor<5x3x4xf32>, %w: tensor<1x24x4xf32>, %r: tensor<1x32x8xf32>,
                            %b: tensor<1x64xf32>, %p: tensor<1x24xf32>) {
  // expected-error @+1 {{'kiln.lstm' op w shape [1, 24, 4] does not match the expected [1, 32, 4] [num_directions, 4 * hidden_size, input size]}}
  %y, %y_h, %y_c = kiln.lstm forward %x, %w, %r, %b, %p {activations = ["sigmoid", "tanh", "tanh"], hidden_size = 8 : i64}
      : tensor<5x3x4xf32>, tensor<1x24x4xf32>, tensor<1x32x8xf32>, tensor<1x64xf32>, tensor<1x24xf32>
  return
}

// -----

func.func @lstm_directions(%x: tensor<5x3x4xf32>, %w: tensor<1x32x4xf32>, %r: tensor<1x32x8xf32>,
                           %b: tensor<1x64xf32>, %p: tensor<1x24xf32>) {
  // expected-error @+1 {{'kiln.lstm' op w shape [1, 32, 4] does not match the expected [2, 32, 4]}}
  %y, %y_h, %y_c = kiln.lstm bidirectional %x, %w, %r, %b, %p {activations = ["sigmoid", "tanh", "tanh"], hidden_size = 8 : i64}
      : tensor<5x3x4xf32>, tensor<1x32x4xf32>, tensor<1x32x8xf32>, tensor<1x64xf32>, tensor<1x24xf32>
  return
}

// -----

func.func @lstm_one_state(%x: tensor<5x3x4xf32>, %w: tensor<1x32x4xf32>, %r: tensor<1x32x8xf32>,
                          %b: tensor<1x64xf32>, %p: tensor<1x24xf32>, %h: tensor<1x3x8xf32>) {
  // expected-error @+1 {{'kiln.lstm' op takes no initial states or 2, got 1}}
  %y, %y_h, %y_c = kiln.lstm forward %x, %w, %r, %b, %p initial(%h : tensor<1x3x8xf32>) {activations = ["sigmoid", "tanh", "tanh"], hidden_size = 8 : i64}
      : tensor<5x3x4xf32>, tensor<1x32x4xf32>, tensor<1x32x8xf32>, tensor<1x64xf32>, tensor<1x24xf32>
  return
}

// -----

func.func @lstm_peepholes(%x: tensor<5x3x4xf32>, %w: tensor<1x32x4xf32>, %r: tensor<1x32x8xf32>,
                          %b: tensor<1x64xf32>, %p: tensor<1x32xf32>) {
  // expected-error @+1 {{'kiln.lstm' op peepholes shape [1, 32] does not match the expected [1, 24] [num_directions, 3 * hidden_size]}}
  %y, %y_h, %y_c = kiln.lstm forward %x, %w, %r, %b, %p {activations = ["sigmoid", "tanh", "tanh"], hidden_size = 8 : i64}
      : tensor<5x3x4xf32>, tensor<1x32x4xf32>, tensor<1x32x8xf32>, tensor<1x64xf32>, tensor<1x32xf32>
  return
}

// -----

func.func @gru_bias(%x: tensor<5x3x4xf32>, %w: tensor<1x24x4xf32>, %r: tensor<1x24x8xf32>, %b: tensor<1x24xf32>) {
  // expected-error @+1 {{'kiln.gru' op bias shape [1, 24] does not match the expected [1, 48] [num_directions, 6 * hidden_size]}}
  %y, %y_h = kiln.gru forward %x, %w, %r, %b {activations = ["sigmoid", "tanh"], hidden_size = 8 : i64}
      : tensor<5x3x4xf32>, tensor<1x24x4xf32>, tensor<1x24x8xf32>, tensor<1x24xf32>
  return
}

// -----

func.func @gru_initial_h(%x: tensor<5x3x4xf32>, %w: tensor<1x24x4xf32>, %r: tensor<1x24x8xf32>,
                         %b: tensor<1x48xf32>, %h: tensor<1x2x8xf32>) {
  // expected-error @+1 {{'kiln.gru' op initial state #0 shape [1, 2, 8] does not match the expected [1, 3, 8] [num_directions, batch, hidden_size]}}
  %y, %y_h = kiln.gru forward %x, %w, %r, %b initial(%h : tensor<1x2x8xf32>) {activations = ["sigmoid", "tanh"], hidden_size = 8 : i64}
      : tensor<5x3x4xf32>, tensor<1x24x4xf32>, tensor<1x24x8xf32>, tensor<1x48xf32>
  return
}

// -----

func.func @gru_activation_count(%x: tensor<5x3x4xf32>, %w: tensor<1x24x4xf32>, %r: tensor<1x24x8xf32>, %b: tensor<1x48xf32>) {
  // expected-error @+1 {{'kiln.gru' op needs 2 activations (2 per direction, forward), got 3}}
  %y, %y_h = kiln.gru forward %x, %w, %r, %b {activations = ["sigmoid", "tanh", "tanh"], hidden_size = 8 : i64}
      : tensor<5x3x4xf32>, tensor<1x24x4xf32>, tensor<1x24x8xf32>, tensor<1x48xf32>
  return
}

// -----

func.func @rnn_unknown_activation(%x: tensor<5x3x4xf32>, %w: tensor<1x8x4xf32>, %r: tensor<1x8x8xf32>, %b: tensor<1x16xf32>) {
  // expected-error @+1 {{'kiln.rnn' op activation #0 'swish' is not a known activation}}
  %y, %y_h = kiln.rnn forward %x, %w, %r, %b {activations = ["swish"], hidden_size = 8 : i64}
      : tensor<5x3x4xf32>, tensor<1x8x4xf32>, tensor<1x8x8xf32>, tensor<1x16xf32>
  return
}

// -----

func.func @rnn_alpha_count(%x: tensor<5x3x4xf32>, %w: tensor<1x8x4xf32>, %r: tensor<1x8x8xf32>, %b: tensor<1x16xf32>) {
  // expected-error @+1 {{'kiln.rnn' op activation_alpha has 2 entries; it needs one per activation (1)}}
  %y, %y_h = kiln.rnn forward %x, %w, %r, %b {activations = ["tanh"], activation_alpha = array<f32: 1.0, 2.0>, hidden_size = 8 : i64}
      : tensor<5x3x4xf32>, tensor<1x8x4xf32>, tensor<1x8x8xf32>, tensor<1x16xf32>
  return
}

// -----

func.func @rnn_hidden_size(%x: tensor<5x3x4xf32>, %w: tensor<1x8x4xf32>, %r: tensor<1x8x8xf32>, %b: tensor<1x16xf32>) {
  // expected-error @+1 {{'kiln.rnn' op hidden_size (0) must be at least 1}}
  %y, %y_h = kiln.rnn forward %x, %w, %r, %b {activations = ["tanh"], hidden_size = 0 : i64}
      : tensor<5x3x4xf32>, tensor<1x8x4xf32>, tensor<1x8x8xf32>, tensor<1x16xf32>
  return
}

// -----

func.func @rnn_clip(%x: tensor<5x3x4xf32>, %w: tensor<1x8x4xf32>, %r: tensor<1x8x8xf32>, %b: tensor<1x16xf32>) {
  // expected-error @+1 {{'kiln.rnn' op clip (-1.000000e+00) must be positive}}
  %y, %y_h = kiln.rnn forward %x, %w, %r, %b {activations = ["tanh"], hidden_size = 8 : i64, clip = -1.0 : f32}
      : tensor<5x3x4xf32>, tensor<1x8x4xf32>, tensor<1x8x8xf32>, tensor<1x16xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Indexing ops
//===----------------------------------------------------------------------===//

func.func @arg_reduce_axis(%x: tensor<4x10xf32>) {
  // expected-error @+1 {{'kiln.arg_reduce' op axis 2 is out of range for input [4, 10] of rank 2}}
  %0 = kiln.arg_reduce max %x {axis = 2 : i64} : tensor<4x10xf32>
  return
}

// -----

func.func @top_k_too_many(%x: tensor<4x10xf32>) {
  // expected-error @+1 {{'kiln.top_k' op k (11) exceeds dimension 1 (10) of input [4, 10]}}
  %v, %i = kiln.top_k %x {k = 11 : i64} : tensor<4x10xf32>
  return
}

// -----

func.func @cumsum_axis(%x: tensor<4x10xf32>) {
  // expected-error @+1 {{'kiln.cumsum' op axis -3 is out of range for a tensor of rank 2}}
  %0 = kiln.cumsum %x {axis = -3 : i64} : tensor<4x10xf32>
  return
}

// -----

func.func @gather_elements_rank(%x: tensor<3x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'kiln.gather_elements' op indices [3] must have the rank of data [3, 4]}}
  %0 = kiln.gather_elements %x, %i {axis = 1 : i64} : tensor<3x4xf32>, tensor<3xi64>
  return
}

// -----

func.func @gather_elements_larger(%x: tensor<3x4xf32>, %i: tensor<5x2xi64>) {
  // expected-error @+1 {{'kiln.gather_elements' op indices [5, 2] dimension 0 (5) exceeds data [3, 4] dimension 0 (3)}}
  %0 = kiln.gather_elements %x, %i {axis = 1 : i64} : tensor<3x4xf32>, tensor<5x2xi64>
  return
}

// -----

func.func @gather_nd_tuple(%x: tensor<3x4xf32>, %i: tensor<2x3xi64>) {
  // expected-error @+1 {{'kiln.gather_nd' op the index tuple length 3 (last dimension of indices [2, 3]) must be in [1, 2] for data [3, 4] with batch_dims 0}}
  %0 = kiln.gather_nd %x, %i : tensor<3x4xf32>, tensor<2x3xi64>
  return
}

// -----

func.func @gather_nd_dynamic_tuple(%x: tensor<3x4xf32>, %i: tensor<2x?xi64>) {
  // expected-error @+1 {{'kiln.gather_nd' op the last dimension of indices [2, ?] (the index tuple length) must be static}}
  %0 = kiln.gather_nd %x, %i : tensor<3x4xf32>, tensor<2x?xi64>
  return
}

// -----

func.func @gather_nd_batch(%x: tensor<3x4xf32>, %i: tensor<2x1xi64>) {
  // expected-error @+1 {{'kiln.gather_nd' op batch dimension 0 differs between data [3, 4] and indices [2, 1]}}
  %0 = kiln.gather_nd %x, %i {batch_dims = 1 : i64} : tensor<3x4xf32>, tensor<2x1xi64>
  return
}

// -----

func.func @scatter_nd_updates(%x: tensor<4x5xf32>, %i: tensor<2x1xi64>, %u: tensor<2x4xf32>) {
  // expected-error @+1 {{'kiln.scatter_nd' op updates shape [2, 4] does not match the expected [2, 5] (indices [2, 1][:-1] + data [4, 5][1:])}}
  %0 = kiln.scatter_nd none %x, %i, %u : tensor<4x5xf32>, tensor<2x1xi64>, tensor<2x4xf32>
  return
}

// -----

func.func @scatter_nd_element_type(%x: tensor<4x5xf32>, %i: tensor<2x1xi64>, %u: tensor<2x5xf16>) {
  // expected-error @+1 {{'kiln.scatter_nd' op data element type f32 differs from updates element type f16}}
  %0 = kiln.scatter_nd none %x, %i, %u : tensor<4x5xf32>, tensor<2x1xi64>, tensor<2x5xf16>
  return
}

// -----

func.func @scatter_elements_bool_add(%x: tensor<4xi1>, %i: tensor<2xi64>, %u: tensor<2xi1>) {
  // expected-error @+1 {{'kiln.scatter_elements' op reduction add needs numeric data, got i1}}
  %0 = kiln.scatter_elements add %x, %i, %u : tensor<4xi1>, tensor<2xi64>, tensor<2xi1>
  return
}

// -----

func.func @scatter_elements_updates(%x: tensor<4x5xf32>, %i: tensor<4x2xi64>, %u: tensor<4x3xf32>) {
  // expected-error @+1 {{'kiln.scatter_elements' op updates shape [4, 3] does not match the expected [4, 2] (the shape of indices)}}
  %0 = kiln.scatter_elements none %x, %i, %u {axis = 1 : i64} : tensor<4x5xf32>, tensor<4x2xi64>, tensor<4x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Resampling ops
//===----------------------------------------------------------------------===//

func.func @conv_transpose_channels(%x: tensor<1x8x4x4xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error @+1 {{'kiln.conv_transpose' op input channel count 8 (dimension 1 of input [1, 8, 4, 4]) does not equal dimension 0 (16) of filter [16, 4, 3, 3]}}
  %0 = kiln.conv_transpose %x, %w : tensor<1x8x4x4xf32>, tensor<16x4x3x3xf32>
  return
}

// -----

func.func @conv_transpose_output_padding(%x: tensor<1x16x4x4xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error @+1 {{'kiln.conv_transpose' op output_padding entry 0 (2) must be non-negative and smaller than the stride (2) or the dilation (1)}}
  %0 = kiln.conv_transpose %x, %w {strides = array<i64: 2, 2>, output_padding = array<i64: 2, 0>} : tensor<1x16x4x4xf32>, tensor<16x4x3x3xf32>
  return
}

// -----

func.func @conv_transpose_bias(%x: tensor<1x16x4x4xf32>, %w: tensor<16x4x3x3xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{'kiln.conv_transpose' op bias shape [16] does not match the expected [4] (the output channels)}}
  %0 = kiln.conv_transpose %x, %w, %b : tensor<1x16x4x4xf32>, tensor<16x4x3x3xf32>, tensor<16xf32>
  return
}

// -----

func.func @conv_transpose_no_output(%x: tensor<1x16x1x1xf32>, %w: tensor<16x4x1x1xf32>) {
  // expected-error @+1 {{'kiln.conv_transpose' op spatial dimension 2 of input [1, 16, 1, 1] gives no output with filter size 1, stride 1, dilation 1, pads 1 and 1, output_padding 0}}
  %0 = kiln.conv_transpose %x, %w {pads = array<i64: 1, 0, 1, 0>} : tensor<1x16x1x1xf32>, tensor<16x4x1x1xf32>
  return
}

// -----

func.func @resize_rank(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'kiln.resize' op sizes [1, 3, 16] must have one entry per dimension of input [1, 3, 8, 8]}}
  %0 = kiln.resize nearest %x {sizes = array<i64: 1, 3, 16>} : tensor<1x3x8x8xf32>
  return
}

// -----

func.func @resize_scales(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'kiln.resize' op scales entry 2 (0.000000) must be positive}}
  %0 = kiln.resize nearest %x {sizes = array<i64: 1, 3, 16, 16>, scales = array<f32: 1.0, 1.0, 0.0, 2.0>} : tensor<1x3x8x8xf32>
  return
}

// -----

func.func @resize_linear_int(%x: tensor<4x4xi32>) {
  // expected-error @+1 {{'kiln.resize' op linear resize needs a floating-point input}}
  %0 = kiln.resize linear %x {sizes = array<i64: 8, 8>} : tensor<4x4xi32>
  return
}
