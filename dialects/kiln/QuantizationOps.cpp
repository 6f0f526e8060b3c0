//===- QuantizationOps.cpp - Kiln quantize and dequantize -----------------===//
//
// Verifiers, type inference and constant folders of kiln.quantize and
// kiln.dequantize. Both take a scale and a zero point that are per tensor
// (one element) or per axis (1-D, one entry per index of dimension `axis`).
// quantize folds; dequantize is evaluated only on request (kiln-fold-qdq),
// so that int8 weights survive until the integer contractions are formed.
// The evaluations follow the lowering's arithmetic exactly (f32 division,
// round half to even, saturation; the dequantize difference in i32, then
// one f32 multiply), so a folded weight equals what the kernel would
// compute.
//
//===----------------------------------------------------------------------===//

#include "dialects/kiln/ConstantFolding.h"
#include "dialects/kiln/KilnDialect.h"
#include "dialects/kiln/OpHelpers.h"

#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;

namespace {

// Quantized weights are folded at any size a model has: each value is
// touched once, as in the batch_norm-into-conv folds.
constexpr int64_t kMaxQuantizeFoldElements = int64_t(1) << 26;

bool hasOneElement(RankedTensorType type) {
  return type.hasStaticShape() && type.getNumElements() == 1 &&
         type.getRank() <= 1;
}

// The per-axis axis (normalized) or std::nullopt for a per-tensor scale.
// Assumes a verified op.
std::optional<int64_t> quantizedAxis(RankedTensorType input,
                                     RankedTensorType scale, int64_t axis) {
  if (hasOneElement(scale))
    return std::nullopt;
  return axis < 0 ? axis + input.getRank() : axis;
}

// Shared checks of the scale and zero point against the input.
LogicalResult verifyScaleAndZeroPoint(Operation *op, RankedTensorType input,
                                      RankedTensorType scale,
                                      RankedTensorType zeroPoint,
                                      int64_t axis) {
  if (!scale.getElementType().isF32())
    return op->emitOpError("scale must have element type f32, got ")
           << scale.getElementType();
  if (scale.getShape() != zeroPoint.getShape())
    return op->emitOpError("scale shape ")
           << shape::formatShape(scale.getShape())
           << " differs from zero_point shape "
           << shape::formatShape(zeroPoint.getShape());
  if (scale.getRank() > 1)
    return op->emitOpError("scale must have rank 0 (per tensor) or 1 (per "
                           "axis), got rank ")
           << scale.getRank();
  if (hasOneElement(scale))
    return success();
  if (scale.getRank() == 0)
    return success();
  int64_t rank = input.getRank();
  if (axis < -rank || axis >= rank)
    return op->emitOpError("axis ")
           << axis << " is out of range for an input of rank " << rank;
  int64_t normalized = axis < 0 ? axis + rank : axis;
  int64_t dim = input.getDimSize(normalized);
  int64_t size = scale.getDimSize(0);
  if (!ShapedType::isDynamic(dim) && !ShapedType::isDynamic(size) &&
      dim != size)
    return op->emitOpError("per-axis scale has ")
           << size << " entries but dimension " << normalized
           << " of the input has size " << dim;
  return success();
}

// What both folds read: the constant input, scale and zero point, and for
// each element the index into the scale (per axis or per tensor).
struct QuantizationConstants {
  ConstantTensor input, scale, zeroPoint;
  std::optional<int64_t> axis;
  ArrayRef<int64_t> shape;
  SmallVector<int64_t> strides;
  // Elements to compute: 1 for a splat input with a per-tensor scale (the
  // result is a splat too), otherwise every element.
  int64_t count;

  // The index into a per-axis scale of row-major element `flat` (0 for a
  // per-tensor one).
  int64_t scaleIndex(int64_t flat) const {
    if (!axis)
      return 0;
    return (flat / strides[*axis]) % shape[*axis];
  }
};

// The constants of a quantize or dequantize with a static `resultType`,
// or std::nullopt when an operand is not a constant Kiln reads (or the
// result shape is dynamic). `axis` is the op's getQuantizedAxis().
std::optional<QuantizationConstants>
readQuantizationConstants(RankedTensorType resultType, Attribute input,
                          Attribute scale, Attribute zeroPoint,
                          std::optional<int64_t> axis) {
  if (!resultType.hasStaticShape())
    return std::nullopt;
  std::optional<ConstantTensor> inputValues =
      readConstant(input, kMaxQuantizeFoldElements);
  std::optional<ConstantTensor> scaleValues = readConstant(scale);
  std::optional<ConstantTensor> zeroPointValues = readConstant(zeroPoint);
  if (!inputValues || !scaleValues || !zeroPointValues)
    return std::nullopt;
  ArrayRef<int64_t> shape = resultType.getShape();
  int64_t count =
      inputValues->isSplat && !axis ? 1 : resultType.getNumElements();
  return QuantizationConstants{std::move(*inputValues),
                               std::move(*scaleValues),
                               std::move(*zeroPointValues),
                               axis,
                               shape,
                               rowMajorStrides(shape),
                               count};
}

} // namespace

