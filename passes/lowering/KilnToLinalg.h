//===- KilnToLinalg.h - Patterns lowering Kiln ops to linalg ----*- C++ -*-===//
//
// One populate function per op family; the kiln-to-linalg pass applies them
// all. Every pattern produces linalg (named ops where they exist, else
// linalg.generic), tensor, arith and math ops on ranked, statically shaped
// tensors; ops that cannot be expressed as loop nests of those (recurrences,
// top-k, scatter) use scf.for over tensors.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PASSES_LOWERING_KILNTOLINALG_H
#define KILN_PASSES_LOWERING_KILNTOLINALG_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::kiln {

void populateElementwiseToLinalgPatterns(RewritePatternSet &patterns);
void populateContractionToLinalgPatterns(RewritePatternSet &patterns);
// kiln.attention as the matmul / scale / mask / softmax / matmul chain of
// Kiln ops (lowered in turn by the patterns above); not part of the
// contraction patterns, since a back end may keep the op for its kernel.
void populateAttentionDecompositionPatterns(RewritePatternSet &patterns);
void populateNormalizationToLinalgPatterns(RewritePatternSet &patterns);
void populateDataMovementToLinalgPatterns(RewritePatternSet &patterns);
void populateIndexingToLinalgPatterns(RewritePatternSet &patterns);
void populateRecurrentToLinalgPatterns(RewritePatternSet &patterns);
void populateResamplingToLinalgPatterns(RewritePatternSet &patterns);
void populateQuantizationToLinalgPatterns(RewritePatternSet &patterns);

} // namespace mlir::kiln

#endif // KILN_PASSES_LOWERING_KILNTOLINALG_H
