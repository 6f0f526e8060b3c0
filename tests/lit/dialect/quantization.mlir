// RUN: kiln-opt %s -split-input-file | FileCheck %s
// RUN: kiln-opt %s -split-input-file -canonicalize | FileCheck %s --check-prefix=FOLD

// kiln.quantize / kiln.dequantize parse, print and infer their result types
// (i8 and f32, the input's shape); matmul and conv on i8 operands infer an
// i32 result. With every operand constant both fold: weights are quantized
// at compile time.

// CHECK-LABEL: func.func @per_tensor
// CHECK: %[[Q:.*]] = kiln.quantize %arg0, %arg1, %arg2 : tensor<2x3xf32>, tensor<f32>, tensor<i8>
// CHECK: kiln.dequantize %[[Q]], %arg1, %arg2 : tensor<2x3xi8>, tensor<f32>, tensor<i8>
func.func @per_tensor(%x: tensor<2x3xf32>, %s: tensor<f32>, %zp: tensor<i8>) -> tensor<2x3xf32> {
  %q = kiln.quantize %x, %s, %zp : tensor<2x3xf32>, tensor<f32>, tensor<i8>
  %y = kiln.dequantize %q, %s, %zp : tensor<2x3xi8>, tensor<f32>, tensor<i8>
  return %y : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @per_axis
// CHECK: kiln.quantize %arg0, %arg1, %arg2 {axis = 0 : i64} : tensor<4x3xf32>, tensor<4xf32>, tensor<4xi8>
// CHECK: kiln.dequantize %arg3, %arg4, %arg5 {axis = -1 : i64} : tensor<?x5xi32>, tensor<5xf32>, tensor<5xi32>
func.func @per_axis(%x: tensor<4x3xf32>, %s: tensor<4xf32>, %zp: tensor<4xi8>,
                    %acc: tensor<?x5xi32>, %s2: tensor<5xf32>, %zp2: tensor<5xi32>)
    -> (tensor<4x3xi8>, tensor<?x5xf32>) {
  %q = kiln.quantize %x, %s, %zp {axis = 0 : i64} : tensor<4x3xf32>, tensor<4xf32>, tensor<4xi8>
  %y = kiln.dequantize %acc, %s2, %zp2 {axis = -1 : i64} : tensor<?x5xi32>, tensor<5xf32>, tensor<5xi32>
  return %q, %y : tensor<4x3xi8>, tensor<?x5xf32>
}

// -----

// CHECK-LABEL: func.func @integer_contractions
// CHECK: kiln.matmul %arg0, %arg1 : tensor<2x8xi8>, tensor<8x4xi8>
// CHECK: kiln.conv %arg2, %arg3, %arg4 : tensor<1x3x5x5xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>
// CHECK: return {{.*}} : tensor<2x4xi32>, tensor<1x4x3x3xi32>
func.func @integer_contractions(%a: tensor<2x8xi8>, %b: tensor<8x4xi8>, %x: tensor<1x3x5x5xi8>,
                                %w: tensor<4x3x3x3xi8>, %bias: tensor<4xi32>)
    -> (tensor<2x4xi32>, tensor<1x4x3x3xi32>) {
  %c = kiln.matmul %a, %b : tensor<2x8xi8>, tensor<8x4xi8>
  %y = kiln.conv %x, %w, %bias : tensor<1x3x5x5xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>
  return %c, %y : tensor<2x4xi32>, tensor<1x4x3x3xi32>
}

// -----

// Round half to even, the zero point added after rounding, saturation to
// [-128, 127]: 0.5 / 1 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> 0, -1.5 -> -2, then
// + 1; 300 and -300 saturate.
// FOLD-LABEL: func.func @fold_quantize_per_tensor
// FOLD: %[[C:.*]] = kiln.constant dense<[1, 3, 3, 1, -1, 127, -128]> : tensor<7xi8>
// FOLD: return %[[C]]
func.func @fold_quantize_per_tensor() -> tensor<7xi8> {
  %x = kiln.constant dense<[0.5, 1.5, 2.5, -0.5, -1.5, 300.0, -300.0]> : tensor<7xf32>
  %s = kiln.constant dense<1.0> : tensor<f32>
  %zp = kiln.constant dense<1> : tensor<i8>
  %q = kiln.quantize %x, %s, %zp : tensor<7xf32>, tensor<f32>, tensor<i8>
  return %q : tensor<7xi8>
}

// -----

// Per output channel (axis 0): row 0 by scale 0.5, row 1 by scale 2 with
// zero point -3.
// FOLD-LABEL: func.func @fold_quantize_per_axis
// FOLD: kiln.constant dense<{{\[}}[2, -4, 6], [-3, -1, 0]]> : tensor<2x3xi8>
func.func @fold_quantize_per_axis() -> tensor<2x3xi8> {
  %x = kiln.constant dense<[[1.0, -2.0, 3.0], [0.9, 3.1, 6.0]]> : tensor<2x3xf32>
  %s = kiln.constant dense<[0.5, 2.0]> : tensor<2xf32>
  %zp = kiln.constant dense<[0, -3]> : tensor<2xi8>
  %q = kiln.quantize %x, %s, %zp {axis = 0 : i64} : tensor<2x3xf32>, tensor<2xf32>, tensor<2xi8>
  return %q : tensor<2x3xi8>
}

// -----

// A dequantize of constants is not folded by canonicalization: the weight
// stays int8 until kiln-fold-qdq has formed the integer contractions (that
// pass evaluates the ones left; tests/lit/passes/fold-qdq.mlir).
// FOLD-LABEL: func.func @dequantize_not_folded
// FOLD: kiln.dequantize
func.func @dequantize_not_folded() -> tensor<2xf32> {
  %q = kiln.constant dense<[-128, 127]> : tensor<2xi8>
  %s = kiln.constant dense<0.25> : tensor<1xf32>
  %zp = kiln.constant dense<[0]> : tensor<1xi8>
  %y = kiln.dequantize %q, %s, %zp : tensor<2xi8>, tensor<1xf32>, tensor<1xi8>
  return %y : tensor<2xf32>
}

// -----

// A run-time input stays an op.
// FOLD-LABEL: func.func @no_fold_runtime_input
// FOLD: kiln.quantize %arg0
func.func @no_fold_runtime_input(%x: tensor<3xf32>) -> tensor<3xi8> {
  %s = kiln.constant dense<0.1> : tensor<f32>
  %zp = kiln.constant dense<0> : tensor<i8>
  %q = kiln.quantize %x, %s, %zp : tensor<3xf32>, tensor<f32>, tensor<i8>
  return %q : tensor<3xi8>
}
