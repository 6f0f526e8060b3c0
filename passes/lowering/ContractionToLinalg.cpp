//===- ContractionToLinalg.cpp - Lowering of Kiln contraction ops ----------------===//
#include "passes/lowering/KilnToLinalg.h"
#include "passes/lowering/LoweringUtils.h"

#include "dialects/kiln/KilnDialect.h"

namespace mlir::kiln {

void populateContractionToLinalgPatterns(RewritePatternSet &patterns) {}

} // namespace mlir::kiln
