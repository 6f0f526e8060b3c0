//===- ElementwiseToLinalg.cpp - Lowering of Kiln elementwise ops ---------===//
//
// Every elementwise Kiln op becomes one all-parallel linalg.generic that
// reads its operands with NumPy broadcasting; later, elementwise fusion
// merges chains of them into one loop nest. Constants become
// arith.constant.
//
//===----------------------------------------------------------------------===//
#include "passes/lowering/KilnToLinalg.h"
#include "passes/lowering/LoweringUtils.h"

#include "dialects/kiln/KilnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <algorithm>
#include <cmath>

namespace mlir::kiln {
namespace {

bool isFloat(Type type) { return isa<FloatType>(type); }

// Lowers an op whose result is computed element by element from its
// operands by `Compute`.
template <typename OpTy>
class ElementwisePattern : public OpRewritePattern<OpTy> {
public:
  using Compute = std::function<Value(OpTy, OpBuilder &, Location,
                                      ValueRange)>;
  ElementwisePattern(MLIRContext *ctx, Compute compute)
      : OpRewritePattern<OpTy>(ctx), compute(std::move(compute)) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Value result = buildElementwise(
        rewriter, op.getLoc(), resultType, op->getOperands(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return compute(op, b, loc, args);
        });
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  Compute compute;
};

template <typename OpTy, typename Fn>
void add(RewritePatternSet &patterns, Fn fn) {
  patterns.add<ElementwisePattern<OpTy>>(
      patterns.getContext(),
      [fn](OpTy op, OpBuilder &b, Location loc, ValueRange args) {
        return fn(op, b, loc, args);
      });
}

// A unary op with one float and one integer form.
template <typename OpTy, typename FloatOp>
void addFloatUnary(RewritePatternSet &patterns) {
  add<OpTy>(patterns, [](OpTy, OpBuilder &b, Location loc, ValueRange args) {
    return FloatOp::create(b, loc, args[0]).getResult();
  });
}

template <typename OpTy, typename FloatOp, typename IntOp>
void addBinary(RewritePatternSet &patterns) {
  add<OpTy>(patterns, [](OpTy, OpBuilder &b, Location loc, ValueRange args) {
    if (isFloat(args[0].getType()))
      return FloatOp::create(b, loc, args[0], args[1]).getResult();
    return IntOp::create(b, loc, args[0], args[1]).getResult();
  });
}

// Integer division never traps: x86's idiv raises SIGFPE for a zero
// divisor and for INT_MIN / -1, and a model's data must not crash the
// process that runs it. ONNX leaves both undefined; Kiln defines
// x / 0 = 0 and x % 0 = x (so x == (x / y) * y + x % y still holds), and
// x / -1 = -x with two's-complement wrap-around (INT_MIN / -1 = INT_MIN),
// x % -1 = 0. The divisor is made safe before the division, so the
// guarded lanes never reach it.
Value guardedIntegerDivision(OpBuilder &b, Location loc, Value x, Value y,
                             bool remainder) {
  Type type = y.getType();
  Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 0));
  Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 1));
  Value minusOne =
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, -1));
  Value byZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
  Value byMinusOne =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, minusOne);
  Value unsafe = arith::OrIOp::create(b, loc, byZero, byMinusOne);
  Value safe = arith::SelectOp::create(b, loc, unsafe, one, y);
  if (remainder) {
    // x % 1 is already 0, the answer for y = -1.
    Value r = arith::RemSIOp::create(b, loc, x, safe);
    return arith::SelectOp::create(b, loc, byZero, x, r);
  }
  Value q = arith::DivSIOp::create(b, loc, x, safe);
  Value negated = arith::SubIOp::create(b, loc, zero, x);
  q = arith::SelectOp::create(b, loc, byMinusOne, negated, q);
  return arith::SelectOp::create(b, loc, byZero, zero, q);
}

Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Type type = x.getType();
  Value one = scalarConstant(b, loc, type, 1.0);
  Value negExp = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, negExp));
}

