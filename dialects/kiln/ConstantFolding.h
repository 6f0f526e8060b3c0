//===- ConstantFolding.h - Evaluating Kiln ops on constants -----*- C++ -*-===//
//
// The folders of Kiln ops evaluate small constant tensors at compile time
// (the shape sub-graphs that exporters emit are made of such ops). This
// file reads dense constants into flat vectors of doubles or int64s, writes
// them back, and maps element indices for broadcasting and data movement.
// Splat constants fold at any size, since only one value is computed.
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

/// Largest non-splat result (in elements) that a folder computes. Larger
/// constants stay as ops: folding them would bloat the IR and compile time
/// for no run-time gain.
inline constexpr int64_t kMaxFoldElements = 1 << 16;

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
/// or has at most kMaxFoldElements elements.
std::optional<ConstantTensor> readConstant(Attribute attr);

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
