// The values runtime/src/cuda/cuda_abi.h declares by hand (so that
// libkilnrt builds without CUDA) equal the toolkit's: a typo there would
// make the runtime call the driver with the wrong attribute or read the
// wrong field, which no test with the fake driver could notice.
#include <cublasLt.h>
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstddef>

#include "runtime/src/cuda/cuda_abi.h"

namespace kc = kiln::cuda;

static_assert(kc::CUDA_SUCCESS == CUDA_SUCCESS);
static_assert(kc::CUDA_ERROR_INVALID_VALUE == CUDA_ERROR_INVALID_VALUE);
static_assert(kc::CUDA_ERROR_OUT_OF_MEMORY == CUDA_ERROR_OUT_OF_MEMORY);
static_assert(kc::CUDA_ERROR_NOT_INITIALIZED == CUDA_ERROR_NOT_INITIALIZED);
static_assert(kc::CUDA_ERROR_NO_DEVICE == CUDA_ERROR_NO_DEVICE);
static_assert(kc::CUDA_ERROR_INVALID_DEVICE == CUDA_ERROR_INVALID_DEVICE);
static_assert(kc::CUDA_ERROR_NO_BINARY_FOR_GPU == CUDA_ERROR_NO_BINARY_FOR_GPU);
static_assert(kc::CUDA_ERROR_INVALID_PTX == CUDA_ERROR_INVALID_PTX);
static_assert(kc::CUDA_ERROR_UNSUPPORTED_PTX_VERSION == CUDA_ERROR_UNSUPPORTED_PTX_VERSION);
static_assert(kc::CUDA_ERROR_NOT_FOUND == CUDA_ERROR_NOT_FOUND);
static_assert(kc::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
static_assert(kc::CUDA_ERROR_LAUNCH_FAILED == CUDA_ERROR_LAUNCH_FAILED);
static_assert(kc::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(kc::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(kc::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN ==
              CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
static_assert(kc::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ==
              CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
static_assert(kc::CU_JIT_ERROR_LOG_BUFFER == CU_JIT_ERROR_LOG_BUFFER);
static_assert(kc::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
static_assert(kc::CU_STREAM_NON_BLOCKING == CU_STREAM_NON_BLOCKING);
static_assert(kc::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL == CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
static_assert(sizeof(kc::CUdeviceptr) == sizeof(CUdeviceptr));
static_assert(sizeof(kc::CUdevice) == sizeof(CUdevice));
static_assert(sizeof(kc::CUresult) == sizeof(CUresult));

static_assert(kc::CUBLAS_STATUS_SUCCESS == CUBLAS_STATUS_SUCCESS);
static_assert(kc::CUBLAS_STATUS_NOT_SUPPORTED == CUBLAS_STATUS_NOT_SUPPORTED);
static_assert(kc::CUBLAS_OP_N == CUBLAS_OP_N);
static_assert(kc::CUBLAS_OP_T == CUBLAS_OP_T);
static_assert(kc::CUBLAS_COMPUTE_32F == CUBLAS_COMPUTE_32F);
static_assert(kc::CUDA_R_32F == CUDA_R_32F);
static_assert(kc::CUBLASLT_MATMUL_DESC_TRANSA == CUBLASLT_MATMUL_DESC_TRANSA);
static_assert(kc::CUBLASLT_MATMUL_DESC_TRANSB == CUBLASLT_MATMUL_DESC_TRANSB);
static_assert(kc::CUBLASLT_MATMUL_DESC_EPILOGUE == CUBLASLT_MATMUL_DESC_EPILOGUE);
static_assert(kc::CUBLASLT_MATMUL_DESC_BIAS_POINTER == CUBLASLT_MATMUL_DESC_BIAS_POINTER);
static_assert(kc::CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT == CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT);
static_assert(kc::CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET ==
              CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET);
static_assert(kc::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES ==
              CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
static_assert(kc::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES ==
              CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES);
static_assert(kc::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES ==
              CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES);
static_assert(kc::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES ==
              CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES);
static_assert(kc::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES ==
              CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES);
static_assert(kc::CUBLASLT_EPILOGUE_DEFAULT == CUBLASLT_EPILOGUE_DEFAULT);
static_assert(kc::CUBLASLT_EPILOGUE_RELU == CUBLASLT_EPILOGUE_RELU);
static_assert(kc::CUBLASLT_EPILOGUE_BIAS == CUBLASLT_EPILOGUE_BIAS);
static_assert(kc::CUBLASLT_EPILOGUE_RELU_BIAS == CUBLASLT_EPILOGUE_RELU_BIAS);
static_assert(kc::CUBLASLT_EPILOGUE_GELU == CUBLASLT_EPILOGUE_GELU);
static_assert(kc::CUBLASLT_EPILOGUE_GELU_BIAS == CUBLASLT_EPILOGUE_GELU_BIAS);
static_assert(sizeof(kc::cublasLtMatmulAlgo_t) == sizeof(cublasLtMatmulAlgo_t));
static_assert(sizeof(kc::cublasLtMatmulHeuristicResult_t) ==
              sizeof(cublasLtMatmulHeuristicResult_t));
static_assert(offsetof(kc::cublasLtMatmulHeuristicResult_t, workspaceSize) ==
              offsetof(cublasLtMatmulHeuristicResult_t, workspaceSize));
static_assert(offsetof(kc::cublasLtMatmulHeuristicResult_t, state) ==
              offsetof(cublasLtMatmulHeuristicResult_t, state));

TEST(CudaAbi, ValuesMatchTheToolkit) {
  // Everything above is checked at compile time; the test exists so the
  // build of this file is part of the suite.
  EXPECT_EQ(kc::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 75);
}
