//===- ElementwiseOps.cpp - Kiln elementwise ops --------------------------===//
//
// Unary math, gelu, clip, cast, the broadcasting binary ops, compare and
// select: their type inference, verifiers and folders.
//
//===----------------------------------------------------------------------===//

#include "dialects/kiln/ConstantFolding.h"
#include "dialects/kiln/KilnDialect.h"
#include "dialects/kiln/OpHelpers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// Folds a unary op whose float function is `floatFn` (no integer form).
OpFoldResult foldFloatUnary(Attribute operand, Type resultType,
                            llvm::function_ref<std::optional<double>(double)> fn) {
  return foldUnary(operand, llvm::cast<RankedTensorType>(resultType), fn,
                   nullptr);
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

} // namespace

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getInput(), getType(),
      [](double x) -> std::optional<double> { return std::fabs(x); },
      [](int64_t x) -> std::optional<int64_t> { return x < 0 ? -x : x; });
}

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  // neg(neg(x)) -> x
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return inner.getInput();
  return foldUnary(
      adaptor.getInput(), getType(),
      [](double x) -> std::optional<double> { return -x; },
      [](int64_t x) -> std::optional<int64_t> { return -x; });
}

OpFoldResult SignOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getInput(), getType(),
      [](double x) -> std::optional<double> {
        return std::isnan(x) ? x : static_cast<double>((x > 0) - (x < 0));
      },
      [](int64_t x) -> std::optional<int64_t> { return (x > 0) - (x < 0); });
}

OpFoldResult ReluOp::fold(FoldAdaptor adaptor) {
  // relu is idempotent.
  if (getInput().getDefiningOp<ReluOp>())
    return getInput();
  return foldUnary(
      adaptor.getInput(), getType(),
      [](double x) -> std::optional<double> { return x > 0 ? x : 0.0; },
      [](int64_t x) -> std::optional<int64_t> { return x > 0 ? x : 0; });
}

OpFoldResult SigmoidOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getInput(), getType(),
                        [](double x) -> std::optional<double> { return sigmoid(x); });
}

OpFoldResult TanhOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getInput(), getType(),
                        [](double x) -> std::optional<double> { return std::tanh(x); });
}

OpFoldResult ExpOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getInput(), getType(),
                        [](double x) -> std::optional<double> { return std::exp(x); });
}

OpFoldResult LogOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getInput(), getType(),
                        [](double x) -> std::optional<double> { return std::log(x); });
}

OpFoldResult SqrtOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getInput(), getType(),
                        [](double x) -> std::optional<double> { return std::sqrt(x); });
}

OpFoldResult RsqrtOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(
      adaptor.getInput(), getType(),
      [](double x) -> std::optional<double> { return 1.0 / std::sqrt(x); });
}

OpFoldResult ReciprocalOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getInput(), getType(),
                        [](double x) -> std::optional<double> { return 1.0 / x; });
}

OpFoldResult ErfOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getInput(), getType(),
                        [](double x) -> std::optional<double> { return std::erf(x); });
}

OpFoldResult FloorOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getInput(), getType(),
                        [](double x) -> std::optional<double> { return std::floor(x); });
}

OpFoldResult CeilOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getInput(), getType(),
                        [](double x) -> std::optional<double> { return std::ceil(x); });
}

OpFoldResult RoundOp::fold(FoldAdaptor adaptor) {
  // std::nearbyint rounds half to even in the default rounding mode, as
  // ONNX Round requires.
  return foldFloatUnary(
      adaptor.getInput(), getType(),
      [](double x) -> std::optional<double> { return std::nearbyint(x); });
}

OpFoldResult SinOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getInput(), getType(),
                        [](double x) -> std::optional<double> { return std::sin(x); });
}

OpFoldResult CosOp::fold(FoldAdaptor adaptor) {
  return foldFloatUnary(adaptor.getInput(), getType(),
                        [](double x) -> std::optional<double> { return std::cos(x); });
}

OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getInput().getDefiningOp<NotOp>())
    return inner.getInput();
  return foldUnary(adaptor.getInput(), getType(), nullptr,
                   [](int64_t x) -> std::optional<int64_t> { return x == 0; });
}

//===----------------------------------------------------------------------===//
// GeluOp
//===----------------------------------------------------------------------===//

OpFoldResult GeluOp::fold(FoldAdaptor adaptor) {
  bool useTanh = getApproximate() == GeluApproximation::tanh;
  return foldFloatUnary(
      adaptor.getInput(), getType(), [useTanh](double x) -> std::optional<double> {
        if (useTanh) {
          const double kSqrt2OverPi = 0.7978845608028654;
          return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
        }
        return 0.5 * x * (1.0 + std::erf(x * 0.7071067811865476));
      });
}

//===----------------------------------------------------------------------===//
// ClipOp
//===----------------------------------------------------------------------===//

