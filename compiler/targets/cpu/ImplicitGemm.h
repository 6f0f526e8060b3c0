//===- ImplicitGemm.h - Convolutions without im2col buffers -----*- C++ -*-===//
//
// The target-independent lowering turns a K x K convolution with one group
// into three dispatches (ContractionToLinalg.cpp): a pad of the input, an
// im2col generic writing the whole [N, C, KH, KW, OH, OW] column tensor,
// and the contraction of the filter [M, C*KH*KW] with those columns
// [N, C*KH*KW, OH*OW]. On the CPU the columns are never needed as a
// tensor: the contraction kernel gathers each K block x lane tile panel of
// B straight from the unpadded input, with the padding as bounds checks
// (ContractionKernel.h, `gather_b = "im2col"` in LoweringConfig.h).
//
// formImplicitGemms rewrites the CPU backend's own copy of the module (the
// CUDA backend keeps the three dispatches): each call of a contraction
// dispatch whose B is (a collapse of) an im2col dispatch's result, itself
// reading a zero pad dispatch's result or any other tensor, calls a new
// dispatch instead that takes the unpadded input and computes B by a
// gather generic:
//
//   %cols = linalg.generic {kiln.conv_gather = {...}} outs(tensor<N x CK x P>)
//     B[n, ck, p] = 0 <= ih < H && 0 <= iw < W ? X[n, c, ih, iw] : 0
//     with c, kh, kw = ck / (KH*KW), ck / KW % KH, ck % KW,
//          oh, ow = p / OW, p % OW,
//          ih = oh * sh - pad_top + kh * dh, iw = ow * sw - pad_left + kw * dw
//
// which reads X (captured, `tensor.extract`) through `linalg.index`. Its
// semantics are exact, so every strategy computes the same values: loop
// order and register tiles without `gather_b` fuse it into each workgroup
// tile (a tile-sized column buffer); with `gather_b` the kernel code
// generator does not fuse it and the contraction kernel builds its panels
// from X directly, leaving no column buffer at all. The pad and im2col
// dispatches disappear when nothing else reads them.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGETS_CPU_IMPLICITGEMM_H
#define KILN_COMPILER_TARGETS_CPU_IMPLICITGEMM_H

#include "compiler/targets/cpu/CpuTarget.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::kiln::cpu {

// The geometry of a convolution's im2col gather, kept on the gather
// generic as `kiln.conv_gather` (a dictionary of the fields below).
inline constexpr llvm::StringLiteral kConvGatherAttr = "kiln.conv_gather";

struct ConvGather {
  int64_t input = 0;                // dispatch argument: X [N, C, H, W]
  SmallVector<int64_t> kernel;      // KH, KW
  SmallVector<int64_t> strides;     // sh, sw
  SmallVector<int64_t> dilations;   // dh, dw
  SmallVector<int64_t> pads;        // top, left (the high pads are implied)
  SmallVector<int64_t> output;      // OH, OW

  DictionaryAttr toAttr(MLIRContext *context) const;
  // The geometry on `op`, or nullopt when it has none or it is malformed.
  static std::optional<ConvGather> read(Operation *op);
};

// The gather generic that produces `columns` (a contraction's B), looking
// through one extract_slice (a workgroup tile of the columns); null if
// `columns` is not gathered.
linalg::GenericOp convGatherProducer(Value columns);

// Rewrites the host function and dispatches of `module` as described
// above, for f32 contractions of 2-D convolutions where gathering pays on
// `target` (worthGathering).
LogicalResult formImplicitGemms(ModuleOp module, const TargetChoice &target);

// Whether a convolution with `rows` output channels and `outputWidth`
// output columns should gather its panels: every workgroup gathers each
// panel row once for all its rows (up to 256 output channels), and a lane
// tile (2 vectors) spans 1 + ceil((lanes - 1) / OW) output rows, one
// masked load each. Measured (Zen 4): 8-channel convs at 56x56 ran 2x
// slower gathered, 256-channel ones 10-20% faster; so at least 64 rows,
// and at most one load per 16 rows per panel row.
bool worthGathering(int64_t rows, int64_t outputWidth,
                    const TargetChoice &target);

// Whether a narrow convolution (fewer output channels than
// worthGathering wants) should gather its panels with lane tiles inside
// one output row (`gather_b = "rows"`): per panel row one contiguous run
// of the input (every other element at column stride 2), its left/right
// padding a lane mask and rows above or below the plane skipped, so the
// per-tile segment table that made few-row gathers slow is gone. Needs
// column stride 1 or 2 and output rows that fill their lane tiles well
// (a 7-wide row in a 16-lane tile does not: those keep im2col; on 256-bit
// targets stride-1 rows must be at least 28 wide, measured).
bool worthGatheringRows(int64_t rows, const ConvGather &g,
                        const TargetChoice &target);
// The register tile lanes `gather_b = "rows"` uses on `target`.
int64_t rowGatherLanes(const TargetChoice &target);

} // namespace mlir::kiln::cpu

#endif // KILN_COMPILER_TARGETS_CPU_IMPLICITGEMM_H
