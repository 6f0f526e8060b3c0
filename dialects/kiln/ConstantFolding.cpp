//===- ConstantFolding.cpp - Evaluating Kiln ops on constants -------------===//

#include "dialects/kiln/ConstantFolding.h"

#include "dialects/kiln/ShapeInference.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"

#include <cstring>

namespace mlir::kiln {

namespace {

bool isI1(Type type) { return type.isInteger(1); }

double toDouble(const llvm::APFloat &value) {
  llvm::APFloat copy = value;
  bool losesInfo = false;
  copy.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
               &losesInfo);
  return copy.convertToDouble();
}

int64_t toInt(const llvm::APInt &value, Type elementType) {
  // i1 true is stored as all ones; read it as 1, not -1.
  return isI1(elementType) ? static_cast<int64_t>(value.getZExtValue())
                           : value.getSExtValue();
}

} // namespace

bool isFoldableResult(RankedTensorType type) {
  return type.hasStaticShape() && type.getNumElements() <= kMaxFoldElements;
}

std::optional<ConstantTensor> readConstant(Attribute attr, int64_t maxElements) {
  auto dense = llvm::dyn_cast_if_present<DenseElementsAttr>(attr);
  if (!dense)
    return std::nullopt;
  auto type = llvm::dyn_cast<RankedTensorType>(dense.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  ConstantTensor result;
  result.type = type;
  result.isSplat = dense.isSplat();
  if (!result.isSplat && type.getNumElements() > maxElements)
    return std::nullopt;
  Type elementType = type.getElementType();
  if (llvm::isa<FloatType>(elementType)) {
    result.isFloat = true;
    if (result.isSplat) {
      result.floats.push_back(toDouble(dense.getSplatValue<llvm::APFloat>()));
    } else if (elementType.isF32()) {
      // Weights are mostly f32 and large: read the floats directly rather
      // than through one APFloat per element.
      result.floats.reserve(type.getNumElements());
      for (float value : dense.getValues<float>())
        result.floats.push_back(value);
    } else {
      result.floats.reserve(type.getNumElements());
      for (const llvm::APFloat &value : dense.getValues<llvm::APFloat>())
        result.floats.push_back(toDouble(value));
    }
    return result;
  }
  if (!llvm::isa<IntegerType>(elementType))
    return std::nullopt;
  if (result.isSplat) {
    result.ints.push_back(toInt(dense.getSplatValue<llvm::APInt>(), elementType));
  } else {
    result.ints.reserve(type.getNumElements());
    for (const llvm::APInt &value : dense.getValues<llvm::APInt>())
      result.ints.push_back(toInt(value, elementType));
  }
  return result;
}

DenseElementsAttr writeFloats(RankedTensorType type, llvm::ArrayRef<double> values) {
  auto elementType = llvm::dyn_cast<FloatType>(type.getElementType());
  if (!elementType)
    return {};
  if (elementType.isF32() && values.size() > 1) {
    // Rounding a double to float is round-to-nearest-even, as below.
    std::vector<float> floats(values.begin(), values.end());
    return DenseElementsAttr::get(type, llvm::ArrayRef<float>(floats));
  }
  llvm::SmallVector<llvm::APFloat> converted;
  converted.reserve(values.size());
  for (double value : values) {
    llvm::APFloat apValue(value);
    bool losesInfo = false;
    apValue.convert(elementType.getFloatSemantics(),
                    llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    converted.push_back(apValue);
  }
  if (converted.size() == 1)
    return DenseElementsAttr::get(type, converted.front());
  return DenseElementsAttr::get(type, converted);
}

DenseElementsAttr writeInts(RankedTensorType type, llvm::ArrayRef<int64_t> values) {
  auto elementType = llvm::dyn_cast<IntegerType>(type.getElementType());
  if (!elementType)
    return {};
  unsigned width = elementType.getWidth();
  llvm::SmallVector<llvm::APInt> converted;
  converted.reserve(values.size());
  for (int64_t value : values) {
    if (width == 1)
      converted.push_back(llvm::APInt(1, value != 0 ? 1 : 0));
    else
      converted.push_back(llvm::APInt(width, static_cast<uint64_t>(value),
                                      /*isSigned=*/true, /*implicitTrunc=*/true));
  }
  if (converted.size() == 1)
    return DenseElementsAttr::get(type, converted.front());
  return DenseElementsAttr::get(type, converted);
}

llvm::SmallVector<int64_t> rowMajorStrides(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

llvm::SmallVector<int64_t>
broadcastSourceIndices(llvm::ArrayRef<int64_t> sourceShape,
                       llvm::ArrayRef<int64_t> resultShape) {
  int64_t total = shape::numElements(resultShape);
  llvm::SmallVector<int64_t> indices(total, 0);
  llvm::SmallVector<int64_t> sourceStrides = rowMajorStrides(sourceShape);
  int64_t rankOffset =
      static_cast<int64_t>(resultShape.size() - sourceShape.size());
  llvm::SmallVector<int64_t> position(resultShape.size(), 0);
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t source = 0;
    for (size_t d = 0; d < sourceShape.size(); ++d) {
      if (sourceShape[d] != 1)
        source += position[d + rankOffset] * sourceStrides[d];
    }
    indices[flat] = source;
    // Advance the multi-index (row-major).
    for (int64_t d = static_cast<int64_t>(resultShape.size()) - 1; d >= 0; --d) {
      if (++position[d] < resultShape[d])
        break;
      position[d] = 0;
    }
  }
  return indices;
}

DenseElementsAttr permuteElements(const ConstantTensor &source,
                                  RankedTensorType resultType,
                                  llvm::ArrayRef<int64_t> sourceIndices) {
  if (source.isSplat) {
    return source.isFloat ? writeFloats(resultType, source.floats)
                          : writeInts(resultType, source.ints);
  }
  if (source.isFloat) {
    std::vector<double> values;
    values.reserve(sourceIndices.size());
    for (int64_t index : sourceIndices)
      values.push_back(source.floats[index]);
    return writeFloats(resultType, values);
  }
  std::vector<int64_t> values;
  values.reserve(sourceIndices.size());
  for (int64_t index : sourceIndices)
    values.push_back(source.ints[index]);
  return writeInts(resultType, values);
}

//===----------------------------------------------------------------------===//
// Raw data movement
//===----------------------------------------------------------------------===//

namespace {

/// Bytes per element while moving: the storage width rounded up to whole
/// bytes, with i1 unpacked to one byte.
size_t movedElementBytes(Type elementType) {
  return (elementType.getIntOrFloatBitWidth() + 7) / 8;
}

/// Builds a constant from one byte-aligned element per result element (or
/// one element for a splat). i1 goes through the bool builder, which packs
/// the bits; every other type is taken as MLIR's storage format as is.
DenseElementsAttr writeRaw(RankedTensorType type, llvm::ArrayRef<char> bytes) {
  if (type.getElementType().isInteger(1)) {
    llvm::ArrayRef<bool> values(reinterpret_cast<const bool *>(bytes.data()),
                                bytes.size());
    return DenseElementsAttr::get(type, values);
  }
  return DenseElementsAttr::getFromRawBuffer(type, bytes);
}

/// Copies `count` elements of `Bytes` bytes from `source` (every `stride`
/// elements, possibly negative) to the contiguous `dest`. A fixed size lets
/// the compiler turn each copy into one load and one store.
template <size_t Bytes>
void copyRow(const char *source, int64_t stride, int64_t count, char *dest) {
  for (int64_t i = 0; i < count; ++i)
    std::memcpy(dest + i * Bytes, source + i * stride * int64_t(Bytes), Bytes);
}

void copyRow(size_t bytes, const char *source, int64_t stride, int64_t count,
             char *dest) {
  switch (bytes) {
  case 1:
    return copyRow<1>(source, stride, count, dest);
  case 2:
    return copyRow<2>(source, stride, count, dest);
  case 4:
    return copyRow<4>(source, stride, count, dest);
  case 8:
    return copyRow<8>(source, stride, count, dest);
  default:
    for (int64_t i = 0; i < count; ++i)
      std::memcpy(dest + i * bytes, source + i * stride * int64_t(bytes), bytes);
  }
}

} // namespace

bool RawElements::isSameSplat(const RawElements &other) const {
  return isSplat && other.isSplat && elementBytes == other.elementBytes &&
         std::memcmp(at(0), other.at(0), elementBytes) == 0;
}

std::optional<RawElements> readRawElements(Attribute attr) {
  auto elements = llvm::dyn_cast_if_present<ElementsAttr>(attr);
  if (!elements)
    return std::nullopt;
  auto type = llvm::dyn_cast<RankedTensorType>(elements.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  RawElements result;
  result.type = type;
  result.elementBytes = movedElementBytes(type.getElementType());
  bool isBool = type.getElementType().isInteger(1);
  if (auto dense = llvm::dyn_cast<DenseIntOrFPElementsAttr>(attr)) {
    result.isSplat = dense.isSplat();
    if (isBool) {
      // Unpacking through the value iterator keeps this code independent
      // of how MLIR packs the bits.
      if (result.isSplat) {
        result.unpacked.push_back(dense.getSplatValue<bool>() ? 1 : 0);
      } else {
        result.unpacked.reserve(type.getNumElements());
        for (bool value : dense.getValues<bool>())
          result.unpacked.push_back(value ? 1 : 0);
      }
      return result;
    }
    result.data = dense.getRawData();
  } else if (auto resource = llvm::dyn_cast<DenseResourceElementsAttr>(attr)) {
    // The bit layout of i1 resources is not MLIR's dense one; leave them.
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (isBool || !blob)
      return std::nullopt;
    result.data = blob->getData();
  } else {
    return std::nullopt;
  }
  size_t expected =
      (result.isSplat ? 1 : type.getNumElements()) * result.elementBytes;
  if (result.data.size() != expected)
    return std::nullopt;
  return result;
}

bool isMovableResult(RankedTensorType type) {
  if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return false;
  return type.getNumElements() <=
         kMaxMoveBytes /
             static_cast<int64_t>(movedElementBytes(type.getElementType()));
}

DenseElementsAttr moveStrided(const RawElements &source,
                              RankedTensorType resultType, int64_t offset,
                              llvm::ArrayRef<int64_t> sourceStrides) {
  size_t bytes = source.elementBytes;
  if (!resultType.hasStaticShape())
    return {};
  if (source.isSplat)
    return writeRaw(resultType, llvm::ArrayRef<char>(source.at(0), bytes));
  llvm::ArrayRef<int64_t> shape = resultType.getShape();
  int64_t total = resultType.getNumElements();
  std::vector<char> result(total * bytes);
  if (total == 0)
    return writeRaw(resultType, result);
  // Rank 0 moves one element; otherwise copy one innermost row at a time,
  // walking the outer coordinates like an odometer.
  int64_t rank = resultType.getRank();
  int64_t rowLength = rank == 0 ? 1 : shape.back();
  int64_t rowStride = rank == 0 ? 1 : sourceStrides.back();
  llvm::SmallVector<int64_t> position(std::max<int64_t>(rank - 1, 0), 0);
  int64_t sourceIndex = offset;
  char *dest = result.data();
  for (int64_t row = 0, rows = total / rowLength; row < rows; ++row) {
    copyRow(bytes, source.at(sourceIndex), rowStride, rowLength, dest);
    dest += rowLength * bytes;
    for (int64_t d = rank - 2; d >= 0; --d) {
      sourceIndex += sourceStrides[d];
      if (++position[d] < shape[d])
        break;
      sourceIndex -= position[d] * sourceStrides[d];
      position[d] = 0;
    }
  }
  return writeRaw(resultType, result);
}

DenseElementsAttr concatElements(llvm::ArrayRef<RawElements> parts,
                                 RankedTensorType resultType, int64_t axis) {
  const RawElements &first = parts.front();
  size_t bytes = first.elementBytes;
  if (!resultType.hasStaticShape())
    return {};
  if (llvm::all_of(parts, [&](const RawElements &part) {
        return part.isSameSplat(first);
      }))
    return writeRaw(resultType, llvm::ArrayRef<char>(first.at(0), bytes));
  // Row-major: the result is a sequence of blocks, one per part, for each
  // index of the dims before the axis.
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= resultType.getDimSize(d);
  std::vector<char> result(resultType.getNumElements() * bytes);
  char *dest = result.data();
  for (int64_t o = 0; o < outer; ++o) {
    for (const RawElements &part : parts) {
      int64_t block = part.type.getNumElements() / outer;
      copyRow(bytes, part.at(o * block), part.isSplat ? 0 : 1, block, dest);
      dest += block * bytes;
    }
  }
  return writeRaw(resultType, result);
}

bool isSplatOf(Attribute attr, double value) {
  auto dense = llvm::dyn_cast_if_present<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat())
    return false;
  Type elementType = dense.getElementType();
  if (llvm::isa<FloatType>(elementType))
    return toDouble(dense.getSplatValue<llvm::APFloat>()) == value;
  if (llvm::isa<IntegerType>(elementType))
    return static_cast<double>(
               toInt(dense.getSplatValue<llvm::APInt>(), elementType)) == value;
  return false;
}

OpFoldResult foldUnary(Attribute operand, RankedTensorType resultType,
                       llvm::function_ref<std::optional<double>(double)> floatFn,
                       llvm::function_ref<std::optional<int64_t>(int64_t)> intFn) {
  std::optional<ConstantTensor> input = readConstant(operand);
  if (!input)
    return {};
  if (input->isFloat) {
    if (!floatFn)
      return {};
    std::vector<double> values;
    values.reserve(input->size());
    for (double value : input->floats) {
      std::optional<double> result = floatFn(value);
      if (!result)
        return {};
      values.push_back(*result);
    }
    return writeFloats(resultType, values);
  }
  if (!intFn)
    return {};
  std::vector<int64_t> values;
  values.reserve(input->size());
  for (int64_t value : input->ints) {
    std::optional<int64_t> result = intFn(value);
    if (!result)
      return {};
    values.push_back(*result);
  }
  return writeInts(resultType, values);
}

namespace {

/// Shared driver of the binary folders: reads both operands, walks the
/// broadcast result and writes each computed value as `Result`.
template <typename Operand, typename Fn>
OpFoldResult foldBinaryImpl(Attribute lhsAttr, Attribute rhsAttr,
                            RankedTensorType resultType, bool floatOperands,
                            Fn fn) {
  std::optional<ConstantTensor> lhs = readConstant(lhsAttr);
  std::optional<ConstantTensor> rhs = readConstant(rhsAttr);
  if (!lhs || !rhs || lhs->isFloat != floatOperands ||
      rhs->isFloat != floatOperands || !resultType.hasStaticShape())
    return {};
  auto valueAt = [&](const ConstantTensor &t, int64_t i) -> Operand {
    if constexpr (std::is_same_v<Operand, double>)
      return t.floatAt(i);
    else
      return t.intAt(i);
  };
  bool resultIsFloat = llvm::isa<FloatType>(resultType.getElementType());
  std::vector<double> floats;
  std::vector<int64_t> ints;
  auto emit = [&](Operand a, Operand b) -> bool {
    auto value = fn(a, b);
    if (!value)
      return false;
    if (resultIsFloat)
      floats.push_back(static_cast<double>(*value));
    else
      ints.push_back(static_cast<int64_t>(*value));
    return true;
  };
  if (lhs->isSplat && rhs->isSplat) {
    if (!emit(valueAt(*lhs, 0), valueAt(*rhs, 0)))
      return {};
  } else {
    if (!isFoldableResult(resultType))
      return {};
    llvm::ArrayRef<int64_t> shape = resultType.getShape();
    llvm::SmallVector<int64_t> lhsIndex =
        broadcastSourceIndices(lhs->type.getShape(), shape);
    llvm::SmallVector<int64_t> rhsIndex =
        broadcastSourceIndices(rhs->type.getShape(), shape);
    for (size_t i = 0; i < lhsIndex.size(); ++i)
      if (!emit(valueAt(*lhs, lhsIndex[i]), valueAt(*rhs, rhsIndex[i])))
        return {};
  }
  return resultIsFloat ? writeFloats(resultType, floats)
                       : writeInts(resultType, ints);
}

} // namespace

OpFoldResult
foldBinaryFloat(Attribute lhs, Attribute rhs, RankedTensorType resultType,
                llvm::function_ref<std::optional<double>(double, double)> fn) {
  return foldBinaryImpl<double>(lhs, rhs, resultType, /*floatOperands=*/true, fn);
}

OpFoldResult
foldBinaryInt(Attribute lhs, Attribute rhs, RankedTensorType resultType,
              llvm::function_ref<std::optional<int64_t>(int64_t, int64_t)> fn) {
  return foldBinaryImpl<int64_t>(lhs, rhs, resultType, /*floatOperands=*/false, fn);
}

} // namespace mlir::kiln
