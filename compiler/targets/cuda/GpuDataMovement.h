//===- GpuDataMovement.h - Dispatch ops as gather generics ------*- C++ -*-===//
//
// Before the CUDA backend generates a kernel, every op of a dispatch that is
// not a linalg.generic is turned into one where it can be: pads, slice
// insertions and concatenations become all-parallel "gather" generics that
// read their sources with tensor.extract at computed indices, and named
// linalg ops (transpose, broadcast, reduce, pooling, ...) are generalized.
// Elementwise fusion then merges those gathers with their producers and
// consumers, so a pad, a concat or a transpose costs one pass over the data
// and needs no ordering between loop nests (which a single kernel launch
// could not give across thread blocks).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGETS_CUDA_GPUDATAMOVEMENT_H
#define KILN_COMPILER_TARGETS_CUDA_GPUDATAMOVEMENT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::kiln::cuda {

// Marks a dispatch whose contraction no cuBLASLt call computes (set by
// kiln-cuda-library-calls, with a kiln.kernel_note saying why): the kernel
// generator takes its contractions and convolutions as loop nests, one
// thread per output element with the reduction in the thread.
inline constexpr llvm::StringLiteral kGeneratedContractionAttr =
    "kiln.cuda.generated_contraction";

// A contraction or convolution (a matmul, a batch matmul, a conv, or a
// generic whose body accumulates the product of two different inputs): the
// cuBLASLt path's, a generated kernel only in a dispatch marked
// kGeneratedContractionAttr.
bool isContractionLike(linalg::LinalgOp op);

// Rewrites the pads, insert_slices, concats and the named linalg ops of
// `func` other than fills (and, unless `func` is marked
// kGeneratedContractionAttr, contractions and convolutions) into generics.
// A generic that reads a gather's result through a window map (a conv of
// its padded input) reads the gather's source directly instead.
// Ops it cannot rewrite (dynamic offsets, a pad value computed from the
// indices) are left as they are, for the supported-dispatch check to name.
void rewriteDataMovement(func::FuncOp func);

// Gives every use of a fill its own copy (and its own tensor.empty), just
// before it: a reduction's initial value is then a fill right before it,
// which the kernel emitter folds into a register, rather than one buffer
// that bufferization copies for each reduction.
void separateFills(func::FuncOp func);

} // namespace mlir::kiln::cuda

#endif // KILN_COMPILER_TARGETS_CUDA_GPUDATAMOVEMENT_H
