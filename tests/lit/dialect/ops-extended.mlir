// RUN: kiln-opt %s | FileCheck %s
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// Round trip of the recurrent, indexing and resampling ops. As in ops.mlir,
// each function returns the results under the types inference must produce.

//===----------------------------------------------------------------------===//
// Recurrent ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @lstm_bidirectional(
// CHECK: %y, %y_h, %y_c = kiln.lstm bidirectional %arg0, %arg1, %arg2, %arg3, %arg4 initial(%arg5, %arg6 : tensor<2x3x8xf32>, tensor<2x3x8xf32>) {activations = ["sigmoid", "tanh", "tanh", "sigmoid", "tanh", "tanh"], clip = 5.000000e+00 : f32, hidden_size = 8 : i64, input_forget = true} : tensor<5x3x4xf32>, tensor<2x32x4xf32>, tensor<2x32x8xf32>, tensor<2x64xf32>, tensor<2x24xf32>
// CHECK: return {{.*}} : tensor<5x2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>
func.func @lstm_bidirectional(%x: tensor<5x3x4xf32>, %w: tensor<2x32x4xf32>, %r: tensor<2x32x8xf32>,
                              %b: tensor<2x64xf32>, %p: tensor<2x24xf32>, %h: tensor<2x3x8xf32>,
                              %c: tensor<2x3x8xf32>) -> (tensor<5x2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>) {
  %y, %y_h, %y_c = kiln.lstm bidirectional %x, %w, %r, %b, %p initial(%h, %c : tensor<2x3x8xf32>, tensor<2x3x8xf32>)
      {activations = ["sigmoid", "tanh", "tanh", "sigmoid", "tanh", "tanh"], hidden_size = 8 : i64,
       clip = 5.0 : f32, input_forget = true}
      : tensor<5x3x4xf32>, tensor<2x32x4xf32>, tensor<2x32x8xf32>, tensor<2x64xf32>, tensor<2x24xf32>
  return %y, %y_h, %y_c : tensor<5x2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>
}

// Dynamic sequence and batch dims flow through.
// CHECK-LABEL: func.func @gru_dynamic(
// CHECK: kiln.gru forward %arg0, %arg1, %arg2, %arg3 {activation_alpha = array<f32: 0.000000e+00, 0.000000e+00>, activation_beta = array<f32: 0.000000e+00, 0.000000e+00>, activations = ["sigmoid", "tanh"], hidden_size = 8 : i64, linear_before_reset = true} : tensor<?x?x4xf32>, tensor<1x24x4xf32>, tensor<1x24x8xf32>, tensor<1x48xf32>
// CHECK: return {{.*}} : tensor<?x1x?x8xf32>, tensor<1x?x8xf32>
func.func @gru_dynamic(%x: tensor<?x?x4xf32>, %w: tensor<1x24x4xf32>, %r: tensor<1x24x8xf32>,
                       %b: tensor<1x48xf32>) -> (tensor<?x1x?x8xf32>, tensor<1x?x8xf32>) {
  %y, %y_h = kiln.gru forward %x, %w, %r, %b
      {activations = ["sigmoid", "tanh"], hidden_size = 8 : i64, linear_before_reset = true,
       activation_alpha = array<f32: 0.0, 0.0>, activation_beta = array<f32: 0.0, 0.0>}
      : tensor<?x?x4xf32>, tensor<1x24x4xf32>, tensor<1x24x8xf32>, tensor<1x48xf32>
  return %y, %y_h : tensor<?x1x?x8xf32>, tensor<1x?x8xf32>
}

// CHECK-LABEL: func.func @rnn_reverse(
// CHECK: kiln.rnn reverse %arg0, %arg1, %arg2, %arg3 initial(%arg4 : tensor<1x3x8xf16>) {activations = ["leaky_relu"], hidden_size = 8 : i64} : tensor<5x3x4xf16>, tensor<1x8x4xf16>, tensor<1x8x8xf16>, tensor<1x16xf16>
// CHECK: return {{.*}} : tensor<5x1x3x8xf16>, tensor<1x3x8xf16>
func.func @rnn_reverse(%x: tensor<5x3x4xf16>, %w: tensor<1x8x4xf16>, %r: tensor<1x8x8xf16>,
                       %b: tensor<1x16xf16>, %h: tensor<1x3x8xf16>) -> (tensor<5x1x3x8xf16>, tensor<1x3x8xf16>) {
  %y, %y_h = kiln.rnn reverse %x, %w, %r, %b initial(%h : tensor<1x3x8xf16>)
      {activations = ["leaky_relu"], hidden_size = 8 : i64}
      : tensor<5x3x4xf16>, tensor<1x8x4xf16>, tensor<1x8x8xf16>, tensor<1x16xf16>
  return %y, %y_h : tensor<5x1x3x8xf16>, tensor<1x3x8xf16>
}

//===----------------------------------------------------------------------===//
// Indexing ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @arg_reduce(
// CHECK: kiln.arg_reduce max %arg0 {axis = 1 : i64, keepdims = false} : tensor<4x10xf32>
// CHECK: kiln.arg_reduce min %arg0 {axis = -1 : i64, select_last_index = true} : tensor<4x10xf32>
// CHECK: return {{.*}} : tensor<4xi64>, tensor<4x1xi64>
func.func @arg_reduce(%x: tensor<4x10xf32>) -> (tensor<4xi64>, tensor<4x1xi64>) {
  %0 = kiln.arg_reduce max %x {axis = 1 : i64, keepdims = false} : tensor<4x10xf32>
  %1 = kiln.arg_reduce min %x {axis = -1 : i64, select_last_index = true} : tensor<4x10xf32>
  return %0, %1 : tensor<4xi64>, tensor<4x1xi64>
}

