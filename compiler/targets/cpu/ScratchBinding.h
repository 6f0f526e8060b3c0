//===- ScratchBinding.h - Kernel scratch: stack or an arena binding -*- C++ -*-===//
//
// Kernels never allocate. After bufferization their scratch buffers are
// `memref.alloca`s; small ones stay on the stack, and when a workgroup's
// scratch is larger than the stack budget the largest buffers move to a
// scratch binding instead: one extra `memref<TOTAL x i8>` argument (the
// kernel's last binding), TOTAL = per-workgroup bytes x workgroup count,
// which the host plan places in the arena for the duration of the step.
// Each workgroup uses its own slice (workgroups never share scratch bytes);
// each moved buffer is a `memref.view` at
//   linear workgroup id * per-workgroup bytes + its offset (64-byte aligned).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGETS_CPU_SCRATCHBINDING_H
#define KILN_COMPILER_TARGETS_CPU_SCRATCHBINDING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace mlir::kiln::cpu {

// The most stack scratch one workgroup may use, all its allocas together
// (static upper bounds). Scratch beyond it comes from the scratch binding.
inline constexpr int64_t kStackScratchBudget = 128 * 1024;

// The most scratch one dispatch (all its workgroups) may take from the
// arena.
inline constexpr int64_t kMaxArenaScratchBytes = int64_t(1) << 34; // 16 GiB

// Runs after bufferization, while the workgroup loop (scf.forall) is still
// in place. Bounds every alloca's size (dynamic sizes through
// ValueBoundsConstraintSet; a size without a static bound is an error),
// keeps the smallest on the stack within `stackBudget`, and gives the rest
// 64-byte-aligned offsets in one workgroup's scratch area (recorded as a
// `kiln.scratch_offset` attribute on the alloca). Returns the bytes one
// workgroup needs from the scratch binding (a multiple of 64; 0 when
// everything fits on the stack).
FailureOr<int64_t> planScratch(func::FuncOp kernel,
                               int64_t stackBudget = kStackScratchBudget);

// Runs after the workgroup loop became the kernel body (bindWorkgroups).
// Moves static stack allocas that are allocated in a loop but die within
// each iteration to the kernel's entry block (an alloca in a loop body
// grows the stack on every iteration). When `bytesPerWorkgroup` > 0: inserts the scratch binding argument just
// before the three workgroup ids and replaces every planned alloca by a
// view of this workgroup's slice of it. Records
// `kiln.scratch_bytes` (the binding's size) on the kernel. Returns that
// size (0 when the kernel has no scratch binding).
FailureOr<int64_t> bindScratch(func::FuncOp kernel, int64_t bytesPerWorkgroup,
                               llvm::ArrayRef<int64_t> workgroups);

} // namespace mlir::kiln::cpu

#endif // KILN_COMPILER_TARGETS_CPU_SCRATCHBINDING_H
