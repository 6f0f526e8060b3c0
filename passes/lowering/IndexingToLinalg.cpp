//===- IndexingToLinalg.cpp - Lowering of Kiln indexing ops ----------------===//
#include "passes/lowering/KilnToLinalg.h"
#include "passes/lowering/LoweringUtils.h"

#include "dialects/kiln/KilnDialect.h"

namespace mlir::kiln {

void populateIndexingToLinalgPatterns(RewritePatternSet &patterns) {}

} // namespace mlir::kiln
