//===- RecurrentToLinalg.cpp - Lowering of Kiln recurrent ops ----------------===//
#include "passes/lowering/KilnToLinalg.h"
#include "passes/lowering/LoweringUtils.h"

#include "dialects/kiln/KilnDialect.h"

namespace mlir::kiln {

void populateRecurrentToLinalgPatterns(RewritePatternSet &patterns) {}

} // namespace mlir::kiln
