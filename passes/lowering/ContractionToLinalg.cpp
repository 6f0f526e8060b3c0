//===- ContractionToLinalg.cpp - Lowering of matmul, conv and pooling -----===//
//
// Matmul becomes linalg.matmul (leading dims folded into M when the rhs is
// a matrix), linalg.batch_matmul, or a broadcasting contraction generic.
// Integer contractions (i8 operands, i32 result) take the same forms with an
// i32 accumulator: linalg.matmul with i8 ins and i32 outs, and generic
// bodies that sign-extend both operands (extsi, muli, addi in i32): the
// form the CPU back end's int8 kernels match.
//
// Convolution becomes a matrix product so that the matmul code generator
// (register tiles of FMA vectors) serves it too: an all-parallel im2col
// generic gathers the windows into [N, C*K1..Kn, O1..On] (nothing is
// gathered for 1x1, stride-1 kernels), then a contraction generic over
// (n, m, p, ck) multiplies by the filter. Grouped and depthwise convolutions
// split the channels into a group dimension and use one direct generic
// (with no filter dim when each group has one filter, as in depthwise
// convolutions, so the result needs no reshape).
//
// Attention (kiln.attention), when the back end does not keep it for its
// own kernel, becomes the chain it was fused from: matmul, a multiply by
// the scale, the mask's add, softmax and matmul, each then lowered by its
// own pattern.
//
// Pooling is a generic over (n, c, o..., k...) with a window-shaped
// placeholder operand giving the k loops their range (as linalg's named
// pooling ops do). Average pooling divides by per-position window counts
// computed at compile time, which covers count_include_pad and ceil_mode.
//
//===----------------------------------------------------------------------===//
#include "passes/lowering/KilnToLinalg.h"
#include "passes/lowering/LoweringUtils.h"

#include "dialects/kiln/KilnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::kiln {
namespace {

using utils::IteratorType;

// 16-bit contractions (from kiln-mixed-precision) accumulate in f32 and
// round once at the end: summing K products in bf16 would lose the low bits
// of every partial sum.
Type accumulatorType(Type element) {
  if (element.isBF16() || element.isF16())
    return Float32Type::get(element.getContext());
  return element;
}

Value extendTo(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  return arith::ExtFOp::create(b, loc, type, value);
}

// `value` (f32 accumulators) rounded to the element type of `type` by an
// elementwise generic, which joins the contraction's dispatch.
Value roundTo(OpBuilder &b, Location loc, Value value, RankedTensorType type) {
  if (value.getType() == type)
    return value;
  int64_t rank = type.getRank();
  SmallVector<AffineMap> maps(2, AffineMap::getMultiDimIdentityMap(
                                     rank, b.getContext()));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{value},
             ValueRange{emptyTensor(b, loc, type)}, maps, iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   nb, l,
                   arith::TruncFOp::create(nb, l, type.getElementType(),
                                           args[0])
                       .getResult());
             })
      .getResult(0);
}

Value multiplyAdd(OpBuilder &b, Location loc, Value lhs, Value rhs, Value acc) {
  if (isa<FloatType>(acc.getType())) {
    lhs = extendTo(b, loc, lhs, acc.getType());
    rhs = extendTo(b, loc, rhs, acc.getType());
    return arith::AddFOp::create(b, loc, acc,
                                 arith::MulFOp::create(b, loc, lhs, rhs));
  }
  // i8 operands of an integer contraction: exact products in i32.
  if (lhs.getType() != acc.getType())
    lhs = arith::ExtSIOp::create(b, loc, acc.getType(), lhs);
  if (rhs.getType() != acc.getType())
    rhs = arith::ExtSIOp::create(b, loc, acc.getType(), rhs);
  return arith::AddIOp::create(b, loc, acc,
                               arith::MulIOp::create(b, loc, lhs, rhs));
}

// Reassociation grouping the first `count` dims together, others alone.
SmallVector<ReassociationIndices> groupLeading(int64_t rank, int64_t count) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices first;
  for (int64_t i = 0; i < count; ++i)
    first.push_back(i);
  groups.push_back(first);
  for (int64_t i = count; i < rank; ++i)
    groups.push_back({i});
  return groups;
}

