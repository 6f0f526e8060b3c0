//===- NormalizationOps.cpp - Kiln reductions and normalizations ----------===//
//
// reduce, softmax, log_softmax, layer_norm and batch_norm: verifiers, type
// inference and the constant folder of reduce (exporters' shape sub-graphs
// multiply dimensions with ReduceProd).
//
//===----------------------------------------------------------------------===//

#include "dialects/kiln/ConstantFolding.h"
#include "dialects/kiln/KilnDialect.h"
#include "dialects/kiln/OpHelpers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<ReduceOp>(context, loc, adaptor)))
    return failure();
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  return pushInferredType(
      loc, getOperationName(),
      shape::reduce(input.getShape(), adaptor.getAxes(), adaptor.getKeepdims()),
      input.getElementType(), types);
}

LogicalResult ReduceOp::verify() {
  ReduceKind kind = getKind();
  bool needsFloat = kind == ReduceKind::l2 || kind == ReduceKind::log_sum ||
                    kind == ReduceKind::log_sum_exp;
  Type elementType = getInput().getType().getElementType();
  if (needsFloat && !llvm::isa<FloatType>(elementType))
    return emitOpError("reduction '")
           << stringifyReduceKind(kind)
           << "' needs a floating-point input, got element type " << elementType;
  return success();
}

namespace {

/// Reduces a static constant: each input element is combined into the
/// output element that has its coordinates with the reduced ones dropped.
/// Only sum, mean, prod, max and min are folded.
template <typename T>
std::optional<std::vector<T>>
reduceValues(const ConstantTensor &input, ArrayRef<int64_t> axes, ReduceKind kind,
             int64_t outputElements, llvm::function_ref<T(int64_t)> valueAt) {
  ArrayRef<int64_t> shape = input.type.getShape();
  int64_t rank = input.type.getRank();
  SmallVector<bool> reduced(rank, axes.empty());
  for (int64_t axis : axes)
    reduced[*shape::normalizeAxis(axis, rank)] = true;
  // Strides of the output with reduced dims kept as size 1.
  SmallVector<int64_t> keptShape(shape);
  int64_t reducedCount = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d]) {
      reducedCount *= shape[d];
      keptShape[d] = 1;
    }
  }
  SmallVector<int64_t> outStrides = rowMajorStrides(keptShape);

  std::vector<T> accumulator(outputElements, T(0));
  std::vector<bool> seen(outputElements, false);
  SmallVector<int64_t> position(rank, 0);
  int64_t total = input.type.getNumElements();
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t out = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[d])
        out += position[d] * outStrides[d];
    T value = valueAt(flat);
    T &acc = accumulator[out];
    if (!seen[out]) {
      acc = value;
      seen[out] = true;
    } else {
      switch (kind) {
      case ReduceKind::sum:
      case ReduceKind::mean:
        acc = acc + value;
        break;
      case ReduceKind::prod:
        acc = acc * value;
        break;
      case ReduceKind::max:
        acc = std::max(acc, value);
        break;
      case ReduceKind::min:
        acc = std::min(acc, value);
        break;
      default:
        return std::nullopt;
      }
    }
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++position[d] < shape[d])
        break;
      position[d] = 0;
    }
  }
  // Reducing an empty range has an identity only for sum and prod.
  if (reducedCount == 0 && kind != ReduceKind::sum && kind != ReduceKind::prod)
    return std::nullopt;
  if (reducedCount == 0 && kind == ReduceKind::prod)
    std::fill(accumulator.begin(), accumulator.end(), T(1));
  if (kind == ReduceKind::mean)
    for (T &value : accumulator)
      value /= static_cast<T>(reducedCount);
  return accumulator;
}

bool isFoldableReduction(ReduceKind kind) {
  return kind == ReduceKind::sum || kind == ReduceKind::mean ||
         kind == ReduceKind::max || kind == ReduceKind::min ||
         kind == ReduceKind::prod;
}

} // namespace

