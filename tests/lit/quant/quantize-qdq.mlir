// RUN: kiln-opt %s -split-input-file --kiln-quantize="fold=false" | FileCheck %s
// RUN: kiln-opt %s -split-input-file --kiln-quantize="fold=false deny=matmul" | FileCheck %s --check-prefix=DENY
// RUN: kiln-opt %s -split-input-file --kiln-quantize="fold=false softmax-operands=true" | FileCheck %s --check-prefix=SOFTMAX

// kiln-quantize before the folding (fold=false): weights quantized at
// compile time (s8 symmetric per output channel), activations get
// dequantize(quantize(x)) with the u8 asymmetric parameters of their
// calibrated range, held biased (zp_u8 - 128).

// Range [-1, 3]: scale 4 / 255, zero point round(1 / scale) = 64 (u8),
// stored as 64 - 128 = -64. W's columns are its output channels:
// column 0 (max 1): scale 1/127, q = [127, round_half_even(63.5) = 64];
// column 1 (max 4): scale 4/127, q = [round_half_even(-63.5) = -64, 127].
// (axis = 1, the default, is not printed.)
// CHECK-LABEL: func.func @matmul
// CHECK-DAG: %[[S:.*]] = kiln.constant dense<0.0156862754> : tensor<f32>
// CHECK-DAG: %[[Z:.*]] = kiln.constant dense<-64> : tensor<i8>
// CHECK: %[[Q:.*]] = kiln.quantize %arg0, %[[S]], %[[Z]] : tensor<3x2xf32>, tensor<f32>, tensor<i8>
// CHECK: %[[X:.*]] = kiln.dequantize %[[Q]], %[[S]], %[[Z]] : tensor<3x2xi8>, tensor<f32>, tensor<i8>
// CHECK-DAG: %[[QW:.*]] = kiln.constant dense<{{\[\[}}127, -64], [64, 127]]> : tensor<2x2xi8>
// CHECK-DAG: %[[SW:.*]] = kiln.constant dense<[0.00787401571, 0.0314960629]> : tensor<2xf32>
// CHECK-DAG: %[[ZW:.*]] = kiln.constant dense<0> : tensor<2xi8>
// CHECK: %[[W:.*]] = kiln.dequantize %[[QW]], %[[SW]], %[[ZW]] : tensor<2x2xi8>, tensor<2xf32>, tensor<2xi8>
// CHECK: kiln.matmul %[[X]], %[[W]] : tensor<3x2xf32>, tensor<2x2xf32>
// CHECK-NOT: kiln.input_range
// DENY-LABEL: func.func @matmul
// DENY-NOT: kiln.quantize
// DENY: kiln.matmul %arg0, %{{.*}} {kiln.input_range = array<f32: -1.000000e+00, 3.000000e+00>}
func.func @matmul(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = kiln.constant dense<[[1.0, -2.0], [0.5, 4.0]]> : tensor<2x2xf32>
  %y = kiln.matmul %x, %w {kiln.input_range = array<f32: -1.0, 3.0>} : tensor<3x2xf32>, tensor<2x2xf32> loc("fc")
  return %y : tensor<3x2xf32>
}

// -----

