//===- CudaArch.h - --cuda-arch values and the CUDA toolkit -----*- C++ -*-===//
#ifndef KILN_COMPILER_TARGETS_CUDA_CUDAARCH_H
#define KILN_COMPILER_TARGETS_CUDA_CUDAARCH_H

#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::kiln::cuda {

// The architectures kilnc builds cubins for by default.
inline constexpr const char *kDefaultArchs = "sm_80,sm_90";

// Parses a comma-separated --cuda-arch list ("sm_80,sm_90"): every entry
// must be an architecture the CUDA 12/13 ptxas accepts and that Kiln
// supports (sm_75 and newer); repeats are dropped, order is kept. On
// failure returns nullopt and sets `error` naming the bad entry and the
// accepted ones.
std::optional<std::vector<std::string>> parseArchList(StringRef list,
                                                      std::string &error);

// The architecture the shared PTX targets: the lowest of `archs` (PTX for
// sm_N runs, through ptxas or the driver's JIT, on every later arch).
std::string ptxChip(const std::vector<std::string> &archs);

// Where the CUDA toolkit is: $CUDA_PATH when set (and only there), else
// /usr/local/cuda, else the directory above the `ptxas` found on PATH.
// Returns nullopt and sets `error` (naming where it looked) when no ptxas
// is found.
struct CudaToolkit {
  std::string root;  // holds nvvm/libdevice/libdevice.10.bc
  std::string ptxas; // the ptxas executable
};
std::optional<CudaToolkit> findCudaToolkit(std::string &error);

} // namespace mlir::kiln::cuda

#endif // KILN_COMPILER_TARGETS_CUDA_CUDAARCH_H