Value gelu(OpBuilder &b, Location loc, Value x, bool useTanh) {
  Type type = x.getType();
  Value half = scalarConstant(b, loc, type, 0.5);
  Value one = scalarConstant(b, loc, type, 1.0);
  Value inner;
  if (useTanh) {
    Value cube = arith::MulFOp::create(b, loc, x, arith::MulFOp::create(b, loc, x, x));
    Value poly = arith::AddFOp::create(
        b, loc, x,
        arith::MulFOp::create(b, loc, scalarConstant(b, loc, type, 0.044715),
                              cube));
    inner = math::TanhOp::create(
        b, loc,
        arith::MulFOp::create(
            b, loc, scalarConstant(b, loc, type, std::sqrt(2.0 / M_PI)), poly));
  } else {
    inner = math::ErfOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, x,
                              scalarConstant(b, loc, type, M_SQRT1_2)));
  }
  Value cdf = arith::MulFOp::create(b, loc, half,
                                    arith::AddFOp::create(b, loc, one, inner));
  return arith::MulFOp::create(b, loc, x, cdf);
}

Value cast(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  bool fromFloat = isFloat(from), toFloat = isFloat(to);
  if (to.isInteger(1)) {
    if (fromFloat)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x,
                                   scalarConstant(b, loc, from, 0.0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x,
                                 scalarConstant(b, loc, from, 0.0));
  }
  if (fromFloat && toFloat) {
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, to, x);
    if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
      return arith::TruncFOp::create(b, loc, to, x);
    // f16 <-> bf16: through f32.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    return arith::TruncFOp::create(b, loc, to, wide);
  }
  if (fromFloat)
    return arith::FPToSIOp::create(b, loc, to, x);
  if (toFloat) {
    if (from.isInteger(1))
      return arith::UIToFPOp::create(b, loc, to, x);
    return arith::SIToFPOp::create(b, loc, to, x);
  }
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (fromWidth < toWidth)
    return from.isInteger(1) ? arith::ExtUIOp::create(b, loc, to, x).getResult()
                             : arith::ExtSIOp::create(b, loc, to, x).getResult();
  return arith::TruncIOp::create(b, loc, to, x);
}

Value compare(OpBuilder &b, Location loc, CompareDirection direction,
              Value lhs, Value rhs) {
  if (isFloat(lhs.getType())) {
    // Ordered predicates, except != which is true when either is NaN.
    // The switch covers every direction; the initial value only keeps
    // GCC's maybe-uninitialized analysis quiet.
    arith::CmpFPredicate predicate = arith::CmpFPredicate::OEQ;
    switch (direction) {
    case CompareDirection::eq: predicate = arith::CmpFPredicate::OEQ; break;
    case CompareDirection::ne: predicate = arith::CmpFPredicate::UNE; break;
    case CompareDirection::lt: predicate = arith::CmpFPredicate::OLT; break;
    case CompareDirection::le: predicate = arith::CmpFPredicate::OLE; break;
    case CompareDirection::gt: predicate = arith::CmpFPredicate::OGT; break;
    case CompareDirection::ge: predicate = arith::CmpFPredicate::OGE; break;
    }
    return arith::CmpFOp::create(b, loc, predicate, lhs, rhs);
  }
  // i1 compares as unsigned (false < true); other integers are signed.
  bool isBool = lhs.getType().isInteger(1);
  arith::CmpIPredicate predicate = arith::CmpIPredicate::eq; // as above
  switch (direction) {
  case CompareDirection::eq: predicate = arith::CmpIPredicate::eq; break;
  case CompareDirection::ne: predicate = arith::CmpIPredicate::ne; break;
  case CompareDirection::lt:
    predicate = isBool ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
    break;
  case CompareDirection::le:
    predicate = isBool ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
    break;
  case CompareDirection::gt:
    predicate = isBool ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
    break;
  case CompareDirection::ge:
    predicate = isBool ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
    break;
  }
  return arith::CmpIOp::create(b, loc, predicate, lhs, rhs);
}