LogicalResult ClipOp::verify() {
  std::optional<double> min = getMin() ? std::optional<double>(getMin()->convertToDouble())
                                       : std::nullopt;
  std::optional<double> max = getMax() ? std::optional<double>(getMax()->convertToDouble())
                                       : std::nullopt;
  if (min && max && *min > *max)
    return emitOpError("min (") << *min << ") is greater than max (" << *max << ")";
  return success();
}

OpFoldResult ClipOp::fold(FoldAdaptor adaptor) {
  if (!getMin() && !getMax())
    return getInput();
  double lo = getMin() ? getMin()->convertToDouble() : -INFINITY;
  double hi = getMax() ? getMax()->convertToDouble() : INFINITY;
  return foldUnary(
      adaptor.getInput(), getType(),
      [&](double x) -> std::optional<double> {
        return std::isnan(x) ? x : std::min(std::max(x, lo), hi);
      },
      [&](int64_t x) -> std::optional<int64_t> {
        double clamped = std::min(std::max(static_cast<double>(x), lo), hi);
        return static_cast<int64_t>(clamped);
      });
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<CastOp>(context, loc, adaptor)))
    return failure();
  auto inputType = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  types.push_back(inputType.clone(adaptor.getTo()));
  return success();
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  std::optional<ConstantTensor> input = readConstant(adaptor.getInput());
  if (!input)
    return {};
  Type to = getTo();
  auto resultType = llvm::cast<RankedTensorType>(getType());
  if (llvm::isa<FloatType>(to)) {
    if (input->isFloat)
      return writeFloats(resultType, input->floats);
    std::vector<double> values(input->ints.begin(), input->ints.end());
    return writeFloats(resultType, values);
  }
  if (to.isInteger(1)) {
    std::vector<int64_t> values;
    if (input->isFloat) {
      for (double x : input->floats)
        values.push_back(x != 0.0);
    } else {
      for (int64_t x : input->ints)
        values.push_back(x != 0);
    }
    return writeInts(resultType, values);
  }
  if (!input->isFloat)
    return writeInts(resultType, input->ints);
  // Float to integer truncates toward zero; out-of-range values and NaN are
  // undefined in ONNX, so they are left for the run time rather than folded.
  unsigned width = to.getIntOrFloatBitWidth();
  double limit = std::ldexp(1.0, static_cast<int>(width) - 1);
  std::vector<int64_t> values;
  for (double x : input->floats) {
    double truncated = std::trunc(x);
    if (std::isnan(x) || truncated < -limit || truncated >= limit)
      return {};
    values.push_back(static_cast<int64_t>(truncated));
  }
  return writeInts(resultType, values);
}

//===----------------------------------------------------------------------===//
// Binary ops
//===----------------------------------------------------------------------===//

namespace {

/// Type inference shared by every broadcasting binary op: same element
/// type, broadcast shapes, result element type `resultElement` (or the
/// operands' when null).
LogicalResult inferBroadcastBinary(std::optional<Location> loc, StringRef opName,
                                   Value lhs, Value rhs, Type resultElement,
                                   SmallVectorImpl<Type> &types) {
  if (failed(checkSameElementType(loc, opName, "lhs", lhs.getType(), "rhs",
                                  rhs.getType())))
    return failure();
  auto lhsType = llvm::cast<RankedTensorType>(lhs.getType());
  auto rhsType = llvm::cast<RankedTensorType>(rhs.getType());
  return pushInferredType(
      loc, opName, shape::broadcast(lhsType.getShape(), rhsType.getShape()),
      resultElement ? resultElement : lhsType.getElementType(), types);
}

/// `x op identity -> x` when the identity operand does not change the
/// result's shape (it may still broadcast `x` to a larger shape).
Value foldIdentityOperand(Value keep, Attribute other, double identity,
                          Type resultType) {
  if (keep.getType() == resultType && isSplatOf(other, identity))
    return keep;
  return {};
}

} // namespace

#define KILN_BINARY_INFER(OpClass)                                             \
  LogicalResult OpClass::inferReturnTypes(                                     \
      MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,      \
      SmallVectorImpl<Type> &types) {                                          \
    if (failed(prepareForInference<OpClass>(context, loc, adaptor)))           \
      return failure();                                                        \
    return inferBroadcastBinary(loc, getOperationName(), adaptor.getLhs(),     \
                                adaptor.getRhs(), Type(), types);              \
  }

KILN_BINARY_INFER(AddOp)
KILN_BINARY_INFER(SubOp)
KILN_BINARY_INFER(MulOp)
KILN_BINARY_INFER(DivOp)
KILN_BINARY_INFER(RemOp)
KILN_BINARY_INFER(PowOp)
KILN_BINARY_INFER(MaxOp)
KILN_BINARY_INFER(MinOp)
KILN_BINARY_INFER(AndOp)
KILN_BINARY_INFER(OrOp)
KILN_BINARY_INFER(XorOp)

