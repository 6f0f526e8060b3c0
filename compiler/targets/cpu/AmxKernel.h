//===- AmxKernel.h - Contractions on AMX tile registers ---------*- C++ -*-===//
//
// On CPUs with AMX (Sapphire Rapids and later), a bf16 or i8 contraction
// whose constant B the data tiling packed in K groups ([K/g][N][g], the
// layout AMX's B operand wants) runs on the tile unit instead of vector
// FMAs: `native = "amx"` in the lowering config. Per workgroup tile
// (M_t x N_t outputs, whole K):
//
//   for n0 in 0..N_t step 32:            two B tiles (16 columns each)
//     for m0 in 0..M_t step 32:          two A tiles (16 rows each)
//       c[2][2] = fill value             four 16x16 f32 / i32 tiles
//       for k0 in 0..K step 64 bytes:    32 bf16 or 64 i8 per A row
//         a[i] = tileload A[m0 + 16i, k0]         (A's own row stride)
//         b[j] = tileload B[k0 / g, n0 + 16j]     (stride N * g)
//         c[i][j] += a[i] * b[j]         tdpbf16ps / tdpbssd
//       tilestore c -> C
//
// Eight tile registers hold the 2x2 accumulators and the two A and two B
// tiles. Workgroup tiles divide M and N exactly (LoweringConfig), so the
// edges of a workgroup (M_t mod 16 rows, N_t mod 16 columns, K mod 64
// bytes) are static, smaller tile shapes rather than masks or overlaps;
// the fused epilogue reads C as it does after the vector kernels.
//
// One tdpbf16ps is 16 x 16 x 32 multiply-adds (16 cycles), eight times
// what one core's AVX512-BF16 vdpbf16ps issues in that time; i8 twice
// that again.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGETS_CPU_AMXKERNEL_H
#define KILN_COMPILER_TARGETS_CPU_AMXKERNEL_H

#include "compiler/targets/cpu/ContractionKernel.h"
#include "compiler/targets/cpu/CpuTarget.h"

namespace mlir::kiln::cpu {

// Bytes of one AMX tile row, and the most rows (and 4-byte columns) of
// one tile.
inline constexpr int64_t kAmxRowBytes = 64;
inline constexpr int64_t kAmxTileRows = 16;

// The K group of B packed for the AMX path: 2 bf16 or 4 i8 per 32 bits.
int64_t amxGroup(const ContractionLoops &loops);

// Whether `op` (before or after the data tiling packed its B) can run on
// the tile unit of `target`: bf16 x bf16 -> f32 (AMX-BF16) or i8 x i8 ->
// i32 with both operands sign-extended (AMX-INT8 tdpbssd; never a flipped
// A), one reduction dim k with K a multiple of the group, static M >= 16
// and N >= 16, B shared by all rows with contiguous lanes, and A's and
// C's maps plain dims ending in (m, k) and (m, n): A and C are read and
// written a tile row at a time along their own row strides.
bool amxContractionOk(linalg::LinalgOp op, const ContractionLoops &loops,
                      const TargetChoice &target);

// Replaces the bufferized contraction `op` (marked for register tiles,
// B packed in K groups of amxGroup(), workgroup tile static) and the fill
// it accumulates onto with the tile loop nest above.
LogicalResult emitAmxContraction(RewriterBase &rewriter, linalg::LinalgOp op);

} // namespace mlir::kiln::cpu

#endif // KILN_COMPILER_TARGETS_CPU_AMXKERNEL_H