Value collapse(OpBuilder &b, Location loc, Value value,
               ArrayRef<ReassociationIndices> groups) {
  return tensor::CollapseShapeOp::create(b, loc, value, groups);
}

Value expand(OpBuilder &b, Location loc, Value value, RankedTensorType type,
             ArrayRef<ReassociationIndices> groups) {
  return tensor::ExpandShapeOp::create(b, loc, type, value, groups);
}

// Pads the spatial dims (2..) of an [N, C, D...] tensor.
Value padSpatial(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> low,
                 ArrayRef<int64_t> high, TypedAttr padValue) {
  if (llvm::all_of(low, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(high, [](int64_t v) { return v == 0; }))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> lo = {0, 0}, hi = {0, 0}, shape;
  lo.append(low.begin(), low.end());
  hi.append(high.begin(), high.end());
  for (int64_t d = 0; d < type.getRank(); ++d)
    shape.push_back(type.getDimSize(d) + lo[d] + hi[d]);
  auto paddedType = RankedTensorType::get(shape, type.getElementType());
  Value value = arith::ConstantOp::create(b, loc, padValue);
  return tensor::PadOp::create(b, loc, paddedType, input,
                               getAsIndexOpFoldResult(b.getContext(), lo),
                               getAsIndexOpFoldResult(b.getContext(), hi), value,
                               /*nofold=*/false);
}

// result + bias, `bias` [M] read along `channelDim` of the accumulators
// (f32, or i32 for an integer convolution) by a projected-permutation map,
// so the add stays fusable with the convolution's dispatch.
Value addChannelBias(OpBuilder &b, Location loc, Value result, Value bias,
                     int64_t channelDim) {
  auto type = cast<RankedTensorType>(result.getType());
  Type acc = type.getElementType();
  MLIRContext *ctx = b.getContext();
  int64_t rank = type.getRank();
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, ctx),
      AffineMap::get(rank, 0, {getAffineDimExpr(channelDim, ctx)}, ctx),
      AffineMap::getMultiDimIdentityMap(rank, ctx)};
  SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, ValueRange{result, bias},
             ValueRange{emptyTensor(b, loc, type)}, maps, iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value sum =
                   isa<FloatType>(acc)
                       ? arith::AddFOp::create(nb, l, args[0],
                                               extendTo(nb, l, args[1], acc))
                             .getResult()
                       : arith::AddIOp::create(nb, l, args[0], args[1])
                             .getResult();
               linalg::YieldOp::create(nb, l, sum);
             })
      .getResult(0);
}

