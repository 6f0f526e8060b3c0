//===- AttentionKernel.h - Fused attention as one CPU kernel ----*- C++ -*-===//
//
// A dispatch holding one kiln.attention (kiln-fuse-attention, kept through
// kiln-to-linalg) runs as one kernel, flash-attention style: the scores
// never leave registers and the per-row softmax is computed online.
//
// Workgroups split the flattened batch (one head each) and the query rows
// (`workgroup_tile = [1, R]`). A workgroup walks the keys in blocks of
// `nb` (a whole number of vectors; `register_tile = [mr, nb]`) as its
// outer loop, so one block of K^T and V is read from L1 by all its row
// tiles; each row's running max m and sum l live in stack arrays of R
// floats. Per block, each register tile of `mr` query rows does:
//   1. S = Q[mr rows] K^T[:, block]: mr x nb/L accumulators, one FMA per
//      (row, vector) and head-size step, Q broadcast from memory;
//   2. S = S * scale + mask (broadcast dims read with stride 0), keys past
//      Sk at -inf; per row m' = max(m, max S), alpha = e^(m - m'),
//      P = e^(S - m'), l = l alpha + sum P; P goes to a stack tile of
//      mr x nb floats;
//   3. O[mr rows] = O alpha + P V[block]: the output rows are the
//      accumulator, read and written in chunks of a few vectors per row
//      with the block's keys as the inner loop (a V row is loaded once per
//      key for all mr rows).
// The output rows start at zero and end divided by l. Rows are never
// split between workgroups (R is a multiple of mr), so each workgroup
// owns its accumulators. A last partial tile (Sq % mr rows) and a last
// partial key block are static, smaller copies of the same code, with
// masked loads and stores where vectors pass the data.
//
// e^x is math.exp, which codegen turns into its vector polynomial.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGETS_CPU_ATTENTIONKERNEL_H
#define KILN_COMPILER_TARGETS_CPU_ATTENTIONKERNEL_H

#include "compiler/targets/cpu/CpuTarget.h"
#include "compiler/targets/cpu/LoweringConfig.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::kiln::cpu {

// Whether `dispatch` is one kiln.attention (and the inits it needs).
bool isAttentionDispatch(func::FuncOp dispatch);

// The attention strategy's configuration for `dispatch` on `target`:
// AVX-512 takes 4 rows x 64 keys (16 score accumulators of 32 zmm), AVX2
// 6 rows x 16 keys (12 of 16 ymm; 4 x 16 ran 8-10% slower); workgroups of
// R rows, R = mr doubled while it stays at most 64 and 16 workgroups
// remain.
LoweringConfig chooseAttentionConfig(func::FuncOp dispatch,
                                     const TargetChoice &target);

// Replaces the body of `kernel` (made from an attention dispatch by
// destination passing: the op reads restrict tensors of the input
// buffers, and its result is materialized into the output buffer) by the
// kernel, as a top-level scf.forall over the workgroups.
LogicalResult emitAttentionKernel(func::FuncOp kernel,
                                  const LoweringConfig &config,
                                  const TargetChoice &target);

} // namespace mlir::kiln::cpu

#endif // KILN_COMPILER_TARGETS_CPU_ATTENTIONKERNEL_H
