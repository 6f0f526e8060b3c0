//===- DataTiling.h - Constant weights packed for dot products -*- C++ -*-===//
//
// The native low-precision instructions read B (the weights of a matmul,
// lanes along N) in groups of consecutive k per output column:
//
//   vpdpbusd  (AVX512-VNNI, AVX-VNNI)  i8 x i8 -> i32   K quads [K/4][N][4]
//   pmaddwd   (AVX2, i8 widened)       i16 x i16 -> i32 K pairs [K/2][N][2]
//   vdpbf16ps (AVX512-BF16)            bf16 x bf16 -> f32 K pairs [K/2][N][2]
//
// so that one vector load of B feeds every lane with its g values of k,
// and one 32-bit broadcast of A[m, k..k+g) pairs with them. Which layout
// depends on the CPU, so the CPU backend chooses it (TargetBackend::
// packConstants), on its own copy of the host function and dispatches;
// the host plan and the artifact just carry the packed constant.
//
// A contraction qualifies when its B is a dispatch argument that every
// call passes a compile-time constant for, B's map is (k, n) and A's
// innermost index is k. The rewrite keeps exact linalg semantics, so every
// strategy (register tiles, loop order, scalar) still computes the same
// result:
//  - B's argument becomes the packed constant (K zero-padded to a multiple
//    of g) and the contraction a generic reading it through
//    (k floordiv g, n, k mod g);
//  - for vpdpbusd, which multiplies unsigned by signed bytes, the body
//    reads A as `extui(xori(a, 0x80))` = a + 128, and the accumulators
//    start at -128 * colsum(B) (one more constant, tensor<N x i32>,
//    computed here from the same bytes and passed as the dispatch's last
//    argument), so the sum is exactly sum(a * b).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGETS_CPU_DATATILING_H
#define KILN_COMPILER_TARGETS_CPU_DATATILING_H

#include "compiler/targets/cpu/CpuTarget.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::kiln::cpu {

// Packs the constant B operands of `module`'s dispatches (the host function
// and its `kiln.dispatch` functions, after dispatch formation) for
// `target`'s native instructions, and f32 ones in lane panels; a computed
// f32 B whose rows lie a page or more apart is packed into lane panels at
// run time, by a pack dispatch each call of the contraction calls first;
// a constant f32 A of many rows (a conv's filter) goes in row panels of the
// register tile's rows. Contractions without a native path on the target
// and other computed operands are left alone.
LogicalResult packConstantWeights(ModuleOp module, const TargetChoice &target);

} // namespace mlir::kiln::cpu

#endif // KILN_COMPILER_TARGETS_CPU_DATATILING_H