OpFoldResult ReduceOp::fold(FoldAdaptor adaptor) {
  ReduceKind kind = getKind();
  if (!isFoldableReduction(kind))
    return {};
  // Reducing only size-1 dims with keepdims leaves every element as it is.
  if (getInput().getType() == getType() && getType().hasStaticShape() &&
      getType().getNumElements() > 0)
    return getInput();

  std::optional<ConstantTensor> input = readConstant(adaptor.getInput());
  auto resultType = llvm::cast<RankedTensorType>(getType());
  // The folder walks every input element, so even a splat must be small.
  if (!input || !isFoldableResult(input->type) || !isFoldableResult(resultType))
    return {};
  int64_t outputElements = resultType.getNumElements();
  if (input->isFloat) {
    auto values = reduceValues<double>(
        *input, getAxes(), kind, outputElements,
        [&](int64_t i) { return input->floatAt(i); });
    return values ? OpFoldResult(writeFloats(resultType, *values)) : OpFoldResult();
  }
  auto values = reduceValues<int64_t>(*input, getAxes(), kind, outputElements,
                                      [&](int64_t i) { return input->intAt(i); });
  return values ? OpFoldResult(writeInts(resultType, *values)) : OpFoldResult();
}

//===----------------------------------------------------------------------===//
// SoftmaxOp and LogSoftmaxOp
//===----------------------------------------------------------------------===//

namespace {

template <typename OpTy>
LogicalResult verifyAxis(OpTy op) {
  int64_t rank = op.getInput().getType().getRank();
  // The I64Attr getter returns the axis as uint64_t; read it signed so that
  // negative axes print as such.
  int64_t axis = op.getAxisAttr().getInt();
  if (!shape::normalizeAxis(axis, rank))
    return op.emitOpError("axis ")
           << axis << " is out of range for a tensor of rank " << rank;
  return success();
}

} // namespace

LogicalResult SoftmaxOp::verify() { return verifyAxis(*this); }
LogicalResult LogSoftmaxOp::verify() { return verifyAxis(*this); }

//===----------------------------------------------------------------------===//
// LayerNormOp
//===----------------------------------------------------------------------===//

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<LayerNormOp>(context, loc, adaptor)))
    return failure();
  StringRef name = getOperationName();
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  // Read the axis signed: the I64Attr getter returns it as uint64_t.
  int64_t axisValue = adaptor.getAxisAttr().getInt();
  std::optional<int64_t> axis =
      shape::normalizeAxis(axisValue, input.getRank());
  if (!axis)
    return inferenceError(loc, name,
                          "axis " + std::to_string(axisValue) +
                              " is out of range for a tensor of rank " +
                              std::to_string(input.getRank()));
  ArrayRef<int64_t> normalized = input.getShape().drop_front(*axis);
  auto checkParameter = [&](StringRef what, Value value) -> LogicalResult {
    if (failed(checkSameElementType(loc, name, "input", input, what, value.getType())))
      return failure();
    auto type = llvm::cast<RankedTensorType>(value.getType());
    if (!shape::broadcastTo(type.getShape(), normalized).ok())
      return inferenceError(loc, name,
                            what + " shape " + shape::formatShape(type.getShape()) +
                                " does not broadcast to the normalized shape " +
                                shape::formatShape(normalized));
    return success();
  };
  if (failed(checkParameter("scale", adaptor.getScale())))
    return failure();
  if (adaptor.getBias() && failed(checkParameter("bias", adaptor.getBias())))
    return failure();
  types.push_back(input);
  return success();
}

//===----------------------------------------------------------------------===//
// BatchNormOp
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<BatchNormOp>(context, loc, adaptor)))
    return failure();
  StringRef name = getOperationName();
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  if (input.getRank() < 2)
    return inferenceError(loc, name,
                          "input must have rank >= 2 ([N, C, ...]), got " +
                              shape::formatShape(input.getShape()));
  int64_t channels = input.getDimSize(1);
  std::pair<StringRef, Value> parameters[] = {{"scale", adaptor.getScale()},
                                              {"bias", adaptor.getBias()},
                                              {"mean", adaptor.getMean()},
                                              {"variance", adaptor.getVariance()}};
  for (auto [what, value] : parameters) {
    if (failed(checkSameElementType(loc, name, "input", input, what, value.getType())))
      return failure();
    auto type = llvm::cast<RankedTensorType>(value.getType());
    bool sizeMatches = type.getRank() == 1 &&
                       (ShapedType::isDynamic(channels) ||
                        ShapedType::isDynamic(type.getDimSize(0)) ||
                        type.getDimSize(0) == channels);
    if (!sizeMatches)
      return inferenceError(loc, name,
                            what + " shape " + shape::formatShape(type.getShape()) +
                                " is not " +
                                shape::formatShape(ArrayRef<int64_t>(channels)) +
                                " (the input's channel dimension)");
  }
  types.push_back(input);
  return success();
}
