//===- NormalizationConverters.cpp - Norms and softmax --------------------===//
//
// BatchNormalization (inference form) and LayerNormalization map to Kiln
// ops (LayerNormalization's Mean and InvStdDev outputs are reductions);
// InstanceNormalization, GroupNormalization and RMSNormalization are
// composed of reductions. Softmax and
// LogSoftmax before opset 13 normalize over the input flattened to 2-D at
// `axis`; from opset 13 over the single dimension `axis`.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Composer.h"
#include "compiler/onnx/ConverterRegistry.h"

#include "llvm/ADT/Sequence.h"

using namespace mlir;

namespace mlir::kiln::onnx_import {
namespace {

LogicalResult convertBatchNorm(NodeContext &ctx) {
  if (failed(ctx.requireInputs(5)) || failed(ctx.requireUnusedOutputsFrom(1)))
    return failure();
  if (ctx.getInt("training_mode", 0) != 0)
    return ctx.error() << "training_mode = 1 is not supported (inference only)";
  if (ctx.opset < 9 && ctx.getInt("spatial", 1) == 0)
    return ctx.error() << "spatial = 0 is not supported";
  return ctx.setResult(0, ctx.create<BatchNormOp>(
      {ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3), ctx.input(4)},
      {ctx.named("epsilon",
                 ctx.builder.getF32FloatAttr(ctx.getFloat("epsilon", 1e-5f)))}));
}

/// Output 0 is kiln.layer_norm. The optional outputs Mean and InvStdDev
/// (keepdims statistics over axes axis..last, of the stash_type, float by
/// default) are composed of reductions, only when the node names them.
LogicalResult convertLayerNorm(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)) || failed(ctx.requireUnusedOutputsFrom(3)))
    return failure();
  double epsilon = ctx.getFloat("epsilon", 1e-5f);
  llvm::SmallVector<Value> operands{ctx.input(0), ctx.input(1)};
  if (ctx.hasInput(2))
    operands.push_back(ctx.input(2));
  if (ctx.outputUsed(0) &&
      failed(ctx.setResult(0, ctx.create<LayerNormOp>(
          operands,
          {ctx.namedInt("axis", ctx.getInt("axis", -1)),
           ctx.named("epsilon", ctx.builder.getF32FloatAttr(epsilon))}))))
    return failure();
  if (!ctx.outputUsed(1) && !ctx.outputUsed(2))
    return success();
  RankedTensorType type = ctx.inputType(0);
  int64_t rank = type.getRank();
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.getInt("axis", -1), rank);
  if (failed(axis))
    return failure();
  Type stashType;
  switch (ctx.getInt("stash_type", 1)) {
  case onnx::TensorProto::FLOAT:
    stashType = ctx.builder.getF32Type();
    break;
  case onnx::TensorProto::FLOAT16:
    stashType = ctx.builder.getF16Type();
    break;
  case onnx::TensorProto::DOUBLE:
    stashType = ctx.builder.getF64Type();
    break;
  case onnx::TensorProto::BFLOAT16:
    stashType = ctx.builder.getBF16Type();
    break;
  default:
    return ctx.error() << "unsupported stash_type "
                       << ctx.getInt("stash_type", 1);
  }
  llvm::SmallVector<int64_t> axes =
      llvm::to_vector(llvm::seq<int64_t>(*axis, rank));
  Composer k{ctx};
  Value x = ctx.input(0);
  if (type.getElementType() != stashType)
    x = k.cast(x, stashType);
  Value mean = k.reduce(ReduceKind::mean, x, axes, true);
  Value centered = k.bin<SubOp>(x, mean);
  Value variance = k.reduce(ReduceKind::mean,
                            k.bin<MulOp>(centered, centered), axes, true);
  Value invStdDev =
      k.un<RsqrtOp>(k.bin<AddOp>(variance, k.c(variance, epsilon)));
  if (k.failedAny || !mean || !invStdDev)
    return failure();
  if (ctx.outputUsed(1))
    ctx.setResult(1, mean);
  if (ctx.outputUsed(2))
    ctx.setResult(2, invStdDev);
  return success();
}

