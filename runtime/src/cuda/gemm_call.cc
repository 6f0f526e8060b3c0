#include "runtime/src/cuda/gemm_call.h"

#include "runtime/src/cuda/cuda_abi.h"

namespace kiln {

using namespace cuda;  // NOLINT

LtGemm TranslateGemm(const GemmInfo& g) {
  LtGemm lt;
  const int32_t batch = static_cast<int32_t>(g.batch);
  // cuBLASLt A = the step's B, stored row-major as k x n (or n x k when
  // transposed): column-major n x k (k x n) with the same ld.
  lt.trans_a = g.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  lt.a = {g.transpose_b ? g.k : g.n, g.transpose_b ? g.n : g.k, static_cast<int64_t>(g.ldb), batch,
          static_cast<int64_t>(g.batch_stride_b)};
  // cuBLASLt B = the step's A, row-major m x k (k x m when transposed).
  lt.trans_b = g.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  lt.b = {g.transpose_a ? g.m : g.k, g.transpose_a ? g.k : g.m, static_cast<int64_t>(g.lda), batch,
          static_cast<int64_t>(g.batch_stride_a)};
  // C and D: row-major m x n, column-major n x m.
  lt.d = {g.n, g.m, static_cast<int64_t>(g.ldd), batch, static_cast<int64_t>(g.batch_stride_d)};
  lt.c = g.has_c() ? LtLayout{g.n, g.m, static_cast<int64_t>(g.ldc), batch,
                              static_cast<int64_t>(g.batch_stride_c)}
                   : lt.d;
  switch (g.epilogue) {
    case GemmInfo::Epilogue::kNone: lt.epilogue = CUBLASLT_EPILOGUE_DEFAULT; break;
    case GemmInfo::Epilogue::kBias: lt.epilogue = CUBLASLT_EPILOGUE_BIAS; break;
    case GemmInfo::Epilogue::kRelu: lt.epilogue = CUBLASLT_EPILOGUE_RELU; break;
    case GemmInfo::Epilogue::kBiasRelu: lt.epilogue = CUBLASLT_EPILOGUE_RELU_BIAS; break;
    case GemmInfo::Epilogue::kGelu: lt.epilogue = CUBLASLT_EPILOGUE_GELU; break;
    case GemmInfo::Epilogue::kBiasGelu: lt.epilogue = CUBLASLT_EPILOGUE_GELU_BIAS; break;
  }
  return lt;
}

}  // namespace kiln
