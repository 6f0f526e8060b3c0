//===- NormalizationToLinalg.cpp - Lowering of Kiln normalization ops ----------------===//
#include "passes/lowering/KilnToLinalg.h"
#include "passes/lowering/LoweringUtils.h"

#include "dialects/kiln/KilnDialect.h"

namespace mlir::kiln {

void populateNormalizationToLinalgPatterns(RewritePatternSet &patterns) {}

} // namespace mlir::kiln
