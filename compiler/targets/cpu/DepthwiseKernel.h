//===- DepthwiseKernel.h - Depthwise convolution kernels --------*- C++ -*-===//
//
// A depthwise convolution (one filter per channel, the direct generic of
// ContractionToLinalg with output [.., OH, OW], input [.., H, W] read at
// (s * oh + kh, s * ow + kw), filter [.., KH, KW]) computes, per channel
// plane, a 2-D correlation with KH x KW weights. The contraction kernel
// runs it with output rows as rows and output columns as lanes; this
// kernel instead treats each plane as one flat sequence:
//
//   out(oh, ow) = sum_{kh, kw} x[s * (oh * Wp + ow) + kh * Wp + kw] w(kh, kw)
//
// with Wp the input's row pitch: output pixel f = oh * Wp + ow of a grid
// as wide as the input reads input elements s * f + (kh * Wp + kw), so
// every tap is one contiguous vector load of x at a constant offset from
// s * f0, whatever the plane's width. Grid columns ow >= OW are computed
// and dropped.
//
// Lanes run along output pixels. Per channel the taps of one filter row
// are grouped in g consecutive columns (kw = g j .. g j + g - 1, zero
// weights past KW) and multiplied with one native instruction:
//  - "vnni" (g = 4, vpdpbusd): a 32-bit lane loaded at byte e holds
//    x[e .. e + 3], exactly the 4 taps of pixel (e - offset) / s. A vector
//    loaded at s * (f0 + p) + offset therefore holds pixels f0 + p + P i,
//    P = 4 / s phases (4 at stride 1, 2 at stride 2); P loads give P * L
//    consecutive pixels, interleaved back once per tile. x is flipped to
//    unsigned (xor 0x80, vpdpbusd multiplies u8 by s8) and the
//    accumulators start 128 * sum(w) lower.
//  - "pmaddwd" (g = 2): x sign-extended to i16, pairs of taps per 32-bit
//    lane (AVX2, or AVX-512 without VNNI), P = 2 / s.
//  - "fma" (f32 sums, g = 1, P = 1): one FMA per tap and vector. At
//    stride 2 a load of 2 L elements and its even lanes (one vpermt2ps).
//    bf16 and f16 operands (--precision): each plane is widened to f32
//    once into a stack copy, except bf16 at stride 2, whose 32-bit lanes
//    hold the tap in the low half: shifted left by 16 they are the f32
//    taps (one shift per tap, no permute).
// The weight groups are broadcast once per channel. No shuffle is needed
// to build the tap groups: overlapping loads do it.
//  - "max" (max pooling, f32 maxima, g = 1, P = 1): the same plane walk
//    and tap loads as "fma", each tap combined by the pool's own max
//    (maximumf or maxnumf) instead of an FMA, with no filter (the pool's
//    window operand only gives KH x KW). 16-bit planes widen as for fma
//    and the maxima round back where they are stored, exactly (a max is
//    one of its operands). Before, LLVM left the pool's output-row loop
//    scalar (stride-2 loads and the NaN-exact max priced as scalarized)
//    or, for bf16, gathered its taps element by element.
//
// Tiles of `pixels` output pixels either walk each output row ("rows":
// stored straight into the output, masked at the row's end) or the whole
// flat grid ("flat": (OH - 1) * Wp + OW pixels in tiles that span rows,
// stored into a stack grid and copied out row by row), which keeps lanes
// busy on small planes (7x7, 14x14) where a row is shorter than a vector
// tile. Row tiles may take several output rows ("tile_rows" R, f32): R x
// blocks accumulators (about 8 FMA chains on AVX-512, 4 on AVX2), the
// rows' shared input loads are one op each, and the last group of rows
// moves back to end at OH. Loads that may pass the plane's last element
// are masked (in the last tiles only, and only those loads).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGETS_CPU_DEPTHWISEKERNEL_H
#define KILN_COMPILER_TARGETS_CPU_DEPTHWISEKERNEL_H

#include "compiler/targets/cpu/CpuTarget.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::kiln::cpu {

// The loops of a depthwise convolution generic the kernel runs.
struct DepthwiseLoops {
  unsigned oh, ow, kh, kw;
  SmallVector<unsigned> outer;          // other parallel dims (n, c, ...)
  SmallVector<unsigned> unitReductions; // reductions of extent 1
  unsigned input, filter;               // input operand numbers
  int64_t stride = 1;                   // 1 or 2, both spatial dims
  Type operandType;                     // f32 or i8
  Type accumulatorType;                 // f32 or i32; a pool's output type
  // Max pooling: the combining op's name (arith.maximumf or
  // arith.maxnumf), empty for a convolution. `filter` is then the window
  // operand, whose values are never read.
  StringRef poolMax;
};

// Matches `out += x * w` (f32, or i8 x i8 -> i32 with extsi operands), or
// a max pool's `out = max(out, x)` (f32, bf16 or f16, with a window
// operand in place of w), whose input map ends in (s * oh + kh,
// s * ow + kw) (s = 1 or 2, no dilation), filter map in (kh, kw), output
// map in (oh, ow), where every other reduction has extent 1 and nothing
// else reads oh, ow, kh or kw.
FailureOr<DepthwiseLoops> matchDepthwise(linalg::LinalgOp op);
// The same for max pools only (no contraction match is tried).
FailureOr<DepthwiseLoops> matchDepthwiseMaxPool(linalg::LinalgOp op);

// The kernel's shape for one dispatch.
struct DepthwiseTile {
  std::string native;   // "vnni", "pmaddwd", "fma" or "max"
  int64_t pixels = 0;   // output pixels per tile (whole vector groups)
  bool flat = false;    // tiles span rows of the flat grid
  int64_t rows = 1;     // output rows per tile (rows mode)
};

// Tap-group size of a path: g.
int64_t depthwiseGroup(llvm::StringRef native);
// Phases of a path at a stride: P = g / s for the integer paths, 1 for fma
// (0: the path cannot run that stride).
int64_t depthwisePhases(llvm::StringRef native, int64_t stride);

// The kernel the backend picks for a depthwise `op` (on tensors, static
// shapes) on `target`, or nullopt when the contraction kernel should run
// it: int8 takes "vnni" where the target has it, else "pmaddwd" on
// 256-bit vectors or wider; f32, bf16 and f16 with f32 sums take "fma",
// max pools "max"; on whichever of row tiles and the flat grid keeps more
// lanes busy.
std::optional<DepthwiseTile> chooseDepthwiseTile(linalg::LinalgOp op,
                                                 const TargetChoice &target);

// Marks the depthwise generic that codegen turns into this kernel.
inline constexpr llvm::StringLiteral kDepthwiseTileAttr = "kiln.depthwise_tile";

// Replaces the bufferized depthwise generic `op` (its output filled right
// before it) by the kernel. `vectorBits` is the target's vector width.
LogicalResult emitDepthwiseKernel(RewriterBase &rewriter, linalg::LinalgOp op,
                                  const DepthwiseTile &tile,
                                  int64_t vectorBits);

} // namespace mlir::kiln::cpu

#endif // KILN_COMPILER_TARGETS_CPU_DEPTHWISEKERNEL_H
