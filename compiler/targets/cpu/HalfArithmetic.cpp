//===- HalfArithmetic.cpp - 16-bit float arithmetic computed in f32 -------===//
#include "compiler/targets/cpu/HalfArithmetic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kiln::cpu {

namespace {

Type withElement(Type type, Type element) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.clone(element);
  return element;
}

// One elementwise float operation of arith or math on 16-bit values
// (results of a half type, or i1 for comparisons; every float operand of
// a half type), not a cast: computed on f32 instead.
struct WidenOperation : RewritePattern {
  WidenOperation(MLIRContext *context, SmallVector<Type> halfTypes)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context),
        halfTypes(std::move(halfTypes)) {}

  bool isHalf(Type type) const {
    return llvm::is_contained(halfTypes, getElementTypeOrSelf(type));
  }

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    Dialect *dialect = op->getDialect();
    if (!dialect || !isa<arith::ArithDialect, math::MathDialect>(dialect) ||
        !op->hasTrait<OpTrait::Elementwise>() || isa<CastOpInterface>(op) ||
        isa<arith::SelectOp, arith::ConstantOp>(op) ||
        op->getNumResults() != 1 || op->getNumRegions() != 0)
      return failure();
    bool anyHalf = false;
    for (Value operand : op->getOperands()) {
      Type element = getElementTypeOrSelf(operand.getType());
      if (isa<FloatType>(element)) {
        if (!isHalf(element))
          return failure();
        anyHalf = true;
      }
    }
    Type result = op->getResult(0).getType();
    Type resultElement = getElementTypeOrSelf(result);
    bool halfResult = isHalf(resultElement);
    if (!anyHalf || !(halfResult || resultElement.isInteger(1)))
      return failure();
    Location loc = op->getLoc();
    Type f32 = rewriter.getF32Type();
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      if (isHalf(getElementTypeOrSelf(operand.getType())))
        operand = arith::ExtFOp::create(
            rewriter, loc, withElement(operand.getType(), f32), operand);
      operands.push_back(operand);
    }
    OperationState state(loc, op->getName(), operands,
                         TypeRange{halfResult ? withElement(result, f32)
                                              : result},
                         op->getAttrs());
    Operation *wide = rewriter.create(state);
    Value value = wide->getResult(0);
    if (halfResult) {
      auto round = arith::TruncFOp::create(rewriter, loc, result, value);
      round->setAttr(kWidenedAttr, rewriter.getUnitAttr());
      value = round;
    }
    rewriter.replaceOp(op, value);
    return success();
  }

  SmallVector<Type> halfTypes;
};

// extf(truncf(x) marked kiln.widened) to x's type: x itself.
struct SkipRounding : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp ext,
                                PatternRewriter &rewriter) const override {
    auto round = ext.getIn().getDefiningOp<arith::TruncFOp>();
    if (!round || !round->hasAttr(kWidenedAttr) ||
        round.getIn().getType() != ext.getType())
      return failure();
    rewriter.replaceOp(ext, round.getIn());
    return success();
  }
};

} // namespace

LogicalResult widenHalfArithmetic(ModuleOp module, ArrayRef<Type> halfTypes) {
  if (halfTypes.empty())
    return success();
  RewritePatternSet patterns(module.getContext());
  patterns.add<WidenOperation>(module.getContext(),
                               SmallVector<Type>(halfTypes));
  patterns.add<SkipRounding>(module.getContext());
  if (failed(applyPatternsGreedily(module, std::move(patterns))))
    return module.emitError("widening 16-bit arithmetic did not converge");
  return success();
}

} // namespace mlir::kiln::cpu
