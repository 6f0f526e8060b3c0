//===- IndexingOps.cpp - Kiln ops that compute or follow indices ----------===//
//
// arg_reduce, top_k and cumsum (which search or scan along one axis) and
// gather_elements, gather_nd, scatter_nd and scatter_elements (which read or
// write elements at computed indices). The shape rules live in
// ShapeInference.cpp; the folders evaluate constant inputs of arg_reduce and
// cumsum, which shape sub-graphs of exported models produce.
//
//===----------------------------------------------------------------------===//

#include "dialects/kiln/ConstantFolding.h"
#include "dialects/kiln/KilnDialect.h"
#include "dialects/kiln/OpHelpers.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

RankedTensorType tensorType(Value value) {
  return llvm::cast<RankedTensorType>(value.getType());
}

/// A static shape seen as [outer, axis, inner] around `axis`, the view in
/// which the scans and searches along one axis are written.
struct AxisView {
  int64_t outer = 1, size = 1, inner = 1;
  AxisView(ArrayRef<int64_t> shape, int64_t axis) {
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
      if (d < axis)
        outer *= shape[d];
      else if (d == axis)
        size = shape[d];
      else
        inner *= shape[d];
    }
  }
  int64_t index(int64_t o, int64_t a, int64_t i) const {
    return (o * size + a) * inner + i;
  }
};

/// The value of element `i` of a constant as a double (exact for the
/// integer values that shape sub-graphs hold).
double valueAt(const ConstantTensor &c, int64_t i) {
  return c.isFloat ? c.floatAt(i) : static_cast<double>(c.intAt(i));
}

} // namespace

//===----------------------------------------------------------------------===//
// ArgReduceOp
//===----------------------------------------------------------------------===//

LogicalResult ArgReduceOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<ArgReduceOp>(context, loc, adaptor)))
    return failure();
  RankedTensorType input = tensorType(adaptor.getInput());
  int64_t axis = adaptor.getAxisAttr().getInt();
  if (!shape::normalizeAxis(axis, input.getRank()))
    return inferenceError(loc, getOperationName(),
                          "axis " + std::to_string(axis) +
                              " is out of range for input " +
                              shape::formatShape(input.getShape()) +
                              " of rank " + std::to_string(input.getRank()));
  return pushInferredType(
      loc, getOperationName(),
      shape::reduce(input.getShape(), {axis}, adaptor.getKeepdims()),
      IntegerType::get(context, 64), types);
}

OpFoldResult ArgReduceOp::fold(FoldAdaptor adaptor) {
  std::optional<ConstantTensor> input = readConstant(adaptor.getInput());
  RankedTensorType inputType = getInput().getType();
  auto resultType = llvm::cast<RankedTensorType>(getType());
  if (!input || !inputType.hasStaticShape() || !isFoldableResult(resultType))
    return {};
  int64_t axis = *shape::normalizeAxis(getAxisAttr().getInt(), inputType.getRank());
  AxisView view(inputType.getShape(), axis);
  if (view.size == 0)
    return {};
  bool isMax = getKind() == ArgReduceKind::max;
  bool last = getSelectLastIndex();
  std::vector<int64_t> result;
  result.reserve(view.outer * view.inner);
  for (int64_t o = 0; o < view.outer; ++o) {
    for (int64_t i = 0; i < view.inner; ++i) {
      int64_t best = 0;
      double bestValue = valueAt(*input, view.index(o, 0, i));
      for (int64_t a = 1; a < view.size; ++a) {
        double v = valueAt(*input, view.index(o, a, i));
        bool better = isMax ? v > bestValue : v < bestValue;
        if (better || (last && v == bestValue)) {
          best = a;
          bestValue = v;
        }
      }
      result.push_back(best);
    }
  }
  return writeInts(resultType, result);
}

//===----------------------------------------------------------------------===//
// TopKOp
//===----------------------------------------------------------------------===//

LogicalResult TopKOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<TopKOp>(context, loc, adaptor)))
    return failure();
  RankedTensorType input = tensorType(adaptor.getInput());
  shape::ShapeOrError result =
      shape::topK(input.getShape(), adaptor.getKAttr().getInt(),
                  adaptor.getAxisAttr().getInt());
  if (failed(pushInferredType(loc, getOperationName(), result,
                              input.getElementType(), types)))
    return failure();
  types.push_back(
      RankedTensorType::get(result.shape, IntegerType::get(context, 64)));
  return success();
}

//===----------------------------------------------------------------------===//
// CumSumOp
//===----------------------------------------------------------------------===//

LogicalResult CumSumOp::verify() {
  int64_t rank = getInput().getType().getRank();
  int64_t axis = getAxisAttr().getInt();
  if (!shape::normalizeAxis(axis, rank))
    return emitOpError("axis ")
           << axis << " is out of range for a tensor of rank " << rank;
  return success();
}

