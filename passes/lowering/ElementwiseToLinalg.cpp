//===- ElementwiseToLinalg.cpp - Lowering of Kiln elementwise ops ----------------===//
#include "passes/lowering/KilnToLinalg.h"
#include "passes/lowering/LoweringUtils.h"

#include "dialects/kiln/KilnDialect.h"

namespace mlir::kiln {

void populateElementwiseToLinalgPatterns(RewritePatternSet &patterns) {}

} // namespace mlir::kiln
