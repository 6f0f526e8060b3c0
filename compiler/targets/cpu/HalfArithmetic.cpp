//===- HalfArithmetic.cpp - 16-bit float arithmetic computed in f32 -------===//
#include "compiler/targets/cpu/HalfArithmetic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
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

// max/min(truncf(x), b) on a 16-bit type, x f32: truncf(max/min(x,
// extf(b))). Rounding is monotone and keeps a 16-bit value as it is, so
// the two are the same bits for every x and b, NaNs and signed zeros
// included; the rounding the IR asked for (a conv's result rounded to
// bf16, a cast into a 16-bit region) moves past the max or min instead of
// going, so whatever reads the result still reads a rounded value. A
// conv's ReLU6 clip then runs on the f32 sum with one rounding after it,
// where the widened 16-bit max and min would have compared and selected
// (ExactHalfMinMax) after a rounding of the sum.
struct HoistRoundingPastMinMax : RewritePattern {
  HoistRoundingPastMinMax(MLIRContext *context, SmallVector<Type> halfTypes)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context),
        halfTypes(std::move(halfTypes)) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
             arith::MinNumFOp>(op) ||
        !llvm::is_contained(halfTypes,
                            getElementTypeOrSelf(op->getResult(0).getType())))
      return failure();
    Type type = op->getResult(0).getType();
    Type wide = withElement(type, rewriter.getF32Type());
    auto unrounded = [&](Value v) -> Value {
      auto round = v.getDefiningOp<arith::TruncFOp>();
      return round && round.getIn().getType() == wide ? round.getIn()
                                                      : Value();
    };
    Value a = unrounded(op->getOperand(0)), b = unrounded(op->getOperand(1));
    if (!a && !b)
      return failure();
    Location loc = op->getLoc();
    if (!a)
      a = arith::ExtFOp::create(rewriter, loc, wide, op->getOperand(0));
    if (!b)
      b = arith::ExtFOp::create(rewriter, loc, wide, op->getOperand(1));
    OperationState state(loc, op->getName(), ValueRange{a, b},
                         TypeRange{wide}, op->getAttrs());
    Value result = rewriter.create(state)->getResult(0);
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, type, result);
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

// truncf(max/min(extf a, extf b)) marked kiln.widened, a and b of the
// truncf's 16-bit type: the result is a or b, so no rounding is needed,
// only the choice, made on the f32 values. A select instead of the
// rounding (an integer emulation or a vcvtneps2bf16 per element) lets a
// bf16 max pool's window loop run like the f32 one. The choice follows
// each op's semantics: maximumf / minimumf return a NaN operand and order
// -0 below +0; maxnumf / minnumf return the other operand of a NaN.
struct ExactHalfMinMax : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp round,
                                PatternRewriter &rewriter) const override {
    Operation *op = round.getIn().getDefiningOp();
    if (!round->hasAttr(kWidenedAttr) || !op ||
        !isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
             arith::MinNumFOp>(op))
      return failure();
    auto extA = op->getOperand(0).getDefiningOp<arith::ExtFOp>();
    auto extB = op->getOperand(1).getDefiningOp<arith::ExtFOp>();
    if (!extA || !extB || extA.getIn().getType() != round.getType() ||
        extB.getIn().getType() != round.getType())
      return failure();
    Location loc = round.getLoc();
    Value fa = extA, fb = extB;
    bool greater = isa<arith::MaximumFOp, arith::MaxNumFOp>(op);
    bool nanWins = isa<arith::MaximumFOp, arith::MinimumFOp>(op);
    auto cmp = [&](arith::CmpFPredicate p, Value x, Value y) {
      return arith::CmpFOp::create(rewriter, loc, p, x, y).getResult();
    };
    // Ties (only -0 against +0 differ): the max takes a when a's sign bit
    // is clear, the min when it is set.
    Type bits = withElement(fa.getType(), rewriter.getI32Type());
    Value zero = arith::ConstantOp::create(
        rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(bits)));
    Value tieTakesA = arith::CmpIOp::create(
        rewriter, loc,
        greater ? arith::CmpIPredicate::sge : arith::CmpIPredicate::slt,
        arith::BitcastOp::create(rewriter, loc, bits, fa), zero);
    Value takeA = arith::OrIOp::create(
        rewriter, loc,
        cmp(greater ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
            fa, fb),
        arith::AndIOp::create(rewriter, loc,
                              cmp(arith::CmpFPredicate::OEQ, fa, fb),
                              tieTakesA));
    // maximumf / minimumf: a NaN a wins; maxnumf / minnumf: a wins over
    // a NaN b (and both NaN: a, a NaN).
    takeA = arith::OrIOp::create(
        rewriter, loc, takeA,
        nanWins ? cmp(arith::CmpFPredicate::UNO, fa, fa)
                : cmp(arith::CmpFPredicate::UNO, fb, fb));
    rewriter.replaceOpWithNewOp<arith::SelectOp>(round, takeA, extA.getIn(),
                                                 extB.getIn());
    return success();
  }
};

} // namespace

