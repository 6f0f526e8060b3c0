//===- IndexingToLinalg.cpp - Lowering of Kiln indexing ops --------------===//
//
// arg_reduce is one linalg.generic reduction carrying (value, index). top_k
// runs k such reductions in an scf.for, each picking the best element that
// comes after the previous pick in the (value, index) order, so it needs no
// sort and no scratch. cumsum walks its axis in an scf.for carrying the
// running sum of the other dimensions. The gathers are linalg.generic ops
// reading with tensor.extract; the scatters are scf.for nests over the
// update elements, tensor.extract / tensor.insert on the carried result.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/KilnToLinalg.h"
#include "passes/lowering/LoweringUtils.h"

#include "dialects/kiln/KilnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::kiln {
namespace {

// `type` without dimension `axis`.
RankedTensorType dropDim(RankedTensorType type, int64_t axis,
                         Type elementType = {}) {
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + axis);
  return RankedTensorType::get(shape,
                               elementType ? elementType : type.getElementType());
}

// The identity map over `rank` loops without loop `axis`.
AffineMap dropDimMap(MLIRContext *ctx, int64_t rank, int64_t axis) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

SmallVector<utils::IteratorType> reductionAt(int64_t rank, int64_t axis) {
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators[axis] = utils::IteratorType::reduction;
  return iterators;
}

// Ordered comparisons on floats (signed on integers).
Value greaterThan(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, lhs, rhs);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, lhs, rhs);
}

Value lessThan(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return greaterThan(b, loc, rhs, lhs);
}

Value equalTo(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, lhs, rhs);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lhs, rhs);
}

Value currentIndexI64(OpBuilder &b, Location loc, int64_t dim) {
  Value index = linalg::IndexOp::create(b, loc, dim);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

// Offsets selecting position `pos` of dimension `axis` (0 elsewhere), and
// the sizes of that one-thick slice of `type`.
SmallVector<OpFoldResult> offsetsAt(OpBuilder &b, int64_t rank, int64_t axis,
                                    Value pos) {
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  offsets[axis] = pos;
  return offsets;
}

SmallVector<OpFoldResult> sliceSizes(OpBuilder &b, RankedTensorType type,
                                     int64_t axis) {
  SmallVector<int64_t> sizes(type.getShape());
  sizes[axis] = 1;
  return indexAttrs(b, sizes);
}

//===----------------------------------------------------------------------===//
// ArgReduceOp
//===----------------------------------------------------------------------===//

struct ArgReduceLowering : OpRewritePattern<ArgReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ArgReduceOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType inputType = tensorTypeOf(op.getInput());
    int64_t rank = inputType.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    bool isMax = op.getKind() == ArgReduceKind::max;
    bool last = op.getSelectLastIndex();
    Type element = inputType.getElementType();
    RankedTensorType valueType = dropDim(inputType, axis);
    RankedTensorType indexType = dropDim(inputType, axis, rewriter.getI64Type());

    Value valueInit = filledTensor(
        rewriter, loc, valueType,
        isMax ? lowestAttr(element) : highestAttr(element));
    Value indexInit = filledTensor(rewriter, loc, indexType,
                                   rewriter.getI64IntegerAttr(0));
    AffineMap reduced = dropDimMap(ctx, rank, axis);
    SmallVector<AffineMap> maps = {
        AffineMap::getMultiDimIdentityMap(rank, ctx), reduced, reduced};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{valueType, indexType}, op.getInput(),
        ValueRange{valueInit, indexInit}, maps, reductionAt(rank, axis),
        [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
          Value x = args[0], best = args[1], bestIndex = args[2];
          // Strictly better keeps the first of equal values; better or
          // equal the last.
          Value better = isMax ? greaterThan(b, bodyLoc, x, best)
                               : lessThan(b, bodyLoc, x, best);
          if (last)
            better = arith::OrIOp::create(b, bodyLoc, better,
                                          equalTo(b, bodyLoc, x, best));
          Value index = currentIndexI64(b, bodyLoc, axis);
          linalg::YieldOp::create(
              b, bodyLoc,
              ValueRange{
                  arith::SelectOp::create(b, bodyLoc, better, x, best),
                  arith::SelectOp::create(b, bodyLoc, better, index,
                                          bestIndex)});
        });
    Value result = generic.getResult(1);
    if (op.getKeepdims())
      result = tensor::ExpandShapeOp::create(
          rewriter, loc, tensorTypeOf(op.getOutput()), result,
          keepDimGroups(rank, axis));
    rewriter.replaceOp(op, result);
    return success();
  }

  // Groups expanding a rank - 1 tensor back to `rank` dims with a size-1
  // `axis`: the kept dimension joins its neighbour's group (none for a
  // scalar).
  static SmallVector<ReassociationIndices> keepDimGroups(int64_t rank,
                                                         int64_t axis) {
    SmallVector<ReassociationIndices> groups;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        groups.push_back({d});
    if (groups.empty())
      return groups;
    if (axis == 0)
      groups.front().insert(groups.front().begin(), 0);
    else
      groups[axis - 1].push_back(axis);
    return groups;
  }
};