class MatmulPattern : public OpRewritePattern<MatmulOp> {
public:
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    Value lhs = op.getLhs(), rhs = op.getRhs();
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type element = resultType.getElementType();
    Type acc = accumulatorType(element);
    // Vectors become matrices; the added unit dims are dropped at the end.
    if (lhsType.getRank() == 1) {
      lhsType = RankedTensorType::get({1, lhsType.getDimSize(0)},
                                      lhsType.getElementType());
      lhs = expand(rewriter, loc, lhs, lhsType, {{0, 1}});
    }
    if (rhsType.getRank() == 1) {
      rhsType = RankedTensorType::get({rhsType.getDimSize(0), 1},
                                      rhsType.getElementType());
      rhs = expand(rewriter, loc, rhs, rhsType, {{0, 1}});
    }
    int64_t lhsRank = lhsType.getRank(), rhsRank = rhsType.getRank();
    int64_t m = lhsType.getDimSize(lhsRank - 2);
    int64_t n = rhsType.getDimSize(rhsRank - 1);
    int64_t batchRank = std::max(lhsRank, rhsRank) - 2;
    SmallVector<int64_t> batch;
    for (int64_t i = 0; i < batchRank; ++i) {
      int64_t l = i - (batchRank - (lhsRank - 2));
      int64_t r = i - (batchRank - (rhsRank - 2));
      int64_t ld = l >= 0 ? lhsType.getDimSize(l) : 1;
      int64_t rd = r >= 0 ? rhsType.getDimSize(r) : 1;
      batch.push_back(std::max(ld, rd));
    }
    SmallVector<int64_t> fullShape(batch);
    fullShape.append({m, n});
    auto fullType = RankedTensorType::get(fullShape, acc);
    Value result;
    int64_t batchSize = 1;
    for (int64_t d : batch)
      batchSize *= d;
    if (rhsRank == 2) {
      // [B..., M, K] x [K, N]: fold the batch into M.
      Value lhs2 = lhsRank > 2 ? collapse(rewriter, loc, lhs,
                                          groupLeading(lhsRank, lhsRank - 1))
                               : lhs;
      auto type = RankedTensorType::get({batchSize * m, n}, acc);
      Value init = filledTensor(rewriter, loc, type, zeroAttr(acc));
      result = linalg::MatmulOp::create(rewriter, loc, ValueRange{lhs2, rhs},
                                        ValueRange{init})
                   .getResult(0);
      if (lhsRank > 2)
        result = expand(rewriter, loc, result, fullType,
                        groupLeading(batchRank + 2, batchRank + 1));
    } else if (lhsRank == rhsRank &&
               lhsType.getShape().drop_back(2) == ArrayRef<int64_t>(batch) &&
               rhsType.getShape().drop_back(2) == ArrayRef<int64_t>(batch)) {
      // Same batch dims on both sides: one batch_matmul over their product.
      auto fold = [&](Value v, int64_t rank) {
        return rank == 3 ? v
                         : collapse(rewriter, loc, v,
                                    groupLeading(rank, rank - 2));
      };
      auto type = RankedTensorType::get({batchSize, m, n}, acc);
      Value init = filledTensor(rewriter, loc, type, zeroAttr(acc));
      result = linalg::BatchMatmulOp::create(
                   rewriter, loc, ValueRange{fold(lhs, lhsRank), fold(rhs, rhsRank)},
                   ValueRange{init})
                   .getResult(0);
      if (batchRank != 1)
        result = expand(rewriter, loc, result, fullType,
                        groupLeading(batchRank + 2, batchRank));
    } else {
      // Broadcasting batch dims: a contraction generic over
      // (batch..., m, n, k).
      MLIRContext *ctx = rewriter.getContext();
      int64_t loops = batchRank + 3;
      auto operandMap = [&](RankedTensorType type, bool isLhs) {
        SmallVector<AffineExpr> exprs;
        int64_t rank = type.getRank();
        for (int64_t d = 0; d < rank - 2; ++d) {
          int64_t loop = d + (batchRank - (rank - 2));
          exprs.push_back(type.getDimSize(d) == 1 && batch[loop] != 1
                              ? getAffineConstantExpr(0, ctx)
                              : getAffineDimExpr(loop, ctx));
        }
        AffineExpr mDim = getAffineDimExpr(batchRank, ctx);
        AffineExpr nDim = getAffineDimExpr(batchRank + 1, ctx);
        AffineExpr kDim = getAffineDimExpr(batchRank + 2, ctx);
        if (isLhs)
          exprs.append({mDim, kDim});
        else
          exprs.append({kDim, nDim});
        return AffineMap::get(loops, 0, exprs, ctx);
      };
      SmallVector<AffineExpr> outExprs;
      for (int64_t d = 0; d < batchRank + 2; ++d)
        outExprs.push_back(getAffineDimExpr(d, ctx));
      SmallVector<AffineMap> maps = {operandMap(lhsType, true),
                                     operandMap(rhsType, false),
                                     AffineMap::get(loops, 0, outExprs, ctx)};
      SmallVector<IteratorType> iterators(loops - 1, IteratorType::parallel);
      iterators.push_back(IteratorType::reduction);
      Value init = filledTensor(rewriter, loc, fullType, zeroAttr(acc));
      result = linalg::GenericOp::create(
                   rewriter, loc, TypeRange{fullType}, ValueRange{lhs, rhs},
                   ValueRange{init}, maps, iterators,
                   [&](OpBuilder &b, Location l, ValueRange args) {
                     linalg::YieldOp::create(
                         b, l, multiplyAdd(b, l, args[0], args[1], args[2]));
                   })
                   .getResult(0);
    }
    auto accResultType = resultType.clone(acc);
    if (result.getType() != accResultType) {
      // Drop the unit dims that stood in for vector operands.
      SmallVector<ReassociationIndices> groups;
      auto groupsOpt = getReassociationIndicesForCollapse(
          cast<RankedTensorType>(result.getType()).getShape(),
          resultType.getShape());
      if (!groupsOpt)
        return rewriter.notifyMatchFailure(op, "cannot drop vector dims");
      result = tensor::CollapseShapeOp::create(rewriter, loc, accResultType,
                                               result, *groupsOpt);
    }
    rewriter.replaceOp(op, roundTo(rewriter, loc, result, resultType));
    return success();
  }
};