LogicalResult widenHalfArithmetic(ModuleOp module, ArrayRef<Type> halfTypes) {
  if (halfTypes.empty())
    return success();
  // Three rounds: roundings move past the maxima and minima first, then
  // every op is widened (and every chain's inner roundings skipped), and
  // only then may a max or min become a select of 16-bit operands. In one
  // round a clip's min could take the select form while the max feeding
  // it was still a 16-bit op, and the chain would keep a rounding in its
  // middle.
  RewritePatternSet hoist(module.getContext());
  hoist.add<HoistRoundingPastMinMax>(module.getContext(),
                                     SmallVector<Type>(halfTypes));
  if (failed(applyPatternsGreedily(module, std::move(hoist))))
    return module.emitError("widening 16-bit arithmetic did not converge");
  RewritePatternSet widen(module.getContext());
  widen.add<WidenOperation>(module.getContext(), SmallVector<Type>(halfTypes));
  widen.add<SkipRounding>(module.getContext());
  RewritePatternSet select(module.getContext());
  select.add<ExactHalfMinMax>(module.getContext());
  if (failed(applyPatternsGreedily(module, std::move(widen))) ||
      failed(applyPatternsGreedily(module, std::move(select))))
    return module.emitError("widening 16-bit arithmetic did not converge");
  return success();
}

namespace {

constexpr llvm::StringLiteral kLoopAnnotationAttr = "llvm.loop_annotation";

bool convertsBf16(Operation *op) {
  if (!isa<arith::TruncFOp, arith::ExtFOp>(op))
    return false;
  return getElementTypeOrSelf(op->getOperand(0).getType()).isBF16() ||
         getElementTypeOrSelf(op->getResult(0).getType()).isBF16();
}

} // namespace

// `llvm.loop.vectorize.enable` with `llvm.loop.vectorize.width` = lanes.
static LLVM::LoopAnnotationAttr vectorizeWidth(MLIRContext *context,
                                               int64_t lanes) {
  return LLVM::LoopAnnotationAttr::get(
      context, /*disableNonforced=*/nullptr,
      LLVM::LoopVectorizeAttr::get(
          context, /*disable=*/BoolAttr::get(context, false),
          /*predicateEnable=*/nullptr, /*scalableEnable=*/
          BoolAttr::get(context, false),
          IntegerAttr::get(IntegerType::get(context, 32), lanes),
          /*followupVectorized=*/nullptr, /*followupEpilogue=*/nullptr,
          /*followupAll=*/nullptr),
      /*interleave=*/nullptr, /*unroll=*/nullptr, /*unrollAndJam=*/nullptr,
      /*licm=*/nullptr, /*distribute=*/nullptr, /*pipeline=*/nullptr,
      /*peeled=*/nullptr, /*unswitch=*/nullptr, /*mustProgress=*/nullptr,
      /*isVectorized=*/nullptr, /*startLoc=*/nullptr, /*endLoc=*/nullptr,
      /*parallelAccesses=*/{});
}

int64_t requestBf16Vectorization(ModuleOp module, int64_t lanes) {
  MLIRContext *context = module.getContext();
  int64_t marked = 0;
  module.walk([&](scf::ForOp loop) {
    bool innermost = true, converts = false, scalar = true;
    loop.getBody()->walk([&](Operation *op) {
      if (isa<scf::ForOp, scf::WhileOp>(op))
        innermost = false;
      converts |= convertsBf16(op);
      for (Type type : op->getResultTypes())
        scalar &= !isa<VectorType>(type);
    });
    if (!innermost || !converts || !scalar)
      return;
    // A short loop of known length (a narrow conv's 8 channels) gets the
    // widest power of two that fits, so that its vector body runs at all;
    // below 4 lanes LLVM's own choice is as good.
    int64_t width = lanes;
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (lower && upper && step && *step > 0) {
      int64_t trips = (*upper - *lower + *step - 1) / *step;
      while (width > trips)
        width /= 2;
    }
    if (width < 4)
      return;
    loop->setAttr(kLoopAnnotationAttr, vectorizeWidth(context, width));
    ++marked;
  });
  return marked;
}

void applyLoopAnnotations(ModuleOp module) {
  module.walk([](Operation *op) {
    auto annotation =
        op->getAttrOfType<LLVM::LoopAnnotationAttr>(kLoopAnnotationAttr);
    if (!annotation)
      return;
    op->removeAttr(kLoopAnnotationAttr);
    if (auto br = dyn_cast<LLVM::BrOp>(op))
      br.setLoopAnnotationAttr(annotation);
    else if (auto condBr = dyn_cast<LLVM::CondBrOp>(op))
      condBr.setLoopAnnotationAttr(annotation);
  });
}

} // namespace mlir::kiln::cpu
