// RUN: kiln-opt --kiln-cuda-library-calls %s -split-input-file -verify-diagnostics

// What kiln-cuda-library-calls still refuses: kiln.gemm_call ops that do
// not verify. (Contractions no cuBLASLt call computes are not errors: they
// stay dispatches marked for a generated kernel; library-calls-generated.mlir.)


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
