//===- GpuKernelCodegen.h - Dispatches to NVVM kernels ----------*- C++ -*-===//
#ifndef KILN_COMPILER_TARGETS_CUDA_GPUKERNELCODEGEN_H
#define KILN_COMPILER_TARGETS_CUDA_GPUKERNELCODEGEN_H

#include "compiler/pipeline/TargetBackend.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::kiln::cuda {

// A generated kernel: the plan's view (KernelInfo: bindings, grid as
// workgroups) plus how it is launched.
struct GpuKernelInfo {
  KernelInfo kernel;
  std::string entry;  // the gpu.func (PTX .entry) name
  std::string module; // the gpu.module holding it
  int64_t block[3] = {1, 1, 1};
  uint32_t sharedMemoryBytes = 0; // dynamic shared memory of the launch
  std::string shape; // the emitter's kernel shape (GpuKernelEmitter.h)
};

// Attaches `kiln.lowering_config = {block_size = N}` to every dispatch
// without one.
void configureDispatches(ModuleOp dispatches, int64_t blockSize);

// Rewrites every configured dispatch function into a host function with
// one gpu.launch_func and a gpu.module holding its NVVM kernel (chip:
// the #nvvm.target architecture). Dispatches it cannot generate (a
// contraction not marked kGeneratedContractionAttr, a dynamic shape, ...)
// fail the whole module with one error naming each and why.
struct GenerateOptions {
  // Leave each dispatch as a function holding its gpu.launch (before
  // outlining and NVVM; the table's entry and module are then empty).
  bool stopAtLaunch = false;
  // Drop unmarked contraction dispatches from the module instead of
  // refusing them (kiln-opt run without kiln-cuda-library-calls, so that
  // tests reach the other kernels of a model).
  bool skipContractions = false;
};
FailureOr<SmallVector<GpuKernelInfo>>
generateKernels(ModuleOp dispatches, StringRef chip,
                const GenerateOptions &options = {});

} // namespace mlir::kiln::cuda

#endif // KILN_COMPILER_TARGETS_CUDA_GPUKERNELCODEGEN_H