/// x / sqrt(mean(x^2 over axes axis..last) + epsilon) * scale (opset 23).
/// stash_type only sets the precision runtimes compute the statistics in.
LogicalResult convertRmsNorm(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)) || failed(ctx.requireUnusedOutputsFrom(1)))
    return failure();
  int64_t rank = ctx.inputType(0).getRank();
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.getInt("axis", -1), rank);
  if (failed(axis))
    return failure();
  llvm::SmallVector<int64_t> axes =
      llvm::to_vector(llvm::seq<int64_t>(*axis, rank));
  double epsilon = ctx.getFloat("epsilon", 1e-5f);
  Composer k{ctx};
  Value x = ctx.input(0);
  Value meanSquare =
      k.reduce(ReduceKind::mean, k.bin<MulOp>(x, x), axes, true);
  Value inverse =
      k.un<RsqrtOp>(k.bin<AddOp>(meanSquare, k.c(meanSquare, epsilon)));
  return k.finish(k.bin<MulOp>(k.bin<MulOp>(x, inverse), ctx.input(1)));
}

/// (x - mean) / sqrt(var + epsilon) * scale + bias, statistics over the
/// spatial dims of each (n, c); scale and bias [C] are reshaped to
/// [C, 1, ..., 1] to broadcast along dim 1.
LogicalResult convertInstanceNorm(NodeContext &ctx) {
  if (failed(ctx.requireInputs(3)))
    return failure();
  Value x = ctx.input(0);
  int64_t rank = ctx.inputType(0).getRank();
  if (rank < 3)
    return ctx.error() << "expects an input [N, C, D...], got "
                       << ctx.inputType(0);
  llvm::SmallVector<int64_t> axes, channelShape{-1};
  for (int64_t d = 2; d < rank; ++d) {
    axes.push_back(d);
    channelShape.push_back(1);
  }
  FailureOr<Value> mean = ctx.reduce(ReduceKind::mean, x, axes, true);
  if (failed(mean))
    return failure();
  FailureOr<Value> centered = ctx.create<SubOp>({x, *mean});
  if (failed(centered))
    return failure();
  FailureOr<Value> squared = ctx.create<MulOp>({*centered, *centered});
  if (failed(squared))
    return failure();
  FailureOr<Value> variance = ctx.reduce(ReduceKind::mean, *squared, axes, true);
  if (failed(variance))
    return failure();
  double epsilon = ctx.getFloat("epsilon", 1e-5f);
  FailureOr<Value> shifted =
      ctx.create<AddOp>({*variance, ctx.scalarLike(x, epsilon)});
  if (failed(shifted))
    return failure();
  FailureOr<Value> inverse = ctx.create<RsqrtOp>(*shifted);
  if (failed(inverse))
    return failure();
  FailureOr<Value> normalized = ctx.create<MulOp>({*centered, *inverse});
  FailureOr<Value> scale = ctx.reshape(ctx.input(1), channelShape);
  FailureOr<Value> bias = ctx.reshape(ctx.input(2), channelShape);
  if (failed(normalized) || failed(scale) || failed(bias))
    return failure();
  FailureOr<Value> scaled = ctx.create<MulOp>({*normalized, *scale});
  if (failed(scaled))
    return failure();
  return ctx.setResult(0, ctx.create<AddOp>({*scaled, *bias}));
}

