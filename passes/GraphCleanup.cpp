//===- GraphCleanup.cpp - kiln-graph-cleanup ------------------------------===//
//
// Canonicalization plus constant folding over a Kiln graph. The rewrites
// themselves are the ops' folders and canonicalization patterns; this pass
// only drives them to a fixed point and fails loudly if none is reached.
//
//===----------------------------------------------------------------------===//

#include "dialects/kiln/KilnDialect.h"
#include "passes/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kiln {

#define GEN_PASS_DEF_GRAPHCLEANUP
#include "passes/Passes.h.inc"

namespace {

class GraphCleanupPass : public impl::GraphCleanupBase<GraphCleanupPass> {
public:
  using impl::GraphCleanupBase<GraphCleanupPass>::GraphCleanupBase;

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet owningPatterns(context);
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(owningPatterns);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      op.getCanonicalizationPatterns(owningPatterns, context);
    patterns = std::make_shared<FrozenRewritePatternSet>(std::move(owningPatterns));
    return success();
  }

  void runOnOperation() override {
    GreedyRewriteConfig config;
    config.setMaxIterations(maxIterations);
    // Folding evaluates constants top-down; merging equal constants lets
    // the shape sub-graphs of exported models collapse completely.
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Normal);
    if (failed(applyPatternsGreedily(getOperation(), *patterns, config))) {
      getOperation()->emitError()
          << "kiln-graph-cleanup did not reach a fixed point in "
          << static_cast<int64_t>(maxIterations) << " sweeps";
      return signalPassFailure();
    }
  }

private:
  std::shared_ptr<const FrozenRewritePatternSet> patterns;
};

} // namespace

} // namespace mlir::kiln
