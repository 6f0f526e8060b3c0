// RUN: kiln-opt --kiln-cuda-library-calls %s | FileCheck %s

// kiln-cuda-library-calls on hand-written host functions and dispatches
// (the form kiln-form-dispatches leaves): contractions become
// kiln.gemm_call on the host, with the fused consumer as cuBLASLt's
// epilogue when it is exactly one, else left as a residual dispatch.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// Gemm + bias + Relu: one call, BiasRelu, the dispatch is gone.
// CHECK-LABEL: func.func @bias_relu(
// CHECK-SAME: %[[X:.*]]: tensor<4x16xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<8xf32>
// CHECK-NEXT: %[[D:.*]] = kiln.gemm_call %[[X]], %[[W]], %[[B]] {alpha = 1.000000e+00 : f32, batch = 1 : i64, batch_stride_a = 0 : i64, batch_stride_b = 0 : i64, batch_stride_c = 0 : i64, batch_stride_d = 32 : i64, beta = 0.000000e+00 : f32, epilogue = 3 : i32, k = 16 : i64, lda = 16 : i64, ldb = 8 : i64, ldc = 0 : i64, ldd = 8 : i64, m = 4 : i64, n = 8 : i64, transpose_a = false, transpose_b = false} : (tensor<4x16xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[D]]
func.func @bias_relu(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = call @dispatch_0(%x, %w, %b) : (tensor<4x16xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
// CHECK-NOT: func.func private @dispatch_0(
func.func private @dispatch_0(%arg0: tensor<4x16xf32>, %arg1: tensor<16x8xf32>, %arg2: tensor<8xf32>) -> tensor<4x8xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4x8xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<4x16xf32>, tensor<16x8xf32>) outs(%1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = tensor.empty() : tensor<4x8xf32>
  %4 = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%2, %arg2 : tensor<4x8xf32>, tensor<8xf32>) outs(%3 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.addf %in, %in_0 : f32
    %6 = arith.maxnumf %5, %cst : f32
    linalg.yield %6 : f32
  } -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

// Gemm(transA=1, transB=1, alpha=2) + C: the transposes (dispatches that
// swap the last two dims) are read in place, alpha and C (beta 1 once the
// constant beta*C folded) go into the call.
// CHECK-LABEL: func.func @transposed(
// CHECK-SAME: %[[U:.*]]: tensor<5x4xf32>, %[[V:.*]]: tensor<6x5xf32>, %[[C:.*]]: tensor<4x6xf32>
// CHECK-NEXT: %[[D:.*]] = kiln.gemm_call %[[U]], %[[V]], %[[C]] {alpha = 2.000000e+00 : f32, batch = 1 : i64, {{.*}}, beta = 1.000000e+00 : f32, epilogue = 0 : i32, k = 5 : i64, lda = 4 : i64, ldb = 5 : i64, ldc = 6 : i64, ldd = 6 : i64, m = 4 : i64, n = 6 : i64, transpose_a = true, transpose_b = true}
// CHECK-NEXT: return %[[D]]
func.func @transposed(%u: tensor<5x4xf32>, %v: tensor<6x5xf32>, %c: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %0 = call @dispatch_t0(%u) : (tensor<5x4xf32>) -> tensor<4x5xf32>
  %1 = call @dispatch_t1(%v) : (tensor<6x5xf32>) -> tensor<5x6xf32>
  %2 = call @dispatch_5(%0, %1, %c) : (tensor<4x5xf32>, tensor<5x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  return %2 : tensor<4x6xf32>
}
// CHECK-NOT: func.func private @dispatch_t0(
func.func private @dispatch_t0(%arg0: tensor<5x4xf32>) -> tensor<4x5xf32> attributes {kiln.dispatch} {
  %0 = tensor.empty() : tensor<4x5xf32>
  %t = linalg.transpose ins(%arg0 : tensor<5x4xf32>) outs(%0 : tensor<4x5xf32>) permutation = [1, 0]
  return %t : tensor<4x5xf32>
}
func.func private @dispatch_t1(%arg0: tensor<6x5xf32>) -> tensor<5x6xf32> attributes {kiln.dispatch} {
  %0 = tensor.empty() : tensor<5x6xf32>
  %t = linalg.transpose ins(%arg0 : tensor<6x5xf32>) outs(%0 : tensor<5x6xf32>) permutation = [1, 0]
  return %t : tensor<5x6xf32>
}
func.func private @dispatch_5(%arg0: tensor<4x5xf32>, %arg1: tensor<5x6xf32>, %arg2: tensor<4x6xf32>) -> tensor<4x6xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 2.000000e+00 : f32
  %0 = tensor.empty() : tensor<4x6xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<4x5xf32>, tensor<5x6xf32>) outs(%1 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %3 = tensor.empty() : tensor<4x6xf32>
  %4 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%2, %arg2 : tensor<4x6xf32>, tensor<4x6xf32>) outs(%3 : tensor<4x6xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %5 = arith.mulf %in, %cst_0 : f32
    %6 = arith.addf %5, %in_1 : f32
    linalg.yield %6 : f32
  } -> tensor<4x6xf32>
  return %4 : tensor<4x6xf32>
}

