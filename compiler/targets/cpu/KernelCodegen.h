//===- KernelCodegen.h - Kiln dispatches to CPU kernels ---------*- C++ -*-===//
#ifndef KILN_COMPILER_TARGETS_CPU_KERNELCODEGEN_H
#define KILN_COMPILER_TARGETS_CPU_KERNELCODEGEN_H

#include "compiler/pipeline/TargetBackend.h"
#include "compiler/targets/cpu/CpuTarget.h"

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <string>

namespace mlir::kiln::cpu {

// Rewrites a module holding only `kiln.dispatch` functions, each with a
// lowering configuration (LoweringConfig.h), into LLVM dialect kernels plus
// `kiln_cpu_library_query`. Returns the kernel table in module order.
// Contractions whose B the data tiling packed (DataTiling.h) use the
// target's native dot products; a packed layout the target has no
// instruction for is an error.
FailureOr<SmallVector<KernelInfo>> generateKernels(ModuleOp module,
                                                   const TargetChoice &target);

} // namespace mlir::kiln::cpu

#endif // KILN_COMPILER_TARGETS_CPU_KERNELCODEGEN_H
