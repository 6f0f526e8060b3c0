//===- NormalizationToLinalg.cpp - Lowering of reductions and norms -------===//
//
// Reductions become one reduction generic (plus an elementwise epilogue for
// mean, l2, log_sum and a max pass for log_sum_exp). Softmax is max, then
// sum of exp(x - max), then the division; layer norm is sum, then sum of
// squared deviations, then the normalization. Each reduction is a dispatch
// root; the epilogues read the reductions broadcast along the reduced dims,
// so they stay dispatches of their own (fusing them needs the reductions
// tiled with the epilogue's rows). Batch norm (inference form) is
// elementwise.
//
//===----------------------------------------------------------------------===//
#include "passes/lowering/KilnToLinalg.h"
#include "passes/lowering/LoweringUtils.h"

#include "dialects/kiln/KilnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::kiln {
namespace {

using utils::IteratorType;

// Which dims of a rank-`rank` tensor are reduced.
SmallVector<bool> reducedDims(int64_t rank, ArrayRef<int64_t> axes) {
  SmallVector<bool> reduced(rank, axes.empty());
  for (int64_t axis : axes)
    reduced[normalizeAxis(axis, rank)] = true;
  return reduced;
}

// The map from the input's loops to the reduced tensor (reduced dims
// dropped).
AffineMap droppedMap(MLIRContext *ctx, ArrayRef<bool> reduced) {
  SmallVector<AffineExpr> exprs;
  for (auto [d, r] : llvm::enumerate(reduced))
    if (!r)
      exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(reduced.size(), 0, exprs, ctx);
}

RankedTensorType droppedType(RankedTensorType type, ArrayRef<bool> reduced) {
  SmallVector<int64_t> shape;
  for (auto [d, r] : llvm::enumerate(reduced))
    if (!r)
      shape.push_back(type.getDimSize(d));
  return RankedTensorType::get(shape, type.getElementType());
}

using Combine = function_ref<Value(OpBuilder &, Location, ValueRange inputs,
                                   Value acc)>;

// A reduction generic over `inputs[0]`'s loops; the other inputs are
// reduced-shape tensors read through the dropped map.
Value buildReduction(OpBuilder &b, Location loc, Value input,
                     ValueRange reducedInputs, ArrayRef<bool> reduced,
                     TypedAttr init, Combine combine) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  auto outType = droppedType(type, reduced);
  outType = RankedTensorType::get(outType.getShape(),
                                  cast<TypedAttr>(init).getType());
  AffineMap dropped = droppedMap(ctx, reduced);
  SmallVector<Value> inputs = {input};
  inputs.append(reducedInputs.begin(), reducedInputs.end());
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx)};
  maps.append(reducedInputs.size(), dropped);
  maps.push_back(dropped);
  SmallVector<IteratorType> iterators;
  for (bool r : reduced)
    iterators.push_back(r ? IteratorType::reduction : IteratorType::parallel);
  Value initTensor = filledTensor(b, loc, outType, init);
  return linalg::GenericOp::create(
             b, loc, TypeRange{outType}, inputs, ValueRange{initTensor}, maps,
             iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   nb, l, combine(nb, l, args.drop_back(), args.back()));
             })
      .getResult(0);
}

// An all-parallel generic over `full`'s shape reading `full` (identity),
// `reducedInputs` (dropped map) and `broadcastInputs` (NumPy broadcast).
Value buildEpilogue(OpBuilder &b, Location loc, Value full,
                    ValueRange reducedInputs, ValueRange broadcastInputs,
                    ArrayRef<bool> reduced, ScalarBody body) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(full.getType());
  int64_t rank = type.getRank();
  SmallVector<Value> inputs = {full};
  inputs.append(reducedInputs.begin(), reducedInputs.end());
  inputs.append(broadcastInputs.begin(), broadcastInputs.end());
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx)};
  maps.append(reducedInputs.size(), droppedMap(ctx, reduced));
  for (Value v : broadcastInputs)
    maps.push_back(broadcastMap(ctx, cast<RankedTensorType>(v.getType()),
                                type.getShape()));
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, inputs,
             ValueRange{emptyTensor(b, loc, type)}, maps, iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, body(nb, l, args.drop_back()));
             })
      .getResult(0);
}

