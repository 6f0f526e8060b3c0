//===- CudaBackend.h - The NVIDIA GPU target backend ------------*- C++ -*-===//
//
// First slice of issue #9 (compiler only): elementwise and broadcast
// dispatches become NVVM kernels, stored as PTX plus one cubin per
// architecture. Other dispatches fail compilation with one error; the
// runtime cannot run these executables yet.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGETS_CUDA_CUDABACKEND_H
#define KILN_COMPILER_TARGETS_CUDA_CUDABACKEND_H

#include "compiler/pipeline/TargetBackend.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::kiln::cuda {

struct CudaBackendOptions {
  // `--cuda-arch`: cubins are built for each (sm_80, sm_90 by default).
  std::vector<std::string> archs = {"sm_80", "sm_90"};
  // Threads per block of dispatches without a lowering configuration.
  int64_t blockSize = 256;
};

// Finds the CUDA toolkit (ptxas, libdevice) first: without it the backend
// cannot build cubins, which is an error here, before any compilation.
FailureOr<std::unique_ptr<TargetBackend>>
createCudaBackend(const CudaBackendOptions &options, std::string &error);

// Registers the CUDA backend's passes (kiln-cuda-codegen) for kiln-opt.
void registerCudaBackendPasses();

} // namespace mlir::kiln::cuda

#endif // KILN_COMPILER_TARGETS_CUDA_CUDABACKEND_H
