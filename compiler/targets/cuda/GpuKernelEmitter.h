//===- GpuKernelEmitter.h - Loop nests of a dispatch as one launch -*- C++
//-*-===//
//
// Builds the one gpu.launch of a bufferized dispatch function from its
// loop nests (linalg.generic on memrefs, fills, copies), in one of three
// shapes:
//
//  * flat: one thread per point of the iteration space (reduction loops run
//    inside the thread, as for pooling windows); used for a single nest or
//    for nests that do not read each other's results. A single
//    elementwise nest on contiguous 4-byte-or-smaller elements whose
//    element count is a multiple of 4 takes 4 points per thread with
//    16-byte vector loads and stores when every binding is 16-byte aligned
//    (checked in the kernel; scalar otherwise).
//  * rows: one thread block per row, a row being a point of the leading
//    parallel dimensions shared by every nest and every buffer the nests
//    write. The nests run one after another in the block, with a barrier
//    between them; intermediates live in dynamic shared memory (one row's
//    slice each); a nest that reduces all of a row's remaining dimensions
//    with a known combiner (add, mul, max, min, and, or, xor) is a block
//    reduction: strided partials per thread, warp shuffles (xor), one
//    partial per warp in shared memory, the first warp's shuffles. Softmax
//    and layer norm take this shape.
//  * one block: the same with no row dimension (nests that depend on each
//    other across the whole tensor, a reduction to a scalar).
//  * serial: a dispatch with sequential loops of its own (TopK, ScatterND)
//    runs in one thread, intermediates on its stack (up to 16 KiB).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGETS_CUDA_GPUKERNELEMITTER_H
#define KILN_COMPILER_TARGETS_CUDA_GPUKERNELEMITTER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace mlir::kiln::cuda {

struct EmittedKernel {
  int64_t grid = 1;
  int64_t block = 32;
  // Dynamic shared memory the launch needs.
  uint32_t sharedMemoryBytes = 0;
  // "flat", "flat-vector4", "rows", "one-block" or "serial": for tests.
  std::string shape;
};

// Replaces the body of `func` (bufferized, memref arguments: inputs then
// outputs, no results) with one gpu.launch. On failure `func` is left as it
// was and `reason` says what the dispatch holds that no shape covers.
FailureOr<EmittedKernel> emitKernel(func::FuncOp func, int64_t blockSize,
                                    std::string &reason);

} // namespace mlir::kiln::cuda

#endif // KILN_COMPILER_TARGETS_CUDA_GPUKERNELEMITTER_H