#undef KILN_BINARY_INFER

namespace {

/// Folds a binary arithmetic op with float and integer forms.
OpFoldResult foldArithmetic(
    Attribute lhs, Attribute rhs, Type resultType,
    llvm::function_ref<std::optional<double>(double, double)> floatFn,
    llvm::function_ref<std::optional<int64_t>(int64_t, int64_t)> intFn) {
  auto type = llvm::cast<RankedTensorType>(resultType);
  if (llvm::isa<FloatType>(type.getElementType()))
    return foldBinaryFloat(lhs, rhs, type, floatFn);
  return foldBinaryInt(lhs, rhs, type, intFn);
}

// Integer arithmetic wraps in two's complement like the generated code;
// compute in uint64 to keep the wrap-around defined.
int64_t wrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t wrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t wrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

} // namespace

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (Value x = foldIdentityOperand(getLhs(), adaptor.getRhs(), 0.0, getType()))
    return x;
  if (Value x = foldIdentityOperand(getRhs(), adaptor.getLhs(), 0.0, getType()))
    return x;
  return foldArithmetic(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) -> std::optional<double> { return a + b; },
      [](int64_t a, int64_t b) -> std::optional<int64_t> { return wrapAdd(a, b); });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (Value x = foldIdentityOperand(getLhs(), adaptor.getRhs(), 0.0, getType()))
    return x;
  return foldArithmetic(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) -> std::optional<double> { return a - b; },
      [](int64_t a, int64_t b) -> std::optional<int64_t> { return wrapSub(a, b); });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (Value x = foldIdentityOperand(getLhs(), adaptor.getRhs(), 1.0, getType()))
    return x;
  if (Value x = foldIdentityOperand(getRhs(), adaptor.getLhs(), 1.0, getType()))
    return x;
  return foldArithmetic(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) -> std::optional<double> { return a * b; },
      [](int64_t a, int64_t b) -> std::optional<int64_t> { return wrapMul(a, b); });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (Value x = foldIdentityOperand(getLhs(), adaptor.getRhs(), 1.0, getType()))
    return x;
  return foldArithmetic(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) -> std::optional<double> { return a / b; },
      [](int64_t a, int64_t b) -> std::optional<int64_t> {
        // Division by zero and INT64_MIN / -1 have no defined result.
        if (b == 0 || (b == -1 && a == std::numeric_limits<int64_t>::min()))
          return std::nullopt;
        return a / b;
      });
}

OpFoldResult RemOp::fold(FoldAdaptor adaptor) {
  return foldArithmetic(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) -> std::optional<double> { return std::fmod(a, b); },
      [](int64_t a, int64_t b) -> std::optional<int64_t> {
        if (b == 0 || (b == -1 && a == std::numeric_limits<int64_t>::min()))
          return std::nullopt;
        return a % b;
      });
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  if (Value x = foldIdentityOperand(getLhs(), adaptor.getRhs(), 1.0, getType()))
    return x;
  return foldArithmetic(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) -> std::optional<double> { return std::pow(a, b); },
      [](int64_t base, int64_t exponent) -> std::optional<int64_t> {
        if (exponent < 0)
          return std::nullopt;
        int64_t result = 1;
        for (int64_t i = 0; i < exponent && i < 64; ++i)
          result = wrapMul(result, base);
        return exponent >= 64 && base != 1 && base != 0 && base != -1
                   ? std::nullopt
                   : std::optional<int64_t>(result);
      });
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldArithmetic(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) -> std::optional<double> {
        return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
      },
      [](int64_t a, int64_t b) -> std::optional<int64_t> { return std::max(a, b); });
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  return foldArithmetic(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) -> std::optional<double> {
        return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
      },
      [](int64_t a, int64_t b) -> std::optional<int64_t> { return std::min(a, b); });
}

OpFoldResult AndOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  if (Value x = foldIdentityOperand(getLhs(), adaptor.getRhs(), 1.0, getType()))
    return x;
  if (Value x = foldIdentityOperand(getRhs(), adaptor.getLhs(), 1.0, getType()))
    return x;
  return foldBinaryInt(adaptor.getLhs(), adaptor.getRhs(), getType(),
                       [](int64_t a, int64_t b) -> std::optional<int64_t> {
                         return a && b;
                       });
}

OpFoldResult OrOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs())
    return getLhs();
  if (Value x = foldIdentityOperand(getLhs(), adaptor.getRhs(), 0.0, getType()))
    return x;
  if (Value x = foldIdentityOperand(getRhs(), adaptor.getLhs(), 0.0, getType()))
    return x;
  return foldBinaryInt(adaptor.getLhs(), adaptor.getRhs(), getType(),
                       [](int64_t a, int64_t b) -> std::optional<int64_t> {
                         return a || b;
                       });
}

