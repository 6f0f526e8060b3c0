//===- LoweringUtils.h - Shared helpers for Kiln lowerings ------*- C++ -*-===//
#ifndef KILN_PASSES_LOWERING_LOWERINGUTILS_H
#define KILN_PASSES_LOWERING_LOWERINGUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::kiln {

inline RankedTensorType tensorTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

// An axis of a verified op in [0, rank) (negative axes count from the back).
int64_t normalizeAxis(int64_t axis, int64_t rank);

// Fails (with a match-failure note) unless every operand and result of `op`
// is a statically shaped ranked tensor: the CPU back end plans memory at
// compile time.
LogicalResult requireStaticShapes(Operation *op, PatternRewriter &rewriter);

// The indexing map reading an operand of type `operandType` inside a loop
// nest over `resultShape`, with NumPy broadcasting (right-aligned; size-1
// dims that stretch read index 0).
AffineMap broadcastMap(MLIRContext *ctx, RankedTensorType operandType,
                       ArrayRef<int64_t> resultShape);

// A zero-filled (or `init`-filled) tensor of `type`, via tensor.empty +
// linalg.fill.
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   TypedAttr init);
Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type);

// Builds a linalg.generic over `resultType`'s shape (all loops parallel)
// that reads each operand with broadcasting and yields body(args).
using ScalarBody =
    function_ref<Value(OpBuilder &, Location, ValueRange scalars)>;
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange operands, ScalarBody body);

// Scalar helpers on element types.
TypedAttr zeroAttr(Type elementType);
// The identity of max (lowest value) / min (highest value) for `type`.
TypedAttr lowestAttr(Type elementType);
TypedAttr highestAttr(Type elementType);
Value scalarConstant(OpBuilder &b, Location loc, Type type, double value);
// arith.cmpf/cmpi max and min that propagate NaN like ONNX (std::max order).
Value scalarMax(OpBuilder &b, Location loc, Value lhs, Value rhs);
Value scalarMin(OpBuilder &b, Location loc, Value lhs, Value rhs);


// Index helpers for lowerings that compute where they read (gathers,
// resampling, padding). All work on `index` values.
Value indexConstant(OpBuilder &b, Location loc, int64_t value);
// Converts an i32/i64 index read from a tensor to `index`, adding `dimSize`
// when it is negative (ONNX counts negative indices from the back).
Value normalizeIndex(OpBuilder &b, Location loc, Value index, int64_t dimSize);
// Clamps an `index` value to [lo, hi].
Value clampIndex(OpBuilder &b, Location loc, Value index, int64_t lo,
                 int64_t hi);

// A linalg.generic over `resultType`'s shape (all loops parallel) that reads
// `inputs` through `inputMaps` and whose body also gets the loop indices
// (linalg.index): for results computed from where they read (tensor.extract
// inside the body).
using IndexedBody = function_ref<Value(OpBuilder &, Location, ValueRange args,
                                       ValueRange indices)>;
Value buildIndexedGeneric(OpBuilder &b, Location loc,
                          RankedTensorType resultType, ValueRange inputs,
                          ArrayRef<AffineMap> inputMaps, IndexedBody body);

// Static offsets/sizes/strides as the OpFoldResults slice ops take.
SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> values);


// Copies `value` into `carried` (linalg.copy) so that an scf.for yields a
// tensor equivalent to its iteration argument: one-shot bufferization then
// reuses the argument's buffer instead of failing on a new allocation.
Value copyIntoCarried(OpBuilder &b, Location loc, Value value, Value carried);

} // namespace mlir::kiln

#endif // KILN_PASSES_LOWERING_LOWERINGUTILS_H
