//===- ElementwiseConverters.cpp - ONNX elementwise math and logic --------===//
//
// Unary and broadcasting binary ops, comparisons, Where, Cast, Clip, Mod and
// the variadic Max/Min/Sum/Mean. Opsets before 7 spell broadcasting with a
// `broadcast` attribute and an `axis`; those operands are reshaped to NumPy
// form first.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ConverterRegistry.h"
#include "compiler/onnx/TensorDecoding.h"

#include <cmath>

using namespace mlir;

namespace mlir::kiln::onnx_import {
namespace {

template <typename OpTy>
LogicalResult convertUnary(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  return ctx.setResult(0, ctx.create<OpTy>(ctx.input(0)));
}

/// The second operand of a binary op in NumPy broadcasting form. Opset 6
/// (and older) only broadcast with `broadcast = 1`, aligning `rhs` at
/// `axis` of `lhs` instead of at the back.
FailureOr<Value> legacyBroadcastRhs(NodeContext &ctx, Value lhs, Value rhs) {
  if (ctx.opset >= 7 || ctx.getInt("broadcast", 0) == 0 || !ctx.hasAttr("axis"))
    return rhs;
  int64_t lhsRank = llvm::cast<RankedTensorType>(lhs.getType()).getRank();
  auto rhsType = llvm::cast<RankedTensorType>(rhs.getType());
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.getInt("axis", 0), lhsRank);
  if (failed(axis))
    return failure();
  int64_t trailing = lhsRank - *axis - rhsType.getRank();
  if (trailing <= 0)
    return rhs;
  llvm::SmallVector<int64_t> shape;
  for (int64_t d : rhsType.getShape())
    shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  shape.append(trailing, 1);
  return ctx.reshape(rhs, shape);
}

template <typename OpTy>
LogicalResult convertBinary(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  FailureOr<Value> rhs = legacyBroadcastRhs(ctx, ctx.input(0), ctx.input(1));
  if (failed(rhs))
    return failure();
  return ctx.setResult(0, ctx.create<OpTy>({ctx.input(0), *rhs}));
}

template <CompareDirection direction>
LogicalResult convertCompare(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  FailureOr<Value> rhs = legacyBroadcastRhs(ctx, ctx.input(0), ctx.input(1));
  if (failed(rhs))
    return failure();
  return ctx.setResult(0, ctx.compare(direction, ctx.input(0), *rhs));
}

/// Max, Min, Sum, Mean: one or more inputs, folded left to right.
template <typename OpTy, bool isMean = false>
LogicalResult convertVariadic(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  Value acc = ctx.input(0);
  for (unsigned i = 1; i < ctx.numInputs(); ++i) {
    FailureOr<Value> next = ctx.create<OpTy>({acc, ctx.input(i)});
    if (failed(next))
      return failure();
    acc = *next;
  }
  if (isMean && ctx.numInputs() > 1) {
    FailureOr<Value> mean =
        ctx.create<DivOp>({acc, ctx.scalarLike(acc, ctx.numInputs())});
    if (failed(mean))
      return failure();
    acc = *mean;
  }
  ctx.setResult(0, acc);
  return success();
}

LogicalResult convertPow(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  Value base = ctx.input(0);
  FailureOr<Value> exponent = legacyBroadcastRhs(ctx, base, ctx.input(1));
  if (failed(exponent))
    return failure();
  // From opset 12 the exponent may have another type; Kiln's pow takes one.
  Type baseElement = ctx.inputType(0).getElementType();
  if (llvm::cast<ShapedType>(exponent->getType()).getElementType() !=
      baseElement) {
    exponent = ctx.create<CastOp>(*exponent,
                                  {ctx.named("to", TypeAttr::get(baseElement))});
    if (failed(exponent))
      return failure();
  }
  return ctx.setResult(0, ctx.create<PowOp>({base, *exponent}));
}

/// Mod with fmod = 1 is C fmod (kiln.rem). With fmod = 0 (integers only)
/// the result takes the sign of the divisor, as Python's %: the remainder
/// is corrected by adding the divisor where it is non-zero and its sign
/// differs from the divisor's.
LogicalResult convertMod(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  Value lhs = ctx.input(0), rhs = ctx.input(1);
  FailureOr<Value> rem = ctx.create<RemOp>({lhs, rhs});
  if (failed(rem))
    return failure();
  if (ctx.getInt("fmod", 0) == 1) {
    ctx.setResult(0, *rem);
    return success();
  }
  if (llvm::isa<FloatType>(ctx.inputType(0).getElementType()))
    return ctx.error() << "fmod = 0 is only defined for integer inputs; "
                          "floating-point Mod requires fmod = 1";
  Value zero = ctx.scalarLike(lhs, 0);
  FailureOr<Value> remNonZero = ctx.compare(CompareDirection::ne, *rem, zero);
  FailureOr<Value> remNegative = ctx.compare(CompareDirection::lt, *rem, zero);
  FailureOr<Value> rhsNegative = ctx.compare(CompareDirection::lt, rhs, zero);
  if (failed(remNonZero) || failed(remNegative) || failed(rhsNegative))
    return failure();
  FailureOr<Value> signsDiffer =
      ctx.create<XorOp>({*remNegative, *rhsNegative});
  if (failed(signsDiffer))
    return failure();
  FailureOr<Value> fix = ctx.create<AndOp>({*remNonZero, *signsDiffer});
  FailureOr<Value> corrected = ctx.create<AddOp>({*rem, rhs});
  if (failed(fix) || failed(corrected))
    return failure();
  return ctx.setResult(0, ctx.create<SelectOp>({*fix, *corrected, *rem}));
}

LogicalResult convertWhere(NodeContext &ctx) {
  if (failed(ctx.requireInputs(3)))
    return failure();
  FailureOr<Value> result =
      ctx.create<SelectOp>({ctx.input(0), ctx.input(1), ctx.input(2)});
  if (failed(result))
    return failure();
  ctx.setResult(0, *result);
  return success();
}

LogicalResult castTo(NodeContext &ctx, Type elementType) {
  FailureOr<Value> result =
      ctx.create<CastOp>(ctx.input(0), {ctx.named("to", TypeAttr::get(elementType))});
  if (failed(result))
    return failure();
  ctx.setResult(0, *result);
  return success();
}

LogicalResult convertCast(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  if (!ctx.hasAttr("to"))
    return ctx.error() << "requires attribute 'to'";
  if (ctx.getInt("saturate", 1) == 0)
    return ctx.error() << "saturate = 0 applies to float8 types, which Kiln "
                          "does not handle";
  FailureOr<Type> to = convertElementType(
      ctx.getContext(), ctx.getInt("to", 0),
      ctx.outputUsed(0) ? ctx.node.output(0) : ctx.displayName, ctx.loc);
  if (failed(to))
    return failure();
  if (ctx.getInt("to", 0) == onnx::TensorProto::UINT8) {
    // uint8 is held biased (u8 - 128): through i32, minus 128, wrapped
    // into i8.
    Type i32 = IntegerType::get(ctx.getContext(), 32);
    FailureOr<Value> wide =
        ctx.create<CastOp>(ctx.input(0), {ctx.named("to", TypeAttr::get(i32))});
    if (failed(wide))
      return failure();
    FailureOr<Value> biased =
        ctx.create<SubOp>({*wide, ctx.scalar(i32, 128)});
    if (failed(biased))
      return failure();
    if (failed(ctx.setResult(
            0, ctx.create<CastOp>(*biased, {ctx.named("to", TypeAttr::get(*to))}))))
      return failure();
    ctx.markUnsigned8(0);
    return success();
  }
  return castTo(ctx, *to);
}

LogicalResult convertCastLike(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  return castTo(ctx, ctx.inputType(1).getElementType());
}

/// Clip: bounds are attributes up to opset 10 and optional inputs (which
/// must be constant here) from opset 11.
LogicalResult convertClip(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  std::optional<double> bounds[2];
  const char *names[2] = {"min", "max"};
  for (unsigned k = 0; k < 2; ++k) {
    if (ctx.opset < 11) {
      if (ctx.hasAttr(names[k]))
        bounds[k] = ctx.getFloat(names[k], 0);
      continue;
    }
    // From opset 11 the bounds are optional inputs 1 and 2.
    if (!ctx.hasInput(k + 1))
      continue;
    FailureOr<llvm::SmallVector<double>> bound =
        ctx.constantFloats(k + 1, names[k]);
    if (failed(bound))
      return failure();
    if (bound->size() != 1)
      return ctx.error() << names[k] << " must be a scalar";
    bounds[k] = bound->front();
  }
  // ONNX defines min > max as every element becoming max (min(max(x, lo),
  // hi)); kiln.clip requires min <= max, so the lower bound moves up.
  if (bounds[0] && bounds[1] && *bounds[0] > *bounds[1])
    bounds[0] = bounds[1];
  llvm::SmallVector<NamedAttribute> attrs;
  for (unsigned k = 0; k < 2; ++k)
    if (bounds[k])
      attrs.push_back(
          ctx.named(names[k], ctx.builder.getF64FloatAttr(*bounds[k])));
  return ctx.setResult(0, ctx.create<ClipOp>(ctx.input(0), attrs));
}

/// IsNaN: x != x, which is true exactly for NaN (kiln.compare `ne` on floats
/// is unordered). Integer inputs are not allowed by ONNX.
LogicalResult convertIsNaN(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  Value x = ctx.input(0);
  if (!llvm::isa<FloatType>(ctx.inputType(0).getElementType()))
    return ctx.error() << "input must be a floating-point tensor, got "
                       << ctx.inputType(0);
  return ctx.setResult(0, ctx.compare(CompareDirection::ne, x, x));
}

/// IsInf: x == +inf and/or x == -inf as `detect_positive` /
/// `detect_negative` ask (both by default); with both off, all false.
LogicalResult convertIsInf(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  Value x = ctx.input(0);
  if (!llvm::isa<FloatType>(ctx.inputType(0).getElementType()))
    return ctx.error() << "input must be a floating-point tensor, got "
                       << ctx.inputType(0);
  bool positive = ctx.getInt("detect_positive", 1) != 0;
  bool negative = ctx.getInt("detect_negative", 1) != 0;
  if (positive && negative) {
    FailureOr<Value> magnitude = ctx.create<AbsOp>(x);
    if (failed(magnitude))
      return failure();
    return ctx.setResult(0, ctx.compare(CompareDirection::eq, *magnitude,
                                        ctx.scalarLike(x, INFINITY)));
  }
  if (positive || negative)
    return ctx.setResult(
        0, ctx.compare(CompareDirection::eq, x,
                       ctx.scalarLike(x, positive ? INFINITY : -INFINITY)));
  // Neither sign asked for: false everywhere (x != x would be true for NaN,
  // x < x is false for every value including NaN).
  return ctx.setResult(0, ctx.compare(CompareDirection::lt, x, x));
}

const ConverterInfo kConverters[] = {
    {"Abs", convertUnary<AbsOp>},
    {"Neg", convertUnary<NegOp>},
    {"Sign", convertUnary<SignOp>},
    {"Relu", convertUnary<ReluOp>},
    {"Sigmoid", convertUnary<SigmoidOp>},
    {"Tanh", convertUnary<TanhOp>},
    {"Exp", convertUnary<ExpOp>},
    {"Log", convertUnary<LogOp>},
    {"Sqrt", convertUnary<SqrtOp>},
    {"Reciprocal", convertUnary<ReciprocalOp>},
    {"Erf", convertUnary<ErfOp>},
    {"Floor", convertUnary<FloorOp>},
    {"Ceil", convertUnary<CeilOp>},
    {"Round", convertUnary<RoundOp>},
    {"Sin", convertUnary<SinOp>},
    {"Cos", convertUnary<CosOp>},
    {"Not", convertUnary<NotOp>},
    {"IsNaN", convertIsNaN, 9},
    {"IsInf", convertIsInf, 10},
    {"Add", convertBinary<AddOp>},
    {"Sub", convertBinary<SubOp>},
    {"Mul", convertBinary<MulOp>},
    {"Div", convertBinary<DivOp>},
    {"Pow", convertPow},
    {"Mod", convertMod, 10},
    {"And", convertBinary<AndOp>},
    {"Or", convertBinary<OrOp>},
    {"Xor", convertBinary<XorOp>},
    {"Equal", convertCompare<CompareDirection::eq>},
    {"Less", convertCompare<CompareDirection::lt>},
    {"LessOrEqual", convertCompare<CompareDirection::le>, 12},
    {"Greater", convertCompare<CompareDirection::gt>},
    {"GreaterOrEqual", convertCompare<CompareDirection::ge>, 12},
    {"Where", convertWhere, 9},
    {"Max", convertVariadic<MaxOp>},
    {"Min", convertVariadic<MinOp>},
    {"Sum", convertVariadic<AddOp>},
    {"Mean", convertVariadic<AddOp, /*isMean=*/true>},
    {"Cast", convertCast},
    {"CastLike", convertCastLike, 15},
    {"Clip", convertClip},
};

} // namespace

llvm::ArrayRef<ConverterInfo> getElementwiseConverters() { return kConverters; }

} // namespace mlir::kiln::onnx_import