/// Statistics over each group of C / G channels (and all spatial dims) of
/// [N, C, D...], computed on the input seen as [N, G, C / G * prod(D)].
/// Opset 18 applies scale and bias [G] per group (on that 3-D view); opset
/// 21 per channel [C], like InstanceNormalization. stash_type only sets the
/// precision ONNX runtimes compute the statistics in; Kiln leaves that to
/// its precision passes.
LogicalResult convertGroupNorm(NodeContext &ctx) {
  if (failed(ctx.requireInputs(3)))
    return failure();
  RankedTensorType type = ctx.inputType(0);
  int64_t rank = type.getRank();
  if (rank < 2)
    return ctx.error() << "expects an input [N, C, D...], got " << type;
  if (!ctx.hasAttr("num_groups"))
    return ctx.error() << "the num_groups attribute is required";
  int64_t groups = ctx.getInt("num_groups", 1);
  int64_t channels = type.getDimSize(1);
  if (groups <= 0 ||
      (!ShapedType::isDynamic(channels) && channels % groups != 0))
    return ctx.error() << "num_groups " << groups
                       << " must be positive and divide the channel count "
                       << channels;
  // The size of one group's slice; dynamic when any dim past N is.
  int64_t groupSize = ShapedType::kDynamic;
  if (llvm::none_of(type.getShape().drop_front(), ShapedType::isDynamic)) {
    groupSize = channels / groups;
    for (int64_t d = 2; d < rank; ++d)
      groupSize *= type.getDimSize(d);
  }
  bool perGroup = ctx.opset < 21;
  Composer k{ctx};
  Value x = k.reshape(ctx.input(0), {type.getDimSize(0), groups, groupSize});
  Value mean = k.reduce(ReduceKind::mean, x, {2}, true);
  Value centered = k.bin<SubOp>(x, mean);
  Value variance = k.reduce(ReduceKind::mean,
                            k.bin<MulOp>(centered, centered), {2}, true);
  double epsilon = ctx.getFloat("epsilon", 1e-5f);
  Value y = k.bin<MulOp>(
      centered, k.un<RsqrtOp>(k.bin<AddOp>(variance, k.c(x, epsilon))));
  // [G] broadcasts along dim 1 of the 3-D view as [G, 1], [C] along dim 1
  // of the input as [C, 1, ..., 1].
  auto paramShape = [&](unsigned i) {
    RankedTensorType paramType = ctx.inputType(i);
    llvm::SmallVector<int64_t> shape{paramType.hasStaticShape()
                                         ? paramType.getNumElements()
                                         : ShapedType::kDynamic};
    shape.append(perGroup ? 1 : rank - 2, 1);
    return shape;
  };
  if (!perGroup)
    y = k.reshape(y, type.getShape());
  y = k.bin<MulOp>(y, k.reshape(ctx.input(1), paramShape(1)));
  y = k.bin<AddOp>(y, k.reshape(ctx.input(2), paramShape(2)));
  if (perGroup)
    y = k.reshape(y, type.getShape());
  return k.finish(y);
}

template <typename SoftmaxOpTy>
LogicalResult convertSoftmax(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  Value x = ctx.input(0);
  RankedTensorType type = ctx.inputType(0);
  int64_t rank = type.getRank();
  int64_t defaultAxis = ctx.opset < 13 ? 1 : -1;
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", defaultAxis), rank);
  if (failed(axis))
    return failure();
  // Before opset 13 the input is seen as 2-D [prod(dims[:axis]),
  // prod(dims[axis:])]; that is the single-axis form when axis is the last.
  if (ctx.opset >= 13 || *axis == rank - 1) {
    FailureOr<Value> result =
        ctx.create<SoftmaxOpTy>(x, {ctx.namedInt("axis", *axis)});
    if (failed(result))
      return failure();
    ctx.setResult(0, *result);
    return success();
  }
  if (!type.hasStaticShape())
    return ctx.error() << "opset " << ctx.opset
                       << " softmax over the flattened dims from axis "
                       << *axis << " needs a static input shape, got " << type;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < *axis ? outer : inner) *= type.getDimSize(d);
  FailureOr<Value> flat = ctx.reshape(x, {outer, inner});
  if (failed(flat))
    return failure();
  FailureOr<Value> result =
      ctx.create<SoftmaxOpTy>(*flat, {ctx.namedInt("axis", 1)});
  if (failed(result))
    return failure();
  return ctx.setResult(0, ctx.reshape(*result, type.getShape()));
}

const ConverterInfo kConverters[] = {
    {"BatchNormalization", convertBatchNorm},
    {"LayerNormalization", convertLayerNorm, 17},
    {"RMSNormalization", convertRmsNorm, 23},
    {"InstanceNormalization", convertInstanceNorm},
    {"GroupNormalization", convertGroupNorm, 18},
    {"Softmax", convertSoftmax<SoftmaxOp>},
    {"LogSoftmax", convertSoftmax<LogSoftmaxOp>},
};

} // namespace

llvm::ArrayRef<ConverterInfo> getNormalizationConverters() { return kConverters; }

} // namespace mlir::kiln::onnx_import
