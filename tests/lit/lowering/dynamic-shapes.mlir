// RUN: kiln-opt --kiln-to-linalg %s -split-input-file -verify-diagnostics

// The CPU back end needs static shapes: every lowering pattern refuses an op
// on a dynamically shaped tensor, and the pass then reports each Kiln op left
// over with its dynamic shape (rather than the generic "cannot be lowered").

func.func @unary(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'kiln.relu' op has a dynamic shape; the CPU back end needs static shapes (pass --input-shape to kilnc)}}
  %0 = kiln.relu %x : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// A static operand does not help when the broadcast result is dynamic.
func.func @binary_broadcast(%x: tensor<?x4xf32>, %y: tensor<4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'kiln.add' op has a dynamic shape; the CPU back end needs static shapes}}
  %0 = kiln.add %x, %y : tensor<?x4xf32>, tensor<4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @matmul(%x: tensor<?x4xf32>, %w: tensor<4x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'kiln.matmul' op has a dynamic shape; the CPU back end needs static shapes}}
  %0 = kiln.matmul %x, %w : tensor<?x4xf32>, tensor<4x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @conv(%x: tensor<?x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<?x4x6x6xf32> {
  // expected-error @+1 {{'kiln.conv' op has a dynamic shape; the CPU back end needs static shapes}}
  %0 = kiln.conv %x, %w : tensor<?x3x8x8xf32>, tensor<4x3x3x3xf32>
  return %0 : tensor<?x4x6x6xf32>
}

// -----

func.func @reduce(%x: tensor<?x4xf32>) -> tensor<?x1xf32> {
  // expected-error @+1 {{'kiln.reduce' op has a dynamic shape; the CPU back end needs static shapes}}
  %0 = kiln.reduce mean %x {axes = array<i64: 1>} : tensor<?x4xf32>
  return %0 : tensor<?x1xf32>
}

// -----

// Every leftover op is reported, not only the first.
func.func @chain(%x: tensor<?x4xf32>, %g: tensor<4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'kiln.exp' op has a dynamic shape; the CPU back end needs static shapes}}
  %0 = kiln.exp %x : tensor<?x4xf32>
  // expected-error @+1 {{'kiln.softmax' op has a dynamic shape; the CPU back end needs static shapes}}
  %1 = kiln.softmax %0 : tensor<?x4xf32>
  // expected-error @+1 {{'kiln.layer_norm' op has a dynamic shape; the CPU back end needs static shapes}}
  %2 = kiln.layer_norm %1, %g : tensor<?x4xf32>, tensor<4xf32>
  return %2 : tensor<?x4xf32>
}

// -----

// A static op next to a dynamic one gets no diagnostic: only the dynamic op
// is reported.
func.func @mixed(%x: tensor<2x4xf32>, %y: tensor<?x4xf32>) -> (tensor<2x4xf32>, tensor<?x4xf32>) {
  %0 = kiln.tanh %x : tensor<2x4xf32>
  // expected-error @+1 {{'kiln.sigmoid' op has a dynamic shape; the CPU back end needs static shapes}}
  %1 = kiln.sigmoid %y : tensor<?x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<?x4xf32>
}