class ConvPattern : public OpRewritePattern<ConvOp> {
public:
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    auto filterType = cast<RankedTensorType>(op.getFilter().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type element = resultType.getElementType();
    Type acc = accumulatorType(element);
    // The operands' element type: the result's, or i8 for an integer
    // convolution (i32 result), whose padding is 0 as well.
    Type inputElement = inputType.getElementType();
    int64_t spatial = inputType.getRank() - 2;
    SmallVector<int64_t> strides = op.getStridesOrDefault();
    SmallVector<int64_t> dilations = op.getDilationsOrDefault();
    SmallVector<int64_t> pads = op.getPadsOrDefault();
    int64_t groups = op.getGroupsAttr().getInt();
    int64_t batchN = inputType.getDimSize(0);
    int64_t channels = inputType.getDimSize(1);
    int64_t filters = filterType.getDimSize(0);
    ArrayRef<int64_t> kernel = filterType.getShape().drop_front(2);
    ArrayRef<int64_t> outSpatial = resultType.getShape().drop_front(2);

    Value input = padSpatial(rewriter, loc, op.getInput(),
                             ArrayRef<int64_t>(pads).take_front(spatial),
                             ArrayRef<int64_t>(pads).drop_front(spatial),
                             zeroAttr(inputElement));
    int64_t outPositions = 1, kernelSize = 1;
    for (int64_t d : outSpatial)
      outPositions *= d;
    for (int64_t d : kernel)
      kernelSize *= d;

    Value result;
    if (groups == 1) {
      // cols: [N, C*K..., P] by an im2col generic (or a plain reshape for
      // 1x1 stride-1 kernels).
      bool pointwise =
          kernelSize == 1 && llvm::all_of(strides, [](int64_t s) { return s == 1; });
      Value cols;
      if (pointwise) {
        cols = collapse(rewriter, loc, input,
                        {{0}, {1}, llvm::to_vector(llvm::seq<int64_t>(2, 2 + spatial))});
      } else {
        // Loops (n, c, k1..kn, o1..on), all parallel.
        int64_t loops = 2 + 2 * spatial;
        SmallVector<AffineExpr> inExprs = {getAffineDimExpr(0, ctx),
                                           getAffineDimExpr(1, ctx)};
        for (int64_t i = 0; i < spatial; ++i)
          inExprs.push_back(getAffineDimExpr(2 + spatial + i, ctx) * strides[i] +
                            getAffineDimExpr(2 + i, ctx) * dilations[i]);
        SmallVector<int64_t> windowShape = {batchN, channels};
        windowShape.append(kernel.begin(), kernel.end());
        windowShape.append(outSpatial.begin(), outSpatial.end());
        auto windowType = RankedTensorType::get(windowShape, inputElement);
        SmallVector<AffineMap> maps = {
            AffineMap::get(loops, 0, inExprs, ctx),
            AffineMap::getMultiDimIdentityMap(loops, ctx)};
        SmallVector<IteratorType> iterators(loops, IteratorType::parallel);
        Value windows =
            linalg::GenericOp::create(
                rewriter, loc, TypeRange{windowType}, ValueRange{input},
                ValueRange{emptyTensor(rewriter, loc, windowType)}, maps,
                iterators,
                [](OpBuilder &b, Location l, ValueRange args) {
                  linalg::YieldOp::create(b, l, args[0]);
                })
                .getResult(0);
        ReassociationIndices ck, p;
        for (int64_t i = 0; i <= spatial; ++i)
          ck.push_back(1 + i);
        for (int64_t i = 0; i < spatial; ++i)
          p.push_back(2 + spatial + i);
        cols = collapse(rewriter, loc, windows, {{0}, ck, p});
      }
      // [M, C*K...] x cols -> [N, M, P]: loops (n, m, p, ck).
      ReassociationIndices filterCk;
      for (int64_t i = 1; i < filterType.getRank(); ++i)
        filterCk.push_back(i);
      Value filter = collapse(rewriter, loc, op.getFilter(), {{0}, filterCk});
      auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
      SmallVector<AffineMap> maps = {
          AffineMap::get(4, 0, {d(1), d(3)}, ctx),
          AffineMap::get(4, 0, {d(0), d(3), d(2)}, ctx),
          AffineMap::get(4, 0, {d(0), d(1), d(2)}, ctx)};
      auto flatType =
          RankedTensorType::get({batchN, filters, outPositions}, acc);
      Value init = filledTensor(rewriter, loc, flatType, zeroAttr(acc));
      Value flat =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{flatType}, ValueRange{filter, cols},
              ValueRange{init}, maps,
              {IteratorType::parallel, IteratorType::parallel,
               IteratorType::parallel, IteratorType::reduction},
              [](OpBuilder &b, Location l, ValueRange args) {
                linalg::YieldOp::create(
                    b, l, multiplyAdd(b, l, args[0], args[1], args[2]));
              })
              .getResult(0);
      result = expand(rewriter, loc, flat, resultType.clone(acc),
                      {{0}, {1}, llvm::to_vector(llvm::seq<int64_t>(2, 2 + spatial))});
    } else {
      // Grouped: input [N, G, C/G, D...], filter [G, F/G, C/G, K...],
      // output [N, G, F/G, O...]; loops (n, g, f, o..., c, k...).
      int64_t cg = channels / groups, fg = filters / groups;
      auto paddedType = cast<RankedTensorType>(input.getType());
      SmallVector<int64_t> inShape = {batchN, groups, cg};
      inShape.append(paddedType.getShape().begin() + 2, paddedType.getShape().end());
      SmallVector<ReassociationIndices> inGroups = {{0}, {1, 2}};
      for (int64_t i = 0; i < spatial; ++i)
        inGroups.push_back({3 + i});
      Value groupedInput =
          expand(rewriter, loc, input,
                 RankedTensorType::get(inShape, inputElement), inGroups);
      // One filter per group (depthwise convolutions): the f loop has one
      // iteration, so it is left out and the output is [N, G, O...]
      // directly: no reshape stands between the convolution and its
      // bias/activation consumer, which then joins its dispatch.
      bool oneFilterPerGroup = fg == 1;
      int64_t fLoops = oneFilterPerGroup ? 0 : 1;
      Value groupedFilter = op.getFilter();
      if (!oneFilterPerGroup) {
        SmallVector<int64_t> filterShape = {groups, fg, cg};
        filterShape.append(kernel.begin(), kernel.end());
        SmallVector<ReassociationIndices> filterGroups = {{0, 1}, {2}};
        for (int64_t i = 0; i < spatial; ++i)
          filterGroups.push_back({3 + i});
        groupedFilter =
            expand(rewriter, loc, op.getFilter(),
                   RankedTensorType::get(filterShape, inputElement),
                   filterGroups);
      }
      SmallVector<int64_t> outShape = {batchN, groups};
      if (!oneFilterPerGroup)
        outShape.push_back(fg);
      outShape.append(outSpatial.begin(), outSpatial.end());
      auto outType = RankedTensorType::get(outShape, acc);
      int64_t oLoop = 2 + fLoops;
      int64_t loops = oLoop + spatial + 1 + spatial;
      auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
      int64_t cLoop = oLoop + spatial;
      SmallVector<AffineExpr> inExprs = {d(0), d(1), d(cLoop)};
      SmallVector<AffineExpr> filterExprs = {d(1)};
      SmallVector<AffineExpr> outExprs = {d(0), d(1)};
      if (!oneFilterPerGroup) {
        filterExprs.push_back(d(2));
        outExprs.push_back(d(2));
      }
      filterExprs.push_back(d(cLoop));
      for (int64_t i = 0; i < spatial; ++i) {
        inExprs.push_back(d(oLoop + i) * strides[i] +
                          d(cLoop + 1 + i) * dilations[i]);
        filterExprs.push_back(d(cLoop + 1 + i));
        outExprs.push_back(d(oLoop + i));
      }
      SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, inExprs, ctx),
                                     AffineMap::get(loops, 0, filterExprs, ctx),
                                     AffineMap::get(loops, 0, outExprs, ctx)};
      SmallVector<IteratorType> iterators(oLoop + spatial,
                                          IteratorType::parallel);
      iterators.append(1 + spatial, IteratorType::reduction);
      Value init = filledTensor(rewriter, loc, outType, zeroAttr(acc));
      Value grouped =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{outType},
              ValueRange{groupedInput, groupedFilter}, ValueRange{init}, maps,
              iterators,
              [](OpBuilder &b, Location l, ValueRange args) {
                linalg::YieldOp::create(
                    b, l, multiplyAdd(b, l, args[0], args[1], args[2]));
              })
              .getResult(0);
      result = grouped;
      if (!oneFilterPerGroup) {
        SmallVector<ReassociationIndices> outGroups = {{0}, {1, 2}};
        for (int64_t i = 0; i < spatial; ++i)
          outGroups.push_back({3 + i});
        result = collapse(rewriter, loc, grouped, outGroups);
      }
    }
    if (Value bias = op.getBias())
      result = addChannelBias(rewriter, loc, result, bias, /*channelDim=*/1);
    rewriter.replaceOp(op, roundTo(rewriter, loc, result, resultType));
    return success();
  }
};

