//===- DataMovementOps.cpp - Kiln reshape, transpose, concat... -----------===//
//
// The ops that move elements without computing on them: reshape, transpose,
// concat, slice, gather, pad and broadcast. Each infers its type from its
// attributes, folds away when it is a no-op, merges with a producer of the
// same kind where that is exact, and folds constant inputs. Reshape,
// transpose, slice and concat do not grow data: they copy the constant's
// raw storage at any size (up to kMaxMoveBytes), so weights are laid out at
// compile time. Gather, pad and broadcast can grow it and map element
// indices within kMaxFoldElements (splats at any size).
//
//===----------------------------------------------------------------------===//

#include "dialects/kiln/ConstantFolding.h"
#include "dialects/kiln/KilnDialect.h"
#include "dialects/kiln/OpHelpers.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

RankedTensorType tensorType(Value value) {
  return llvm::cast<RankedTensorType>(value.getType());
}

/// Calls `fn(resultFlat, coordinates)` for every element of a static shape,
/// in row-major order.
void forEachCoordinate(ArrayRef<int64_t> shape,
                       llvm::function_ref<void(ArrayRef<int64_t>)> fn) {
  int64_t total = shape::numElements(shape);
  SmallVector<int64_t> position(shape.size(), 0);
  for (int64_t flat = 0; flat < total; ++flat) {
    fn(position);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++position[d] < shape[d])
        break;
      position[d] = 0;
    }
  }
}

int64_t linearIndex(ArrayRef<int64_t> coordinates, ArrayRef<int64_t> strides) {
  int64_t index = 0;
  for (size_t d = 0; d < coordinates.size(); ++d)
    index += coordinates[d] * strides[d];
  return index;
}

/// Folds a data-movement op over a constant input: `sourceOf` maps the
/// coordinates of each result element to the flat index it reads, or -1
/// when the element is not read from the input (padding).
OpFoldResult foldMovement(
    Attribute input, Type resultType,
    llvm::function_ref<int64_t(ArrayRef<int64_t>)> sourceOf) {
  std::optional<ConstantTensor> source = readConstant(input);
  auto type = llvm::cast<RankedTensorType>(resultType);
  if (!source)
    return {};
  if (source->isSplat && type.hasStaticShape())
    return permuteElements(*source, type, {});
  if (!isFoldableResult(type))
    return {};
  SmallVector<int64_t> indices;
  indices.reserve(type.getNumElements());
  forEachCoordinate(type.getShape(), [&](ArrayRef<int64_t> coordinates) {
    indices.push_back(sourceOf(coordinates));
  });
  return permuteElements(*source, type, indices);
}

} // namespace

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<ReshapeOp>(context, loc, adaptor)))
    return failure();
  RankedTensorType input = tensorType(adaptor.getInput());
  return pushInferredType(loc, getOperationName(),
                          shape::reshape(input.getShape(), adaptor.getShape()),
                          input.getElementType(), types);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType() && getType().hasStaticShape())
    return getInput();
  // reshape(reshape(x)) -> reshape(x): only the final shape matters. A
  // dynamic intermediate shape can hide that x's element count does not
  // match the final shape (the pair fails at run time); the merged op would
  // not verify, so such a pair is kept.
  if (auto producer = getInput().getDefiningOp<ReshapeOp>()) {
    if (shape::reshape(producer.getInput().getType().getShape(), getShape())
            .ok()) {
      getInputMutable().assign(producer.getInput());
      return getResult();
    }
  }
  // Row-major order is unchanged, so a constant keeps its flat storage:
  // result element c is source element c . (the result's strides).
  // A dynamic result type (shape entry -1) cannot hold a constant.
  std::optional<RawElements> source = readRawElements(adaptor.getInput());
  if (!source || !getType().hasStaticShape() ||
      !(source->isSplat || isMovableResult(getType())))
    return {};
  return moveStrided(*source, getType(), 0, rowMajorStrides(getType().getShape()));
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<TransposeOp>(context, loc, adaptor)))
    return failure();
  RankedTensorType input = tensorType(adaptor.getInput());
  return pushInferredType(loc, getOperationName(),
                          shape::transpose(input.getShape(), adaptor.getPerm()),
                          input.getElementType(), types);
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPerm();
  auto isIdentity = [](ArrayRef<int64_t> p) {
    for (size_t i = 0; i < p.size(); ++i)
      if (p[i] != static_cast<int64_t>(i))
        return false;
    return true;
  };
  if (isIdentity(perm))
    return getInput();
  // transpose(transpose(x, inner), outer) = transpose(x, inner o outer).
  if (auto producer = getInput().getDefiningOp<TransposeOp>()) {
    ArrayRef<int64_t> inner = producer.getPerm();
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(inner[p]);
    if (isIdentity(composed))
      return producer.getInput();
    getInputMutable().assign(producer.getInput());
    setPerm(composed);
    return getResult();
  }
  // A constant is permuted at any size (up to kMaxMoveBytes) by copying
  // its storage: weights that a Gemm(transB=1) or a MatMul(x, Transpose(W))
  // reads transposed are laid out once here, not on every run.
  RankedTensorType inputType = getInput().getType();
  std::optional<RawElements> source = readRawElements(adaptor.getInput());
  if (!source || !(source->isSplat || isMovableResult(getType())))
    return {};
  SmallVector<int64_t> inputStrides = rowMajorStrides(inputType.getShape());
  SmallVector<int64_t> strides;
  for (int64_t p : perm)
    strides.push_back(inputStrides[p]);
  return moveStrided(*source, getType(), 0, strides);
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<ConcatOp>(context, loc, adaptor)))
    return failure();
  StringRef name = getOperationName();
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return inferenceError(loc, name, "needs at least one input");
  SmallVector<ArrayRef<int64_t>> shapes;
  for (auto [index, input] : llvm::enumerate(inputs)) {
    if (failed(checkSameElementType(loc, name, "input 0", inputs[0].getType(),
                                    "input " + std::to_string(index),
                                    input.getType())))
      return failure();
    shapes.push_back(tensorType(input).getShape());
  }
  return pushInferredType(loc, name, shape::concat(shapes, adaptor.getAxis()),
                          tensorType(inputs[0]).getElementType(), types);
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1)
    return getInputs()[0];
  auto resultType = llvm::cast<RankedTensorType>(getType());
  SmallVector<RawElements> parts;
  for (Attribute attr : adaptor.getInputs()) {
    std::optional<RawElements> part = readRawElements(attr);
    if (!part)
      return {};
    parts.push_back(std::move(*part));
  }
  // Parts that are splats of one bit pattern concatenate to a splat, which
  // folds at any size like the splats of the other folders. Otherwise the
  // parts' storage is copied block by block, at any size up to
  // kMaxMoveBytes: the result holds no more data than its parts.
  bool oneSplat = llvm::all_of(parts, [&](const RawElements &part) {
    return part.isSameSplat(parts.front());
  });
  if (!oneSplat && !isMovableResult(resultType))
    return {};
  int64_t axis = *shape::normalizeAxis(getAxis(), resultType.getRank());
  return concatElements(parts, resultType, axis);
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::inferReturnTypes(MLIRContext *context,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<SliceOp>(context, loc, adaptor)))
    return failure();
  RankedTensorType input = tensorType(adaptor.getInput());
  return pushInferredType(loc, getOperationName(),
                          shape::slice(input.getShape(), adaptor.getStarts(),
                                       adaptor.getEnds(), adaptor.getSteps()),
                          input.getElementType(), types);
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  RankedTensorType inputType = getInput().getType();
  if (inputType == getType() && inputType.hasStaticShape() &&
      llvm::all_of(getSteps(), [](int64_t step) { return step == 1; }))
    return getInput();
  // Result element c reads input element (starts + c * steps) . strides:
  // a strided copy of the storage, at any size like transpose.
  std::optional<RawElements> source = readRawElements(adaptor.getInput());
  auto resultType = llvm::cast<RankedTensorType>(getType());
  if (!source || !(source->isSplat || isMovableResult(resultType)))
    return {};
  SmallVector<int64_t> inputStrides = rowMajorStrides(inputType.getShape());
  int64_t offset = 0;
  SmallVector<int64_t> strides;
  for (auto [start, step, stride] :
       llvm::zip_equal(getStarts(), getSteps(), inputStrides)) {
    offset += start * stride;
    strides.push_back(step * stride);
  }
  return moveStrided(*source, resultType, offset, strides);
}