// MatMul + Sigmoid: no epilogue expresses it; the GEMM writes D and the
// sigmoid stays a dispatch of its own, reading D.
// CHECK-LABEL: func.func @residual(
// CHECK-SAME: %[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<16x32xf32>
// CHECK-NEXT: %[[D:.*]] = kiln.gemm_call %[[X]], %[[W]] {{{.*}}epilogue = 0 : i32, k = 16 : i64{{.*}}m = 8 : i64, n = 32 : i64
// CHECK-NEXT: %[[Y:.*]] = call @dispatch_2_epilogue(%[[D]]) : (tensor<8x32xf32>) -> tensor<8x32xf32>
// CHECK-NEXT: return %[[Y]]
func.func @residual(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %0 = call @dispatch_2(%x, %w) : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}
// CHECK: func.func private @dispatch_2_epilogue(%[[ARG:.*]]: tensor<8x32xf32>) -> tensor<8x32xf32> attributes {kiln.dispatch}
// CHECK-NOT: linalg.matmul
// CHECK-NOT: linalg.fill
// CHECK: linalg.generic {{.*}} ins(%[[ARG]] : tensor<8x32xf32>)
// CHECK: math.exp
func.func private @dispatch_2(%arg0: tensor<8x16xf32>, %arg1: tensor<16x32xf32>) -> tensor<8x32xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 1.000000e+00 : f32
  %0 = tensor.empty() : tensor<8x32xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %3 = tensor.empty() : tensor<8x32xf32>
  %4 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<8x32xf32>) outs(%3 : tensor<8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %5 = arith.negf %in : f32
    %6 = math.exp %5 : f32
    %7 = arith.addf %6, %cst_0 : f32
    %8 = arith.divf %cst_0, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<8x32xf32>
  return %4 : tensor<8x32xf32>
}