// Channels-last convolution (kiln-channels-last): the output channels are
// the innermost dim of both the result and the HWIO filter, so they are
// the lanes of the CPU's register tiles and the output pixels of one row
// are its rows: few pixels (a 7x7 plane) waste no lanes. A 1x1 stride-1
// kernel is a plain matmul [N*H*W, C] x [C, M] (rows: every pixel); others
// one generic over (n, oh, ow, m, kh, kw, c) on the zero-padded input.
class ConvNhwcPattern : public OpRewritePattern<ConvNhwcOp> {
public:
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvNhwcOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    auto filterType = cast<RankedTensorType>(op.getFilter().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type element = resultType.getElementType();
    Type acc = accumulatorType(element);
    SmallVector<int64_t> strides = op.getStridesOrDefault();
    SmallVector<int64_t> dilations = op.getDilationsOrDefault();
    SmallVector<int64_t> pads = op.getPadsOrDefault();
    ArrayRef<int64_t> x = inputType.getShape(), w = filterType.getShape();
    auto accType = resultType.clone(acc);
    Value result;
    bool pointwise = w[0] == 1 && w[1] == 1 && strides[0] == 1 &&
                     strides[1] == 1 &&
                     llvm::all_of(pads, [](int64_t p) { return p == 0; });
    if (pointwise) {
      Value rows = collapse(rewriter, loc, op.getInput(), {{0, 1, 2}, {3}});
      Value filter =
          collapse(rewriter, loc, op.getFilter(), {{0, 1, 2}, {3}});
      auto flatType =
          RankedTensorType::get({x[0] * x[1] * x[2], w[3]}, acc);
      Value init = filledTensor(rewriter, loc, flatType, zeroAttr(acc));
      Value flat = linalg::MatmulOp::create(rewriter, loc,
                                            ValueRange{rows, filter},
                                            ValueRange{init})
                       .getResult(0);
      result = expand(rewriter, loc, flat, accType, {{0, 1, 2}, {3}});
    } else {
      Value input = op.getInput();
      if (llvm::any_of(pads, [](int64_t p) { return p != 0; })) {
        SmallVector<int64_t> lo = {0, pads[0], pads[1], 0};
        SmallVector<int64_t> hi = {0, pads[2], pads[3], 0};
        auto paddedType = RankedTensorType::get(
            {x[0], x[1] + pads[0] + pads[2], x[2] + pads[1] + pads[3], x[3]},
            inputType.getElementType());
        Value zero = arith::ConstantOp::create(
            rewriter, loc, zeroAttr(inputType.getElementType()));
        input = tensor::PadOp::create(rewriter, loc, paddedType, input,
                                      getAsIndexOpFoldResult(ctx, lo),
                                      getAsIndexOpFoldResult(ctx, hi), zero,
                                      /*nofold=*/false);
      }
      // Loops (n, oh, ow, m, kh, kw, c): the channels innermost, so the
      // kernel's k loop walks both the input pixel and the filter row
      // with unit steps.
      auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
      SmallVector<AffineMap> maps = {
          AffineMap::get(7, 0,
                         {d(0), d(1) * strides[0] + d(4) * dilations[0],
                          d(2) * strides[1] + d(5) * dilations[1], d(6)},
                         ctx),
          AffineMap::get(7, 0, {d(4), d(5), d(6), d(3)}, ctx),
          AffineMap::get(7, 0, {d(0), d(1), d(2), d(3)}, ctx)};
      SmallVector<IteratorType> iterators(4, IteratorType::parallel);
      iterators.append(3, IteratorType::reduction);
      Value init = filledTensor(rewriter, loc, accType, zeroAttr(acc));
      result = linalg::GenericOp::create(
                   rewriter, loc, TypeRange{accType},
                   ValueRange{input, op.getFilter()}, ValueRange{init}, maps,
                   iterators,
                   [](OpBuilder &b, Location l, ValueRange args) {
                     linalg::YieldOp::create(
                         b, l, multiplyAdd(b, l, args[0], args[1], args[2]));
                   })
                   .getResult(0);
    }
    if (Value bias = op.getBias())
      result = addChannelBias(rewriter, loc, result, bias, /*channelDim=*/3);
    rewriter.replaceOp(op, roundTo(rewriter, loc, result, resultType));
    return success();
  }
};

