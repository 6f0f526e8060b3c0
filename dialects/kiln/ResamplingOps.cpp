//===- ResamplingOps.cpp - Kiln conv_transpose and resize ops -------------===//
//
// The ops that change spatial resolution: conv_transpose (a learned
// upsampling) and resize (interpolation to a given shape). Both infer their
// result from attributes the frontend has normalized (explicit pads; the
// output sizes).
//
//===----------------------------------------------------------------------===//

#include "dialects/kiln/KilnDialect.h"
#include "dialects/kiln/OpHelpers.h"

using namespace mlir;
using namespace mlir::kiln;

//===----------------------------------------------------------------------===//
// ConvTransposeOp
//===----------------------------------------------------------------------===//

LogicalResult ConvTransposeOp::inferReturnTypes(MLIRContext *context,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<ConvTransposeOp>(context, loc, adaptor)))
    return failure();
  StringRef name = getOperationName();
  if (failed(checkSameElementType(loc, name, "input",
                                  adaptor.getInput().getType(), "filter",
                                  adaptor.getFilter().getType())))
    return failure();
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  auto filter = llvm::cast<RankedTensorType>(adaptor.getFilter().getType());
  int64_t spatial = std::max<int64_t>(0, input.getRank() - 2);
  shape::ShapeOrError result = shape::convTranspose(
      input.getShape(), filter.getShape(),
      valuesOrFill(adaptor.getStrides(), spatial, 1),
      valuesOrFill(adaptor.getDilations(), spatial, 1),
      valuesOrFill(adaptor.getPads(), 2 * spatial, 0),
      valuesOrFill(adaptor.getOutputPadding(), spatial, 0),
      adaptor.getGroupsAttr().getInt());
  if (!result.ok())
    return inferenceError(loc, name, result.error);
  if (Value bias = adaptor.getBias()) {
    if (failed(checkSameElementType(loc, name, "input", input, "bias",
                                    bias.getType())))
      return failure();
    shape::ShapeOrError match = shape::matchShape(
        "bias", llvm::cast<RankedTensorType>(bias.getType()).getShape(),
        {result.shape[1]});
    if (!match.ok())
      return inferenceError(loc, name,
                            match.error + " (the output channels)");
  }
  types.push_back(RankedTensorType::get(result.shape, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// ResizeOp
//===----------------------------------------------------------------------===//

LogicalResult ResizeOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<ResizeOp>(context, loc, adaptor)))
    return failure();
  StringRef name = getOperationName();
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  if (std::optional<ArrayRef<float>> scales = adaptor.getScales()) {
    if (static_cast<int64_t>(scales->size()) != input.getRank())
      return inferenceError(loc, name,
                            "scales has " + std::to_string(scales->size()) +
                                " entries, input " +
                                shape::formatShape(input.getShape()) +
                                " has rank " + std::to_string(input.getRank()));
    for (auto [d, scale] : llvm::enumerate(*scales))
      if (!(scale > 0.0f))
        return inferenceError(loc, name,
                              "scales entry " + std::to_string(d) + " (" +
                                  std::to_string(scale) + ") must be positive");
  }
  // Interpolation weights are fractional; only nearest can resample
  // integers without choosing a rounding Kiln does not define.
  if (adaptor.getMode() != ResizeMode::nearest &&
      !llvm::isa<FloatType>(input.getElementType()))
    return inferenceError(loc, name,
                          stringifyResizeMode(adaptor.getMode()).str() +
                              " resize needs a floating-point input");
  return pushInferredType(loc, name,
                          shape::resize(input.getShape(), adaptor.getSizes()),
                          input.getElementType(), types);
}
