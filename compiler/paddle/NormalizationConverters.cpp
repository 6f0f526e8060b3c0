//===- NormalizationConverters.cpp - batch_norm, layer_norm ---------------===//
//
// batch_norm in inference mode (the running statistics) is ONNX
// BatchNormalization; its training outputs (MeanOut, SavedMean, ...) are
// left unset, so a model that reads them fails naming the value.
// layer_norm normalizes over the dims from `begin_norm_axis` on, with Scale
// and Bias flattened to one dim: they are reshaped to the normalized shape
// and handed to ONNX LayerNormalization.
//
//===----------------------------------------------------------------------===//

#include "compiler/paddle/PaddleConverters.h"

using namespace mlir;

namespace mlir::kiln::paddle_import {
namespace {

/// Legacy X, Scale, Bias, Mean, Variance; PIR x, mean, variance, scale,
/// bias.
LogicalResult convertBatchNorm(OpContext &ctx) {
  if (!ctx.getBool("is_test", true) && !ctx.getBool("use_global_stats", false))
    return ctx.error() << "is a training-mode batch_norm (is_test = false); "
                          "Kiln imports inference programs only";
  auto x = ctx.required("X", 0);
  auto mean = ctx.required("Mean", 1);
  auto var = ctx.required("Variance", 2);
  auto scale = ctx.required("Scale", 3);
  auto bias = ctx.required("Bias", 4);
  if (failed(x) || failed(mean) || failed(var) || failed(scale) ||
      failed(bias))
    return failure();
  bool nhwc = ctx.getString("data_layout", ctx.getString("data_format",
                                                          "NCHW")) == "NHWC";
  Value in = *x;
  int64_t rank = ctx.typeOf(in).getRank();
  llvm::SmallVector<int64_t> toFirst, toLast;
  if (nhwc && rank > 2) {
    toFirst.push_back(0);
    toFirst.push_back(rank - 1);
    for (int64_t i = 1; i < rank - 1; ++i)
      toFirst.push_back(i);
    toLast.push_back(0);
    for (int64_t i = 2; i < rank; ++i)
      toLast.push_back(i);
    toLast.push_back(1);
    auto t = ctx.transpose(in, toFirst);
    if (failed(t))
      return failure();
    in = *t;
  }
  double epsilon = ctx.getFloat("epsilon", 1e-5);
  FailureOr<Value> y = ctx.onnx1(
      "BatchNormalization", {in, *scale, *bias, *mean, *var},
      [&](onnx::NodeProto &node) { setAttr(node, "epsilon", epsilon); });
  if (failed(y))
    return failure();
  if (!toLast.empty()) {
    y = ctx.transpose(*y, toLast);
    if (failed(y))
      return failure();
  }
  ctx.setResult(0, *y);
  return success();
}

/// Legacy X, Scale, Bias; PIR x, scale, bias.
LogicalResult convertLayerNorm(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  Value scale = ctx.in("Scale", 1), bias = ctx.in("Bias", 2);
  RankedTensorType type = ctx.typeOf(*x);
  auto axis = normalizeAxis(ctx, ctx.getInt("begin_norm_axis", 1),
                            type.getRank(), "begin_norm_axis");
  if (failed(axis))
    return failure();
  llvm::SmallVector<int64_t> normShape(type.getShape().drop_front(*axis));
  if (llvm::any_of(normShape, ShapedType::isDynamic))
    return ctx.error() << "needs static normalized dims, got " << type;
  if (!scale) // ONNX LayerNormalization needs a scale: ones.
    scale = ctx.constant(DenseElementsAttr::get(
        RankedTensorType::get(normShape, type.getElementType()),
        ctx.builder.getFloatAttr(type.getElementType(), 1.0)));
  else if (auto r = ctx.reshape(scale, normShape); succeeded(r))
    scale = *r;
  else
    return failure();
  if (bias) {
    auto r = ctx.reshape(bias, normShape);
    if (failed(r))
      return failure();
    bias = *r;
  }
  double epsilon = ctx.getFloat("epsilon", 1e-5);
  return ctx.setResult(
      0, ctx.onnx1("LayerNormalization", {*x, scale, bias},
                   [&](onnx::NodeProto &node) {
                     setAttr(node, "axis", *axis);
                     setAttr(node, "epsilon", epsilon);
                   }));
}

const ConverterInfo kConverters[] = {
    {"batch_norm", convertBatchNorm},
    {"pd_op.batch_norm", convertBatchNorm},
    {"pd_op.batch_norm_", convertBatchNorm},
    {"layer_norm", convertLayerNorm},
    {"pd_op.layer_norm", convertLayerNorm},
};

} // namespace

llvm::ArrayRef<ConverterInfo> getNormalizationConverters() {
  return kConverters;
}

} // namespace mlir::kiln::paddle_import