//===----------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<GatherOp>(context, loc, adaptor)))
    return failure();
  RankedTensorType data = tensorType(adaptor.getData());
  RankedTensorType indices = tensorType(adaptor.getIndices());
  return pushInferredType(
      loc, getOperationName(),
      shape::gather(data.getShape(), indices.getShape(), adaptor.getAxis()),
      data.getElementType(), types);
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  RankedTensorType dataType = getData().getType();
  std::optional<ConstantTensor> indices = readConstant(adaptor.getIndices());
  if (!indices || !dataType.hasStaticShape())
    return {};
  int64_t axis = *shape::normalizeAxis(getAxis(), dataType.getRank());
  int64_t axisSize = dataType.getDimSize(axis);
  // Out-of-range indices are an error at run time; do not fold them.
  for (size_t i = 0; i < indices->size(); ++i) {
    int64_t index = indices->ints[i];
    if (index < -axisSize || index >= axisSize)
      return {};
  }
  SmallVector<int64_t> dataStrides = rowMajorStrides(dataType.getShape());
  SmallVector<int64_t> indexStrides = rowMajorStrides(indices->type.getShape());
  int64_t indexRank = indices->type.getRank();
  return foldMovement(adaptor.getData(), getType(), [&](ArrayRef<int64_t> out) {
    ArrayRef<int64_t> indexCoordinates = out.slice(axis, indexRank);
    int64_t index = indices->intAt(linearIndex(indexCoordinates, indexStrides));
    if (index < 0)
      index += axisSize;
    int64_t flat = 0;
    for (int64_t d = 0; d < axis; ++d)
      flat += out[d] * dataStrides[d];
    flat += index * dataStrides[axis];
    for (int64_t d = axis + 1; d < dataType.getRank(); ++d)
      flat += out[d - 1 + indexRank] * dataStrides[d];
    return flat;
  });
}

