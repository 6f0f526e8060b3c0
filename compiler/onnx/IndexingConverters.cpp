//===- IndexingConverters.cpp - ArgMax, TopK, CumSum, gathers, scatters ---===//
//
// ArgMax / ArgMin, TopK and CumSum (which search or scan along an axis) and
// GatherElements, GatherND, ScatterND, ScatterElements (and the older
// Scatter). Their axes and counts, which later opsets pass as inputs (TopK's
// k, CumSum's axis), must be constants at import.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ConverterRegistry.h"

using namespace mlir;

namespace mlir::kiln::onnx_import {
namespace {

template <ArgReduceKind kind>
LogicalResult convertArgReduce(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", 0), ctx.inputType(0).getRank());
  if (failed(axis))
    return failure();
  return ctx.setResult(
      0, ctx.create<ArgReduceOp>(
             ctx.input(0),
             {ctx.named("kind", ArgReduceKindAttr::get(ctx.getContext(), kind)),
              ctx.namedInt("axis", *axis),
              ctx.named("keepdims",
                        ctx.builder.getBoolAttr(ctx.getInt("keepdims", 1))),
              ctx.named("select_last_index",
                        ctx.builder.getBoolAttr(
                            ctx.getInt("select_last_index", 0)))}));
}

/// A single integer from a constant input (a scalar or a one-element
/// tensor), for the counts and axes later opsets pass as inputs.
FailureOr<int64_t> constantScalar(NodeContext &ctx, unsigned i,
                                  llvm::StringRef what) {
  FailureOr<llvm::SmallVector<int64_t>> values = ctx.constantInts(i, what);
  if (failed(values))
    return failure();
  if (values->size() != 1)
    return ctx.error() << what << " must hold one value, got "
                       << values->size();
  return values->front();
}

LogicalResult convertTopK(NodeContext &ctx) {
  if (failed(ctx.requireInputs(ctx.opset >= 10 ? 2 : 1)))
    return failure();
  int64_t k;
  if (ctx.opset < 10) {
    if (!ctx.hasAttr("k"))
      return ctx.error() << "needs the attribute k";
    k = ctx.getInt("k", 0);
  } else {
    FailureOr<int64_t> value = constantScalar(ctx, 1, "k");
    if (failed(value))
      return failure();
    k = *value;
  }
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", -1), ctx.inputType(0).getRank());
  if (failed(axis))
    return failure();
  bool largest = ctx.opset < 11 || ctx.getInt("largest", 1) != 0;
  bool sorted = ctx.opset < 11 || ctx.getInt("sorted", 1) != 0;
  FailureOr<TopKOp> op = createChecked<TopKOp>(
      ctx.builder, ctx.loc, ctx.input(0),
      {ctx.namedInt("k", k), ctx.namedInt("axis", *axis),
       ctx.named("largest", ctx.builder.getBoolAttr(largest)),
       ctx.named("sorted", ctx.builder.getBoolAttr(sorted))});
  if (failed(op))
    return failure();
  ctx.setResult(0, op->getValues());
  ctx.setResult(1, op->getIndices());
  return success();
}

LogicalResult convertCumSum(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  FailureOr<int64_t> axisValue = constantScalar(ctx, 1, "axis");
  if (failed(axisValue))
    return failure();
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, *axisValue, ctx.inputType(0).getRank());
  if (failed(axis))
    return failure();
  return ctx.setResult(
      0, ctx.create<CumSumOp>(
             ctx.input(0),
             {ctx.namedInt("axis", *axis),
              ctx.named("exclusive",
                        ctx.builder.getBoolAttr(ctx.getInt("exclusive", 0))),
              ctx.named("reverse",
                        ctx.builder.getBoolAttr(ctx.getInt("reverse", 0)))}));
}

LogicalResult convertGatherElements(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", 0), ctx.inputType(0).getRank());
  if (failed(axis))
    return failure();
  return ctx.setResult(0, ctx.create<GatherElementsOp>(
                              {ctx.input(0), ctx.input(1)},
                              {ctx.namedInt("axis", *axis)}));
}

LogicalResult convertGatherNd(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  int64_t batchDims = ctx.opset >= 12 ? ctx.getInt("batch_dims", 0) : 0;
  return ctx.setResult(0, ctx.create<GatherNdOp>(
                              {ctx.input(0), ctx.input(1)},
                              {ctx.namedInt("batch_dims", batchDims)}));
}

/// The reduction attribute of the scatters: none before opset 16, add and
/// mul from 16, max and min from 18.
FailureOr<ScatterReduction> scatterReduction(NodeContext &ctx) {
  std::string name = ctx.getString("reduction", "none");
  std::optional<ScatterReduction> reduction = symbolizeScatterReduction(name);
  if (!reduction)
    return ctx.error() << "unknown reduction '" << name << "'";
  return *reduction;
}

LogicalResult convertScatterNd(NodeContext &ctx) {
  if (failed(ctx.requireInputs(3)))
    return failure();
  FailureOr<ScatterReduction> reduction = scatterReduction(ctx);
  if (failed(reduction))
    return failure();
  return ctx.setResult(
      0, ctx.create<ScatterNdOp>(
             {ctx.input(0), ctx.input(1), ctx.input(2)},
             {ctx.named("reduction", ScatterReductionAttr::get(
                                         ctx.getContext(), *reduction))}));
}

LogicalResult convertScatterElements(NodeContext &ctx) {
  if (failed(ctx.requireInputs(3)))
    return failure();
  FailureOr<ScatterReduction> reduction = scatterReduction(ctx);
  if (failed(reduction))
    return failure();
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", 0), ctx.inputType(0).getRank());
  if (failed(axis))
    return failure();
  return ctx.setResult(
      0, ctx.create<ScatterElementsOp>(
             {ctx.input(0), ctx.input(1), ctx.input(2)},
             {ctx.named("reduction", ScatterReductionAttr::get(
                                         ctx.getContext(), *reduction)),
              ctx.namedInt("axis", *axis)}));
}

const ConverterInfo kConverters[] = {
    {"ArgMax", convertArgReduce<ArgReduceKind::max>},
    {"ArgMin", convertArgReduce<ArgReduceKind::min>},
    {"TopK", convertTopK},
    {"CumSum", convertCumSum, 11},
    {"GatherElements", convertGatherElements, 11},
    {"GatherND", convertGatherNd, 11},
    {"ScatterND", convertScatterNd, 11},
    {"ScatterElements", convertScatterElements, 11},
    // Scatter (opsets 9 and 10) is ScatterElements under its old name.
    {"Scatter", convertScatterElements, 9, 10},
};

} // namespace

llvm::ArrayRef<ConverterInfo> getIndexingConverters() { return kConverters; }

} // namespace mlir::kiln::onnx_import
