// RUN: kiln-opt --kiln-cuda-library-calls %s -split-input-file | FileCheck %s

// Contractions no cuBLASLt call computes stay dispatches, marked for a
// generated kernel (kiln.cuda.generated_contraction) with a note saying why
// (kiln.kernel_note: kilnc --dump-dispatches and the plan step's label show
// it). One case per kind: a depthwise conv (window maps), a contraction
// over two k dims, f64 and int8 contractions, a contraction accumulating
// onto an input (a recurrence), an operand broadcast over some batch dims
// only, f16 (no mixed-precision GEMMs yet) and a contraction inside the
// dispatch's own loop.

// A depthwise conv: not a contraction to linalg, but contraction-like.
// Its padding, a dispatch of its own read through a host reshape, moves
// into it (one dispatch: the pad becomes a bounds check in the kernel).
// CHECK-LABEL: func.func @depthwise(
// CHECK-SAME: %[[X:.*]]: tensor<1x4x6x6xf32>, %[[W:.*]]: tensor<4x3x3xf32>
// CHECK-NEXT: %[[R:.*]] = call @dispatch_1_padded(%[[X]], %[[W]])
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: func.func private @dispatch_0(
// CHECK-LABEL: func.func private @dispatch_1_padded(
// CHECK-SAME: %[[S:.*]]: tensor<1x4x6x6xf32>, %[[F:.*]]: tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK-SAME: kiln.cuda.generated_contraction
// CHECK-SAME: kiln.kernel_note = "generated contraction kernel (a convolution through window indexing maps (depthwise, grouped or transposed): not a GEMM)"
// CHECK: %[[P:.*]] = tensor.pad %[[S]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[E:.*]] = tensor.expand_shape %[[P]]
// CHECK: linalg.generic {{.*}} ins(%[[E]], %[[F]] :
#dwIn = affine_map<(n, c, h, w, kh, kw) -> (n, c, 0, h + kh, w + kw)>
#dwW = affine_map<(n, c, h, w, kh, kw) -> (c, kh, kw)>
#dwOut = affine_map<(n, c, h, w, kh, kw) -> (n, c, h, w)>
func.func @depthwise(%x: tensor<1x4x6x6xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %p = call @dispatch_0(%x) : (tensor<1x4x6x6xf32>) -> tensor<1x4x8x8xf32>
  %e = tensor.expand_shape %p [[0], [1, 2], [3], [4]] output_shape [1, 4, 1, 8, 8] : tensor<1x4x8x8xf32> into tensor<1x4x1x8x8xf32>
  %r = call @dispatch_1(%e, %w) : (tensor<1x4x1x8x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %r : tensor<1x4x6x6xf32>
}
func.func private @dispatch_0(%arg0: tensor<1x4x6x6xf32>) -> tensor<1x4x8x8xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %cst : f32
  } : tensor<1x4x6x6xf32> to tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}
func.func private @dispatch_1(%arg0: tensor<1x4x1x8x8xf32>, %arg1: tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x4x6x6xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %2 = linalg.generic {indexing_maps = [#dwIn, #dwW, #dwOut], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%arg0, %arg1 : tensor<1x4x1x8x8xf32>, tensor<4x3x3xf32>) outs(%1 : tensor<1x4x6x6xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %3 = arith.mulf %in, %in_0 : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<1x4x6x6xf32>
  return %2 : tensor<1x4x6x6xf32>
}

// -----

// Two reduction dims (a 1x1 conv's channels and a pooled axis, as in
// mobilenet_v3's squeeze-excite): a GEMM has one k.
// CHECK-LABEL: func.func @two_k(
// CHECK-NEXT: call @dispatch_0(
// CHECK-LABEL: func.func private @dispatch_0(
// CHECK-SAME: kiln.cuda.generated_contraction
// CHECK-SAME: kiln.kernel_note = "generated contraction kernel (no strided-batched GEMM computes it: it reduces over 2 dims (a GEMM has one k))"
#a2 = affine_map<(m, n, k0, k1) -> (m, k0, k1)>
#b2 = affine_map<(m, n, k0, k1) -> (k0, k1, n)>
#d2 = affine_map<(m, n, k0, k1) -> (m, n)>
func.func @two_k(%a: tensor<4x8x3xf32>, %b: tensor<8x3x5xf32>) -> tensor<4x5xf32> {
  %0 = call @dispatch_0(%a, %b) : (tensor<4x8x3xf32>, tensor<8x3x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}
func.func private @dispatch_0(%arg0: tensor<4x8x3xf32>, %arg1: tensor<8x3x5xf32>) -> tensor<4x5xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4x5xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x5xf32>) -> tensor<4x5xf32>
  %2 = linalg.generic {indexing_maps = [#a2, #b2, #d2], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%arg0, %arg1 : tensor<4x8x3xf32>, tensor<8x3x5xf32>) outs(%1 : tensor<4x5xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %3 = arith.mulf %in, %in_0 : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<4x5xf32>
  return %2 : tensor<4x5xf32>
}

// -----

// f64: cuBLASLt calls here are f32 only.
// CHECK-LABEL: func.func private @dispatch_0(
// CHECK-SAME: kiln.kernel_note = "generated contraction kernel ((f64, f64) -> f64; library GEMMs here are f32 only)"
func.func @f64(%a: tensor<4x8xf64>, %b: tensor<8x2xf64>) -> tensor<4x2xf64> {
  %0 = call @dispatch_0(%a, %b) : (tensor<4x8xf64>, tensor<8x2xf64>) -> tensor<4x2xf64>
  return %0 : tensor<4x2xf64>
}
func.func private @dispatch_0(%arg0: tensor<4x8xf64>, %arg1: tensor<8x2xf64>) -> tensor<4x2xf64> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f64
  %0 = tensor.empty() : tensor<4x2xf64>
  %1 = linalg.fill ins(%cst : f64) outs(%0 : tensor<4x2xf64>) -> tensor<4x2xf64>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<4x8xf64>, tensor<8x2xf64>) outs(%1 : tensor<4x2xf64>) -> tensor<4x2xf64>
  return %2 : tensor<4x2xf64>
}

// -----

// int8 (i8 x i8 -> i32).
// CHECK-LABEL: func.func private @dispatch_0(
// CHECK-SAME: kiln.kernel_note = "generated contraction kernel ((i8, i8) -> i32; library GEMMs here are f32 only)"
func.func @int8(%a: tensor<4x8xi8>, %b: tensor<8x2xi8>) -> tensor<4x2xi32> {
  %0 = call @dispatch_0(%a, %b) : (tensor<4x8xi8>, tensor<8x2xi8>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}
func.func private @dispatch_0(%arg0: tensor<4x8xi8>, %arg1: tensor<8x2xi8>) -> tensor<4x2xi32> attributes {kiln.dispatch} {
  %c0 = arith.constant 0 : i32
  %0 = tensor.empty() : tensor<4x2xi32>
  %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<4x2xi32>) -> tensor<4x2xi32>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<4x8xi8>, tensor<8x2xi8>) outs(%1 : tensor<4x2xi32>) -> tensor<4x2xi32>
  return %2 : tensor<4x2xi32>
}

