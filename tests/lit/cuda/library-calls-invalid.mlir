// RUN: kiln-opt --kiln-cuda-library-calls %s -split-input-file -verify-diagnostics

// Contractions the cuda target refuses, each with an error naming the
// dispatch and why.

// f16 operands (from --precision=fp16): no GPU GEMM until mixed precision.
func.func @half(%a: tensor<4x8xf16>, %b: tensor<8x2xf16>) -> tensor<4x2xf32> {
  %0 = call @dispatch_0(%a, %b) : (tensor<4x8xf16>, tensor<8x2xf16>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
func.func private @dispatch_0(%arg0: tensor<4x8xf16>, %arg1: tensor<8x2xf16>) -> tensor<4x2xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4x2xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x2xf32>) -> tensor<4x2xf32>
  // expected-error @+1 {{dispatch 'dispatch_0': the cuda target runs f32 GEMMs only; this contraction is (f16, f16) -> f32 (f16/bf16 tensor-core GEMMs come with mixed precision on the GPU; compile it with --precision=fp32)}}
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<4x8xf16>, tensor<8x2xf16>) outs(%1 : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %2 : tensor<4x2xf32>
}

// -----

// int8 (i8 x i8 -> i32) contractions are refused the same way.
func.func @int8(%a: tensor<4x8xi8>, %b: tensor<8x2xi8>) -> tensor<4x2xi32> {
  %0 = call @dispatch_0(%a, %b) : (tensor<4x8xi8>, tensor<8x2xi8>) -> tensor<4x2xi32>
  return %0 : tensor<4x2xi32>
}
func.func private @dispatch_0(%arg0: tensor<4x8xi8>, %arg1: tensor<8x2xi8>) -> tensor<4x2xi32> attributes {kiln.dispatch} {
  %c0 = arith.constant 0 : i32
  %0 = tensor.empty() : tensor<4x2xi32>
  %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<4x2xi32>) -> tensor<4x2xi32>
  // expected-error @+1 {{the cuda target runs f32 GEMMs only; this contraction is (i8, i8) -> i32}}
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<4x8xi8>, tensor<8x2xi8>) outs(%1 : tensor<4x2xi32>) -> tensor<4x2xi32>
  return %2 : tensor<4x2xi32>
}

// -----

// Each operand broadcast over one of two batch dims ([2,M,K] x [3,K,N] ->
// [2,3,M,N]): no single batch stride walks either.
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
  // expected-error @+1 {{dispatch 'dispatch_0': no cuBLASLt strided-batched GEMM computes this contraction: operand A is broadcast over some batch dims but not others (no single batch stride)}}
  %2 = linalg.generic {indexing_maps = [#a, #b, #d], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<2x4x5xf32>, tensor<3x5x6xf32>) outs(%1 : tensor<2x3x4x6xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %3 = arith.mulf %in, %in_0 : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<2x3x4x6xf32>
  return %2 : tensor<2x3x4x6xf32>
}

// -----

// Accumulating into something other than zeros.
func.func @accumulate(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %0 = call @dispatch_0(%a, %b, %c) : (tensor<4x8xf32>, tensor<8x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
func.func private @dispatch_0(%arg0: tensor<4x8xf32>, %arg1: tensor<8x2xf32>, %arg2: tensor<4x2xf32>) -> tensor<4x2xf32> attributes {kiln.dispatch} {
  // expected-error @+1 {{dispatch 'dispatch_0': the contraction accumulates into a tensor that is not zero-filled}}
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8x2xf32>) outs(%arg2 : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %2 : tensor<4x2xf32>
}

// -----

// kiln.gemm_call's verifier: an operand too small for what the call reads.
func.func @small(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'kiln.gemm_call' op operand 'b' holds 16 elements; the call reads 23}}
  %0 = kiln.gemm_call %a, %b {alpha = 1.0 : f32, batch = 1 : i64, batch_stride_a = 0 : i64, batch_stride_b = 0 : i64, batch_stride_c = 0 : i64, batch_stride_d = 8 : i64, beta = 0.0 : f32, epilogue = 0 : i32, k = 8 : i64, lda = 8 : i64, ldb = 3 : i64, ldc = 0 : i64, ldd = 2 : i64, m = 4 : i64, n = 2 : i64, transpose_a = false, transpose_b = false} : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// kiln.gemm_call's verifier: a bias epilogue without a bias operand.
func.func @nobias(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  // expected-error @+1 {{'kiln.gemm_call' op takes a, b, bias (the epilogue adds one): 3 operands, not 2}}
  %0 = kiln.gemm_call %a, %b {alpha = 1.0 : f32, batch = 1 : i64, batch_stride_a = 0 : i64, batch_stride_b = 0 : i64, batch_stride_c = 0 : i64, batch_stride_d = 8 : i64, beta = 0.0 : f32, epilogue = 3 : i32, k = 8 : i64, lda = 8 : i64, ldb = 2 : i64, ldc = 0 : i64, ldd = 2 : i64, m = 4 : i64, n = 2 : i64, transpose_a = false, transpose_b = false} : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
