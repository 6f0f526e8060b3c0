//===- TransposeKernel.h - Transposes as register-block shuffles -*- C++ -*-===//
//
// A linalg.transpose that moves the input's innermost dim (K^T of
// attention's split heads, NCHW <-> NHWC at the edges of a channels-last
// chain) reads one operand with a stride whatever the loop order: as loops
// LLVM's vectorizer gathers or goes scalar (about 5 GB/s). Here every
// 16 x 16 block of the two dims it swaps (the input's innermost, which
// lands on output dim j, and the output's innermost) is 16 contiguous
// vector loads of input rows, one vector.transpose (lowered to shuffles:
// ConvertVectorToLLVM's shuffle_16x16, about 64 vpermt2ps-class ops on
// AVX-512, 4 x 8x8 unpack/permute networks on AVX2) and 16 contiguous
// stores of output rows. The edges (fewer than 16 left on either dim) are
// static partial blocks: masked loads of the valid columns, only the valid
// rows loaded and stored, masked stores. Transposes with either dim below
// 16 stay loops.
//
// Runs on the bufferized kernel (each workgroup's tile of the transpose:
// static memref views, innermost stride 1), for 32-bit elements.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGETS_CPU_TRANSPOSEKERNEL_H
#define KILN_COMPILER_TARGETS_CPU_TRANSPOSEKERNEL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::kiln::cpu {

// Whether a transpose of output `shape` by `perm` runs as blocks: it moves
// the innermost dim, both swapped dims are at least 16, and at least 3/4
// of the blocks' lanes are data (50 x 37 planes, 60%, ran 1.4x slower as
// blocks than as loops; 56 x 64, 88%, 1.4x faster).
bool transposeRunsAsBlocks(llvm::ArrayRef<int64_t> perm,
                           llvm::ArrayRef<int64_t> shape);

// For a transpose that runs as blocks, makes the workgroup tiles of the
// two swapped dims whole blocks that divide the dim, else the whole dim,
// so every workgroup's views are static (a tile of 28 of 56 columns,
// mostly edge, ran 1.3x slower than loops; one of 32 leaves a dynamic
// last tile, which stays loops). Other transposes keep `tiles`.
void alignTransposeTiles(llvm::ArrayRef<int64_t> perm,
                         llvm::ArrayRef<int64_t> shape,
                         llvm::SmallVectorImpl<int64_t> &tiles);

// Rewrites every such linalg.transpose in `kernel`; returns how many.
int64_t emitTransposeBlocks(func::FuncOp kernel);

} // namespace mlir::kiln::cpu

#endif // KILN_COMPILER_TARGETS_CPU_TRANSPOSEKERNEL_H
