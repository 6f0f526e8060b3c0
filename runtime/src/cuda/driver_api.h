// driver_api.h - the CUDA driver and cuBLASLt entry points the runtime
// calls, as tables of function pointers filled through dlopen/dlsym.
// libkilnrt links neither library: on a machine without an NVIDIA driver
// loading a table fails with a Status and CPU artifacts run as before.
//
// Tests substitute a table (SetDriverApiForTesting): the stand-in in
// runtime/testing/fake_cuda_driver.h records the calls. Such tests prove
// the orchestration only, never GPU numerics.
#ifndef KILN_RUNTIME_SRC_CUDA_DRIVER_API_H_
#define KILN_RUNTIME_SRC_CUDA_DRIVER_API_H_

#include <string>

#include "kiln/runtime.h"
#include "runtime/src/cuda/cuda_abi.h"

namespace kiln::cuda {

// Exactly the driver calls the runtime makes. The names are the symbols
// that cuda.h (CUDA 12/13) maps each call to, e.g. cuMemAlloc_v2; see
// driver_api.cc.
struct DriverApi {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDriverGetVersion)(int* version);
  CUresult (*cuDeviceGetCount)(int* count);
  CUresult (*cuDeviceGet)(CUdevice* device, int ordinal);
  CUresult (*cuDeviceGetAttribute)(int* value, int attribute, CUdevice device);
  CUresult (*cuDeviceGetName)(char* name, int length, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* context, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device);
  CUresult (*cuCtxSetCurrent)(CUcontext context);
  CUresult (*cuModuleLoadDataEx)(CUmodule* module, const void* image, unsigned option_count,
                                 CUjit_option* options, void** option_values);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction* function, CUmodule module, const char* name);
  CUresult (*cuFuncSetAttribute)(CUfunction function, int attribute, int value);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned grid_x, unsigned grid_y,
                             unsigned grid_z, unsigned block_x, unsigned block_y, unsigned block_z,
                             unsigned shared_bytes, CUstream stream, void** params, void** extra);
  CUresult (*cuMemAlloc)(CUdeviceptr* pointer, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr pointer);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr target, const void* source, size_t bytes);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr target, const void* source, size_t bytes,
                                CUstream stream);
  CUresult (*cuMemcpyDtoHAsync)(void* target, CUdeviceptr source, size_t bytes, CUstream stream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr target, CUdeviceptr source, size_t bytes,
                                CUstream stream);
  CUresult (*cuStreamCreate)(CUstream* stream, unsigned flags);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuStreamDestroy)(CUstream stream);
  CUresult (*cuStreamBeginCapture)(CUstream stream, int mode);
  CUresult (*cuStreamEndCapture)(CUstream stream, CUgraph* graph);
  CUresult (*cuGraphInstantiate)(CUgraphExec* exec, CUgraph graph, unsigned long long flags);
  CUresult (*cuGraphLaunch)(CUgraphExec exec, CUstream stream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec exec);
  CUresult (*cuGraphDestroy)(CUgraph graph);
  CUresult (*cuGetErrorName)(CUresult error, const char** name);
  CUresult (*cuGetErrorString)(CUresult error, const char** text);
};

// The cuBLASLt calls of LibraryCall steps ("cublasLt" "matmul").
struct CublasLtApi {
  cublasStatus_t (*cublasLtCreate)(cublasLtHandle_t* handle);
  cublasStatus_t (*cublasLtDestroy)(cublasLtHandle_t handle);
  size_t (*cublasLtGetVersion)();
  const char* (*cublasLtGetStatusName)(cublasStatus_t status);
  cublasStatus_t (*cublasLtMatmulDescCreate)(cublasLtMatmulDesc_t* desc, int compute_type,
                                             int scale_type);
  cublasStatus_t (*cublasLtMatmulDescDestroy)(cublasLtMatmulDesc_t desc);
  cublasStatus_t (*cublasLtMatmulDescSetAttribute)(cublasLtMatmulDesc_t desc, int attribute,
                                                   const void* value, size_t size);
  cublasStatus_t (*cublasLtMatrixLayoutCreate)(cublasLtMatrixLayout_t* layout, int type,
                                               uint64_t rows, uint64_t cols, int64_t ld);
  cublasStatus_t (*cublasLtMatrixLayoutDestroy)(cublasLtMatrixLayout_t layout);
  cublasStatus_t (*cublasLtMatrixLayoutSetAttribute)(cublasLtMatrixLayout_t layout, int attribute,
                                                     const void* value, size_t size);
  cublasStatus_t (*cublasLtMatmulPreferenceCreate)(cublasLtMatmulPreference_t* preference);
  cublasStatus_t (*cublasLtMatmulPreferenceDestroy)(cublasLtMatmulPreference_t preference);
  cublasStatus_t (*cublasLtMatmulPreferenceSetAttribute)(cublasLtMatmulPreference_t preference,
                                                         int attribute, const void* value,
                                                         size_t size);
  cublasStatus_t (*cublasLtMatmulAlgoGetHeuristic)(
      cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a,
      cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
      cublasLtMatmulPreference_t preference, int requested, cublasLtMatmulHeuristicResult_t* results,
      int* returned);
  cublasStatus_t (*cublasLtMatmul)(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                   const void* alpha, const void* a, cublasLtMatrixLayout_t a_desc,
                                   const void* b, cublasLtMatrixLayout_t b_desc, const void* beta,
                                   const void* c, cublasLtMatrixLayout_t c_desc, void* d,
                                   cublasLtMatrixLayout_t d_desc, const cublasLtMatmulAlgo_t* algo,
                                   void* workspace, size_t workspace_bytes, CUstream stream);
};

// The process's driver table: dlopen("libcuda.so.1"), every symbol, then
// cuInit(0), once per process (later calls return the first outcome).
// FAILED_PRECONDITION saying what is missing and what to do when there
// is no driver, a symbol is missing (driver too old) or cuInit fails.
Status LoadDriverApi(const DriverApi** out);
// The same for cuBLASLt (libcublasLt.so.13, then .so.12, then .so),
// loaded on first use: only models with LibraryCall steps need it.
Status LoadCublasLtApi(const CublasLtApi** out);

// Tests: makes LoadDriverApi / LoadCublasLtApi return these tables (or
// the `failure` Status when a table is null) until reset with
// ClearDriverApiForTesting. Not thread-safe against concurrent loads.
void SetDriverApiForTesting(const DriverApi* driver, const CublasLtApi* cublas_lt,
                            const Status& driver_failure = Status::Ok());
void ClearDriverApiForTesting();

// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" through cuGetErrorName and
// cuGetErrorString; "CUDA error 2" when the driver does not know it.
std::string DescribeCudaError(const DriverApi& api, CUresult result);

}  // namespace kiln::cuda

#endif  // KILN_RUNTIME_SRC_CUDA_DRIVER_API_H_
