//===- HostPlan.h - The host side of a compiled model -----------*- C++ -*-===//
#ifndef KILN_COMPILER_CPU_HOSTPLAN_H
#define KILN_COMPILER_CPU_HOSTPLAN_H

#include "compiler/artifact/ArtifactSpec.h"
#include "compiler/cpu/KernelCodegen.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::kiln::cpu {

// Fills `spec`'s signature, constants and plan from the host function left
// by kiln-form-dispatches (constants, reshapes, calls to dispatches, the
// return). Kernel indices refer to `kernels`, executable 0.
//
// Every intermediate gets an offset in one arena: buffers whose lifetimes
// (first write to last read, reads through reshapes included) overlap never
// share bytes; others reuse the same space, placed best-fit, largest first,
// 64-byte aligned. Reshapes are free (views of the same bytes). A graph
// output produced by a dispatch is written in place into the caller's
// buffer; outputs that are inputs, constants or repeats are copied.
LogicalResult planHost(func::FuncOp host, ArrayRef<KernelInfo> kernels,
                       ::kiln::artifact::ArtifactSpec &spec);

} // namespace mlir::kiln::cpu

#endif
