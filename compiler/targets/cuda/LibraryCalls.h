//===- LibraryCalls.h - Contraction dispatches to cuBLASLt -*- C++ -*-===//
//
// A contraction dispatch that one cuBLASLt strided-batched GEMM computes
// becomes a `kiln.gemm_call` in the host function (a LibraryCall plan step
// that the runtime runs with cuBLASLt), plus a residual elementwise
// dispatch when the fused consumer is more than cuBLASLt's epilogues
// (alpha, beta * C, bias per column, ReLU, tanh-GELU) express. Any other
// contraction is marked for a generated kernel.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGETS_CUDA_LIBRARYCALLS_H
#define KILN_COMPILER_TARGETS_CUDA_LIBRARYCALLS_H

#include "mlir/IR/BuiltinOps.h"

namespace mlir::kiln::cuda {

// Rewrites `module` (the host function and its dispatch functions) in
// place; see the kiln-cuda-library-calls pass. Fails only when a split
// itself fails (no contraction is refused for its kind).
LogicalResult formLibraryCalls(ModuleOp module);

} // namespace mlir::kiln::cuda

#endif // KILN_COMPILER_TARGETS_CUDA_LIBRARYCALLS_H