// A range that does not reach 0 is widened to it ([0, 2.55]: scale 0.01,
// u8 zero point 0, biased -128). The conv's filters are its output
// channels (axis 0); its bias becomes i32 at scale s_x * s_w
// (0.5 / (0.01 * 2/127) = 3175, -1 / (0.01 * 1/127) = -12700).
// CHECK-LABEL: func.func @conv
// CHECK-DAG: %[[S:.*]] = kiln.constant dense<0.00999999977> : tensor<f32>
// CHECK-DAG: %[[Z:.*]] = kiln.constant dense<-128> : tensor<i8>
// CHECK: %[[Q:.*]] = kiln.quantize %arg0, %[[S]], %[[Z]]
// CHECK: %[[X:.*]] = kiln.dequantize %[[Q]], %[[S]], %[[Z]]
// CHECK-DAG: %[[QW:.*]] = kiln.constant dense<{{\[\[\[\[}}127, -64]]], {{\[\[\[}}-127, 0]]]]> : tensor<2x1x1x2xi8>
// CHECK: %[[W:.*]] = kiln.dequantize %[[QW]], {{.*}} {axis = 0 : i64} : tensor<2x1x1x2xi8>, tensor<2xf32>, tensor<2xi8>
// CHECK: %[[QB:.*]] = kiln.constant dense<[3175, -12700]> : tensor<2xi32>
// CHECK: %[[B:.*]] = kiln.dequantize %[[QB]], {{.*}} {axis = 0 : i64} : tensor<2xi32>, tensor<2xf32>, tensor<2xi32>
// CHECK: kiln.conv %[[X]], %[[W]], %[[B]]
// DENY-LABEL: func.func @conv
// DENY: kiln.quantize
// DENY: kiln.conv
func.func @conv(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x3xf32> {
  %w = kiln.constant dense<[[[[2.0, -1.0]]], [[[-1.0, 0.0]]]]> : tensor<2x1x1x2xf32>
  %b = kiln.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %y = kiln.conv %x, %w, %b {kiln.input_range = array<f32: 0.5, 2.55>} : tensor<1x1x4x4xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>
  return %y : tensor<1x2x4x3xf32>
}

// -----

// Three projections of one input with one range share one
// quantize/dequantize. The scores matmul of two activations (Q K^T) gets
// both quantized s8 symmetric: the left over [-1, 3] (scale 3/127), the
// right over [-2, 4] (scale 4/127), zero points 0.
// CHECK-LABEL: func.func @shared_input
// CHECK: kiln.matmul %[[X:.*]], %{{.*}} : tensor<4x8xf32>, tensor<8x8xf32>
// CHECK-DAG: %[[SL:.*]] = kiln.constant dense<0.0236220472> : tensor<f32>
// CHECK-DAG: %[[ZL:.*]] = kiln.constant dense<0> : tensor<i8>
// CHECK: %[[QQ:.*]] = kiln.quantize %[[Q:.*]], %[[SL]], %[[ZL]] : tensor<4x8xf32>
// CHECK: %[[DQ:.*]] = kiln.dequantize %[[QQ]], %[[SL]], %[[ZL]]
// CHECK: kiln.matmul %[[X]], %{{.*}} : tensor<4x8xf32>, tensor<8x8xf32>
// CHECK: kiln.matmul %[[X]], %{{.*}} : tensor<4x8xf32>, tensor<8x8xf32>
// CHECK: %[[KT:.*]] = kiln.transpose
// CHECK-DAG: %[[SR:.*]] = kiln.constant dense<0.0314960629> : tensor<f32>
// CHECK-DAG: %[[ZR:.*]] = kiln.constant dense<0> : tensor<i8>
// CHECK: %[[QK:.*]] = kiln.quantize %[[KT]], %[[SR]], %[[ZR]] : tensor<8x4xf32>
// CHECK: %[[DK:.*]] = kiln.dequantize %[[QK]], %[[SR]], %[[ZR]]
// CHECK: kiln.matmul %[[DQ]], %[[DK]] : tensor<4x8xf32>, tensor<8x4xf32>
// CHECK-NOT: kiln.input_range
// DENY-LABEL: func.func @shared_input
// DENY-NOT: kiln.quantize
func.func @shared_input(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %wq = kiln.constant dense<0.5> : tensor<8x8xf32>
  %wk = kiln.constant dense<0.25> : tensor<8x8xf32>
  %wv = kiln.constant dense<-0.5> : tensor<8x8xf32>
  %q = kiln.matmul %x, %wq {kiln.input_range = array<f32: -2.0, 2.0>} : tensor<4x8xf32>, tensor<8x8xf32>
  %k = kiln.matmul %x, %wk {kiln.input_range = array<f32: -2.0, 2.0>} : tensor<4x8xf32>, tensor<8x8xf32>
  %v = kiln.matmul %x, %wv {kiln.input_range = array<f32: -2.0, 2.0>} : tensor<4x8xf32>, tensor<8x8xf32>
  %kt = kiln.transpose %k {perm = array<i64: 1, 0>} : tensor<4x8xf32>
  %s = kiln.matmul %q, %kt {kiln.input_range = array<f32: -1.0, 3.0, -2.0, 4.0>} : tensor<4x8xf32>, tensor<8x4xf32>
  return %s : tensor<4x4xf32>
}

// -----

// A constant left operand is the weight, its rows the output channels
// (axis 0): row 0 (max 2): q = [127, -64]; row 1 (max 4): q = [32, 127]
// (round_half_even(31.75) = 32). The right operand is the activation, u8
// asymmetric over [0, 2.55] (scale 0.01, zero point -128 biased).
// CHECK-LABEL: func.func @constant_lhs
// CHECK-DAG: %[[S:.*]] = kiln.constant dense<0.00999999977> : tensor<f32>
// CHECK-DAG: %[[Z:.*]] = kiln.constant dense<-128> : tensor<i8>
// CHECK: %[[Q:.*]] = kiln.quantize %arg0, %[[S]], %[[Z]] : tensor<2x3xf32>
// CHECK: %[[X:.*]] = kiln.dequantize %[[Q]], %[[S]], %[[Z]]
// CHECK-DAG: %[[QW:.*]] = kiln.constant dense<{{\[\[}}127, -64], [32, 127]]> : tensor<2x2xi8>
// CHECK-DAG: %[[SW:.*]] = kiln.constant dense<[0.0157480314, 0.0314960629]> : tensor<2xf32>
// CHECK: %[[W:.*]] = kiln.dequantize %[[QW]], %[[SW]], %{{.*}} {axis = 0 : i64} : tensor<2x2xi8>, tensor<2xf32>, tensor<2xi8>
// CHECK: kiln.matmul %[[W]], %[[X]] : tensor<2x2xf32>, tensor<2x3xf32>
func.func @constant_lhs(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %w = kiln.constant dense<[[2.0, -1.0], [1.0, 4.0]]> : tensor<2x2xf32>
  %y = kiln.matmul %w, %x {kiln.input_range = array<f32: 0.5, 2.55>} : tensor<2x2xf32>, tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Weights of rank 3 (a batch of matrices): per output channel along the
// last dim, over both batches: column 0 (max 4): q = [32, 127, 0, 64]
// (1/(4/127) = 31.75 -> 32, 2/(4/127) = 63.5 -> 64); column 1 (max 1):
// q = [127, 0, -127, 127].
// CHECK-LABEL: func.func @rank3_weights
// CHECK: kiln.quantize %arg0
// CHECK-DAG: %[[QW:.*]] = kiln.constant dense<{{\[\[\[}}32, 127], [127, 0]], {{\[\[}}0, -127], [64, 127]]]> : tensor<2x2x2xi8>
// CHECK-DAG: %[[SW:.*]] = kiln.constant dense<[0.0314960629, 0.00787401571]> : tensor<2xf32>
// CHECK: %[[W:.*]] = kiln.dequantize %[[QW]], %[[SW]], %{{.*}} {axis = 2 : i64} : tensor<2x2x2xi8>, tensor<2xf32>, tensor<2xi8>
// CHECK: kiln.matmul %{{.*}}, %[[W]] : tensor<2x3x2xf32>, tensor<2x2x2xf32>
func.func @rank3_weights(%x: tensor<2x3x2xf32>) -> tensor<2x3x2xf32> {
  %w = kiln.constant dense<[[[1.0, 1.0], [4.0, 0.0]], [[0.0, -1.0], [2.0, 1.0]]]> : tensor<2x2x2xf32>
  %y = kiln.matmul %x, %w {kiln.input_range = array<f32: -1.0, 1.0>} : tensor<2x3x2xf32>, tensor<2x2x2xf32>
  return %y : tensor<2x3x2xf32>
}

// -----

// A matmul reading a softmax's output (attention's P V) is left in f32
// unless softmax-operands=true (then both operands get ranges).
// CHECK-LABEL: func.func @softmax_operand
// CHECK-NOT: kiln.quantize
// CHECK: kiln.matmul %{{.*}}, %arg1 {kiln.input_range = {{.*}}} : tensor<4x4xf32>, tensor<4x8xf32>
// SOFTMAX-LABEL: func.func @softmax_operand
// SOFTMAX: kiln.quantize %arg1
// SOFTMAX: %[[P:.*]] = kiln.softmax
// SOFTMAX: kiln.quantize %[[P]]
// SOFTMAX: kiln.matmul
func.func @softmax_operand(%s: tensor<4x4xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %p = kiln.softmax %s : tensor<4x4xf32>
  %y = kiln.matmul %p, %v {kiln.input_range = array<f32: 0.0, 1.0, -2.0, 2.0>} : tensor<4x4xf32>, tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
