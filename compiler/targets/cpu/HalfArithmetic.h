//===- HalfArithmetic.h - 16-bit float arithmetic computed in f32 -*- C++ -*-===//
//
// Kernels outside the contraction tiles (a 16-bit region's bias adds,
// GELU, residual adds, the rounding epilogues of contractions) do their
// arithmetic on f16 or bf16 values. A CPU without native 16-bit arithmetic
// (no AVX512-FP16 for f16; no x86 CPU has bf16 adds) would compute every
// operation in f32 and round its result back to 16 bits, one conversion
// pair per operation: a GELU in f16 converted about ten times per vector.
// Here a chain of such operations is computed in f32 throughout and
// rounded once, where its value is stored (or leaves the chain), which is
// both faster and closer to the f32 model.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGETS_CPU_HALFARITHMETIC_H
#define KILN_COMPILER_TARGETS_CPU_HALFARITHMETIC_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace mlir::kiln::cpu {

// Rewrites every elementwise arith/math float operation on `halfTypes`
// (f16 and/or bf16; scalars or vectors) in `module` as the same operation
// on f32: operands extended, the result rounded back by an `arith.truncf`
// marked `kiln.widened`. An `arith.extf` to f32 of such a marked rounding
// reads the f32 value directly, so chains stay in f32. Roundings the IR
// asked for (casts in the model, a contraction's rounded result) are not
// marked and stay. Fails only when the rewrite does not converge.
LogicalResult widenHalfArithmetic(ModuleOp module, ArrayRef<Type> halfTypes);

// For targets that round f32 -> bf16 natively (vcvtneps2bf16): asks
// LLVM's loop vectorizer for `lanes` f32 lanes in every innermost scalar
// loop (scf.for without vector values) that converts between f32 and bf16.
// LLVM prices a bf16 conversion of more than 4 lanes as if scalarized
// (cost 46 for 16 lanes against 1 for 4), so left alone it vectorizes such
// loops 4 lanes wide, which measured 15-23% slower than the 16-lane integer
// emulation; 16 lanes are one vcvtneps2bf16 zmm -> ymm. The request is an
// `llvm.loop_annotation` the SCF-to-CF lowering carries to the loop's
// latch; `applyLoopAnnotations` moves it where LLVM IR translation reads
// it. Returns the number of loops marked.
int64_t requestBf16Vectorization(ModuleOp module, int64_t lanes);

// After lowering to the LLVM dialect: every `llvm.br`/`llvm.cond_br`
// carrying a discardable `llvm.loop_annotation` gets it as its
// `loop_annotation` (translated to `!llvm.loop` metadata).
void applyLoopAnnotations(ModuleOp module);

// The attribute marking the roundings `widenHalfArithmetic` inserted.
inline constexpr llvm::StringLiteral kWidenedAttr = "kiln.widened";

} // namespace mlir::kiln::cpu

#endif // KILN_COMPILER_TARGETS_CPU_HALFARITHMETIC_H
