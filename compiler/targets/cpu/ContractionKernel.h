//===- ContractionKernel.h - Register-tiled contraction kernels -*- C++ -*-===//
//
// A contraction C[.., m, n] += A[.., m, k] * B[.., k, n] (matmul, batch
// matmul, conv as GEMM, with any extra outer dims) becomes, per workgroup,
//
//   for k0 in 0..K step kc:            K blocks: a kc x nr B sub-panel
//     for n0 in 0..N step nr:          stays in L1 across the row tiles
//       for m0 in 0..M step mr:        mr rows of C
//         acc[0..mr) = C rows (or the fill value in the first K block)
//         for k in k0..k0 + kc:        accumulators stay in registers
//           b = B[k, n0 : n0 + nr]                       one vector load
//           acc[i] = fma(broadcast(A[m0 + i, k]), b, acc[i])   mr FMAs
//         C rows = acc[0..mr)
//
// built directly from vector ops on the bufferized operands. Partial tiles
// at the edges use masked loads and stores along n, and clamp the rows
// they read (m0 + min(i, rows - 1)) while storing only the valid ones, so
// one kernel body serves every shape without scalar remainders.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGETS_CPU_CONTRACTIONKERNEL_H
#define KILN_COMPILER_TARGETS_CPU_CONTRACTIONKERNEL_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::kiln::cpu {

// The loops of a multiply-accumulate generic the register-tiled kernel can
// run (`out += a * b` with f32 accumulators; A and B both f32, or both
// bf16 or f16 and extended to f32 in the body, as kiln-mixed-precision's
// contractions are: the kernel then loads 16-bit values and converts them
// to f32 in registers, "convert on load"; or the integer contraction of
// int8-design.md, i8 x i8 -> i32 with `extsi` operands, `muli`, `addi`):
//  - lanes `n`: the output's innermost dim; B's innermost index moves with
//    it one for one (`n`, or `ow + kw` in a direct convolution) or two for
//    one (`2 * ow + kw`, a stride-2 convolution) and A does not depend on
//    it, so one vector load of B (and a shuffle) feeds all lanes;
//  - rows `m`: the output's second-innermost dim. In a matmul only A
//    depends on it (one scalar per row, one B vector shared by all rows);
//    in a depthwise convolution (rows = output rows) B does too (one B
//    vector per row, one weight shared by all rows);
//  - every reduction dim (one for a matmul, several for a convolution),
//    outermost first, and the other parallel dims as outer loops.
struct ContractionLoops {
  unsigned m, n;
  SmallVector<unsigned> reductions;
  SmallVector<unsigned> outer;
  unsigned lhs, rhs;         // input operand numbers of A and B
  bool scalarPerRow = true;  // A depends on the row
  bool vectorPerRow = false; // B depends on the row
  int64_t laneStride = 1;    // B elements between lanes: 1 or 2 (stride-2
                             // convolutions read every other column)
  Type operandType;          // element type of A and B (f32, bf16, f16, i8)
  Type accumulatorType;      // f32, or i32 for i8 operands
  // B packed by the CPU backend's data tiling (DataTiling.h) into groups
  // of `kGroup` consecutive k per column, [K/g][N][g], read by B's map as
  // (k floordiv g, n, k mod g); 1 = not packed. A's innermost index is
  // then k itself, so one group of A is one small contiguous load.
  int64_t kGroup = 1;
  // f32 B packed by the data tiling into lane panels of `lanePanel`
  // columns, [ceil(N/P)][K][P] (zero past N), read by B's map as
  // (n floordiv P, k, n mod P); 0 = not packed. A register tile's lanes
  // then start at multiples of P and every vector of B is a slice of one
  // panel row: the K rows of one panel are one contiguous run instead of
  // N * 4 bytes apart (a new 4 KiB page per k when N is 1024). With several
  // reduction dims (a channels-last convolution's HWIO filter, k = (kh, kw,
  // c)) the panel is [ceil(N/P)][KH][KW][C][P], read as (n floordiv P, kh,
  // kw, c, n mod P): the reductions in loop order, B row-major in them.
  int64_t lanePanel = 0;
  // B packed by the data tiling for the AMX tile kernel (AmxKernel.h) in
  // panels of 16 columns whose K groups are consecutive,
  // [ceil(N/16)][K/g][16][g] (zero past N), read by B's map as
  // (n floordiv 16, k floordiv g, n mod 16, k mod g): one AMX B tile (16
  // K groups x 16 columns) is 1 KiB of contiguous bytes. kGroup is g. Only
  // the 'amx' path reads it.
  bool amxTiles = false;
  // A enters the body as `extui(xori(a, 0x80))`: the signed byte read as
  // the unsigned byte a + 128 (vpdpbusd multiplies u8 by s8); the data
  // tiling starts the accumulators at -128 * colsum(B) to compensate.
  bool flippedA = false;
};

// Whether the kernel can pack B itself, one K block x register-tile panel
// at a time, into the K-group layout of the native paths (for a B that is
// computed, not constant: the im2col columns of a convolution as GEMM):
// i8 or bf16 operands, B not packed already, lanes contiguous in B
// (stride 1) and shared by all rows, one reduction dim k, and A's
// innermost index k (a group of A is one small contiguous load).
bool canPackPanels(const ContractionLoops &loops, linalg::LinalgOp op);

// Set by the data tiling on an i8 contraction whose A (the lhs) is a
// constant holding no -128 on every call: the AVX2 "pmaddubsw" panels
// apply A's sign to |B| and need that bound to be exact.
inline constexpr llvm::StringLiteral kNarrowLhsAttr = "kiln.narrow_lhs";