//===----------------------------------------------------------------------===//
// QuantizeOp
//===----------------------------------------------------------------------===//

LogicalResult QuantizeOp::inferReturnTypes(MLIRContext *context,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<QuantizeOp>(context, loc, adaptor)))
    return failure();
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  types.push_back(input.clone(IntegerType::get(context, 8)));
  return success();
}

LogicalResult QuantizeOp::verify() {
  auto input = llvm::cast<RankedTensorType>(getInput().getType());
  auto scale = llvm::cast<RankedTensorType>(getScale().getType());
  auto zeroPoint = llvm::cast<RankedTensorType>(getZeroPoint().getType());
  if (!input.getElementType().isF32())
    return emitOpError("input must have element type f32, got ")
           << input.getElementType();
  if (!zeroPoint.getElementType().isInteger(8))
    return emitOpError("zero_point must have element type i8, got ")
           << zeroPoint.getElementType();
  return verifyScaleAndZeroPoint(*this, input, scale, zeroPoint, getAxis());
}

std::optional<int64_t> QuantizeOp::getQuantizedAxis() {
  return quantizedAxis(getInput().getType(), getScale().getType(), getAxis());
}

OpFoldResult QuantizeOp::fold(FoldAdaptor adaptor) {
  auto resultType = llvm::cast<RankedTensorType>(getType());
  std::optional<QuantizationConstants> c = readQuantizationConstants(
      resultType, adaptor.getInput(), adaptor.getScale(),
      adaptor.getZeroPoint(), getQuantizedAxis());
  if (!c)
    return {};
  std::vector<int64_t> values;
  values.reserve(c->count);
  for (int64_t i = 0; i < c->count; ++i) {
    int64_t s = c->scaleIndex(i);
    // f32 arithmetic, as the kernel does it.
    float x = static_cast<float>(c->input.floatAt(i));
    float quotient = x / static_cast<float>(c->scale.floatAt(s));
    if (std::isnan(quotient))
      return {}; // undefined in ONNX; left to the run time
    float rounded = std::nearbyint(quotient) +
                    static_cast<float>(c->zeroPoint.intAt(s));
    values.push_back(static_cast<int64_t>(
        std::min(127.0f, std::max(-128.0f, rounded))));
  }
  return writeInts(resultType, values);
}

//===----------------------------------------------------------------------===//
// DequantizeOp
//===----------------------------------------------------------------------===//

LogicalResult DequantizeOp::inferReturnTypes(MLIRContext *context,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<DequantizeOp>(context, loc, adaptor)))
    return failure();
  auto input = llvm::cast<RankedTensorType>(adaptor.getInput().getType());
  types.push_back(input.clone(Float32Type::get(context)));
  return success();
}

LogicalResult DequantizeOp::verify() {
  auto input = llvm::cast<RankedTensorType>(getInput().getType());
  auto scale = llvm::cast<RankedTensorType>(getScale().getType());
  auto zeroPoint = llvm::cast<RankedTensorType>(getZeroPoint().getType());
  Type element = input.getElementType();
  if (!element.isInteger(8) && !element.isInteger(32))
    return emitOpError("input must have element type i8 or i32, got ")
           << element;
  if (zeroPoint.getElementType() != element)
    return emitOpError("zero_point element type ")
           << zeroPoint.getElementType() << " differs from input element type "
           << element;
  return verifyScaleAndZeroPoint(*this, input, scale, zeroPoint, getAxis());
}

std::optional<int64_t> DequantizeOp::getQuantizedAxis() {
  return quantizedAxis(getInput().getType(), getScale().getType(), getAxis());
}

DenseElementsAttr DequantizeOp::evaluateConstant() {
  auto resultType = llvm::cast<RankedTensorType>(getType());
  Attribute inputAttr, scaleAttr, zeroPointAttr;
  if (!matchPattern(getInput(), m_Constant(&inputAttr)) ||
      !matchPattern(getScale(), m_Constant(&scaleAttr)) ||
      !matchPattern(getZeroPoint(), m_Constant(&zeroPointAttr)))
    return {};
  std::optional<QuantizationConstants> c = readQuantizationConstants(
      resultType, inputAttr, scaleAttr, zeroPointAttr, getQuantizedAxis());
  if (!c)
    return {};
  std::vector<double> values;
  values.reserve(c->count);
  for (int64_t i = 0; i < c->count; ++i) {
    int64_t s = c->scaleIndex(i);
    // The difference wraps in i32 like the kernel's arith.subi.
    int32_t difference = static_cast<int32_t>(
        static_cast<uint32_t>(c->input.intAt(i)) -
        static_cast<uint32_t>(c->zeroPoint.intAt(s)));
    values.push_back(static_cast<float>(difference) *
                     static_cast<float>(c->scale.floatAt(s)));
  }
  return writeFloats(resultType, values);
}
