//===- HostPlan.h - The host side of a compiled model -----------*- C++ -*-===//
#ifndef KILN_COMPILER_PLAN_HOSTPLAN_H
#define KILN_COMPILER_PLAN_HOSTPLAN_H

#include "compiler/artifact/ArtifactSpec.h"
#include "compiler/pipeline/TargetBackend.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::kiln::plan {

// Fills `spec`'s signature, constants and a plan from the host function
// left by kiln-form-dispatches (constants, reshapes, calls to dispatches,
// the return). Nothing in it depends on the target: kernel indices refer to
// `kernels`, which executable `executable` holds, and the plan is named
// `target`. Called once per backend (with that backend's host function,
// whose constants its data tiling may have packed); the first call fills
// the signature and the constants, later calls reuse constants with the
// same bytes and add the others.
//
// Every intermediate gets an offset in one arena: buffers whose lifetimes
// (first write to last read, reads through reshapes included) overlap never
// share bytes; others reuse the same space, placed best-fit, largest first,
// 64-byte aligned. Reshapes are free (views of the same bytes). A graph
// output produced by a dispatch is written in place into the caller's
// buffer; outputs that are inputs, constants or repeats are copied.
LogicalResult planHost(func::FuncOp host, ArrayRef<KernelInfo> kernels,
                       uint32_t executable, StringRef target,
                       ::kiln::artifact::ArtifactSpec &spec);

} // namespace mlir::kiln::plan

#endif
