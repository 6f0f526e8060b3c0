//===- LoweringUtils.cpp - Shared helpers for Kiln lowerings -------------===//
#include "passes/lowering/LoweringUtils.h"

#include "dialects/kiln/ShapeInference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::kiln {

int64_t normalizeAxis(int64_t axis, int64_t rank) {
  // The ops' verifiers already rejected out-of-range axes.
  return shape::normalizeAxis(axis, rank).value_or(axis);
}

LogicalResult requireStaticShapes(Operation *op, PatternRewriter &rewriter) {
  auto isStatic = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.hasStaticShape();
  };
  if (llvm::all_of(op->getOperandTypes(), isStatic) &&
      llvm::all_of(op->getResultTypes(), isStatic))
    return success();
  return rewriter.notifyMatchFailure(
      op, "the CPU back end needs static shapes on every operand and result");
}

AffineMap broadcastMap(MLIRContext *ctx, RankedTensorType operandType,
                       ArrayRef<int64_t> resultShape) {
  int64_t resultRank = resultShape.size();
  int64_t rank = operandType.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t resultDim = resultRank - rank + d;
    if (operandType.getDimSize(d) == 1 && resultShape[resultDim] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(resultDim, ctx));
  }
  return AffineMap::get(resultRank, 0, exprs, ctx);
}

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   TypedAttr init) {
  Value empty = emptyTensor(b, loc, type);
  Value scalar = arith::ConstantOp::create(b, loc, init);
  return linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
}

Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange operands, ScalarBody body) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps;
  for (Value operand : operands)
    maps.push_back(broadcastMap(
        ctx, cast<RankedTensorType>(operand.getType()), resultType.getShape()));
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, operands,
      ValueRange{emptyTensor(b, loc, resultType)}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args.drop_back());
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

TypedAttr zeroAttr(Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return FloatAttr::get(floatType, 0.0);
  return IntegerAttr::get(type, 0);
}

TypedAttr lowestAttr(Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return FloatAttr::get(floatType,
                          APFloat::getInf(floatType.getFloatSemantics(),
                                          /*Negative=*/true));
  unsigned width = type.getIntOrFloatBitWidth();
  if (width == 1)
    return IntegerAttr::get(type, 0);
  if (type.isUnsignedInteger())
    return IntegerAttr::get(type, APInt::getMinValue(width));
  return IntegerAttr::get(type, APInt::getSignedMinValue(width));
}

TypedAttr highestAttr(Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return FloatAttr::get(floatType,
                          APFloat::getInf(floatType.getFloatSemantics()));
  unsigned width = type.getIntOrFloatBitWidth();
  if (width == 1)
    return IntegerAttr::get(type, 1);
  if (type.isUnsignedInteger())
    return IntegerAttr::get(type, APInt::getMaxValue(width));
  return IntegerAttr::get(type, APInt::getSignedMaxValue(width));
}

Value scalarConstant(OpBuilder &b, Location loc, Type type, double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, FloatAttr::get(floatType, value));
  return arith::ConstantOp::create(
      b, loc, IntegerAttr::get(type, static_cast<int64_t>(value)));
}

Value scalarMax(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  Type type = lhs.getType();
  if (isa<FloatType>(type))
    return arith::MaximumFOp::create(b, loc, lhs, rhs);
  if (type.isUnsignedInteger() || type.isInteger(1))
    return arith::MaxUIOp::create(b, loc, lhs, rhs);
  return arith::MaxSIOp::create(b, loc, lhs, rhs);
}

Value scalarMin(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  Type type = lhs.getType();
  if (isa<FloatType>(type))
    return arith::MinimumFOp::create(b, loc, lhs, rhs);
  if (type.isUnsignedInteger() || type.isInteger(1))
    return arith::MinUIOp::create(b, loc, lhs, rhs);
  return arith::MinSIOp::create(b, loc, lhs, rhs);
}

Value indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value normalizeIndex(OpBuilder &b, Location loc, Value index,
                     int64_t dimSize) {
  Value asIndex =
      arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
  Value zero = indexConstant(b, loc, 0);
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                         asIndex, zero);
  Value wrapped = arith::AddIOp::create(b, loc, asIndex,
                                        indexConstant(b, loc, dimSize));
  return arith::SelectOp::create(b, loc, negative, wrapped, asIndex);
}

Value clampIndex(OpBuilder &b, Location loc, Value index, int64_t lo,
                 int64_t hi) {
  Value low = arith::MaxSIOp::create(b, loc, index, indexConstant(b, loc, lo));
  return arith::MinSIOp::create(b, loc, low, indexConstant(b, loc, hi));
}

Value buildIndexedGeneric(OpBuilder &b, Location loc,
                          RankedTensorType resultType, ValueRange inputs,
                          ArrayRef<AffineMap> inputMaps, IndexedBody body) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs,
      ValueRange{emptyTensor(b, loc, resultType)}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        SmallVector<Value> indices;
        for (int64_t d = 0; d < rank; ++d)
          indices.push_back(linalg::IndexOp::create(nested, nestedLoc, d));
        Value result = body(nested, nestedLoc, args.drop_back(), indices);
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> values) {
  SmallVector<OpFoldResult> result;
  for (int64_t value : values)
    result.push_back(b.getIndexAttr(value));
  return result;
}

Value copyIntoCarried(OpBuilder &b, Location loc, Value value, Value carried) {
  return linalg::CopyOp::create(b, loc, TypeRange{carried.getType()},
                                ValueRange{value}, ValueRange{carried})
      .getResult(0);
}

} // namespace mlir::kiln
