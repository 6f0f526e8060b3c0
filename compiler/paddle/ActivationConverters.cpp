//===- ActivationConverters.cpp - relu, hardswish, gelu, prelu, ... -------===//
//
// Paddle's activations as formulas of Kiln ops, with Paddle's parameters:
//   relu6(x)        = clip(x, 0, threshold)        (threshold = 6)
//   hard_swish(x)   = x * clip(x + offset, 0, threshold) / scale
//                     (legacy attrs; 3, 6, 6 as PIR's hardswish fixes them)
//   hard_sigmoid(x) = clip(slope * x + offset, 0, 1)
//   swish(x)        = x * sigmoid(beta * x)        (beta = 1; silu alike)
//   leaky_relu(x)   = x >= 0 ? x : alpha * x
//   prelu(x)        = x >= 0 ? x : alpha * x, alpha per `mode`: all (one
//                     value), channel (per dim 1, or the last dim for
//                     NHWC) or element (one per element of x[0]).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Composer.h"
#include "compiler/paddle/PaddleConverters.h"

using namespace mlir;

namespace mlir::kiln::paddle_import {
namespace {

using Composer = onnx_import::BasicComposer<OpContext>;

template <typename OpTy> LogicalResult convertUnary(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  return ctx.setResult(0, ctx.create<OpTy>(*x));
}

LogicalResult convertRelu6(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  Composer k{ctx};
  return k.finish(k.clip(*x, 0.0, ctx.getFloat("threshold", 6.0)));
}

LogicalResult convertHardSwish(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  double threshold = ctx.getFloat("threshold", 6.0);
  double scale = ctx.getFloat("scale", 6.0);
  double offset = ctx.getFloat("offset", 3.0);
  Composer k{ctx};
  Value gate = k.clip(k.bin<AddOp>(*x, k.c(*x, offset)), 0.0, threshold);
  return k.finish(
      k.bin<DivOp>(k.bin<MulOp>(*x, gate), k.c(*x, scale)));
}

LogicalResult convertHardSigmoid(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  double slope = ctx.getFloat("slope", 0.1666667);
  double offset = ctx.getFloat("offset", 0.5);
  Composer k{ctx};
  Value v = k.bin<AddOp>(k.bin<MulOp>(*x, k.c(*x, slope)), k.c(*x, offset));
  return k.finish(k.clip(v, 0.0, 1.0));
}

LogicalResult convertSwish(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  double beta = ctx.getFloat("beta", 1.0);
  Composer k{ctx};
  Value arg = beta == 1.0 ? *x : k.bin<MulOp>(*x, k.c(*x, beta));
  return k.finish(k.bin<MulOp>(*x, k.un<SigmoidOp>(arg)));
}

LogicalResult convertGelu(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  GeluApproximation approximation = ctx.getBool("approximate", false)
                                        ? GeluApproximation::tanh
                                        : GeluApproximation::none;
  return ctx.setResult(
      0, ctx.create<GeluOp>(
             *x, {ctx.named("approximate",
                            GeluApproximationAttr::get(ctx.getContext(),
                                                       approximation))}));
}

LogicalResult convertLeakyRelu(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  double alpha =
      ctx.getFloat(ctx.isPir() ? "negative_slope" : "alpha", 0.02);
  Composer k{ctx};
  Value zero = k.c(*x, 0.0);
  return k.finish(k.select(k.cmp(CompareDirection::ge, *x, zero), *x,
                           k.bin<MulOp>(*x, k.c(*x, alpha))));
}

/// prelu: legacy X, Alpha; PIR x, alpha; attrs mode, data_format.
LogicalResult convertPrelu(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  auto alpha = ctx.required("Alpha", 1);
  if (failed(x) || failed(alpha))
    return failure();
  RankedTensorType type = ctx.typeOf(*x);
  int64_t rank = type.getRank();
  std::string mode = ctx.getString("mode", "all");
  std::string format = ctx.getString("data_format", "NCHW");
  int64_t count = ctx.typeOf(*alpha).getNumElements();
  llvm::SmallVector<int64_t> shape;
  if (mode == "all") {
    shape.assign(rank, 1);
  } else if (mode == "channel") {
    shape.assign(rank, 1);
    if (rank < 2)
      return ctx.error() << "prelu mode 'channel' needs rank >= 2, got "
                         << type;
    shape[format == "NHWC" ? rank - 1 : 1] = count;
  } else if (mode == "element") {
    shape.assign(type.getShape().begin(), type.getShape().end());
    shape[0] = 1;
  } else {
    return ctx.error() << "prelu mode '" << mode << "' is not supported";
  }
  Composer k{ctx};
  Value a = k.check(reshapeTo(ctx, *alpha, shape));
  Value zero = k.c(*x, 0.0);
  return k.finish(k.select(k.cmp(CompareDirection::ge, *x, zero), *x,
                           k.bin<MulOp>(*x, a)));
}

const ConverterInfo kConverters[] = {
    {"relu", convertUnary<ReluOp>},
    {"pd_op.relu", convertUnary<ReluOp>},
    {"pd_op.relu_", convertUnary<ReluOp>},
    {"sigmoid", convertUnary<SigmoidOp>},
    {"pd_op.sigmoid", convertUnary<SigmoidOp>},
    {"tanh", convertUnary<TanhOp>},
    {"pd_op.tanh", convertUnary<TanhOp>},
    {"exp", convertUnary<ExpOp>},
    {"pd_op.exp", convertUnary<ExpOp>},
    {"log", convertUnary<LogOp>},
    {"pd_op.log", convertUnary<LogOp>},
    {"sqrt", convertUnary<SqrtOp>},
    {"pd_op.sqrt", convertUnary<SqrtOp>},
    {"rsqrt", convertUnary<RsqrtOp>},
    {"pd_op.rsqrt", convertUnary<RsqrtOp>},
    {"abs", convertUnary<AbsOp>},
    {"pd_op.abs", convertUnary<AbsOp>},
    {"floor", convertUnary<FloorOp>},
    {"pd_op.floor", convertUnary<FloorOp>},
    {"ceil", convertUnary<CeilOp>},
    {"pd_op.ceil", convertUnary<CeilOp>},
    {"erf", convertUnary<ErfOp>},
    {"pd_op.erf", convertUnary<ErfOp>},
    {"sin", convertUnary<SinOp>},
    {"pd_op.sin", convertUnary<SinOp>},
    {"cos", convertUnary<CosOp>},
    {"pd_op.cos", convertUnary<CosOp>},
    {"reciprocal", convertUnary<ReciprocalOp>},
    {"pd_op.reciprocal", convertUnary<ReciprocalOp>},
    {"relu6", convertRelu6},
    {"pd_op.relu6", convertRelu6},
    {"hard_swish", convertHardSwish},
    {"pd_op.hardswish", convertHardSwish},
    {"hard_sigmoid", convertHardSigmoid},
    {"pd_op.hardsigmoid", convertHardSigmoid},
    {"swish", convertSwish},
    {"silu", convertSwish},
    {"pd_op.swish", convertSwish},
    {"pd_op.silu", convertSwish},
    {"gelu", convertGelu},
    {"pd_op.gelu", convertGelu},
    {"leaky_relu", convertLeakyRelu},
    {"pd_op.leaky_relu", convertLeakyRelu},
    {"pd_op.leaky_relu_", convertLeakyRelu},
    {"prelu", convertPrelu},
    {"pd_op.prelu", convertPrelu},
};

} // namespace

llvm::ArrayRef<ConverterInfo> getActivationConverters() { return kConverters; }

} // namespace mlir::kiln::paddle_import
