//===- ObjectEmitter.h - LLVM dialect kernels to a shared object -*- C++ -*-===//
#ifndef KILN_COMPILER_TARGETS_CPU_OBJECTEMITTER_H
#define KILN_COMPILER_TARGETS_CPU_OBJECTEMITTER_H

#include "compiler/targets/cpu/CpuTarget.h"

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::kiln::cpu {

// Translates the module to LLVM IR, optimizes it (O3) for `target`, emits
// a PIC object and links it with LLD (in process) into an ELF shared
// object whose bytes are returned.
FailureOr<std::vector<uint8_t>> emitSharedObject(ModuleOp module,
                                                 const TargetChoice &target,
                                                 std::string &error);

} // namespace mlir::kiln::cpu

#endif
