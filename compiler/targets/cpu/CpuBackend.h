//===- CpuBackend.h - The x86-64 target backend -----------------*- C++ -*-===//
#ifndef KILN_COMPILER_TARGETS_CPU_CPUBACKEND_H
#define KILN_COMPILER_TARGETS_CPU_CPUBACKEND_H

#include "compiler/pipeline/TargetBackend.h"
#include "compiler/targets/cpu/CpuTarget.h"
#include "compiler/targets/cpu/LoweringConfig.h"

#include <memory>

namespace mlir::kiln::cpu {

struct CpuBackendOptions {
  // `--cpu`: native, x86-64-v3, x86-64-v4 or an LLVM CPU name.
  std::string cpu = "native";
  ConfigOptions config;
};

// Resolves the CPU first; an unknown CPU name is an error here rather than
// at code generation.
FailureOr<std::unique_ptr<TargetBackend>>
createCpuBackend(const CpuBackendOptions &options, std::string &error);

// Registers the CPU backend's passes (kiln-cpu-lowering-config,
// kiln-cpu-codegen) for kiln-opt and pass pipelines.
void registerCpuBackendPasses();

} // namespace mlir::kiln::cpu

#endif // KILN_COMPILER_TARGETS_CPU_CPUBACKEND_H
