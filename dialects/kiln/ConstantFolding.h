//===- ConstantFolding.h - Evaluating Kiln ops on constants -----*- C++ -*-===//
//
// The folders of Kiln ops evaluate small constant tensors at compile time
// (the shape sub-graphs that exporters emit are made of such ops). This
// file reads dense constants into flat vectors of doubles or int64s, writes
// them back, and maps element indices for broadcasting and data movement.
// Splat constants fold at any size, since only one value is computed.
// Data movement that does not grow data (reshape, transpose, slice,
// concat) copies raw storage instead, at any size up to kMaxMoveBytes, so
// that weights are laid out at compile time rather than on every run.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECTS_KILN_CONSTANTFOLDING_H
#define KILN_DIALECTS_KILN_CONSTANTFOLDING_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <vector>

namespace mlir::kiln {

/// Largest non-splat result (in elements) that a folder computes value by
/// value (elementwise ops, reductions, gather, pad, broadcast). Larger
/// results stay as ops: evaluating them through doubles would bloat compile
/// time. Data movement that only copies storage is bounded by kMaxMoveBytes
/// instead.
inline constexpr int64_t kMaxFoldElements = 1 << 16;

/// Largest result, in bytes, that a raw data-movement fold writes. Those
/// folds copy storage without evaluating anything, so the element count
/// does not matter; this only bounds the compiler's memory, since each
/// folded constant is a new copy kept alive by the MLIRContext.
inline constexpr int64_t kMaxMoveBytes = int64_t(256) << 20;

/// The values of a constant tensor, flattened in row-major order. Floating
/// point element types are held as doubles (exact for f16, bf16 and f32),
/// integers as int64 (i1 as 0 or 1). A splat holds one value.
struct ConstantTensor {
  RankedTensorType type;
  bool isFloat = false;
  bool isSplat = false;
  std::vector<double> floats;
  std::vector<int64_t> ints;

  /// Number of stored values (1 for a splat).
  size_t size() const { return isFloat ? floats.size() : ints.size(); }
  double floatAt(int64_t i) const { return floats[isSplat ? 0 : i]; }
  int64_t intAt(int64_t i) const { return ints[isSplat ? 0 : i]; }
};

/// Reads `attr` if it is a dense constant of a static shape that is a splat
/// or has at most `maxElements` elements (folds that touch each value once,
/// such as folding a BatchNorm into conv weights, pass a larger limit).
std::optional<ConstantTensor> readConstant(Attribute attr,
                                           int64_t maxElements = kMaxFoldElements);

/// Builds a constant of `type` from values (one value makes a splat).
/// Integers are truncated to the element width, doubles rounded to nearest
/// even in the element's format.
DenseElementsAttr writeFloats(RankedTensorType type, llvm::ArrayRef<double> values);
DenseElementsAttr writeInts(RankedTensorType type, llvm::ArrayRef<int64_t> values);

/// True when a result of `type` may be folded: a static shape with at most
/// kMaxFoldElements elements.
bool isFoldableResult(RankedTensorType type);

/// For each element of `resultShape` (row-major), the row-major index of the
/// element of `sourceShape` that NumPy broadcasting reads.
llvm::SmallVector<int64_t> broadcastSourceIndices(llvm::ArrayRef<int64_t> sourceShape,
                                                  llvm::ArrayRef<int64_t> resultShape);

/// Row-major strides of a static shape.
llvm::SmallVector<int64_t> rowMajorStrides(llvm::ArrayRef<int64_t> shape);

/// A constant of `resultType` whose element i is element sourceIndices[i]
/// of `source` (data movement: transpose, slice, gather, broadcast...).
DenseElementsAttr permuteElements(const ConstantTensor &source,
                                  RankedTensorType resultType,
                                  llvm::ArrayRef<int64_t> sourceIndices);

/// The storage of a dense constant (DenseElementsAttr, or a
/// DenseResourceElementsAttr whose blob is loaded) with a whole number of
/// bytes per element, in row-major order. i1 values, which MLIR stores
/// bit-packed, are unpacked to one byte each (0 or 1). A splat holds one
/// element.
class RawElements {
public:
  RankedTensorType type;
  size_t elementBytes = 0;
  bool isSplat = false;

  /// The bytes of element `index` (of the only element for a splat).
  const char *at(int64_t index) const {
    const char *base = unpacked.empty() ? data.data() : unpacked.data();
    return base + (isSplat ? 0 : index) * elementBytes;
  }
  /// Whether every element has the bytes of `other`'s every element (both
  /// splats of the same bit pattern).
  bool isSameSplat(const RawElements &other) const;

private:
  friend std::optional<RawElements> readRawElements(Attribute attr);
  llvm::ArrayRef<char> data;    // the attribute's storage (not i1)
  std::vector<char> unpacked;   // i1 only: one byte per element
};

/// Reads the storage of `attr` if it is a dense constant of a static shape
/// with an integer or float element type. No size limit: nothing is copied
/// except i1 data, which is unpacked.
std::optional<RawElements> readRawElements(Attribute attr);

/// True when a data-movement fold may write a result of `type`: a static
/// shape of at most kMaxMoveBytes (i1 counted as one byte per element,
/// as it is unpacked while moved).
bool isMovableResult(RankedTensorType type);

/// A constant of `resultType` (same element type as `source`) whose element
/// at coordinates c is element `offset + sum_d c[d] * sourceStrides[d]` of
/// `source`: transpose, slice (strides may be negative) and reshape (the
/// result's own row-major strides). Bit-exact for every element type. A
/// splat source gives a splat.
DenseElementsAttr moveStrided(const RawElements &source,
                              RankedTensorType resultType, int64_t offset,
                              llvm::ArrayRef<int64_t> sourceStrides);

/// The concatenation of `parts` along `axis` (in range) as a constant of
/// `resultType`. Bit-exact; parts that are the same splat give a splat.
DenseElementsAttr concatElements(llvm::ArrayRef<RawElements> parts,
                                 RankedTensorType resultType, int64_t axis);

/// True if `attr` is a constant whose every element equals `value`.
bool isSplatOf(Attribute attr, double value);

/// Folds an elementwise unary op over a constant `operand`. `floatFn` is
/// used for float element types, `intFn` (when given) for integer ones; a
/// missing function or a result that is not representable (returned as
/// std::nullopt) means no fold.
OpFoldResult foldUnary(Attribute operand, RankedTensorType resultType,
                       llvm::function_ref<std::optional<double>(double)> floatFn,
                       llvm::function_ref<std::optional<int64_t>(int64_t)> intFn);

/// Folds an elementwise op with NumPy broadcasting over two constant
/// operands of float (foldBinaryFloat) or integer/i1 (foldBinaryInt) element
/// type. The result element type may differ from the operands' (comparisons
/// give i1): values are written as floats or integers to match it. A
/// std::nullopt from `fn` (e.g. integer division by zero) means no fold.
OpFoldResult
foldBinaryFloat(Attribute lhs, Attribute rhs, RankedTensorType resultType,
                llvm::function_ref<std::optional<double>(double, double)> fn);
OpFoldResult
foldBinaryInt(Attribute lhs, Attribute rhs, RankedTensorType resultType,
              llvm::function_ref<std::optional<int64_t>(int64_t, int64_t)> fn);

} // namespace mlir::kiln

#endif // KILN_DIALECTS_KILN_CONSTANTFOLDING_H
