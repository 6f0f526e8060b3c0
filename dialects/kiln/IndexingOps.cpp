//===- IndexingOps.cpp - Kiln ops that compute or follow indices ----------===//
//
// arg_reduce, top_k and cumsum (which search or scan along one axis) and
// gather_elements, gather_nd, scatter_nd and scatter_elements (which read or
// write elements at computed indices). The shape rules live in
// ShapeInference.cpp; the folders evaluate constant inputs of arg_reduce,
// cumsum, the gathers and the scatters, which shape sub-graphs of exported
// models produce.
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

//===----------------------------------------------------------------------===//
// Folders of gather_elements, gather_nd, scatter_nd and scatter_elements
//===----------------------------------------------------------------------===//
//
// Exporters patch shape vectors with these (torch's `shape[i] = n` becomes
// ScatterND), so the importer evaluates them when every operand is constant.
// Out-of-range indices are an error at run time: they are not folded.

namespace {

/// Constant operands read as one flat list of values in the element domain
/// of the result (floats as doubles, integers and bools as int64).
struct FoldValues {
  bool isFloat = false;
  std::vector<double> floats;
  std::vector<int64_t> ints;

  static FoldValues of(const ConstantTensor &c, int64_t count) {
    FoldValues v;
    v.isFloat = c.isFloat;
    for (int64_t i = 0; i < count; ++i) {
      if (c.isFloat)
        v.floats.push_back(c.floatAt(i));
      else
        v.ints.push_back(c.intAt(i));
    }
    return v;
  }
  void copyFrom(const ConstantTensor &c, int64_t from, int64_t to) {
    if (isFloat)
      floats[to] = c.floatAt(from);
    else
      ints[to] = c.intAt(from);
  }
  /// Combines element `to` with `c`'s element `from` as `reduction` says;
  /// integers wrap like the generated code.
  void combine(ScatterReduction reduction, const ConstantTensor &c,
               int64_t from, int64_t to) {
    if (isFloat) {
      double a = floats[to], b = c.floatAt(from);
      switch (reduction) {
      case ScatterReduction::none: floats[to] = b; break;
      case ScatterReduction::add: floats[to] = a + b; break;
      case ScatterReduction::mul: floats[to] = a * b; break;
      case ScatterReduction::max: floats[to] = std::max(a, b); break;
      case ScatterReduction::min: floats[to] = std::min(a, b); break;
      }
      return;
    }
    int64_t a = ints[to], b = c.intAt(from);
    auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    switch (reduction) {
    case ScatterReduction::none: ints[to] = b; break;
    case ScatterReduction::add: ints[to] = static_cast<int64_t>(ua + ub); break;
    case ScatterReduction::mul: ints[to] = static_cast<int64_t>(ua * ub); break;
    case ScatterReduction::max: ints[to] = std::max(a, b); break;
    case ScatterReduction::min: ints[to] = std::min(a, b); break;
    }
  }
  OpFoldResult write(RankedTensorType type) const {
    if (isFloat)
      return writeFloats(type, floats);
    return writeInts(type, ints);
  }
};

/// Row-major coordinates of flat index `flat` in `shape`.
SmallVector<int64_t> unflatten(int64_t flat, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> coords(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    coords[d] = shape[d] == 0 ? 0 : flat % shape[d];
    flat = shape[d] == 0 ? 0 : flat / shape[d];
  }
  return coords;
}

int64_t flatten(ArrayRef<int64_t> coords, ArrayRef<int64_t> strides) {
  int64_t flat = 0;
  for (auto [c, s] : llvm::zip(coords, strides))
    flat += c * s;
  return flat;
}

/// `index` made non-negative for a dim of `size`; nullopt when out of range.
std::optional<int64_t> normalizeIndex(int64_t index, int64_t size) {
  if (index < -size || index >= size)
    return std::nullopt;
  return index < 0 ? index + size : index;
}

/// Reads every operand as a constant whose type is static and the result
/// foldable; nullopt otherwise.
std::optional<SmallVector<ConstantTensor>>
readFoldOperands(ArrayRef<Attribute> operands, RankedTensorType resultType) {
  if (!resultType.hasStaticShape() || !isFoldableResult(resultType))
    return std::nullopt;
  SmallVector<ConstantTensor> result;
  for (Attribute operand : operands) {
    std::optional<ConstantTensor> c = readConstant(operand);
    if (!c || !c->type.hasStaticShape())
      return std::nullopt;
    result.push_back(std::move(*c));
  }
  return result;
}

} // namespace

