//===- DataMovementToLinalg.cpp - Lowering of Kiln data movement ops -----===//
//
// Reshape becomes tensor.collapse_shape / tensor.expand_shape (through a
// 1-D tensor when the shapes are not a regrouping of each other), transpose
// linalg.transpose, concat one tensor.insert_slice per input, a slice with
// positive steps tensor.extract_slice. What reads at computed positions
// (negative-step slices, gather, reflect/edge padding, broadcast) is a
// linalg.generic, with tensor.extract in the body where the position
// depends on data.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/KilnToLinalg.h"
#include "passes/lowering/LoweringUtils.h"

#include "dialects/kiln/KilnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

namespace mlir::kiln {
namespace {

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

// A reshape to or from a 1-D tensor of all the elements.
Value collapseToVector(OpBuilder &b, Location loc, Value input) {
  RankedTensorType type = tensorTypeOf(input);
  if (type.getRank() == 1)
    return input;
  auto flat =
      RankedTensorType::get({type.getNumElements()}, type.getElementType());
  if (type.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, flat, input,
                                         ArrayRef<ReassociationIndices>{});
  ReassociationIndices all;
  for (int64_t d = 0; d < type.getRank(); ++d)
    all.push_back(d);
  return tensor::CollapseShapeOp::create(b, loc, flat, input,
                                         ArrayRef<ReassociationIndices>{all});
}

Value expandFromVector(OpBuilder &b, Location loc, Value flat,
                       RankedTensorType type) {
  if (type.getRank() == 1)
    return flat;
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, flat,
                                           ArrayRef<ReassociationIndices>{});
  ReassociationIndices all;
  for (int64_t d = 0; d < type.getRank(); ++d)
    all.push_back(d);
  return tensor::ExpandShapeOp::create(b, loc, type, flat,
                                       ArrayRef<ReassociationIndices>{all});
}

struct ReshapeLowering : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    RankedTensorType source = tensorTypeOf(op.getInput());
    RankedTensorType result = tensorTypeOf(op.getOutput());
    if (source == result) {
      rewriter.replaceOp(op, op.getInput());
      return success();
    }
    if (source.getRank() > 0 && result.getRank() > 0) {
      if (source.getRank() > result.getRank()) {
        if (auto groups = getReassociationIndicesForReshape(source, result)) {
          rewriter.replaceOp(op, tensor::CollapseShapeOp::create(
                                     rewriter, loc, result, op.getInput(),
                                     *groups));
          return success();
        }
      } else if (source.getRank() < result.getRank()) {
        if (auto groups = getReassociationIndicesForReshape(result, source)) {
          rewriter.replaceOp(op, tensor::ExpandShapeOp::create(
                                     rewriter, loc, result, op.getInput(),
                                     *groups));
          return success();
        }
      }
    }
    Value flat = collapseToVector(rewriter, loc, op.getInput());
    rewriter.replaceOp(op, expandFromVector(rewriter, loc, flat, result));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

struct TransposeLowering : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    Value init = emptyTensor(rewriter, loc, tensorTypeOf(op.getOutput()));
    auto transpose = linalg::TransposeOp::create(rewriter, loc, op.getInput(),
                                                 init, op.getPerm());
    rewriter.replaceOp(op, transpose.getResult());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

struct ConcatLowering : OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    RankedTensorType resultType = tensorTypeOf(op.getOutput());
    int64_t rank = resultType.getRank();
    int64_t axis = normalizeAxis(op.getAxis(), rank);
    Value result = emptyTensor(rewriter, loc, resultType);
    int64_t offset = 0;
    for (Value input : op.getInputs()) {
      RankedTensorType type = tensorTypeOf(input);
      SmallVector<int64_t> offsets(rank, 0);
      offsets[axis] = offset;
      offset += type.getDimSize(axis);
      if (type.getNumElements() == 0)
        continue;
      result = tensor::InsertSliceOp::create(
          rewriter, loc, input, result, indexAttrs(rewriter, offsets),
          indexAttrs(rewriter, type.getShape()),
          indexAttrs(rewriter, SmallVector<int64_t>(rank, 1)));
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

struct SliceLowering : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    RankedTensorType resultType = tensorTypeOf(op.getOutput());
    ArrayRef<int64_t> starts = op.getStarts(), steps = op.getSteps();
    if (llvm::all_of(steps, [](int64_t step) { return step > 0; })) {
      rewriter.replaceOp(
          op, tensor::ExtractSliceOp::create(
                  rewriter, loc, resultType, op.getInput(),
                  indexAttrs(rewriter, starts),
                  indexAttrs(rewriter, resultType.getShape()),
                  indexAttrs(rewriter, steps)));
      return success();
    }
    // Negative steps read backwards: input index start + step * i, which an
    // indexing map expresses directly.
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = resultType.getRank();
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < rank; ++d)
      exprs.push_back(getAffineConstantExpr(starts[d], ctx) +
                      getAffineDimExpr(d, ctx) * steps[d]);
    AffineMap read = AffineMap::get(rank, 0, exprs, ctx);
    rewriter.replaceOp(
        op, buildIndexedGeneric(
                rewriter, loc, resultType, op.getInput(), read,
                [](OpBuilder &, Location, ValueRange args, ValueRange) {
                  return args[0];
                }));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// GatherOp
//===----------------------------------------------------------------------===//

struct GatherLowering : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType dataType = tensorTypeOf(op.getData());
    RankedTensorType indicesType = tensorTypeOf(op.getIndices());
    RankedTensorType resultType = tensorTypeOf(op.getOutput());
    int64_t axis = normalizeAxis(op.getAxis(), dataType.getRank());
    int64_t indexRank = indicesType.getRank();
    // Result dims [axis, axis + indexRank) walk the indices tensor.
    SmallVector<AffineExpr> indexExprs;
    for (int64_t d = 0; d < indexRank; ++d)
      indexExprs.push_back(getAffineDimExpr(axis + d, ctx));
    AffineMap indexMap =
        AffineMap::get(resultType.getRank(), 0, indexExprs, ctx);
    Value data = op.getData();
    int64_t axisSize = dataType.getDimSize(axis);
    Value result = buildIndexedGeneric(
        rewriter, loc, resultType, op.getIndices(), indexMap,
        [&](OpBuilder &b, Location bodyLoc, ValueRange args,
            ValueRange indices) {
          SmallVector<Value> coords(indices.take_front(axis));
          coords.push_back(normalizeIndex(b, bodyLoc, args[0], axisSize));
          for (Value index : indices.drop_front(axis + indexRank))
            coords.push_back(index);
          return tensor::ExtractOp::create(b, bodyLoc, data, coords)
              .getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// PadOp
//===----------------------------------------------------------------------===//

TypedAttr padValueAttr(Type elementType, double value) {
  if (auto floatType = dyn_cast<FloatType>(elementType))
    return FloatAttr::get(floatType, value);
  if (elementType.isInteger(1))
    return IntegerAttr::get(elementType, value != 0.0 ? 1 : 0);
  return IntegerAttr::get(elementType, static_cast<int64_t>(value));
}

struct PadLowering : OpRewritePattern<PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PadOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    RankedTensorType inputType = tensorTypeOf(op.getInput());
    RankedTensorType resultType = tensorTypeOf(op.getOutput());
    int64_t rank = inputType.getRank();
    ArrayRef<int64_t> pads = op.getPads();
    if (op.getMode() == PadMode::constant) {
      // Negative pads crop first; tensor.pad then adds the rest.
      Value input = op.getInput();
      SmallVector<int64_t> offsets, sizes, low, high;
      bool crops = false;
      for (int64_t d = 0; d < rank; ++d) {
        int64_t before = pads[d], after = pads[rank + d];
        crops |= before < 0 || after < 0;
        offsets.push_back(std::max<int64_t>(0, -before));
        sizes.push_back(inputType.getDimSize(d) -
                        std::max<int64_t>(0, -before) -
                        std::max<int64_t>(0, -after));
        low.push_back(std::max<int64_t>(0, before));
        high.push_back(std::max<int64_t>(0, after));
      }
      if (crops)
        input = tensor::ExtractSliceOp::create(
            rewriter, loc,
            RankedTensorType::get(sizes, inputType.getElementType()), input,
            indexAttrs(rewriter, offsets), indexAttrs(rewriter, sizes),
            indexAttrs(rewriter, SmallVector<int64_t>(rank, 1)));
      Value padValue = arith::ConstantOp::create(
          rewriter, loc,
          padValueAttr(inputType.getElementType(),
                       op.getValue().convertToDouble()));
      rewriter.replaceOp(
          op, tensor::PadOp::create(rewriter, loc, resultType, input,
                                    indexAttrs(rewriter, low),
                                    indexAttrs(rewriter, high), padValue));
      return success();
    }
    // reflect / edge: every output element reads the input at a mirrored
    // or clamped position.
    bool reflect = op.getMode() == PadMode::reflect;
    Value input = op.getInput();
    Value result = buildIndexedGeneric(
        rewriter, loc, resultType, {}, {},
        [&](OpBuilder &b, Location bodyLoc, ValueRange, ValueRange indices) {
          SmallVector<Value> coords;
          for (int64_t d = 0; d < rank; ++d) {
            int64_t size = inputType.getDimSize(d);
            Value pos = arith::SubIOp::create(b, bodyLoc, indices[d],
                                              indexConstant(b, bodyLoc, pads[d]));
            if (reflect && size > 1) {
              // |pos| mirrors the front; 2 (size - 1) - pos the back.
              Value zero = indexConstant(b, bodyLoc, 0);
              Value negated = arith::SubIOp::create(b, bodyLoc, zero, pos);
              pos = arith::MaxSIOp::create(b, bodyLoc, pos, negated);
              Value last = indexConstant(b, bodyLoc, 2 * (size - 1));
              Value mirrored = arith::SubIOp::create(b, bodyLoc, last, pos);
              pos = arith::MinSIOp::create(b, bodyLoc, pos, mirrored);
            }
            coords.push_back(clampIndex(b, bodyLoc, pos, 0, size - 1));
          }
          return tensor::ExtractOp::create(b, bodyLoc, input, coords)
              .getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

struct BroadcastLowering : OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Value result = buildElementwise(
        rewriter, op.getLoc(), tensorTypeOf(op.getOutput()), op.getInput(),
        [](OpBuilder &, Location, ValueRange scalars) { return scalars[0]; });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateDataMovementToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ReshapeLowering, TransposeLowering, ConcatLowering,
               SliceLowering, GatherLowering, PadLowering, BroadcastLowering>(
      patterns.getContext());
}

} // namespace mlir::kiln
