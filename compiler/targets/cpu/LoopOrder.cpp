//===- LoopOrder.cpp - Loop order for LLVM's vectorizer -------------------===//
//
// Puts the innermost parallel dimension of every reduction op innermost:
// matmul (m, n, k) runs as (m, k, n), the conv contraction (n, m, p, ck) as
// (n, m, ck, p), pooling windows outside the output row. The inner loop then
// streams contiguous rows of the output and of one operand, which LLVM's
// loop vectorizer turns into FMA vector code (fused multiply-add is allowed
// by the target options), instead of a scalar dot-product reduction.
//
// This is the strategy for reductions that are not register-tiled
// contractions (pooling, softmax and norm statistics, contractions of other
// element types); those contractions get ContractionKernel.cpp instead.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/cpu/ContractionKernel.h"
#include "compiler/targets/cpu/LoopOrder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::kiln::cpu {

namespace {

// A one-input reduction over the innermost dim, which reads its input
// contiguously (softmax and normalization statistics, a reduce over the
// last axis): its combiner (add, max, min) may be reassociated instead,
// so that LLVM keeps vector partial results along the row. Interchanging
// it would make the inner loop walk down a column.
bool reassociateInnermostReduction(linalg::GenericOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (iterators.empty() ||
      iterators.back() != utils::IteratorType::reduction ||
      op.getNumDpsInits() != 1 ||
      !getElementTypeOrSelf(op.getDpsInits()[0].getType()).isF32())
    return false;
  unsigned last = iterators.size() - 1;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isFunctionOfDim(last))
      continue;
    auto dim = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!dim || dim.getPosition() != last)
      return false;
  }
  Block &body = op->getRegion(0).front();
  Value acc = body.getArgument(body.getNumArguments() - 1);
  Operation *combiner =
      cast<linalg::YieldOp>(body.getTerminator()).getOperand(0).getDefiningOp();
  if (!combiner || !isa<arith::AddFOp, arith::MaximumFOp, arith::MaxNumFOp,
                        arith::MinimumFOp, arith::MinNumFOp>(combiner) ||
      !llvm::is_contained(combiner->getOperands(), acc))
    return false;
  auto fastmath = cast<arith::ArithFastMathInterface>(combiner);
  combiner->setAttr(fastmath.getFastMathAttrName(),
                    arith::FastMathFlagsAttr::get(
                        op.getContext(), fastmath.getFastMathFlagsAttr()
                                                 .getValue() |
                                             arith::FastMathFlags::reassoc |
                                             arith::FastMathFlags::nsz));
  return true;
}

} // namespace

LogicalResult orderLoopsForVectorization(func::FuncOp kernel) {
  SmallVector<linalg::LinalgOp> candidates;
  kernel.walk([&](linalg::LinalgOp op) {
    if (op.getNumReductionLoops() > 0 && op.getNumParallelLoops() > 0 &&
        !isa<linalg::FillOp, linalg::CopyOp>(op) &&
        !op->hasAttr(kRegisterTileAttr))
      candidates.push_back(op);
  });
  IRRewriter rewriter(kernel.getContext());
  for (linalg::LinalgOp op : candidates) {
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    int64_t loops = iterators.size();
    int64_t lastParallel = -1;
    for (int64_t i = 0; i < loops; ++i)
      if (iterators[i] == utils::IteratorType::parallel)
        lastParallel = i;
    if (lastParallel == loops - 1)
      continue; // already innermost (e.g. a reduction over outer dims)
    if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
        generic && reassociateInnermostReduction(generic))
      continue;
    SmallVector<unsigned> order;
    for (int64_t i = 0; i < loops; ++i)
      if (iterators[i] == utils::IteratorType::parallel && i != lastParallel)
        order.push_back(i);
    for (int64_t i = 0; i < loops; ++i)
      if (iterators[i] == utils::IteratorType::reduction)
        order.push_back(i);
    order.push_back(lastParallel);
    rewriter.setInsertionPoint(op);
    linalg::GenericOp generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic) {
      FailureOr<linalg::GenericOp> generalized =
          linalg::generalizeNamedOp(rewriter, op);
      if (failed(generalized))
        continue;
      generic = *generalized;
    }
    if (failed(linalg::interchangeGenericOp(rewriter, generic, order)))
      return generic.emitOpError("loop interchange failed");
  }
  return success();
}

} // namespace mlir::kiln::cpu
