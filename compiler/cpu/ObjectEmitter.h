//===- ObjectEmitter.h - LLVM dialect kernels to a shared object -*- C++ -*-===//
#ifndef KILN_COMPILER_CPU_OBJECTEMITTER_H
#define KILN_COMPILER_CPU_OBJECTEMITTER_H

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::kiln::cpu {

struct TargetChoice {
  std::string cpu;                       // resolved LLVM CPU name
  std::string features;                  // LLVM feature string (+a,-b)
  std::vector<std::string> required;     // runtime-checkable ISA features
};

// Resolves `--cpu`: "native" (this machine's CPU and features),
// "x86-64-v3", "x86-64-v4" or any CPU name LLVM's X86 target knows.
FailureOr<TargetChoice> resolveTarget(const std::string &cpu,
                                      std::string &error);

// Translates the module to LLVM IR, optimizes it (O3) for `target`, emits
// a PIC object and links it with LLD (in process) into an ELF shared
// object whose bytes are returned.
FailureOr<std::vector<uint8_t>> emitSharedObject(ModuleOp module,
                                                 const TargetChoice &target,
                                                 std::string &error);

} // namespace mlir::kiln::cpu

#endif