class ConstantPattern : public OpRewritePattern<ConstantOp> {
public:
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConstantOp op,
                                PatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return failure();
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

} // namespace

void populateElementwiseToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ConstantPattern>(patterns.getContext());

  add<AbsOp>(patterns, [](AbsOp, OpBuilder &b, Location loc, ValueRange a) {
    if (isFloat(a[0].getType()))
      return math::AbsFOp::create(b, loc, a[0]).getResult();
    return math::AbsIOp::create(b, loc, a[0]).getResult();
  });
  add<NegOp>(patterns, [](NegOp, OpBuilder &b, Location loc, ValueRange a) {
    if (isFloat(a[0].getType()))
      return arith::NegFOp::create(b, loc, a[0]).getResult();
    Value zero = scalarConstant(b, loc, a[0].getType(), 0);
    return arith::SubIOp::create(b, loc, zero, a[0]).getResult();
  });
  add<SignOp>(patterns, [](SignOp, OpBuilder &b, Location loc, ValueRange a) {
    Type type = a[0].getType();
    Value zero = scalarConstant(b, loc, type, 0);
    Value one = scalarConstant(b, loc, type, 1);
    Value minusOne = scalarConstant(b, loc, type, -1);
    Value positive = compare(b, loc, CompareDirection::gt, a[0], zero);
    Value negative = compare(b, loc, CompareDirection::lt, a[0], zero);
    Value inner = arith::SelectOp::create(b, loc, negative, minusOne, zero);
    // NaN stays NaN for floats: neither branch is taken, so pass x through.
    if (isFloat(type)) {
      Value isNan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                          a[0], a[0]);
      inner = arith::SelectOp::create(b, loc, isNan, a[0], inner);
    }
    return arith::SelectOp::create(b, loc, positive, one, inner).getResult();
  });
  add<ReluOp>(patterns, [](ReluOp, OpBuilder &b, Location loc, ValueRange a) {
    Value zero = scalarConstant(b, loc, a[0].getType(), 0);
    if (isFloat(a[0].getType()))
      return arith::MaxNumFOp::create(b, loc, a[0], zero).getResult();
    return arith::MaxSIOp::create(b, loc, a[0], zero).getResult();
  });
  add<SigmoidOp>(patterns, [](SigmoidOp, OpBuilder &b, Location loc,
                              ValueRange a) { return sigmoid(b, loc, a[0]); });
  addFloatUnary<TanhOp, math::TanhOp>(patterns);
  addFloatUnary<ExpOp, math::ExpOp>(patterns);
  addFloatUnary<LogOp, math::LogOp>(patterns);
  addFloatUnary<SqrtOp, math::SqrtOp>(patterns);
  addFloatUnary<RsqrtOp, math::RsqrtOp>(patterns);
  addFloatUnary<ErfOp, math::ErfOp>(patterns);
  addFloatUnary<FloorOp, math::FloorOp>(patterns);
  addFloatUnary<CeilOp, math::CeilOp>(patterns);
  addFloatUnary<RoundOp, math::RoundEvenOp>(patterns);
  addFloatUnary<SinOp, math::SinOp>(patterns);
  addFloatUnary<CosOp, math::CosOp>(patterns);
  add<ReciprocalOp>(patterns, [](ReciprocalOp, OpBuilder &b, Location loc,
                                 ValueRange a) {
    Value one = scalarConstant(b, loc, a[0].getType(), 1.0);
    return arith::DivFOp::create(b, loc, one, a[0]).getResult();
  });
  add<NotOp>(patterns, [](NotOp, OpBuilder &b, Location loc, ValueRange a) {
    Value one = scalarConstant(b, loc, a[0].getType(), 1);
    return arith::XOrIOp::create(b, loc, a[0], one).getResult();
  });
  add<GeluOp>(patterns, [](GeluOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
    return gelu(b, loc, a[0], op.getApproximate() == GeluApproximation::tanh);
  });
  add<ClipOp>(patterns, [](ClipOp op, OpBuilder &b, Location loc,
                           ValueRange a) {
    Value x = a[0];
    Type type = x.getType();
    // Integer bounds saturate to the type's range instead of wrapping.
    auto bound = [&](double value) {
      if (auto intType = dyn_cast<IntegerType>(type)) {
        unsigned width = intType.getWidth();
        double lo = width >= 64 ? -9.2e18 : -std::ldexp(1.0, width - 1);
        double hi = width >= 64 ? 9.2e18 : std::ldexp(1.0, width - 1) - 1;
        value = std::clamp(value, lo, hi);
      }
      return scalarConstant(b, loc, type, value);
    };
    // min is applied first, so min > max yields max (as ONNX does).
    if (auto min = op.getMinAttr())
      x = scalarMax(b, loc, x, bound(min.getValueAsDouble()));
    if (auto max = op.getMaxAttr())
      x = scalarMin(b, loc, x, bound(max.getValueAsDouble()));
    return x;
  });
  add<CastOp>(patterns, [](CastOp op, OpBuilder &b, Location loc,
                           ValueRange a) { return cast(b, loc, a[0], op.getTo()); });

  addBinary<AddOp, arith::AddFOp, arith::AddIOp>(patterns);
  addBinary<SubOp, arith::SubFOp, arith::SubIOp>(patterns);
  addBinary<MulOp, arith::MulFOp, arith::MulIOp>(patterns);
  add<DivOp>(patterns, [](DivOp, OpBuilder &b, Location loc, ValueRange a) {
    if (isFloat(a[0].getType()))
      return arith::DivFOp::create(b, loc, a[0], a[1]).getResult();
    return guardedIntegerDivision(b, loc, a[0], a[1], /*remainder=*/false);
  });
  add<RemOp>(patterns, [](RemOp, OpBuilder &b, Location loc, ValueRange a) {
    if (isFloat(a[0].getType()))
      return arith::RemFOp::create(b, loc, a[0], a[1]).getResult();
    return guardedIntegerDivision(b, loc, a[0], a[1], /*remainder=*/true);
  });
  addBinary<PowOp, math::PowFOp, math::IPowIOp>(patterns);
  add<MaxOp>(patterns, [](MaxOp, OpBuilder &b, Location loc, ValueRange a) {
    return scalarMax(b, loc, a[0], a[1]);
  });
  add<MinOp>(patterns, [](MinOp, OpBuilder &b, Location loc, ValueRange a) {
    return scalarMin(b, loc, a[0], a[1]);
  });
  add<AndOp>(patterns, [](AndOp, OpBuilder &b, Location loc, ValueRange a) {
    return arith::AndIOp::create(b, loc, a[0], a[1]).getResult();
  });
  add<OrOp>(patterns, [](OrOp, OpBuilder &b, Location loc, ValueRange a) {
    return arith::OrIOp::create(b, loc, a[0], a[1]).getResult();
  });
  add<XorOp>(patterns, [](XorOp, OpBuilder &b, Location loc, ValueRange a) {
    return arith::XOrIOp::create(b, loc, a[0], a[1]).getResult();
  });
  add<CompareOp>(patterns, [](CompareOp op, OpBuilder &b, Location loc,
                              ValueRange a) {
    return compare(b, loc, op.getDirection(), a[0], a[1]);
  });
  add<SelectOp>(patterns, [](SelectOp, OpBuilder &b, Location loc,
                             ValueRange a) {
    return arith::SelectOp::create(b, loc, a[0], a[1], a[2]).getResult();
  });
}

} // namespace mlir::kiln
