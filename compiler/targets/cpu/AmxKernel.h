//===- AmxKernel.h - Contractions on AMX tile registers ---------*- C++ -*-===//
//
// On CPUs with AMX (Sapphire Rapids and later), a bf16 or i8 contraction
// runs on the tile unit instead of vector FMAs: `native = "amx"` in the
// lowering config. B is either a constant the data tiling packed in AMX
// tile panels ([ceil(N/16)][K/g][16][g]: each B tile 1 KiB of contiguous
// bytes), or computed (a convolution's im2col columns; `pack_b =
// "panels"`), and then packed by the kernel into the same rows, all of K
// for one 32-column block at a time. Per workgroup tile (M_t x N_t
// outputs, whole K):
//
//   for n0 in 0..N_t step 32:            two B tiles (16 columns each)
//     [pack B[0:K, n0:n0+32] into tile-panel rows, for a computed B]
//     for m0 in 0..M_t step 32:          two A tiles (16 rows each)
//       c[2][2] = fill value             four 16x16 f32 / i32 tiles
//       for k0 in 0..K step 64 bytes:    32 bf16 or 64 i8 per A row
//         a[i] = tileload A[m0 + 16i, k0]         (A's own row stride)
//         b[j] = tileload B tile (k0 / g, n0 + 16j)
//         c[i][j] += a[i] * b[j]         tdpbf16ps / tdpbssd
//       tilestore c -> C
//
// Eight tile registers hold the 2x2 accumulators and the two A and two B
// tiles, all of one shape (LLVM configures one shape per tile register
// and function): the last row tile starts at M_t - 16, overlapping its
// neighbour (exact because C starts at a fill), and a last column tile
// of fewer than 16 columns reads zero-padded B and is stored through a
// stack tile. Workgroup tiles divide M and N exactly (LoweringConfig), so
// every workgroup's extents are static; the fused epilogue reads C as it
// does after the vector kernels.
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
// A), one reduction dim k with K a whole number of 64-byte tile rows (32
// bf16, 64 i8), static M >= 16 and N >= 16, C started by a fill, B
// shared by all rows with contiguous lanes (unpacked: a map of plain dims
// ending in (k, n), or in AMX tile panels), and A's and C's maps plain
// dims ending in (m, k) and (m, n): A and C are read and written a tile
// row at a time along their own row strides.
bool amxContractionOk(linalg::LinalgOp op, const ContractionLoops &loops,
                      const TargetChoice &target);

// Replaces the bufferized contraction `op` (marked for register tiles, B
// in AMX tile panels or unpacked, workgroup tile static) and the fill it
// accumulates onto with the tile loop nest above.
LogicalResult emitAmxContraction(RewriterBase &rewriter, linalg::LinalgOp op);

} // namespace mlir::kiln::cpu

#endif // KILN_COMPILER_TARGETS_CPU_AMXKERNEL_H