OpFoldResult CumSumOp::fold(FoldAdaptor adaptor) {
  std::optional<ConstantTensor> input = readConstant(adaptor.getInput());
  RankedTensorType type = getType();
  if (!input || input->isSplat || !isFoldableResult(type))
    return {};
  int64_t axis = *shape::normalizeAxis(getAxisAttr().getInt(), type.getRank());
  AxisView view(type.getShape(), axis);
  bool exclusive = getExclusive(), reverse = getReverse();
  // Integers wrap like the generated code; sums run in the input's domain.
  std::vector<double> floats(input->isFloat ? input->floats.size() : 0);
  std::vector<int64_t> ints(input->isFloat ? 0 : input->ints.size());
  for (int64_t o = 0; o < view.outer; ++o) {
    for (int64_t i = 0; i < view.inner; ++i) {
      double floatSum = 0;
      uint64_t intSum = 0;
      for (int64_t step = 0; step < view.size; ++step) {
        int64_t a = reverse ? view.size - 1 - step : step;
        int64_t at = view.index(o, a, i);
        if (input->isFloat) {
          if (!exclusive)
            floatSum += input->floatAt(at);
          floats[at] = floatSum;
          if (exclusive)
            floatSum += input->floatAt(at);
        } else {
          if (!exclusive)
            intSum += static_cast<uint64_t>(input->intAt(at));
          ints[at] = static_cast<int64_t>(intSum);
          if (exclusive)
            intSum += static_cast<uint64_t>(input->intAt(at));
        }
      }
    }
  }
  if (input->isFloat)
    return writeFloats(type, floats);
  return writeInts(type, ints);
}

//===----------------------------------------------------------------------===//
// GatherElementsOp and GatherNdOp
//===----------------------------------------------------------------------===//

LogicalResult GatherElementsOp::inferReturnTypes(MLIRContext *context,
                                                 std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<GatherElementsOp>(context, loc, adaptor)))
    return failure();
  RankedTensorType data = tensorType(adaptor.getData());
  return pushInferredType(
      loc, getOperationName(),
      shape::gatherElements(data.getShape(),
                            tensorType(adaptor.getIndices()).getShape(),
                            adaptor.getAxisAttr().getInt()),
      data.getElementType(), types);
}

LogicalResult GatherNdOp::inferReturnTypes(MLIRContext *context,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<GatherNdOp>(context, loc, adaptor)))
    return failure();
  RankedTensorType data = tensorType(adaptor.getData());
  return pushInferredType(
      loc, getOperationName(),
      shape::gatherNd(data.getShape(),
                      tensorType(adaptor.getIndices()).getShape(),
                      adaptor.getBatchDimsAttr().getInt()),
      data.getElementType(), types);
}

//===----------------------------------------------------------------------===//
// ScatterNdOp and ScatterElementsOp
//===----------------------------------------------------------------------===//

namespace {

/// Scatters combine updates with data: same element type, and the
/// arithmetic reductions need numbers (i1 has only none, max and min).
template <typename OpTy>
LogicalResult checkScatterTypes(std::optional<Location> loc,
                                typename OpTy::Adaptor adaptor) {
  StringRef name = OpTy::getOperationName();
  if (failed(checkSameElementType(loc, name, "data", adaptor.getData().getType(),
                                  "updates", adaptor.getUpdates().getType())))
    return failure();
  ScatterReduction reduction = adaptor.getReduction();
  if (tensorType(adaptor.getData()).getElementType().isInteger(1) &&
      (reduction == ScatterReduction::add || reduction == ScatterReduction::mul))
    return inferenceError(loc, name,
                          "reduction " + stringifyScatterReduction(reduction).str() +
                              " needs numeric data, got i1");
  return success();
}

} // namespace

LogicalResult ScatterNdOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<ScatterNdOp>(context, loc, adaptor)) ||
      failed(checkScatterTypes<ScatterNdOp>(loc, adaptor)))
    return failure();
  RankedTensorType data = tensorType(adaptor.getData());
  return pushInferredType(
      loc, getOperationName(),
      shape::scatterNd(data.getShape(),
                       tensorType(adaptor.getIndices()).getShape(),
                       tensorType(adaptor.getUpdates()).getShape()),
      data.getElementType(), types);
}

LogicalResult ScatterElementsOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<ScatterElementsOp>(context, loc, adaptor)) ||
      failed(checkScatterTypes<ScatterElementsOp>(loc, adaptor)))
    return failure();
  RankedTensorType data = tensorType(adaptor.getData());
  return pushInferredType(
      loc, getOperationName(),
      shape::scatterElements(data.getShape(),
                             tensorType(adaptor.getIndices()).getShape(),
                             tensorType(adaptor.getUpdates()).getShape(),
                             adaptor.getAxisAttr().getInt()),
      data.getElementType(), types);
}