//===----------------------------------------------------------------------===//
// PadOp
//===----------------------------------------------------------------------===//

LogicalResult PadOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<PadOp>(context, loc, adaptor)))
    return failure();
  RankedTensorType input = tensorType(adaptor.getInput());
  return pushInferredType(loc, getOperationName(),
                          shape::pad(input.getShape(), adaptor.getPads()),
                          input.getElementType(), types);
}

LogicalResult PadOp::verify() {
  RankedTensorType inputType = getInput().getType();
  ArrayRef<int64_t> pads = getPads();
  int64_t rank = inputType.getRank();
  // A wrong number of pads is reported by type inference, which is verified
  // after this hook.
  if (getMode() == PadMode::constant ||
      static_cast<int64_t>(pads.size()) != 2 * rank)
    return success();
  // reflect and edge read input elements for the new ones: the input must
  // have elements, and reflect cannot mirror further than the dim allows.
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = inputType.getDimSize(d);
    if (ShapedType::isDynamic(size))
      continue;
    bool padded = pads[d] > 0 || pads[rank + d] > 0;
    if (padded && size == 0)
      return emitOpError("cannot pad empty dimension ")
             << d << " in " << stringifyPadMode(getMode()) << " mode";
    // An unpadded dim needs nothing mirrored, even when it is empty.
    if (getMode() == PadMode::reflect && padded &&
        (pads[d] >= size || pads[rank + d] >= size))
      return emitOpError("reflect padding of dimension ")
             << d << " by (" << pads[d] << ", " << pads[rank + d]
             << ") needs pads smaller than its size " << size;
  }
  return success();
}

OpFoldResult PadOp::fold(FoldAdaptor adaptor) {
  if (llvm::all_of(getPads(), [](int64_t pad) { return pad == 0; }))
    return getInput();
  // Only constant-mode padding of constants is folded; the padding value is
  // written through a one-element splat of the element type.
  RankedTensorType inputType = getInput().getType();
  std::optional<ConstantTensor> source = readConstant(adaptor.getInput());
  auto resultType = llvm::cast<RankedTensorType>(getType());
  if (getMode() != PadMode::constant || !source || !inputType.hasStaticShape() ||
      !isFoldableResult(resultType) || !isFoldableResult(inputType))
    return {};
  ArrayRef<int64_t> pads = getPads();
  int64_t rank = inputType.getRank();
  SmallVector<int64_t> strides = rowMajorStrides(inputType.getShape());
  double padValue = getValue().convertToDouble();
  std::vector<double> floats;
  std::vector<int64_t> ints;
  forEachCoordinate(resultType.getShape(), [&](ArrayRef<int64_t> out) {
    int64_t flat = 0;
    bool inside = true;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t coordinate = out[d] - pads[d];
      if (coordinate < 0 || coordinate >= inputType.getDimSize(d)) {
        inside = false;
        break;
      }
      flat += coordinate * strides[d];
    }
    if (source->isFloat)
      floats.push_back(inside ? source->floatAt(flat) : padValue);
    else
      ints.push_back(inside ? source->intAt(flat) : static_cast<int64_t>(padValue));
  });
  if (source->isFloat)
    return writeFloats(resultType, floats);
  return writeInts(resultType, ints);
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<BroadcastOp>(context, loc, adaptor)))
    return failure();
  RankedTensorType input = tensorType(adaptor.getInput());
  SmallVector<int64_t> target;
  for (int64_t dim : adaptor.getShape()) {
    if (dim < -1)
      return inferenceError(loc, getOperationName(),
                            "shape entry " + std::to_string(dim) +
                                " is invalid (sizes are >= 0, or -1 for dynamic)");
    target.push_back(dim == -1 ? ShapedType::kDynamic : dim);
  }
  return pushInferredType(loc, getOperationName(),
                          shape::broadcastTo(input.getShape(), target),
                          input.getElementType(), types);
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType() && getType().hasStaticShape())
    return getInput();
  // broadcast(broadcast(x)) -> broadcast(x): broadcasting composes. A
  // dynamic intermediate shape can hide that x does not broadcast to the
  // final shape (the pair fails at run time); the merged op would not
  // verify, so such a pair is kept.
  if (auto producer = getInput().getDefiningOp<BroadcastOp>()) {
    if (shape::broadcastTo(producer.getInput().getType().getShape(),
                           getType().getShape())
            .ok()) {
      getInputMutable().assign(producer.getInput());
      return getResult();
    }
  }
  RankedTensorType inputType = getInput().getType();
  RankedTensorType resultType = getType();
  if (!inputType.hasStaticShape() || !resultType.hasStaticShape())
    return {};
  std::optional<ConstantTensor> source = readConstant(adaptor.getInput());
  if (!source)
    return {};
  if (source->isSplat)
    return permuteElements(*source, resultType, {});
  if (!isFoldableResult(resultType))
    return {};
  return permuteElements(*source, resultType,
                         broadcastSourceIndices(inputType.getShape(),
                                                resultType.getShape()));
}
