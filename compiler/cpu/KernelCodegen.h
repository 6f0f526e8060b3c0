//===- KernelCodegen.h - Kiln dispatches to CPU kernels ---------*- C++ -*-===//
#ifndef KILN_COMPILER_CPU_KERNELCODEGEN_H
#define KILN_COMPILER_CPU_KERNELCODEGEN_H

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <string>

namespace mlir::kiln::cpu {

// One generated kernel: its ABI symbol (= the dispatch function's name),
// bindings (inputs then outputs, in the dispatch's argument order) and
// workgroup counts.
struct KernelInfo {
  std::string name;
  uint32_t bindingCount = 0;
  uint32_t numInputs = 0;
  int64_t workgroups[3] = {1, 1, 1};
};

// Rewrites a module holding only `kiln.dispatch` functions into LLVM
// dialect kernels plus `kiln_cpu_library_query`. Returns the kernel table
// in module order.
FailureOr<SmallVector<KernelInfo>> generateKernels(ModuleOp module,
                                                   bool vectorize = true);

} // namespace mlir::kiln::cpu

#endif // KILN_COMPILER_CPU_KERNELCODEGEN_H