bool isFloatType(Type t) { return isa<FloatType>(t); }

Value add(OpBuilder &b, Location l, Value x, Value y) {
  return isFloatType(x.getType()) ? arith::AddFOp::create(b, l, x, y).getResult()
                                  : arith::AddIOp::create(b, l, x, y).getResult();
}
Value mul(OpBuilder &b, Location l, Value x, Value y) {
  return isFloatType(x.getType()) ? arith::MulFOp::create(b, l, x, y).getResult()
                                  : arith::MulIOp::create(b, l, x, y).getResult();
}

class ReducePattern : public OpRewritePattern<ReduceOp> {
public:
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getInput().getType());
    Type element = type.getElementType();
    SmallVector<bool> reduced = reducedDims(type.getRank(), op.getAxes());
    int64_t count = 1;
    for (auto [d, r] : llvm::enumerate(reduced))
      if (r)
        count *= type.getDimSize(d);
    ReduceKind kind = op.getKind();
    bool isFloat = isFloatType(element);
    if (!isFloat && kind != ReduceKind::sum && kind != ReduceKind::max &&
        kind != ReduceKind::min && kind != ReduceKind::prod &&
        kind != ReduceKind::l1 && kind != ReduceKind::sum_square &&
        kind != ReduceKind::mean)
      return rewriter.notifyMatchFailure(op, "float-only reduction kind");
    Value input = op.getInput();
    Value result;
    switch (kind) {
    case ReduceKind::max:
    case ReduceKind::min: {
      bool isMax = kind == ReduceKind::max;
      result = buildReduction(
          rewriter, loc, input, {}, reduced,
          isMax ? lowestAttr(element) : highestAttr(element),
          [&](OpBuilder &b, Location l, ValueRange in, Value acc) {
            return isMax ? scalarMax(b, l, acc, in[0]) : scalarMin(b, l, acc, in[0]);
          });
      break;
    }
    case ReduceKind::prod:
      result = buildReduction(
          rewriter, loc, input, {}, reduced,
          cast<TypedAttr>(isFloat ? Attribute(FloatAttr::get(element, 1.0))
                                  : Attribute(IntegerAttr::get(element, 1))),
          [&](OpBuilder &b, Location l, ValueRange in, Value acc) {
            return mul(b, l, acc, in[0]);
          });
      break;
    case ReduceKind::log_sum_exp: {
      Value max = buildReduction(
          rewriter, loc, input, {}, reduced, lowestAttr(element),
          [&](OpBuilder &b, Location l, ValueRange in, Value acc) {
            return scalarMax(b, l, acc, in[0]);
          });
      // An all -inf row keeps max = -inf; subtracting it would give NaN.
      Value sum = buildReduction(
          rewriter, loc, input, {max}, reduced, zeroAttr(element),
          [&](OpBuilder &b, Location l, ValueRange in, Value acc) {
            Value finite = math::IsFiniteOp::create(b, l, in[1]);
            Value shift = arith::SelectOp::create(
                b, l, finite, in[1], scalarConstant(b, l, element, 0.0));
            Value e = math::ExpOp::create(
                b, l, arith::SubFOp::create(b, l, in[0], shift));
            return arith::AddFOp::create(b, l, acc, e).getResult();
          });
      auto sumType = cast<RankedTensorType>(sum.getType());
      result = buildElementwise(
          rewriter, loc, sumType, ValueRange{sum, max},
          [&](OpBuilder &b, Location l, ValueRange a) {
            Value finite = math::IsFiniteOp::create(b, l, a[1]);
            Value shift = arith::SelectOp::create(
                b, l, finite, a[1], scalarConstant(b, l, element, 0.0));
            return arith::AddFOp::create(b, l, math::LogOp::create(b, l, a[0]),
                                         shift)
                .getResult();
          });
      break;
    }
    default: {
      // Sum-based kinds: a per-element transform, a sum, an epilogue.
      result = buildReduction(
          rewriter, loc, input, {}, reduced, zeroAttr(element),
          [&](OpBuilder &b, Location l, ValueRange in, Value acc) {
            Value x = in[0];
            if (kind == ReduceKind::l1)
              x = isFloat ? math::AbsFOp::create(b, l, x).getResult()
                          : math::AbsIOp::create(b, l, x).getResult();
            else if (kind == ReduceKind::l2 || kind == ReduceKind::sum_square)
              x = mul(b, l, x, x);
            return add(b, l, acc, x);
          });
      if (kind == ReduceKind::mean || kind == ReduceKind::l2 ||
          kind == ReduceKind::log_sum) {
        auto sumType = cast<RankedTensorType>(result.getType());
        result = buildElementwise(
            rewriter, loc, sumType, ValueRange{result},
            [&](OpBuilder &b, Location l, ValueRange a) -> Value {
              if (kind == ReduceKind::l2)
                return math::SqrtOp::create(b, l, a[0]);
              if (kind == ReduceKind::log_sum)
                return math::LogOp::create(b, l, a[0]);
              Value n = scalarConstant(b, l, element, double(count));
              return isFloat ? arith::DivFOp::create(b, l, a[0], n).getResult()
                             : arith::DivSIOp::create(b, l, a[0], n).getResult();
            });
      }
      break;
    }
    }
    auto resultType = cast<RankedTensorType>(op.getType());
    if (result.getType() != resultType) {
      // keepdims: put the reduced dims back as size 1.
      SmallVector<ReassociationIndices> groups;
      int64_t rank = reduced.size();
      ReassociationIndices current;
      for (int64_t d = 0; d < rank; ++d) {
        current.push_back(d);
        if (!reduced[d]) {
          groups.push_back(current);
          current.clear();
        }
      }
      if (!current.empty()) {
        if (groups.empty())
          groups.push_back(current);
        else
          groups.back().append(current.begin(), current.end());
      }
      if (cast<RankedTensorType>(result.getType()).getRank() == 0)
        groups.clear();
      result = tensor::ExpandShapeOp::create(rewriter, loc, resultType, result,
                                             groups);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

template <typename OpTy, bool isLog>
class SoftmaxPattern : public OpRewritePattern<OpTy> {
public:
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    Type element = type.getElementType();
    int64_t axis = op.getAxisAttr().getInt();
    SmallVector<bool> reduced = reducedDims(type.getRank(), {axis});
    Value max = buildReduction(
        rewriter, loc, input, {}, reduced, lowestAttr(element),
        [&](OpBuilder &b, Location l, ValueRange in, Value acc) {
          return scalarMax(b, l, acc, in[0]);
        });
    Value sum = buildReduction(
        rewriter, loc, input, {max}, reduced, zeroAttr(element),
        [&](OpBuilder &b, Location l, ValueRange in, Value acc) {
          Value e = math::ExpOp::create(
              b, l, arith::SubFOp::create(b, l, in[0], in[1]));
          return arith::AddFOp::create(b, l, acc, e).getResult();
        });
    Value result = buildEpilogue(
        rewriter, loc, input, ValueRange{max, sum}, {}, reduced,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value shifted = arith::SubFOp::create(b, l, a[0], a[1]);
          if (isLog)
            return arith::SubFOp::create(b, l, shifted,
                                         math::LogOp::create(b, l, a[2]));
          // exp(x - max) * (1 / sum), as onnxruntime's softmax scales its
          // exponentials: the reciprocal depends on the row only, so it
          // is computed once per row and each element is multiplied (a
          // vdivps per vector cost ~5 cycles of throughput on the AVX-512
          // Xeon) rather than divided; within an ulp of the quotient.
          Value one = arith::ConstantOp::create(
              b, l, b.getFloatAttr(a[2].getType(), 1.0));
          Value reciprocal = arith::DivFOp::create(b, l, one, a[2]);
          return arith::MulFOp::create(
              b, l, math::ExpOp::create(b, l, shifted), reciprocal);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

class LayerNormPattern : public OpRewritePattern<LayerNormOp> {
public:
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    Type element = type.getElementType();
    int64_t rank = type.getRank();
    int64_t axis = normalizeAxis(op.getAxisAttr().getInt(), rank);
    SmallVector<bool> reduced(rank, false);
    int64_t count = 1;
    for (int64_t d = axis; d < rank; ++d) {
      reduced[d] = true;
      count *= type.getDimSize(d);
    }
    double epsilon = op.getEpsilonAttr().getValueAsDouble();
    Value sum = buildReduction(
        rewriter, loc, input, {}, reduced, zeroAttr(element),
        [&](OpBuilder &b, Location l, ValueRange in, Value acc) {
          return arith::AddFOp::create(b, l, acc, in[0]).getResult();
        });
    auto inverseCount = [&](OpBuilder &b, Location l) {
      return scalarConstant(b, l, element, 1.0 / double(count));
    };
    Value squares = buildReduction(
        rewriter, loc, input, {sum}, reduced, zeroAttr(element),
        [&](OpBuilder &b, Location l, ValueRange in, Value acc) {
          Value mean = arith::MulFOp::create(b, l, in[1], inverseCount(b, l));
          Value dev = arith::SubFOp::create(b, l, in[0], mean);
          return arith::AddFOp::create(b, l, acc,
                                       arith::MulFOp::create(b, l, dev, dev))
              .getResult();
        });
    SmallVector<Value> affine = {op.getScale()};
    if (op.getBias())
      affine.push_back(op.getBias());
    Value result = buildEpilogue(
        rewriter, loc, input, ValueRange{sum, squares}, affine, reduced,
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          Value mean = arith::MulFOp::create(b, l, a[1], inverseCount(b, l));
          Value var = arith::MulFOp::create(b, l, a[2], inverseCount(b, l));
          Value inv = math::RsqrtOp::create(
              b, l,
              arith::AddFOp::create(b, l, var,
                                    scalarConstant(b, l, element, epsilon)));
          Value y = arith::MulFOp::create(
              b, l, arith::SubFOp::create(b, l, a[0], mean), inv);
          y = arith::MulFOp::create(b, l, y, a[3]);
          if (a.size() > 4)
            y = arith::AddFOp::create(b, l, y, a[4]);
          return y;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

class BatchNormPattern : public OpRewritePattern<BatchNormOp> {
public:
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = cast<RankedTensorType>(op.getType());
    Type element = type.getElementType();
    int64_t rank = type.getRank();
    double epsilon = op.getEpsilonAttr().getValueAsDouble();
    AffineMap channel =
        AffineMap::get(rank, 0, {getAffineDimExpr(1, ctx)}, ctx);
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    SmallVector<AffineMap> maps = {identity, channel, channel, channel, channel,
                                   identity};
    SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{type},
            ValueRange{op.getInput(), op.getScale(), op.getBias(), op.getMean(),
                       op.getVariance()},
            ValueRange{emptyTensor(rewriter, loc, type)}, maps, iterators,
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value inv = math::RsqrtOp::create(
                  b, l,
                  arith::AddFOp::create(b, l, a[4],
                                        scalarConstant(b, l, element, epsilon)));
              Value y = arith::MulFOp::create(
                  b, l, arith::SubFOp::create(b, l, a[0], a[3]),
                  arith::MulFOp::create(b, l, inv, a[1]));
              linalg::YieldOp::create(b, l,
                                      arith::AddFOp::create(b, l, y, a[2])
                                          .getResult());
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateNormalizationToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ReducePattern, SoftmaxPattern<SoftmaxOp, false>,
               SoftmaxPattern<LogSoftmaxOp, true>, LayerNormPattern,
               BatchNormPattern>(patterns.getContext());
}

} // namespace mlir::kiln