template <typename PoolOp, bool isMax>
class PoolPattern : public OpRewritePattern<PoolOp> {
public:
  using OpRewritePattern<PoolOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(PoolOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type element = resultType.getElementType();
    int64_t spatial = inputType.getRank() - 2;
    ArrayRef<int64_t> kernel = op.getKernelShape();
    SmallVector<int64_t> strides = op.getStridesOrDefault();
    SmallVector<int64_t> dilations = op.getDilationsOrDefault();
    SmallVector<int64_t> pads = op.getPadsOrDefault();
    ArrayRef<int64_t> outSpatial = resultType.getShape().drop_front(2);
    // ceil_mode windows may run past the end padding: pad further so every
    // window reads inside the tensor; those cells never count.
    SmallVector<int64_t> low, high;
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t needed = (outSpatial[i] - 1) * strides[i] +
                       (kernel[i] - 1) * dilations[i] + 1;
      int64_t have = inputType.getDimSize(2 + i) + pads[i] + pads[spatial + i];
      low.push_back(pads[i]);
      high.push_back(pads[spatial + i] + std::max<int64_t>(0, needed - have));
    }
    TypedAttr padValue = isMax ? lowestAttr(element) : zeroAttr(element);
    Value input = padSpatial(rewriter, loc, op.getInput(), low, high, padValue);
    int64_t loops = 2 + 2 * spatial;
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    SmallVector<AffineExpr> inExprs = {d(0), d(1)}, windowExprs, outExprs = {d(0), d(1)};
    for (int64_t i = 0; i < spatial; ++i) {
      inExprs.push_back(d(2 + i) * strides[i] + d(2 + spatial + i) * dilations[i]);
      windowExprs.push_back(d(2 + spatial + i));
      outExprs.push_back(d(2 + i));
    }
    Value window = tensor::EmptyOp::create(rewriter, loc, kernel, element);
    SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, inExprs, ctx),
                                   AffineMap::get(loops, 0, windowExprs, ctx),
                                   AffineMap::get(loops, 0, outExprs, ctx)};
    SmallVector<IteratorType> iterators(2 + spatial, IteratorType::parallel);
    iterators.append(spatial, IteratorType::reduction);
    Value init = filledTensor(rewriter, loc, resultType, padValue);
    Value pooled =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{resultType}, ValueRange{input, window},
            ValueRange{init}, maps, iterators,
            [](OpBuilder &b, Location l, ValueRange args) {
              Value r = isMax ? scalarMax(b, l, args[2], args[0])
                              : arith::AddFOp::create(b, l, args[2], args[0])
                                    .getResult();
              linalg::YieldOp::create(b, l, r);
            })
            .getResult(0);
    if constexpr (!isMax) {
      bool includePad = op.getCountIncludePad();
      // Window cell counts per output position, [O1..On].
      SmallVector<double> counts;
      int64_t positions = 1;
      for (int64_t o : outSpatial)
        positions *= o;
      for (int64_t flat = 0; flat < positions; ++flat) {
        int64_t rest = flat;
        double count = 1;
        for (int64_t i = spatial - 1; i >= 0; --i) {
          int64_t o = rest % outSpatial[i];
          rest /= outSpatial[i];
          int64_t lo = includePad ? -pads[i] : 0;
          int64_t hi = inputType.getDimSize(2 + i) +
                       (includePad ? pads[spatial + i] : 0);
          int64_t inside = 0;
          for (int64_t k = 0; k < kernel[i]; ++k) {
            int64_t pos = o * strides[i] - pads[i] + k * dilations[i];
            inside += pos >= lo && pos < hi;
          }
          count *= inside;
        }
        counts.push_back(1.0 / std::max(1.0, count));
      }
      SmallVector<int64_t> countShape = {1, 1};
      countShape.append(outSpatial.begin(), outSpatial.end());
      auto countType = RankedTensorType::get(countShape, element);
      SmallVector<Attribute> values;
      for (double c : counts)
        values.push_back(FloatAttr::get(element, c));
      Value scale = arith::ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(countType, values));
      pooled = buildElementwise(
          rewriter, loc, resultType, ValueRange{pooled, scale},
          [](OpBuilder &b, Location l, ValueRange args) {
            return arith::MulFOp::create(b, l, args[0], args[1]).getResult();
          });
    }
    rewriter.replaceOp(op, pooled);
    return success();
  }
};

class AttentionPattern : public OpRewritePattern<AttentionOp> {
public:
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value scores = MatmulOp::create(rewriter, loc, op.getQuery(), op.getKeyT());
    if (op.getScale().convertToFloat() != 1.0f) {
      Value scale = ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(
              RankedTensorType::get({}, rewriter.getF32Type()),
              op.getScaleAttr()));
      scores = MulOp::create(rewriter, loc, scores, scale);
    }
    if (Value mask = op.getMask())
      scores = AddOp::create(rewriter, loc, scores, mask);
    Value probs = SoftmaxOp::create(rewriter, loc, scores.getType(), scores,
                                    rewriter.getI64IntegerAttr(-1));
    rewriter.replaceOpWithNewOp<MatmulOp>(op, probs, op.getValue());
    return success();
  }
};

} // namespace

void populateContractionToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<MatmulPattern, ConvPattern, ConvNhwcPattern,
               PoolPattern<MaxPoolOp, true>,
               PoolPattern<AvgPoolOp, false>>(patterns.getContext());
}

void populateAttentionDecompositionPatterns(RewritePatternSet &patterns) {
  patterns.add<AttentionPattern>(patterns.getContext());
}

} // namespace mlir::kiln