OpFoldResult XorOp::fold(FoldAdaptor adaptor) {
  if (Value x = foldIdentityOperand(getLhs(), adaptor.getRhs(), 0.0, getType()))
    return x;
  if (Value x = foldIdentityOperand(getRhs(), adaptor.getLhs(), 0.0, getType()))
    return x;
  return foldBinaryInt(adaptor.getLhs(), adaptor.getRhs(), getType(),
                       [](int64_t a, int64_t b) -> std::optional<int64_t> {
                         return (a != 0) != (b != 0);
                       });
}

//===----------------------------------------------------------------------===//
// CompareOp
//===----------------------------------------------------------------------===//

LogicalResult CompareOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<CompareOp>(context, loc, adaptor)))
    return failure();
  return inferBroadcastBinary(loc, getOperationName(), adaptor.getLhs(),
                              adaptor.getRhs(), IntegerType::get(context, 1),
                              types);
}

namespace {

template <typename T>
bool compareValues(CompareDirection direction, T a, T b) {
  switch (direction) {
  case CompareDirection::eq:
    return a == b;
  case CompareDirection::ne:
    return a != b;
  case CompareDirection::lt:
    return a < b;
  case CompareDirection::le:
    return a <= b;
  case CompareDirection::gt:
    return a > b;
  case CompareDirection::ge:
    return a >= b;
  }
  return false;
}

} // namespace

OpFoldResult CompareOp::fold(FoldAdaptor adaptor) {
  CompareDirection direction = getDirection();
  auto type = llvm::cast<RankedTensorType>(getType());
  if (llvm::isa<FloatType>(getLhs().getType().getElementType()))
    return foldBinaryFloat(adaptor.getLhs(), adaptor.getRhs(), type,
                           [direction](double a, double b) -> std::optional<double> {
                             return compareValues(direction, a, b) ? 1.0 : 0.0;
                           });
  return foldBinaryInt(adaptor.getLhs(), adaptor.getRhs(), type,
                       [direction](int64_t a, int64_t b) -> std::optional<int64_t> {
                         return compareValues(direction, a, b);
                       });
}

//===----------------------------------------------------------------------===//
// SelectOp
//===----------------------------------------------------------------------===//

LogicalResult SelectOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<SelectOp>(context, loc, adaptor)))
    return failure();
  if (failed(checkSameElementType(loc, getOperationName(), "on_true",
                                  adaptor.getOnTrue().getType(), "on_false",
                                  adaptor.getOnFalse().getType())))
    return failure();
  auto condition = llvm::cast<RankedTensorType>(adaptor.getCondition().getType());
  auto onTrue = llvm::cast<RankedTensorType>(adaptor.getOnTrue().getType());
  auto onFalse = llvm::cast<RankedTensorType>(adaptor.getOnFalse().getType());
  return pushInferredType(
      loc, getOperationName(),
      shape::broadcast({condition.getShape(), onTrue.getShape(), onFalse.getShape()}),
      onTrue.getElementType(), types);
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  Type type = getType();
  if (getOnTrue() == getOnFalse() && getOnTrue().getType() == type)
    return getOnTrue();
  if (isSplatOf(adaptor.getCondition(), 1.0) && getOnTrue().getType() == type)
    return getOnTrue();
  if (isSplatOf(adaptor.getCondition(), 0.0) && getOnFalse().getType() == type)
    return getOnFalse();
  std::optional<ConstantTensor> condition = readConstant(adaptor.getCondition());
  std::optional<ConstantTensor> onTrue = readConstant(adaptor.getOnTrue());
  std::optional<ConstantTensor> onFalse = readConstant(adaptor.getOnFalse());
  auto resultType = llvm::cast<RankedTensorType>(type);
  if (!condition || !onTrue || !onFalse || !isFoldableResult(resultType))
    return {};
  ArrayRef<int64_t> shape = resultType.getShape();
  SmallVector<int64_t> c = broadcastSourceIndices(condition->type.getShape(), shape);
  SmallVector<int64_t> t = broadcastSourceIndices(onTrue->type.getShape(), shape);
  SmallVector<int64_t> f = broadcastSourceIndices(onFalse->type.getShape(), shape);
  if (onTrue->isFloat) {
    std::vector<double> values;
    for (size_t i = 0; i < c.size(); ++i)
      values.push_back(condition->intAt(c[i]) ? onTrue->floatAt(t[i])
                                              : onFalse->floatAt(f[i]));
    return writeFloats(resultType, values);
  }
  std::vector<int64_t> values;
  for (size_t i = 0; i < c.size(); ++i)
    values.push_back(condition->intAt(c[i]) ? onTrue->intAt(t[i])
                                            : onFalse->intAt(f[i]));
  return writeInts(resultType, values);
}