// -----

// f16 operands (from --precision=fp16): no GPU GEMM until mixed precision.
// CHECK-LABEL: func.func private @dispatch_0(
// CHECK-SAME: kiln.kernel_note = "generated contraction kernel ((f16, f16) -> f32; library GEMMs here are f32 only)"
func.func @half(%a: tensor<4x8xf16>, %b: tensor<8x2xf16>) -> tensor<4x2xf32> {
  %0 = call @dispatch_0(%a, %b) : (tensor<4x8xf16>, tensor<8x2xf16>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
func.func private @dispatch_0(%arg0: tensor<4x8xf16>, %arg1: tensor<8x2xf16>) -> tensor<4x2xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4x2xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x2xf32>) -> tensor<4x2xf32>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<4x8xf16>, tensor<8x2xf16>) outs(%1 : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %2 : tensor<4x2xf32>
}

// -----

// Accumulating onto an input (an LSTM's input projection plus its bias).
// CHECK-LABEL: func.func private @dispatch_0(
// CHECK-SAME: kiln.kernel_note = "generated contraction kernel (it accumulates into a tensor that is not zero-filled)"
func.func @accumulate(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %0 = call @dispatch_0(%a, %b, %c) : (tensor<4x8xf32>, tensor<8x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
func.func private @dispatch_0(%arg0: tensor<4x8xf32>, %arg1: tensor<8x2xf32>, %arg2: tensor<4x2xf32>) -> tensor<4x2xf32> attributes {kiln.dispatch} {
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8x2xf32>) outs(%arg2 : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %2 : tensor<4x2xf32>
}

// -----

// Each operand broadcast over one of two batch dims ([2,M,K] x [3,K,N] ->
// [2,3,M,N]): no single batch stride walks either.
// CHECK-LABEL: func.func private @dispatch_0(
// CHECK-SAME: kiln.kernel_note = "generated contraction kernel (no strided-batched GEMM computes it: operand A is broadcast over some batch dims but not others (no single batch stride))"
#a = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d4)>
#b = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
#d = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
func.func @partial(%a: tensor<2x4x5xf32>, %b: tensor<3x5x6xf32>) -> tensor<2x3x4x6xf32> {
  %0 = call @dispatch_0(%a, %b) : (tensor<2x4x5xf32>, tensor<3x5x6xf32>) -> tensor<2x3x4x6xf32>
  return %0 : tensor<2x3x4x6xf32>
}
func.func private @dispatch_0(%arg0: tensor<2x4x5xf32>, %arg1: tensor<3x5x6xf32>) -> tensor<2x3x4x6xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x3x4x6xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x3x4x6xf32>) -> tensor<2x3x4x6xf32>
  %2 = linalg.generic {indexing_maps = [#a, #b, #d], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<2x4x5xf32>, tensor<3x5x6xf32>) outs(%1 : tensor<2x3x4x6xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %3 = arith.mulf %in, %in_0 : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<2x3x4x6xf32>
  return %2 : tensor<2x3x4x6xf32>
}

// -----

// A contraction inside the dispatch's own loop (a recurrence run as one
// serial kernel): no host-level call could take it.
// CHECK-LABEL: func.func private @dispatch_0(
// CHECK-SAME: kiln.kernel_note = "generated contraction kernel (a contraction inside the dispatch's sequential loop)"
func.func @recurrence(%h: tensor<1x4xf32>, %w: tensor<4x4xf32>) -> tensor<1x4xf32> {
  %0 = call @dispatch_0(%h, %w) : (tensor<1x4xf32>, tensor<4x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}
func.func private @dispatch_0(%arg0: tensor<1x4xf32>, %arg1: tensor<4x4xf32>) -> tensor<1x4xf32> attributes {kiln.dispatch} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %cst = arith.constant 0.000000e+00 : f32
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%state = %arg0) -> (tensor<1x4xf32>) {
    %0 = tensor.empty() : tensor<1x4xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x4xf32>) -> tensor<1x4xf32>
    %2 = linalg.matmul ins(%state, %arg1 : tensor<1x4xf32>, tensor<4x4xf32>) outs(%1 : tensor<1x4xf32>) -> tensor<1x4xf32>
    scf.yield %2 : tensor<1x4xf32>
  }
  return %r : tensor<1x4xf32>
}
