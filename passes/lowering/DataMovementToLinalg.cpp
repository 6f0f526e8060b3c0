//===- DataMovementToLinalg.cpp - Lowering of Kiln datamovement ops ----------------===//
#include "passes/lowering/KilnToLinalg.h"
#include "passes/lowering/LoweringUtils.h"

#include "dialects/kiln/KilnDialect.h"

namespace mlir::kiln {

void populateDataMovementToLinalgPatterns(RewritePatternSet &patterns) {}

} // namespace mlir::kiln