OpFoldResult GatherElementsOp::fold(FoldAdaptor adaptor) {
  RankedTensorType type = getType();
  auto operands = readFoldOperands({adaptor.getData(), adaptor.getIndices()}, type);
  if (!operands)
    return {};
  const ConstantTensor &data = (*operands)[0], &indices = (*operands)[1];
  ArrayRef<int64_t> dataShape = data.type.getShape();
  int64_t axis = *shape::normalizeAxis(getAxis(), data.type.getRank());
  SmallVector<int64_t> strides = rowMajorStrides(dataShape);
  int64_t count = type.getNumElements();
  FoldValues out = FoldValues::of(data, 0);
  (out.isFloat ? out.floats.resize(count) : out.ints.resize(count));
  for (int64_t flat = 0; flat < count; ++flat) {
    SmallVector<int64_t> coords = unflatten(flat, type.getShape());
    std::optional<int64_t> index =
        normalizeIndex(indices.intAt(flat), dataShape[axis]);
    if (!index)
      return {};
    coords[axis] = *index;
    out.copyFrom(data, flatten(coords, strides), flat);
  }
  return out.write(type);
}

OpFoldResult GatherNdOp::fold(FoldAdaptor adaptor) {
  RankedTensorType type = getType();
  auto operands = readFoldOperands({adaptor.getData(), adaptor.getIndices()}, type);
  if (!operands)
    return {};
  const ConstantTensor &data = (*operands)[0], &indices = (*operands)[1];
  ArrayRef<int64_t> dataShape = data.type.getShape();
  ArrayRef<int64_t> indexShape = indices.type.getShape();
  int64_t batchDims = getBatchDims();
  int64_t q = indexShape.back();
  int64_t tupleRank = indices.type.getRank() - 1; // dims of index tuples
  SmallVector<int64_t> strides = rowMajorStrides(dataShape);
  int64_t count = type.getNumElements();
  FoldValues out = FoldValues::of(data, 0);
  (out.isFloat ? out.floats.resize(count) : out.ints.resize(count));
  for (int64_t flat = 0; flat < count; ++flat) {
    SmallVector<int64_t> coords = unflatten(flat, type.getShape());
    // coords = [tuple position (tupleRank dims, batch dims first), slice].
    SmallVector<int64_t> dataCoords(coords.begin(), coords.begin() + batchDims);
    int64_t tupleFlat = 0;
    for (int64_t d = 0; d < tupleRank; ++d)
      tupleFlat = tupleFlat * indexShape[d] + coords[d];
    for (int64_t k = 0; k < q; ++k) {
      std::optional<int64_t> index = normalizeIndex(
          indices.intAt(tupleFlat * q + k), dataShape[batchDims + k]);
      if (!index)
        return {};
      dataCoords.push_back(*index);
    }
    dataCoords.append(coords.begin() + tupleRank, coords.end());
    out.copyFrom(data, flatten(dataCoords, strides), flat);
  }
  return out.write(type);
}

OpFoldResult ScatterNdOp::fold(FoldAdaptor adaptor) {
  RankedTensorType type = getType();
  auto operands = readFoldOperands(
      {adaptor.getData(), adaptor.getIndices(), adaptor.getUpdates()}, type);
  if (!operands)
    return {};
  const ConstantTensor &data = (*operands)[0], &indices = (*operands)[1],
                       &updates = (*operands)[2];
  ArrayRef<int64_t> dataShape = data.type.getShape();
  int64_t q = indices.type.getShape().back();
  int64_t tuples = q == 0 ? 0 : indices.type.getNumElements() / q;
  int64_t sliceSize = 1;
  for (int64_t d = q; d < data.type.getRank(); ++d)
    sliceSize *= dataShape[d];
  SmallVector<int64_t> strides = rowMajorStrides(dataShape);
  FoldValues out = FoldValues::of(data, type.getNumElements());
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t base = 0;
    for (int64_t k = 0; k < q; ++k) {
      std::optional<int64_t> index =
          normalizeIndex(indices.intAt(t * q + k), dataShape[k]);
      if (!index)
        return {};
      base += *index * strides[k];
    }
    for (int64_t s = 0; s < sliceSize; ++s)
      out.combine(getReduction(), updates, t * sliceSize + s, base + s);
  }
  return out.write(type);
}

OpFoldResult ScatterElementsOp::fold(FoldAdaptor adaptor) {
  RankedTensorType type = getType();
  auto operands = readFoldOperands(
      {adaptor.getData(), adaptor.getIndices(), adaptor.getUpdates()}, type);
  if (!operands)
    return {};
  const ConstantTensor &data = (*operands)[0], &indices = (*operands)[1],
                       &updates = (*operands)[2];
  ArrayRef<int64_t> dataShape = data.type.getShape();
  int64_t axis = *shape::normalizeAxis(getAxis(), data.type.getRank());
  SmallVector<int64_t> strides = rowMajorStrides(dataShape);
  FoldValues out = FoldValues::of(data, type.getNumElements());
  int64_t count = indices.type.getNumElements();
  for (int64_t p = 0; p < count; ++p) {
    SmallVector<int64_t> coords = unflatten(p, indices.type.getShape());
    std::optional<int64_t> index =
        normalizeIndex(indices.intAt(p), dataShape[axis]);
    if (!index)
      return {};
    coords[axis] = *index;
    out.combine(getReduction(), updates, p, flatten(coords, strides));
  }
  return out.write(type);
}
