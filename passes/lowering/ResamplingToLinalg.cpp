//===- ResamplingToLinalg.cpp - Lowering of Kiln resampling ops ----------------===//
#include "passes/lowering/KilnToLinalg.h"
#include "passes/lowering/LoweringUtils.h"

#include "dialects/kiln/KilnDialect.h"

namespace mlir::kiln {

void populateResamplingToLinalgPatterns(RewritePatternSet &patterns) {}

} // namespace mlir::kiln