// A matrix times a batch (MatMul [4,5] x [3,5,6]): A is broadcast (batch
// stride 0), B and D are batched.
#bA = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#bB = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#bD = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @broadcast(
// CHECK-NEXT: kiln.gemm_call {{.*}} {alpha = 1.000000e+00 : f32, batch = 3 : i64, batch_stride_a = 0 : i64, batch_stride_b = 30 : i64, batch_stride_c = 0 : i64, batch_stride_d = 24 : i64, beta = 0.000000e+00 : f32, epilogue = 0 : i32, k = 5 : i64, lda = 5 : i64, ldb = 6 : i64, ldc = 0 : i64, ldd = 6 : i64, m = 4 : i64, n = 6 : i64, transpose_a = false, transpose_b = false}
func.func @broadcast(%r: tensor<4x5xf32>, %q: tensor<3x5x6xf32>) -> tensor<3x4x6xf32> {
  %0 = call @dispatch_b(%r, %q) : (tensor<4x5xf32>, tensor<3x5x6xf32>) -> tensor<3x4x6xf32>
  return %0 : tensor<3x4x6xf32>
}
func.func private @dispatch_b(%arg0: tensor<4x5xf32>, %arg1: tensor<3x5x6xf32>) -> tensor<3x4x6xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<3x4x6xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<3x4x6xf32>) -> tensor<3x4x6xf32>
  %2 = linalg.generic {indexing_maps = [#bA, #bB, #bD], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<4x5xf32>, tensor<3x5x6xf32>) outs(%1 : tensor<3x4x6xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %3 = arith.mulf %in, %in_0 : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<3x4x6xf32>
  return %2 : tensor<3x4x6xf32>
}

// batch_matmul: every operand batched.
// CHECK-LABEL: func.func @batched(
// CHECK-NEXT: kiln.gemm_call {{.*}} {alpha = 1.000000e+00 : f32, batch = 3 : i64, batch_stride_a = 20 : i64, batch_stride_b = 30 : i64, batch_stride_c = 0 : i64, batch_stride_d = 24 : i64, {{.*}} k = 5 : i64, lda = 5 : i64, ldb = 6 : i64, {{.*}} m = 4 : i64, n = 6 : i64
func.func @batched(%p: tensor<3x4x5xf32>, %q: tensor<3x5x6xf32>) -> tensor<3x4x6xf32> {
  %0 = call @dispatch_bm(%p, %q) : (tensor<3x4x5xf32>, tensor<3x5x6xf32>) -> tensor<3x4x6xf32>
  return %0 : tensor<3x4x6xf32>
}
func.func private @dispatch_bm(%arg0: tensor<3x4x5xf32>, %arg1: tensor<3x5x6xf32>) -> tensor<3x4x6xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<3x4x6xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<3x4x6xf32>) -> tensor<3x4x6xf32>
  %2 = linalg.batch_matmul ins(%arg0, %arg1 : tensor<3x4x5xf32>, tensor<3x5x6xf32>) outs(%1 : tensor<3x4x6xf32>) -> tensor<3x4x6xf32>
  return %2 : tensor<3x4x6xf32>
}

// Conv through im2col: the im2col dispatch is left for the kernel
// generator; the contraction (filter [M, CK] x cols [N, CK, P]) is a GEMM
// batched over N with the filter broadcast; the per-channel bias (per row
// of D, which cuBLASLt's per-column bias cannot express) + ReLU stays a
// dispatch.
#cA = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#cB = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#cD = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @conv(
// CHECK-SAME: %[[COLS:.*]]: tensor<2x36x36xf32>, %[[F:.*]]: tensor<6x36xf32>, %[[BIAS:.*]]: tensor<6xf32>
// CHECK-NEXT: %[[D:.*]] = kiln.gemm_call %[[F]], %[[COLS]] {alpha = 1.000000e+00 : f32, batch = 2 : i64, batch_stride_a = 0 : i64, batch_stride_b = 1296 : i64, batch_stride_c = 0 : i64, batch_stride_d = 216 : i64, beta = 0.000000e+00 : f32, epilogue = 0 : i32, k = 36 : i64, lda = 36 : i64, ldb = 36 : i64, ldc = 0 : i64, ldd = 36 : i64, m = 6 : i64, n = 36 : i64, transpose_a = false, transpose_b = false}
// CHECK-NEXT: call @dispatch_c_epilogue(%[[D]], %[[BIAS]])
// CHECK: func.func private @dispatch_c_epilogue(%{{.*}}: tensor<2x6x36xf32>, %{{.*}}: tensor<6xf32>)
func.func @conv(%cols: tensor<2x36x36xf32>, %f: tensor<6x36xf32>, %bias: tensor<6xf32>) -> tensor<2x6x36xf32> {
  %0 = call @dispatch_c(%f, %cols, %bias) : (tensor<6x36xf32>, tensor<2x36x36xf32>, tensor<6xf32>) -> tensor<2x6x36xf32>
  return %0 : tensor<2x6x36xf32>
}
func.func private @dispatch_c(%arg0: tensor<6x36xf32>, %arg1: tensor<2x36x36xf32>, %arg2: tensor<6xf32>) -> tensor<2x6x36xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x6x36xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x6x36xf32>) -> tensor<2x6x36xf32>
  %2 = linalg.generic {indexing_maps = [#cA, #cB, #cD], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<6x36xf32>, tensor<2x36x36xf32>) outs(%1 : tensor<2x6x36xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.mulf %in, %in_0 : f32
    %6 = arith.addf %out, %5 : f32
    linalg.yield %6 : f32
  } -> tensor<2x6x36xf32>
  %3 = tensor.empty() : tensor<2x6x36xf32>
  %4 = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2, %arg2 : tensor<2x6x36xf32>, tensor<6xf32>) outs(%3 : tensor<2x6x36xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.addf %in, %in_0 : f32
    %6 = arith.maxnumf %5, %cst : f32
    linalg.yield %6 : f32
  } -> tensor<2x6x36xf32>
  return %4 : tensor<2x6x36xf32>
}

