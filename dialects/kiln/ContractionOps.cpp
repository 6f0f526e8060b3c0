//===- ContractionOps.cpp - Kiln matmul, conv and pooling ops -------------===//
//
// Type inference for the ops that slide or contract over dimensions:
// matmul, conv, max_pool and avg_pool. The shape rules themselves live in
// ShapeInference.cpp, where they are unit tested. matmul and conv on i8
// operands are integer contractions with an i32 result: an i8 result could
// not hold the sums.
//
//===----------------------------------------------------------------------===//

#include "dialects/kiln/KilnDialect.h"
#include "dialects/kiln/OpHelpers.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

// The result element type of a contraction of `operand` elements.
Type contractionResultElement(Type operand) {
  if (operand.isInteger(8))
    return IntegerType::get(operand.getContext(), 32);
  return operand;
}

} // namespace

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<MatmulOp>(context, loc, adaptor)))
    return failure();
  if (failed(checkSameElementType(loc, getOperationName(), "lhs",
                                  adaptor.getLhs().getType(), "rhs",
                                  adaptor.getRhs().getType())))
    return failure();
  auto lhs = llvm::cast<RankedTensorType>(adaptor.getLhs().getType());
  auto rhs = llvm::cast<RankedTensorType>(adaptor.getRhs().getType());
  return pushInferredType(loc, getOperationName(),
                          shape::matmul(lhs.getShape(), rhs.getShape()),
                          contractionResultElement(lhs.getElementType()), types);
}

//===----------------------------------------------------------------------===//
// ConvOp
//===----------------------------------------------------------------------===//

int64_t ConvOp::getNumSpatialDims() {
  return std::max<int64_t>(0, getInput().getType().getRank() - 2);
}

SmallVector<int64_t> ConvOp::getStridesOrDefault() {
  return valuesOrFill(getStrides(), getNumSpatialDims(), 1);
}

SmallVector<int64_t> ConvOp::getDilationsOrDefault() {
  return valuesOrFill(getDilations(), getNumSpatialDims(), 1);
}

SmallVector<int64_t> ConvOp::getPadsOrDefault() {
  return valuesOrFill(getPads(), 2 * getNumSpatialDims(), 0);
}

LogicalResult ConvOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<ConvOp>(context, loc, adaptor)))
    return failure();
  StringRef name = getOperationName();
  if (failed(checkSameElementType(loc, name, "input", adaptor.getInput().getType(),
                                  "filter", adaptor.getFilter().getType())))
    return failure();
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  auto filter = llvm::cast<RankedTensorType>(adaptor.getFilter().getType());
  int64_t spatial = std::max<int64_t>(0, input.getRank() - 2);
  shape::ShapeOrError result = shape::conv(
      input.getShape(), filter.getShape(),
      valuesOrFill(adaptor.getStrides(), spatial, 1),
      valuesOrFill(adaptor.getDilations(), spatial, 1),
      valuesOrFill(adaptor.getPads(), 2 * spatial, 0), adaptor.getGroups());
  if (!result.ok())
    return inferenceError(loc, name, result.error);
  Type resultElement = contractionResultElement(input.getElementType());
  if (Value bias = adaptor.getBias()) {
    auto biasType = llvm::cast<RankedTensorType>(bias.getType());
    if (biasType.getElementType() != resultElement) {
      std::string message;
      llvm::raw_string_ostream os(message);
      os << "bias element type " << biasType.getElementType()
         << " is not the result element type " << resultElement;
      return inferenceError(loc, name, os.str());
    }
    int64_t channels = filter.getDimSize(0);
    if (biasType.getRank() != 1 ||
        (!ShapedType::isDynamic(biasType.getDimSize(0)) &&
         !ShapedType::isDynamic(channels) && biasType.getDimSize(0) != channels))
      return inferenceError(
          loc, name,
          "bias shape " + shape::formatShape(biasType.getShape()) + " is not " +
              shape::formatShape(ArrayRef<int64_t>(channels)) +
              " (the filter's output channels)");
  }
  types.push_back(RankedTensorType::get(result.shape, resultElement));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling ops
//===----------------------------------------------------------------------===//

namespace {

template <typename PoolOp>
LogicalResult inferPool(std::optional<Location> loc,
                        typename PoolOp::Adaptor adaptor,
                        SmallVectorImpl<Type> &types) {
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  int64_t spatial = static_cast<int64_t>(adaptor.getKernelShape().size());
  shape::ShapeOrError result = shape::pool(
      input.getShape(), adaptor.getKernelShape(),
      valuesOrFill(adaptor.getStrides(), spatial, 1),
      valuesOrFill(adaptor.getDilations(), spatial, 1),
      valuesOrFill(adaptor.getPads(), 2 * spatial, 0), adaptor.getCeilMode());
  return pushInferredType(loc, PoolOp::getOperationName(), result,
                          input.getElementType(), types);
}

} // namespace

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<MaxPoolOp>(context, loc, adaptor)))
    return failure();
  return inferPool<MaxPoolOp>(loc, adaptor, types);
}

LogicalResult AvgPoolOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<AvgPoolOp>(context, loc, adaptor)))
    return failure();
  return inferPool<AvgPoolOp>(loc, adaptor, types);
}

#define KILN_POOL_DEFAULTS(OpClass)                                            \
  SmallVector<int64_t> OpClass::getStridesOrDefault() {                        \
    return valuesOrFill(getStrides(), getKernelShape().size(), 1);             \
  }                                                                            \
  SmallVector<int64_t> OpClass::getDilationsOrDefault() {                      \
    return valuesOrFill(getDilations(), getKernelShape().size(), 1);           \
  }                                                                            \
  SmallVector<int64_t> OpClass::getPadsOrDefault() {                           \
    return valuesOrFill(getPads(), 2 * getKernelShape().size(), 0);            \
  }

KILN_POOL_DEFAULTS(MaxPoolOp)
KILN_POOL_DEFAULTS(AvgPoolOp)

#undef KILN_POOL_DEFAULTS