// CHECK-LABEL: func.func @top_k(
// CHECK: %values, %indices = kiln.top_k %arg0 {axis = 0 : i64, k = 2 : i64, largest = false} : tensor<?x10xf32>
// CHECK: return {{.*}} : tensor<2x10xf32>, tensor<2x10xi64>
func.func @top_k(%x: tensor<?x10xf32>) -> (tensor<2x10xf32>, tensor<2x10xi64>) {
  %v, %i = kiln.top_k %x {k = 2 : i64, axis = 0 : i64, largest = false} : tensor<?x10xf32>
  return %v, %i : tensor<2x10xf32>, tensor<2x10xi64>
}

// CHECK-LABEL: func.func @cumsum(
// CHECK: kiln.cumsum %arg0 {axis = 1 : i64, exclusive = true, reverse = true} : tensor<2x5xf32>
func.func @cumsum(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = kiln.cumsum %x {axis = 1 : i64, exclusive = true, reverse = true} : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// CHECK-LABEL: func.func @gathers(
// CHECK: kiln.gather_elements %arg0, %arg1 {axis = 1 : i64} : tensor<3x4xf32>, tensor<3x2xi64>
// CHECK: kiln.gather_nd %arg2, %arg3 {batch_dims = 1 : i64} : tensor<2x3x4xf32>, tensor<2x5x1xi32>
// CHECK: return {{.*}} : tensor<3x2xf32>, tensor<2x5x4xf32>
func.func @gathers(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %d: tensor<2x3x4xf32>,
                   %j: tensor<2x5x1xi32>) -> (tensor<3x2xf32>, tensor<2x5x4xf32>) {
  %0 = kiln.gather_elements %x, %i {axis = 1 : i64} : tensor<3x4xf32>, tensor<3x2xi64>
  %1 = kiln.gather_nd %d, %j {batch_dims = 1 : i64} : tensor<2x3x4xf32>, tensor<2x5x1xi32>
  return %0, %1 : tensor<3x2xf32>, tensor<2x5x4xf32>
}

// CHECK-LABEL: func.func @scatters(
// CHECK: kiln.scatter_nd add %arg0, %arg1, %arg2 : tensor<4x5xf32>, tensor<2x1xi64>, tensor<2x5xf32>
// CHECK: kiln.scatter_elements none %arg0, %arg3, %arg4 {axis = 1 : i64} : tensor<4x5xf32>, tensor<4x2xi64>, tensor<4x2xf32>
// CHECK: return {{.*}} : tensor<4x5xf32>, tensor<4x5xf32>
func.func @scatters(%x: tensor<4x5xf32>, %i: tensor<2x1xi64>, %u: tensor<2x5xf32>,
                    %j: tensor<4x2xi64>, %v: tensor<4x2xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>) {
  %0 = kiln.scatter_nd add %x, %i, %u : tensor<4x5xf32>, tensor<2x1xi64>, tensor<2x5xf32>
  %1 = kiln.scatter_elements none %x, %j, %v {axis = 1 : i64} : tensor<4x5xf32>, tensor<4x2xi64>, tensor<4x2xf32>
  return %0, %1 : tensor<4x5xf32>, tensor<4x5xf32>
}

//===----------------------------------------------------------------------===//
// Resampling ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @conv_transpose(
// CHECK: kiln.conv_transpose %arg0, %arg1, %arg2 {output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x16x8x8xf32>, tensor<16x4x3x3xf32>, tensor<4xf32>
// CHECK: kiln.conv_transpose %arg0, %arg1 {groups = 2 : i64} : tensor<1x16x8x8xf32>, tensor<16x4x3x3xf32>
// CHECK: return {{.*}} : tensor<1x4x16x16xf32>, tensor<1x8x10x10xf32>
func.func @conv_transpose(%x: tensor<1x16x8x8xf32>, %w: tensor<16x4x3x3xf32>, %b: tensor<4xf32>)
    -> (tensor<1x4x16x16xf32>, tensor<1x8x10x10xf32>) {
  %0 = kiln.conv_transpose %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>,
                                       output_padding = array<i64: 1, 1>}
       : tensor<1x16x8x8xf32>, tensor<16x4x3x3xf32>, tensor<4xf32>
  %1 = kiln.conv_transpose %x, %w {groups = 2 : i64} : tensor<1x16x8x8xf32>, tensor<16x4x3x3xf32>
  return %0, %1 : tensor<1x4x16x16xf32>, tensor<1x8x10x10xf32>
}

// CHECK-LABEL: func.func @resize(
// CHECK: kiln.resize linear %arg0 {coordinate_transformation_mode = 3 : i32, scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>, sizes = array<i64: 1, 3, 16, 16>} : tensor<1x3x8x8xf32>
// CHECK: kiln.resize nearest %arg1 {nearest_mode = 2 : i32, sizes = array<i64: -1, 6>} : tensor<?x3xi64>
// CHECK: return {{.*}} : tensor<1x3x16x16xf32>, tensor<?x6xi64>
func.func @resize(%x: tensor<1x3x8x8xf32>, %i: tensor<?x3xi64>) -> (tensor<1x3x16x16xf32>, tensor<?x6xi64>) {
  %0 = kiln.resize linear %x {sizes = array<i64: 1, 3, 16, 16>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>,
                              coordinate_transformation_mode = 3 : i32} : tensor<1x3x8x8xf32>
  %1 = kiln.resize nearest %i {sizes = array<i64: -1, 6>, nearest_mode = 2 : i32} : tensor<?x3xi64>
  return %0, %1 : tensor<1x3x16x16xf32>, tensor<?x6xi64>
}
