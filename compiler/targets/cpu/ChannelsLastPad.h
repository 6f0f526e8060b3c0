//===- ChannelsLastPad.h - Channels-last convs without pad dispatches -*- C++ -*-===//
//
// kiln.conv_nhwc lowers to a tensor.pad of its NHWC input (a dispatch of
// its own: a whole padded copy written to memory and read back, 3% of
// ResNet-50 at 2 threads) and a contraction generic over (n, oh, ow, m,
// kh, kw, c) reading the padded tensor. On the CPU the register-tiled
// kernel reads the unpadded input instead: the kh loop of each output row
// runs only over the filter rows that land inside the plane, and the few
// tile rows whose pixels can reach past the left or right edge read a
// zero there (ContractionKernel.h, `paddedA`).
//
// foldChannelsLastPads rewrites the CPU backend's copy of the module: each
// call of such a dispatch whose A (the input) is the result of a zero-pad
// dispatch of dims 1 and 2 (H, W) calls a copy of the dispatch that takes
// the unpadded input and computes the padded one by a generic marked
// `kiln.channels_last_pad`:
//
//   %p = linalg.generic {kiln.channels_last_pad = {input = I, pads = [t, l]}}
//          outs(tensor<N x Hp x Wp x C>)
//     P[n, h, w, c] = 0 <= h - t < H && 0 <= w - l < W
//                     ? X[n, h - t, w - l, c] : 0
//
// whose semantics are exact, so every strategy computes the same values:
// loop order fuses it into each workgroup; register tiles leave it unfused
// and the kernel reads X itself, after which the generic and its buffer
// go. The pad dispatch goes when nothing else calls it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGETS_CPU_CHANNELSLASTPAD_H
#define KILN_COMPILER_TARGETS_CPU_CHANNELSLASTPAD_H

#include "compiler/targets/cpu/CpuTarget.h"
#include "compiler/targets/cpu/FoldedPad.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::kiln::cpu {

inline constexpr llvm::StringLiteral kChannelsLastPadAttr =
    "kiln.channels_last_pad";

// Rewrites the host function and dispatches of `module` as described
// above.
LogicalResult foldChannelsLastPads(ModuleOp module);

} // namespace mlir::kiln::cpu

#endif // KILN_COMPILER_TARGETS_CPU_CHANNELSLASTPAD_H