// The K-group size of a native path: 4 for "vnni" and "pmaddubsw", 2 for
// "pmaddwd" and
// "dpbf16", 1 otherwise.
int64_t kGroupOf(llvm::StringRef path);

// The native instruction a contraction's register tiles use, from its
// operands and B's packing: "vnni" (vpdpbusd, i8 with K quads, A
// flipped), "pmaddubsw" (AVX2 vpsignb + vpmaddubsw + vpmaddwd, i8 with K
// quads, A signed; the data tiling packs so only a B without -128),
// "pmaddwd" (i8 sign-extended to i16 pairs, K pairs), "dpbf16" (vdpbf16ps, bf16
// K pairs), "amx" (B in AMX tile panels, AmxKernel.h), or "convert"
// (16-bit or 8-bit operands widened in registers and f32 FMAs / i32
// multiply-adds); empty for f32.
llvm::StringRef nativePath(const ContractionLoops &loops);

FailureOr<ContractionLoops> matchContraction(linalg::LinalgOp op);

// Whether `loops` (of `op`) are kiln.conv_nhwc's f32 contraction
// (ContractionToLinalg.cpp): loops (n, oh, ow, m, kh, kw, c), rows ow,
// lanes m, three reduction dims, A (the input) per row, B (the filter)
// shared by all rows.
bool isChannelsLastConv(const ContractionLoops &loops, linalg::LinalgOp op);

// Interleaves two vectors of `n` elements `width` at a time, out[i * 2w +
// j * w + e] = vj[i * w + e] (width 1: single elements, 2: the pairs of an
// earlier interleave): how the kernels pack k rows of B into the K groups
// of the dot-product instructions.
Value interleaveVectors(OpBuilder &b, Location loc, Value v0, Value v1,
                        int64_t n, int64_t width);

// Indices of an operand (through its indexing map) for the loop values
// `dims`; non-dim results become affine.apply or constants.
SmallVector<Value> operandIndices(OpBuilder &b, Location loc, AffineMap map,
                                  ArrayRef<Value> dims);

// The fill of `out` that the bufferized `op` accumulates onto, when
// nothing between them touches memory (the subviews of the operands may
// sit in between): the kernels start their accumulators at its value and
// erase it.
linalg::FillOp findFoldableFill(linalg::LinalgOp op, Value out);

// Whether the "convert" path widens B (16-bit floats, lanes contiguous and
// shared by all rows, one reduction dim) to f32 once per K block and lane
// tile, in a stack panel every row tile of the workgroup reads, rather
// than converting each B vector in every row tile.
bool widensLanePanel(const ContractionLoops &loops);

// Whether the kernel can copy B (f32, computed, not packed; lanes
// contiguous and shared by all rows, one reduction dim) into a contiguous
// stack panel once per K block and lane tile, read by every row tile of
// the workgroup (`pack_b = "lanes"`): the f32 counterpart of the widened
// 16-bit panel. B's rows lie N * 4 bytes apart, often on another page per
// k, and an AVX2 tile re-reads them in every row tile; the panel reads
// each row once per workgroup.
bool copiesLanePanel(const ContractionLoops &loops);

// Marks contractions that codegen will run as register tiles.
inline constexpr llvm::StringLiteral kRegisterTileAttr = "kiln.register_tile";

// Replaces the bufferized contraction `op` (memref operands) by the
// register-tiled loop nest with `rows` x `lanes` tiles and K blocks of
// `kTile` (0: one block). A linalg.fill of the output right before it is
// folded into the accumulators' start value.
// `vectorBits` is the target's vector width: packed (native) tiles issue
// one dot-product instruction per register of that width.
// `panelPath` ("vnni", "pmaddubsw", "pmaddwd", "dpbf16"; empty: none) asks
// for B to be
// packed by the kernel (canPackPanels): per K block and n tile, the
// kTile x lanes panel of B is copied once into a stack buffer in K groups
// and every row tile then runs that native path over it. For "vnni" A is
// flipped to unsigned in registers and the accumulators of each K block
// start 128 * (the panel's column sums) lower, computed while packing.
// "pmaddubsw" (256-bit only) takes |B| and A * sign(B): exact only when A
// holds no -128, which the lowering config checks (kNarrowLhsAttr) before
// choosing it; a config asking for it on an unmarked op is an error.
// `gatherB` (f32, ImplicitGemm.h): B is a slice of a convolution's im2col
// columns whose gather generic (`kiln.conv_gather`) was left unfused; the
// kernel copies each K block x lane tile panel of B into a stack buffer
// straight from the conv input (masked vector gathers, zero where the
// window falls in the padding or past the valid lanes) and the row tiles
// read the panel. Nothing reads the columns afterwards.
// `copyLanes` (`pack_b = "lanes"`, copiesLanePanel): B is copied into a
// kTile x lanes stack panel per K block and lane tile, which the row tiles
// read with plain loads (zero past the valid lanes).
// `gatherRows` (with gatherB; `gather_b = "rows"`): lane tiles stop at
// output row ends, so a tile is one run of the input per panel row (every
// other element at column stride 2) and its panel rows need no per-tile
// table: the padding is a lane mask from the run's first column, a row
// above or below the plane an empty mask. Column strides 1 and 2.
LogicalResult emitContractionKernel(RewriterBase &rewriter,
                                    linalg::LinalgOp op, int64_t rows,
                                    int64_t lanes, int64_t kTile,
                                    int64_t vectorBits,
                                    llvm::StringRef panelPath = "",
                                    bool gatherB = false,
                                    bool gatherRows = false,
                                    bool copyLanes = false);

} // namespace mlir::kiln::cpu

#endif // KILN_COMPILER_TARGETS_CPU_CONTRACTIONKERNEL_H