//===----------------------------------------------------------------------===//
// TopKOp
//===----------------------------------------------------------------------===//

struct TopKLowering : OpRewritePattern<TopKOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TopKOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType inputType = tensorTypeOf(op.getInput());
    RankedTensorType valuesType = tensorTypeOf(op.getValues());
    RankedTensorType indicesType = tensorTypeOf(op.getIndices());
    int64_t rank = inputType.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    bool largest = op.getLargest();
    Type element = inputType.getElementType();
    Type i64 = rewriter.getI64Type();
    RankedTensorType pickType = dropDim(inputType, axis);
    RankedTensorType pickIndexType = dropDim(inputType, axis, i64);
    TypedAttr worst = largest ? lowestAttr(element) : highestAttr(element);
    TypedAttr best = largest ? highestAttr(element) : lowestAttr(element);
    TypedAttr none = rewriter.getI64IntegerAttr(-1);
    Value input = op.getInput();
    AffineMap reduced = dropDimMap(ctx, rank, axis);
    SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                   reduced, reduced, reduced, reduced};

    // Pick j is the first element, in the order (value better first, then
    // lower index first), of those after pick j - 1.
    auto comesFirst = [&](OpBuilder &b, Location l, Value value, Value index,
                          Value otherValue, Value otherIndex) {
      Value better = largest ? greaterThan(b, l, value, otherValue)
                             : lessThan(b, l, value, otherValue);
      Value tie = arith::AndIOp::create(
          b, l, equalTo(b, l, value, otherValue),
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, index,
                                otherIndex));
      return arith::OrIOp::create(b, l, better, tie).getResult();
    };

    Value lower = indexConstant(rewriter, loc, 0);
    Value upper = indexConstant(rewriter, loc, op.getK());
    Value step = indexConstant(rewriter, loc, 1);
    SmallVector<Value> inits = {
        emptyTensor(rewriter, loc, valuesType),
        emptyTensor(rewriter, loc, indicesType),
        filledTensor(rewriter, loc, pickType, best),
        filledTensor(rewriter, loc, pickIndexType, none)};
    auto loop = scf::ForOp::create(
        rewriter, loc, lower, upper, step, inits,
        [&](OpBuilder &b, Location l, Value j, ValueRange carried) {
          Value pickInit = filledTensor(b, l, pickType, worst);
          Value pickIndexInit = filledTensor(b, l, pickIndexType, none);
          auto generic = linalg::GenericOp::create(
              b, l, TypeRange{pickType, pickIndexType},
              ValueRange{input, carried[2], carried[3]},
              ValueRange{pickInit, pickIndexInit}, maps,
              reductionAt(rank, axis),
              [&](OpBuilder &nb, Location nl, ValueRange args) {
                Value x = args[0], prev = args[1], prevIndex = args[2];
                Value pick = args[3], pickIndex = args[4];
                Value index = currentIndexI64(nb, nl, axis);
                Value eligible =
                    comesFirst(nb, nl, prev, prevIndex, x, index);
                Value noPick = arith::CmpIOp::create(
                    nb, nl, arith::CmpIPredicate::slt, pickIndex,
                    arith::ConstantOp::create(nb, nl, nb.getI64IntegerAttr(0)));
                Value beats = arith::OrIOp::create(
                    nb, nl, noPick,
                    comesFirst(nb, nl, x, index, pick, pickIndex));
                Value take = arith::AndIOp::create(nb, nl, eligible, beats);
                linalg::YieldOp::create(
                    nb, nl,
                    ValueRange{
                        arith::SelectOp::create(nb, nl, take, x, pick),
                        arith::SelectOp::create(nb, nl, take, index,
                                                pickIndex)});
              });
          Value picked = generic.getResult(0);
          Value pickedIndex = generic.getResult(1);
          SmallVector<OpFoldResult> offsets = offsetsAt(b, rank, axis, j);
          SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
          Value values = tensor::InsertSliceOp::create(
              b, l, picked, carried[0], offsets,
              sliceSizes(b, valuesType, axis), strides);
          Value indices = tensor::InsertSliceOp::create(
              b, l, pickedIndex, carried[1], offsets,
              sliceSizes(b, indicesType, axis), strides);
          scf::YieldOp::create(
              b, l,
              ValueRange{values, indices,
                         copyIntoCarried(b, l, picked, carried[2]),
                         copyIntoCarried(b, l, pickedIndex, carried[3])});
        });
    rewriter.replaceOp(op, {loop.getResult(0), loop.getResult(1)});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// CumSumOp
