//===- MathConverters.cpp - matmul, fc, elementwise, scale, clip, cast ----===//
//
// * matmul (v1: transpose_X/Y and alpha), matmul_v2 (trans_x/y) and PIR
//   matmul (transpose_x/y) transpose the last two dims and use kiln.matmul.
// * fc flattens its input at `in_num_col_dims`, multiplies by W [K, N],
//   adds Bias and applies `activation_type`.
// * Legacy elementwise_* ops broadcast Paddle's way: with `axis` = k (not
//   -1) Y's dims line up with X's dims from k on, so Y is reshaped to
//   [1]*k + Y.shape + [1]*(rank(X) - k - rank(Y)) before the (numpy)
//   broadcasting Kiln ops do. PIR's add/subtract/... broadcast like numpy.
// * scale is x*scale + bias (bias_after_scale) or (x + bias)*scale.
// * dropout in inference: upscale_in_train is the identity,
//   downgrade_in_infer multiplies by 1 - p.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Composer.h"
#include "compiler/paddle/PaddleConverters.h"

using namespace mlir;

namespace mlir::kiln::paddle_import {
namespace {

using Composer = onnx_import::BasicComposer<OpContext>;

FailureOr<Value> transposeLastTwo(OpContext &ctx, Value v) {
  int64_t rank = ctx.typeOf(v).getRank();
  if (rank < 2)
    return v; // a vector is its own transpose
  llvm::SmallVector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    perm.push_back(i);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return ctx.transpose(v, perm);
}

/// The two operands of a binary op: legacy slots X and Y, PIR operands 0
/// and 1; an error naming a missing one.
struct XY {
  Value x, y;
};
FailureOr<XY> requiredXY(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  auto y = ctx.required("Y", 1);
  if (failed(x) || failed(y))
    return failure();
  return XY{*x, *y};
}

LogicalResult matmulWith(OpContext &ctx, llvm::StringRef transX,
                         llvm::StringRef transY) {
  auto operands = requiredXY(ctx);
  if (failed(operands))
    return failure();
  auto [a, b] = *operands;
  if (ctx.getBool(transX, false)) {
    auto t = transposeLastTwo(ctx, a);
    if (failed(t))
      return failure();
    a = *t;
  }
  if (ctx.getBool(transY, false)) {
    auto t = transposeLastTwo(ctx, b);
    if (failed(t))
      return failure();
    b = *t;
  }
  Composer k{ctx};
  Value out = k.op<MatmulOp>({a, b});
  double alpha = ctx.getFloat("alpha", 1.0);
  if (alpha != 1.0)
    out = k.bin<MulOp>(out, k.c(out, alpha));
  return k.finish(out);
}

LogicalResult convertMatmulV1(OpContext &ctx) {
  return matmulWith(ctx, "transpose_X", "transpose_Y");
}
LogicalResult convertMatmulV2(OpContext &ctx) {
  return matmulWith(ctx, "trans_x", "trans_y");
}
LogicalResult convertPirMatmul(OpContext &ctx) {
  return matmulWith(ctx, "transpose_x", "transpose_y");
}

/// Legacy fc: Input, W, Bias; in_num_col_dims, activation_type.
LogicalResult convertFc(OpContext &ctx) {
  auto x = ctx.required("Input", 0);
  auto w = ctx.required("W", 1);
  if (failed(x) || failed(w))
    return failure();
  Value bias = ctx.in("Bias", 2);
  RankedTensorType type = ctx.typeOf(*x);
  auto cols = normalizeAxis(ctx, ctx.getInt("in_num_col_dims", 1),
                            type.getRank(), "in_num_col_dims");
  if (failed(cols))
    return failure();
  llvm::SmallVector<int64_t> outer(type.getShape().take_front(*cols));
  int64_t inner = 1;
  for (int64_t d : type.getShape().drop_front(*cols)) {
    if (ShapedType::isDynamic(d))
      return ctx.error() << "needs static dims after in_num_col_dims, got "
                         << type;
    inner *= d;
  }
  int64_t rows = 1;
  for (int64_t d : outer)
    rows = ShapedType::isDynamic(d) || ShapedType::isDynamic(rows)
               ? ShapedType::kDynamic
               : rows * d;
  auto flat = reshapeTo(ctx, *x, {rows, inner});
  if (failed(flat))
    return failure();
  Composer k{ctx};
  Value out = k.op<MatmulOp>({*flat, *w});
  if (bias)
    out = k.bin<AddOp>(out, bias);
  if (!k.ready({out}))
    return failure();
  int64_t n = ctx.typeOf(out).getDimSize(1);
  llvm::SmallVector<int64_t> shape(outer);
  shape.push_back(n);
  out = k.check(reshapeTo(ctx, out, shape));
  std::string activation = ctx.getString("activation_type", "");
  if (activation == "relu")
    out = k.un<ReluOp>(out);
  else if (!activation.empty())
    return ctx.error() << "activation_type '" << activation
                       << "' is not supported";
  return k.finish(out);
}

/// Paddle's `axis` broadcasting of Y against X (legacy elementwise ops).
FailureOr<Value> alignY(OpContext &ctx, Value x, Value y) {
  int64_t axis = ctx.getInt("axis", -1);
  int64_t rx = ctx.typeOf(x).getRank(), ry = ctx.typeOf(y).getRank();
  if (axis == -1 || rx == ry)
    return y;
  if (ry > rx) // Paddle then aligns X against Y; numpy order is the same
    return y;  // as long as X's dims are trailing, which axis = -1 covers.
  if (axis < 0)
    axis += rx;
  RankedTensorType yType = ctx.typeOf(y);
  llvm::SmallVector<int64_t> yShape(yType.getShape());
  // Paddle drops Y's trailing 1-dims when they would not fit.
  while (!yShape.empty() && axis + static_cast<int64_t>(yShape.size()) > rx &&
         yShape.back() == 1)
    yShape.pop_back();
  if (axis < 0 || axis + static_cast<int64_t>(yShape.size()) > rx)
    return ctx.error() << "axis " << ctx.getInt("axis", -1)
                       << " does not fit Y " << yType << " into X "
                       << ctx.typeOf(x);
  llvm::SmallVector<int64_t> shape(axis, 1);
  shape.append(yShape.begin(), yShape.end());
  shape.resize(rx, 1);
  return reshapeTo(ctx, y, shape);
}

/// X and Y of an elementwise op, Y aligned to X by the legacy `axis` (PIR
/// ops broadcast like numpy and have no `axis`).
FailureOr<XY> binaryOperands(OpContext &ctx) {
  auto operands = requiredXY(ctx);
  if (failed(operands) || ctx.isPir())
    return operands;
  auto aligned = alignY(ctx, operands->x, operands->y);
  if (failed(aligned))
    return failure();
  return XY{operands->x, *aligned};
}

template <typename OpTy> LogicalResult convertElementwise(OpContext &ctx) {
  auto operands = binaryOperands(ctx);
  if (failed(operands))
    return failure();
  return ctx.setResult(0, ctx.create<OpTy>({operands->x, operands->y}));
}

/// floor(x / y) for floor_divide (integers in Paddle's models).
LogicalResult convertFloorDivide(OpContext &ctx) {
  auto operands = binaryOperands(ctx);
  if (failed(operands))
    return failure();
  auto [x, y] = *operands;
  if (llvm::isa<FloatType>(ctx.typeOf(x).getElementType())) {
    Composer k{ctx};
    return k.finish(k.un<FloorOp>(k.bin<DivOp>(x, y)));
  }
  // Paddle's integer floor_divide floors; kiln.div truncates. Both agree
  // on the non-negative shape arithmetic exports use it for; negative
  // operands are rejected by nothing here, so say so in the table.
  return ctx.setResult(0, ctx.create<DivOp>({x, y}));
}

/// scale: legacy X (+ScaleTensor), attrs scale/bias/bias_after_scale; PIR
/// x, scale operand.
LogicalResult convertScale(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  auto scale = ctx.floatFromAttrOrOperand("scale", 1.0, "ScaleTensor",
                                          std::optional<unsigned>(1));
  if (failed(scale))
    return failure();
  double bias = ctx.getFloat("bias", 0.0);
  bool after = ctx.getBool("bias_after_scale", true);
  Composer k{ctx};
  Value v = *x;
  if (!after && bias != 0.0)
    v = k.bin<AddOp>(v, k.c(v, bias));
  if (*scale != 1.0)
    v = k.bin<MulOp>(v, k.c(v, *scale));
  if (after && bias != 0.0)
    v = k.bin<AddOp>(v, k.c(v, bias));
  return k.finish(v);
}

/// pow with a scalar exponent: legacy X + factor (or FactorTensor); PIR
/// x + y attribute.
LogicalResult convertPowScalar(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  auto exponent = ctx.floatFromAttrOrOperand(ctx.isPir() ? "y" : "factor", 1.0,
                                             "FactorTensor", std::nullopt);
  if (failed(exponent))
    return failure();
  Composer k{ctx};
  return k.finish(k.bin<PowOp>(*x, k.c(*x, *exponent)));
}

/// clip: legacy X (+Min/Max tensors), attrs min/max; PIR x, min, max.
LogicalResult convertClip(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  auto lo = ctx.floatFromAttrOrOperand("min", -3.4e38, "Min",
                                       std::optional<unsigned>(1));
  auto hi = ctx.floatFromAttrOrOperand("max", 3.4e38, "Max",
                                       std::optional<unsigned>(2));
  if (failed(lo) || failed(hi))
    return failure();
  Composer k{ctx};
  return k.finish(k.clip(*x, *lo, *hi));
}

LogicalResult convertCast(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  auto to = ctx.getDType(ctx.isPir() ? "dtype" : "out_dtype");
  if (failed(to))
    return failure();
  return ctx.setResult(0, ctx.cast(*x, *to));
}

/// dropout at inference (legacy X + dropout_prob / dropout_implementation;
/// PIR x, seed_tensor, p + mode).
LogicalResult convertDropout(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  std::string mode = ctx.getString(
      ctx.isPir() ? "mode" : "dropout_implementation", "downgrade_in_infer");
  if (mode == "upscale_in_train") {
    ctx.setResult(0, *x);
    return success();
  }
  auto p = ctx.floatFromAttrOrOperand("dropout_prob", 0.5, "",
                                      std::optional<unsigned>(2));
  if (failed(p))
    return failure();
  Composer k{ctx};
  return k.finish(k.bin<MulOp>(*x, k.c(*x, 1.0 - *p)));
}

LogicalResult convertSoftmax(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  auto axis = normalizeAxis(ctx, ctx.getInt("axis", -1),
                            ctx.typeOf(*x).getRank());
  if (failed(axis))
    return failure();
  return ctx.setResult(
      0, ctx.create<SoftmaxOp>(
             *x, {ctx.named("axis", ctx.builder.getI64IntegerAttr(*axis))}));
}

/// reduce_mean / reduce_sum / ... (legacy X, dim, keep_dim, reduce_all;
/// PIR x, axis operand, keepdim).
template <ReduceKind kind> LogicalResult convertReduce(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  int64_t rank = ctx.typeOf(*x).getRank();
  auto given = ctx.intsFromAttrOrOperand(ctx.isPir() ? "axis" : "dim", {},
                                         std::optional<unsigned>(1));
  if (failed(given))
    return failure();
  llvm::SmallVector<int64_t> axes;
  bool all = ctx.getBool("reduce_all", false) || !*given || (*given)->empty();
  for (int64_t i = 0; all && i < rank; ++i)
    axes.push_back(i);
  if (!all)
    for (int64_t a : **given) {
      auto n = normalizeAxis(ctx, a, rank);
      if (failed(n))
        return failure();
      axes.push_back(*n);
    }
  bool keep = ctx.getBool(ctx.isPir() ? "keepdim" : "keep_dim", false);
  return ctx.setResult(0, ctx.reduce(kind, *x, axes, keep));
}

const ConverterInfo kConverters[] = {
    {"matmul", convertMatmulV1},
    {"matmul_v2", convertMatmulV2},
    {"pd_op.matmul", convertPirMatmul},
    {"fc", convertFc},
    {"elementwise_add", convertElementwise<AddOp>},
    {"elementwise_sub", convertElementwise<SubOp>},
    {"elementwise_mul", convertElementwise<MulOp>},
    {"elementwise_div", convertElementwise<DivOp>},
    {"elementwise_max", convertElementwise<MaxOp>},
    {"elementwise_min", convertElementwise<MinOp>},
    {"elementwise_pow", convertElementwise<PowOp>},
    {"elementwise_mod", convertElementwise<RemOp>},
    {"elementwise_floordiv", convertFloorDivide},
    {"pd_op.add", convertElementwise<AddOp>},
    {"pd_op.add_", convertElementwise<AddOp>},
    {"pd_op.subtract", convertElementwise<SubOp>},
    {"pd_op.subtract_", convertElementwise<SubOp>},
    {"pd_op.multiply", convertElementwise<MulOp>},
    {"pd_op.multiply_", convertElementwise<MulOp>},
    {"pd_op.divide", convertElementwise<DivOp>},
    {"pd_op.divide_", convertElementwise<DivOp>},
    {"pd_op.maximum", convertElementwise<MaxOp>},
    {"pd_op.minimum", convertElementwise<MinOp>},
    {"pd_op.elementwise_pow", convertElementwise<PowOp>},
    {"pd_op.remainder", convertElementwise<RemOp>},
    {"pd_op.floor_divide", convertFloorDivide},
    {"scale", convertScale},
    {"pd_op.scale", convertScale},
    {"pd_op.scale_", convertScale},
    {"pow", convertPowScalar},
    {"pd_op.pow", convertPowScalar},
    {"clip", convertClip},
    {"pd_op.clip", convertClip},
    {"pd_op.clip_", convertClip},
    {"cast", convertCast},
    {"pd_op.cast", convertCast},
    {"pd_op.cast_", convertCast},
    {"dropout", convertDropout},
    {"pd_op.dropout", convertDropout},
    {"softmax", convertSoftmax},
    {"pd_op.softmax", convertSoftmax},
    {"pd_op.softmax_", convertSoftmax},
    {"reduce_mean", convertReduce<ReduceKind::mean>},
    {"reduce_sum", convertReduce<ReduceKind::sum>},
    {"reduce_max", convertReduce<ReduceKind::max>},
    {"reduce_min", convertReduce<ReduceKind::min>},
    {"pd_op.mean", convertReduce<ReduceKind::mean>},
    {"pd_op.sum", convertReduce<ReduceKind::sum>},
    {"pd_op.max", convertReduce<ReduceKind::max>},
    {"pd_op.min", convertReduce<ReduceKind::min>},
};

} // namespace

llvm::ArrayRef<ConverterInfo> getMathConverters() { return kConverters; }

} // namespace mlir::kiln::paddle_import
