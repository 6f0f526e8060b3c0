// gemm_call.h - a LibraryCall GEMM (row-major, kiln.fbs GemmCall) as the
// column-major cuBLASLt problem that computes it.
//
// A row-major r x c matrix with row stride ld is, byte for byte, the
// column-major c x r matrix with the same ld: its transpose. So row-major
// D = op(A) op(B) is column-major D^T = op(B)^T op(A)^T: cuBLASLt's A is
// the step's B, its B the step's A, m and n swap, and the default
// (column) order serves every layout. The bias, one value per column of
// the row-major D, is one per row of D^T: cuBLASLt's bias convention.
// This avoids CUBLASLT_ORDER_ROW, which not every epilogue and algorithm
// supports.
#ifndef KILN_RUNTIME_SRC_CUDA_GEMM_CALL_H_
#define KILN_RUNTIME_SRC_CUDA_GEMM_CALL_H_

#include <cstdint>

#include "kiln/runtime.h"

namespace kiln {

// cublasLtMatrixLayoutCreate(type, rows, cols, ld) plus BATCH_COUNT and
// STRIDED_BATCH_OFFSET.
struct LtLayout {
  uint64_t rows = 0, cols = 0;
  int64_t ld = 0;
  int32_t batch = 1;
  int64_t batch_stride = 0;
};

struct LtGemm {
  int trans_a = 0, trans_b = 0;  // CUBLAS_OP_N / CUBLAS_OP_T
  int epilogue = 1;              // CUBLASLT_EPILOGUE_*
  LtLayout a, b, c, d;           // a: the step's B; b: the step's A
};

LtGemm TranslateGemm(const GemmInfo& gemm);

}  // namespace kiln

#endif  // KILN_RUNTIME_SRC_CUDA_GEMM_CALL_H_
