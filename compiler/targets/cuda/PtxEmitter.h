//===- PtxEmitter.h - NVVM kernels to PTX and cubins ------------*- C++ -*-===//
#ifndef KILN_COMPILER_TARGETS_CUDA_PTXEMITTER_H
#define KILN_COMPILER_TARGETS_CUDA_PTXEMITTER_H

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::kiln::cuda {

struct PtxModule {
  std::string name; // the gpu.module it came from
  std::string ptx;
};

// Serializes every gpu.module of `kernels` (NVVM, with an #nvvm.target) to
// PTX with LLVM's NVPTX backend, in process (gpu-module-to-binary,
// format=isa). libdevice (for math functions) comes from `toolkitRoot`.
// The gpu.modules are replaced by gpu.binary ops. Module order is kept.
FailureOr<std::vector<PtxModule>> emitPtx(ModuleOp kernels,
                                          StringRef toolkitRoot);

// The ".version" of a PTX text ("7.0"), "" if it has none.
std::string ptxVersion(StringRef ptx);

// Assembles `ptx` for `arch` with the ptxas at `ptxas`. On failure sets
// `error` to what ptxas printed.
bool assembleCubin(StringRef ptxas, StringRef ptx, StringRef arch,
                   std::vector<uint8_t> &cubin, std::string &error);

} // namespace mlir::kiln::cuda

#endif // KILN_COMPILER_TARGETS_CUDA_PTXEMITTER_H