// ReLU alone (epilogue 2) and a bias alone (epilogue 1), in the other
// operand order of the add (bias + acc) and of max (0 max x).
// CHECK-LABEL: func.func @relu_only(
// CHECK-NEXT: kiln.gemm_call %{{.*}}, %{{.*}} {{{.*}}epilogue = 2 : i32
// CHECK-NEXT: kiln.gemm_call %{{.*}}, %{{.*}}, %{{.*}} {{{.*}}epilogue = 1 : i32
func.func @relu_only(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = call @dispatch_r(%x, %w) : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  %1 = call @dispatch_bias(%x, %w, %b) : (tensor<4x16xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}
func.func private @dispatch_r(%arg0: tensor<4x16xf32>, %arg1: tensor<16x8xf32>) -> tensor<4x8xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4x8xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<4x16xf32>, tensor<16x8xf32>) outs(%1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = tensor.empty() : tensor<4x8xf32>
  %4 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<4x8xf32>) outs(%3 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %6 = arith.maxnumf %cst, %in : f32
    linalg.yield %6 : f32
  } -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}
func.func private @dispatch_bias(%arg0: tensor<4x16xf32>, %arg1: tensor<16x8xf32>, %arg2: tensor<8xf32>) -> tensor<4x8xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4x8xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<4x16xf32>, tensor<16x8xf32>) outs(%1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = tensor.empty() : tensor<4x8xf32>
  %4 = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%2, %arg2 : tensor<4x8xf32>, tensor<8xf32>) outs(%3 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.addf %in_0, %in : f32
    linalg.yield %5 : f32
  } -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

// A bias read along the rows (per output channel of a conv-like layout)
// is not cuBLASLt's per-column bias: the consumer stays a dispatch.
// CHECK-LABEL: func.func @row_bias(
// CHECK-NEXT: %[[D:.*]] = kiln.gemm_call %{{.*}}, %{{.*}} {{{.*}}epilogue = 0 : i32
// CHECK-NEXT: call @dispatch_rb_epilogue(%[[D]], %{{.*}})
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_bias(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<4xf32>) -> tensor<4x8xf32> {
  %0 = call @dispatch_rb(%x, %w, %b) : (tensor<4x16xf32>, tensor<16x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
func.func private @dispatch_rb(%arg0: tensor<4x16xf32>, %arg1: tensor<16x8xf32>, %arg2: tensor<4xf32>) -> tensor<4x8xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4x8xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<4x16xf32>, tensor<16x8xf32>) outs(%1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = tensor.empty() : tensor<4x8xf32>
  %4 = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%2, %arg2 : tensor<4x8xf32>, tensor<4xf32>) outs(%3 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.addf %in, %in_0 : f32
    linalg.yield %5 : f32
  } -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}
