//===- KilnToLinalgPass.cpp - kiln-to-linalg -----------------------------===//
//
// Expands the custom calls that plugins lower (kind a), applies every Kiln
// lowering pattern, then reports any Kiln op left over: the back end cannot
// run a graph with an op it does not know how to lower. Custom calls
// without a lowering stay: they are external kernels (kind b) that the
// host plan calls.
//
//===----------------------------------------------------------------------===//

#include "dialects/kiln/KilnDialect.h"
#include "passes/Passes.h"
#include "passes/lowering/CustomCallLowering.h"
#include "passes/lowering/KilnToLinalg.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kiln {

#define GEN_PASS_DEF_KILNTOLINALG
#include "passes/Passes.h.inc"

namespace {

class KilnToLinalgPass : public impl::KilnToLinalgBase<KilnToLinalgPass> {
public:
  using impl::KilnToLinalgBase<KilnToLinalgPass>::KilnToLinalgBase;

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet owning(context);
    populateElementwiseToLinalgPatterns(owning);
    populateContractionToLinalgPatterns(owning);
    populateNormalizationToLinalgPatterns(owning);
    populateDataMovementToLinalgPatterns(owning);
    populateIndexingToLinalgPatterns(owning);
    populateRecurrentToLinalgPatterns(owning);
    populateResamplingToLinalgPatterns(owning);
    populateQuantizationToLinalgPatterns(owning);
    if (!keepAttention)
      populateAttentionDecompositionPatterns(owning);
    patterns = std::make_shared<FrozenRewritePatternSet>(std::move(owning));
    return success();
  }

  void runOnOperation() override {
    if (failed(lowerRegisteredCustomCalls(getOperation())))
      return signalPassFailure();
    GreedyRewriteConfig config;
    // Only the Kiln ops are rewritten; folding the new linalg/arith ops is
    // left to later passes so the output is what the patterns built.
    config.enableFolding(false);
    (void)applyPatternsGreedily(getOperation(), *patterns, config);
    bool failed = false;
    getOperation()->walk([&](Operation *op) {
      if (!isa<KilnDialect>(op->getDialect()))
        return;
      auto isDynamic = [](Type type) {
        auto tensor = dyn_cast<RankedTensorType>(type);
        return !tensor || !tensor.hasStaticShape();
      };
      bool dynamic = llvm::any_of(op->getResultTypes(), isDynamic) ||
                     llvm::any_of(op->getOperandTypes(), isDynamic);
      if (isa<CustomCallOp>(op) && !dynamic)
        return; // an external kernel
      if (isa<AttentionOp>(op) && keepAttention)
        return; // the back end's own kernel
      failed = true;
      if (dynamic)
        op->emitOpError("has a dynamic shape; the CPU back end needs static "
                        "shapes (pass --input-shape to kilnc)");
      else
        op->emitOpError("cannot be lowered to linalg for the CPU back end "
                        "with these operand types or attributes");
    });
    if (failed)
      signalPassFailure();
  }

private:
  std::shared_ptr<FrozenRewritePatternSet> patterns;
};

} // namespace
} // namespace mlir::kiln