//===----------------------------------------------------------------------===//

struct CumSumLowering : OpRewritePattern<CumSumOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CumSumOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    RankedTensorType type = tensorTypeOf(op.getInput());
    int64_t rank = type.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    int64_t size = type.getDimSize(axis);
    bool exclusive = op.getExclusive(), reverse = op.getReverse();
    RankedTensorType rowType = dropDim(type, axis);
    Value input = op.getInput();

    SmallVector<Value> inits = {
        emptyTensor(rewriter, loc, type),
        filledTensor(rewriter, loc, rowType, zeroAttr(type.getElementType()))};
    auto loop = scf::ForOp::create(
        rewriter, loc, indexConstant(rewriter, loc, 0),
        indexConstant(rewriter, loc, size), indexConstant(rewriter, loc, 1),
        inits, [&](OpBuilder &b, Location l, Value j, ValueRange carried) {
          Value pos = j;
          if (reverse)
            pos = arith::SubIOp::create(b, l, indexConstant(b, l, size - 1),
                                        j);
          SmallVector<OpFoldResult> offsets = offsetsAt(b, rank, axis, pos);
          SmallVector<OpFoldResult> sizes = sliceSizes(b, type, axis);
          SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
          Value row = tensor::ExtractSliceOp::create(b, l, rowType, input,
                                                     offsets, sizes, strides);
          Value sum = buildElementwise(
              b, l, rowType, ValueRange{carried[1], row},
              [](OpBuilder &nb, Location nl, ValueRange s) -> Value {
                if (isa<FloatType>(s[0].getType()))
                  return arith::AddFOp::create(nb, nl, s[0], s[1]);
                return arith::AddIOp::create(nb, nl, s[0], s[1]);
              });
          Value stored = exclusive ? carried[1] : sum;
          Value output = tensor::InsertSliceOp::create(
              b, l, stored, carried[0], offsets, sizes, strides);
          scf::YieldOp::create(
              b, l, ValueRange{output, copyIntoCarried(b, l, sum, carried[1])});
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// GatherElementsOp / GatherNdOp
//===----------------------------------------------------------------------===//

struct GatherElementsLowering : OpRewritePattern<GatherElementsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherElementsOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    RankedTensorType dataType = tensorTypeOf(op.getData());
    RankedTensorType resultType = tensorTypeOf(op.getOutput());
    int64_t rank = dataType.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    Value data = op.getData();
    AffineMap identity =
        AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext());
    Value result = buildIndexedGeneric(
        rewriter, op.getLoc(), resultType, op.getIndices(), identity,
        [&](OpBuilder &b, Location l, ValueRange args, ValueRange indices) {
          SmallVector<Value> coords(indices);
          coords[axis] =
              normalizeIndex(b, l, args[0], dataType.getDimSize(axis));
          return tensor::ExtractOp::create(b, l, data, coords).getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GatherNdLowering : OpRewritePattern<GatherNdOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherNdOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    RankedTensorType dataType = tensorTypeOf(op.getData());
    RankedTensorType indicesType = tensorTypeOf(op.getIndices());
    RankedTensorType resultType = tensorTypeOf(op.getOutput());
    int64_t batch = op.getBatchDims();
    int64_t prefix = indicesType.getRank() - 1;
    int64_t depth = indicesType.getDimSize(prefix);
    Value data = op.getData(), indicesTensor = op.getIndices();
    Value result = buildIndexedGeneric(
        rewriter, op.getLoc(), resultType, {}, {},
        [&](OpBuilder &b, Location l, ValueRange, ValueRange indices) {
          SmallVector<Value> coords(indices.take_front(batch));
          SmallVector<Value> tuple(indices.take_front(prefix));
          tuple.push_back(Value());
          for (int64_t c = 0; c < depth; ++c) {
            tuple.back() = indexConstant(b, l, c);
            Value coordinate =
                tensor::ExtractOp::create(b, l, indicesTensor, tuple);
            coords.push_back(normalizeIndex(b, l, coordinate,
                                            dataType.getDimSize(batch + c)));
          }
          for (Value index : indices.drop_front(prefix))
            coords.push_back(index);
          return tensor::ExtractOp::create(b, l, data, coords).getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// ScatterNdOp / ScatterElementsOp
//===----------------------------------------------------------------------===//

Value combine(OpBuilder &b, Location loc, ScatterReduction reduction,
              Value old, Value update) {
  bool isFloat = isa<FloatType>(old.getType());
  switch (reduction) {
  case ScatterReduction::none:
    return update;
  case ScatterReduction::add:
    if (isFloat)
      return arith::AddFOp::create(b, loc, old, update);
    return arith::AddIOp::create(b, loc, old, update);
  case ScatterReduction::mul:
    if (isFloat)
      return arith::MulFOp::create(b, loc, old, update);
    return arith::MulIOp::create(b, loc, old, update);
  case ScatterReduction::max:
    return scalarMax(b, loc, old, update);
  case ScatterReduction::min:
    return scalarMin(b, loc, old, update);
  }
  llvm_unreachable("unknown scatter reduction");
}

// Loops over every element of `updates` (row-major, so later duplicates
// win for `none`), carrying a copy of `data`; `target` maps an update's
// coordinates to the data coordinates it combines into.
using TargetFn = function_ref<SmallVector<Value>(OpBuilder &, Location,
                                                 ValueRange updateCoords)>;
Value buildScatter(OpBuilder &b, Location loc, Value data, Value updates,
                   ScatterReduction reduction, TargetFn target) {
  RankedTensorType updatesType = tensorTypeOf(updates);
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t size : updatesType.getShape()) {
    lbs.push_back(indexConstant(b, loc, 0));
    ubs.push_back(indexConstant(b, loc, size));
    steps.push_back(indexConstant(b, loc, 1));
  }
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, ValueRange{data},
      [&](OpBuilder &nb, Location nl, ValueRange ivs,
          ValueRange carried) -> scf::ValueVector {
        Value update = tensor::ExtractOp::create(nb, nl, updates, ivs);
        SmallVector<Value> coords = target(nb, nl, ivs);
        Value result = carried[0];
        Value old = tensor::ExtractOp::create(nb, nl, result, coords);
        Value combined = combine(nb, nl, reduction, old, update);
        return {tensor::InsertOp::create(nb, nl, combined, result, coords)
                    .getResult()};
      });
  return nest.results.front();
}

struct ScatterNdLowering : OpRewritePattern<ScatterNdOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScatterNdOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    RankedTensorType dataType = tensorTypeOf(op.getData());
    RankedTensorType indicesType = tensorTypeOf(op.getIndices());
    int64_t prefix = indicesType.getRank() - 1;
    int64_t depth = indicesType.getDimSize(prefix);
    Value indicesTensor = op.getIndices();
    Value result = buildScatter(
        rewriter, op.getLoc(), op.getData(), op.getUpdates(),
        op.getReduction(),
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          SmallVector<Value> coords;
          SmallVector<Value> tuple(ivs.take_front(prefix));
          tuple.push_back(Value());
          for (int64_t c = 0; c < depth; ++c) {
            tuple.back() = indexConstant(b, l, c);
            Value coordinate =
                tensor::ExtractOp::create(b, l, indicesTensor, tuple);
            coords.push_back(
                normalizeIndex(b, l, coordinate, dataType.getDimSize(c)));
          }
          for (Value iv : ivs.drop_front(prefix))
            coords.push_back(iv);
          return coords;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ScatterElementsLowering : OpRewritePattern<ScatterElementsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScatterElementsOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    RankedTensorType dataType = tensorTypeOf(op.getData());
    int64_t axis = normalizeAxis(op.getAxis(), dataType.getRank());
    Value indicesTensor = op.getIndices();
    Value result = buildScatter(
        rewriter, op.getLoc(), op.getData(), op.getUpdates(),
        op.getReduction(),
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          SmallVector<Value> coords(ivs);
          Value index = tensor::ExtractOp::create(b, l, indicesTensor, ivs);
          coords[axis] =
              normalizeIndex(b, l, index, dataType.getDimSize(axis));
          return coords;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateIndexingToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ArgReduceLowering, TopKLowering, CumSumLowering,
               GatherElementsLowering, GatherNdLowering, ScatterNdLowering,
               ScatterElementsLowering>(patterns.getContext());
}

} // namespace mlir::kiln
