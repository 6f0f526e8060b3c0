//===- ActivationConverters.cpp - ONNX activations composed of Kiln ops ---===//
//
// Kiln has relu, sigmoid, tanh and gelu as ops; the other ONNX activations
// are written with elementwise Kiln ops, following the formulas of the ONNX
// operator documentation. Constants are rank-0 tensors of the input's
// element type, which broadcast against anything.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Composer.h"
#include "compiler/onnx/ConverterRegistry.h"

using namespace mlir;

namespace mlir::kiln::onnx_import {
namespace {

using Formula = Value (*)(Composer &, Value, NodeContext &);

template <Formula formula>
LogicalResult convertActivation(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  Composer k{ctx};
  return k.finish(formula(k, ctx.input(0), ctx));
}

// elu: x if x > 0 else alpha * (exp(x) - 1)
Value elu(Composer &k, Value x, NodeContext &ctx) {
  double alpha = ctx.getFloat("alpha", 1.0f);
  Value neg = k.bin<MulOp>(k.c(x, alpha), k.bin<SubOp>(k.un<ExpOp>(x), k.c(x, 1)));
  return k.select(k.cmp(CompareDirection::gt, x, k.c(x, 0)), x, neg);
}

// selu: gamma * (x if x > 0 else alpha * exp(x) - alpha)
Value selu(Composer &k, Value x, NodeContext &ctx) {
  double alpha = ctx.getFloat("alpha", 1.67326319217681884765625f);
  double gamma = ctx.getFloat("gamma", 1.05070102214813232421875f);
  Value neg = k.bin<SubOp>(k.bin<MulOp>(k.c(x, alpha), k.un<ExpOp>(x)), k.c(x, alpha));
  Value y = k.select(k.cmp(CompareDirection::gt, x, k.c(x, 0)), x, neg);
  return k.bin<MulOp>(k.c(x, gamma), y);
}

// celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
Value celu(Composer &k, Value x, NodeContext &ctx) {
  double alpha = ctx.getFloat("alpha", 1.0f);
  Value e = k.bin<SubOp>(k.un<ExpOp>(k.bin<DivOp>(x, k.c(x, alpha))), k.c(x, 1));
  Value neg = k.bin<MinOp>(k.c(x, 0), k.bin<MulOp>(k.c(x, alpha), e));
  return k.bin<AddOp>(k.bin<MaxOp>(k.c(x, 0), x), neg);
}

// leaky relu: x if x >= 0 else alpha * x
Value leakyRelu(Composer &k, Value x, NodeContext &ctx) {
  double alpha = ctx.getFloat("alpha", 0.01f);
  return k.select(k.cmp(CompareDirection::lt, x, k.c(x, 0)),
                  k.bin<MulOp>(k.c(x, alpha), x), x);
}

// hard sigmoid: clip(alpha * x + beta, 0, 1)
Value hardSigmoid(Composer &k, Value x, NodeContext &ctx) {
  double alpha = ctx.getFloat("alpha", 0.2f), beta = ctx.getFloat("beta", 0.5f);
  return k.clip(k.bin<AddOp>(k.bin<MulOp>(k.c(x, alpha), x), k.c(x, beta)), 0, 1);
}

// hard swish: x * hard_sigmoid(x) with alpha = 1/6, beta = 0.5
Value hardSwish(Composer &k, Value x, NodeContext &) {
  Value hs = k.clip(k.bin<AddOp>(k.bin<MulOp>(k.c(x, 1.0 / 6.0), x), k.c(x, 0.5)), 0, 1);
  return k.bin<MulOp>(x, hs);
}

// softplus: log(exp(x) + 1)
Value softplus(Composer &k, Value x, NodeContext &) {
  return k.un<LogOp>(k.bin<AddOp>(k.un<ExpOp>(x), k.c(x, 1)));
}

// softsign: x / (1 + |x|)
Value softsign(Composer &k, Value x, NodeContext &) {
  return k.bin<DivOp>(x, k.bin<AddOp>(k.c(x, 1), k.un<AbsOp>(x)));
}

// mish: x * tanh(softplus(x))
Value mish(Composer &k, Value x, NodeContext &ctx) {
  return k.bin<MulOp>(x, k.un<TanhOp>(softplus(k, x, ctx)));
}

// thresholded relu: x if x > alpha else 0
Value thresholdedRelu(Composer &k, Value x, NodeContext &ctx) {
  double alpha = ctx.getFloat("alpha", 1.0f);
  return k.select(k.cmp(CompareDirection::gt, x, k.c(x, alpha)), x, k.c(x, 0));
}

// shrink: x + bias if x < -lambd, x - bias if x > lambd, else 0
Value shrink(Composer &k, Value x, NodeContext &ctx) {
  double bias = ctx.getFloat("bias", 0.0f), lambd = ctx.getFloat("lambd", 0.5f);
  Value above = k.select(k.cmp(CompareDirection::gt, x, k.c(x, lambd)),
                         k.bin<SubOp>(x, k.c(x, bias)), k.c(x, 0));
  return k.select(k.cmp(CompareDirection::lt, x, k.c(x, -lambd)),
                  k.bin<AddOp>(x, k.c(x, bias)), above);
}

LogicalResult convertPRelu(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  Composer k{ctx};
  Value x = ctx.input(0), slope = ctx.input(1);
  RankedTensorType xType = ctx.inputType(0), slopeType = ctx.inputType(1);
  int64_t rank = xType.getRank();
  if (ctx.opset < 7) {
    // PRelu-6 and older have no NumPy broadcasting: a slope of one element is
    // shared, and a slope of shape [C] is per channel (axis 1), as old
    // PyTorch exports it. Reshape [C] to [C, 1, ..., 1] so that NumPy
    // broadcasting aligns it with axis 1.
    if (slopeType.getRank() == 1 && rank >= 3 &&
        slopeType.getDimSize(0) != 1) {
      int64_t channels = xType.getDimSize(1);
      if (!ShapedType::isDynamic(channels) &&
          !ShapedType::isDynamic(slopeType.getDimSize(0)) &&
          slopeType.getDimSize(0) != channels)
        return ctx.error() << "slope of shape " << slopeType
                           << " matches neither one element nor the "
                           << channels << " channels (axis 1) of the input "
                           << xType << " (opset " << ctx.opset
                           << " broadcasts per channel)";
      llvm::SmallVector<int64_t> shape(rank - 1, 1);
      shape[0] = ShapedType::isDynamic(slopeType.getDimSize(0))
                     ? -1
                     : slopeType.getDimSize(0);
      slope = k.reshape(slope, shape);
    }
  } else {
    // From opset 7 the slope broadcasts unidirectionally to the input: the
    // result keeps the input's shape.
    bool fits = slopeType.getRank() <= rank;
    for (int64_t i = 0; fits && i < slopeType.getRank(); ++i) {
      int64_t s = slopeType.getDimSize(slopeType.getRank() - 1 - i);
      int64_t d = xType.getDimSize(rank - 1 - i);
      fits = s == 1 || s == d || ShapedType::isDynamic(s) ||
             ShapedType::isDynamic(d);
    }
    if (!fits)
      return ctx.error() << "slope of shape " << slopeType
                         << " does not broadcast to the input's shape "
                         << xType << " (PRelu broadcasts the slope one way)";
  }
  return k.finish(k.select(k.cmp(CompareDirection::lt, x, k.c(x, 0)),
                           k.bin<MulOp>(slope, x), x));
}

LogicalResult convertGelu(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  std::string approximate = ctx.getString("approximate", "none");
  GeluApproximation kind;
  if (approximate == "none")
    kind = GeluApproximation::none;
  else if (approximate == "tanh")
    kind = GeluApproximation::tanh;
  else
    return ctx.error() << "unknown approximate '" << approximate
                       << "' (expected 'none' or 'tanh')";
  return ctx.setResult(0, ctx.create<GeluOp>(
      ctx.input(0),
      {ctx.named("approximate",
                 GeluApproximationAttr::get(ctx.getContext(), kind))}));
}

const ConverterInfo kConverters[] = {
    {"Elu", convertActivation<elu>},
    {"Selu", convertActivation<selu>},
    {"Celu", convertActivation<celu>, 12},
    {"LeakyRelu", convertActivation<leakyRelu>},
    {"HardSigmoid", convertActivation<hardSigmoid>},
    {"HardSwish", convertActivation<hardSwish>, 14},
    {"Softplus", convertActivation<softplus>},
    {"Softsign", convertActivation<softsign>},
    {"Mish", convertActivation<mish>, 18},
    {"ThresholdedRelu", convertActivation<thresholdedRelu>, 10},
    {"Shrink", convertActivation<shrink>, 9},
    {"PRelu", convertPRelu},
    {"Gelu", convertGelu, 20},
};

} // namespace

llvm::ArrayRef<ConverterInfo> getActivationConverters() { return kConverters; }

} // namespace mlir::kiln::onnx_import
