//===- DepthwisePad.h - Depthwise convolutions without pad dispatches -*- C++ -*-===//
//
// The target-independent lowering pads a convolution's input in a dispatch
// of its own (a whole padded copy of the tensor written to memory and read
// back by the conv: 46% of the 144 x 56x56 stride-2 depthwise conv's time).
// On the CPU the depthwise kernel reads the unpadded input instead, with
// the padding as bounds: loads masked to the input row's columns, taps
// whose input row lies above or below the plane masked off entirely (the
// masked lanes read the pad value), interior tiles unmasked
// (DepthwiseKernel.h).
//
// foldDepthwisePads rewrites the CPU backend's own copy of the module (the
// CUDA backend keeps the pad dispatch): each call of a depthwise dispatch
// whose input is the result of a constant-pad dispatch (spatial dims only)
// calls a copy of the dispatch that takes the unpadded input and computes
// the padded one by a generic marked `kiln.depthwise_pad`:
//
//   %p = linalg.generic {kiln.depthwise_pad = {input = I, pads = [t, l]}}
//          outs(tensor<N x C x Hp x Wp>)
//     P[n, c, h, w] = 0 <= h - t < H && 0 <= w - l < W
//                     ? X[n, c, h - t, w - l] : value
//
// which reads X (captured, `tensor.extract`) through `linalg.index`. Its
// semantics are exact, so every strategy computes the same values: loop
// order fuses it into each workgroup (a padded copy of the workgroup's
// planes); the depthwise strategy leaves it unfused and the kernel reads
// X itself, after which the generic and its buffer go. The pad dispatch
// goes when nothing else calls it.
//
// Only row tiles (`plane = "rows"`) take bounds: a dispatch the
// configuration would give flat-grid tiles keeps its pad, and so do
// planes whose masked loads would have 8- or 16-bit elements on a target
// without AVX-512 (AVX2 has no such masked loads; LLVM would scalarize
// them).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGETS_CPU_DEPTHWISEPAD_H
#define KILN_COMPILER_TARGETS_CPU_DEPTHWISEPAD_H

#include "compiler/targets/cpu/CpuTarget.h"
#include "compiler/targets/cpu/FoldedPad.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::kiln::cpu {

inline constexpr llvm::StringLiteral kDepthwisePadAttr = "kiln.depthwise_pad";

// The `kiln.depthwise_pad` generic producing `padded` (on tensors), or null.
linalg::GenericOp depthwisePadProducer(Value padded);

// Rewrites the host function and dispatches of `module` as described
// above.
LogicalResult foldDepthwisePads(ModuleOp module, const TargetChoice &target);

} // namespace mlir::kiln::cpu

#endif // KILN_COMPILER_TARGETS_CPU_DEPTHWISEPAD_H
