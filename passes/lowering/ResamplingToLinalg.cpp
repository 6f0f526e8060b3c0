//===- ResamplingToLinalg.cpp - Lowering of conv_transpose and resize ----===//
//
// resize is one linalg.generic over the result: each resized dimension maps
// its output index to an input coordinate (in f32, by the ONNX formula of
// the coordinate mode) and reads 1 (nearest), 2 (linear) or 4 (cubic) taps
// with tensor.extract; dimensions that keep their size read straight
// through.
//
// conv_transpose is a direct convolution of the zero-inserted input: the
// input is written with stride `strides` (tensor.insert_slice) into a zero
// tensor padded by dilation * (K - 1) - pad on each side, then a
// linalg.generic convolves it, per group, with the filter flipped in space
// ([G, C/G, M/G, K..] so every loop appears alone in some indexing map).
// Negative padding (pads larger than the kernel reach) becomes an offset
// in the input's indexing map.
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

//===----------------------------------------------------------------------===//
// ResizeOp
//===----------------------------------------------------------------------===//

// One input position read for an output element along one dimension, and
// its weight (null: weight 1).
struct Tap {
  Value index;
  Value weight;
};

struct ResizeLowering : OpRewritePattern<ResizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ResizeOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    RankedTensorType inputType = tensorTypeOf(op.getInput());
    RankedTensorType resultType = tensorTypeOf(op.getOutput());
    int64_t rank = inputType.getRank();
    std::optional<ArrayRef<float>> scales = op.getScales();
    Value input = op.getInput();
    Type element = inputType.getElementType();
    Type f32 = rewriter.getF32Type();

    Value result = buildIndexedGeneric(
        rewriter, op.getLoc(), resultType, {}, {},
        [&](OpBuilder &b, Location loc, ValueRange, ValueRange indices) {
          SmallVector<SmallVector<Tap>> taps;
          for (int64_t d = 0; d < rank; ++d) {
            int64_t in = inputType.getDimSize(d);
            int64_t out = resultType.getDimSize(d);
            float scale = scales ? (*scales)[d]
                                 : static_cast<float>(out) /
                                       static_cast<float>(in);
            if (in == out && scale == 1.0f) {
              taps.push_back({{indices[d], Value()}});
              continue;
            }
            Value coordinate =
                sourceCoordinate(b, loc, op, indices[d], in, out, scale);
            taps.push_back(dimTaps(b, loc, op, coordinate, in));
          }
          // Sum over every combination of taps (one per dimension).
          Value sum;
          SmallVector<int64_t> choice(rank, 0);
          while (true) {
            SmallVector<Value> coords;
            Value weight;
            for (int64_t d = 0; d < rank; ++d) {
              const Tap &tap = taps[d][choice[d]];
              coords.push_back(tap.index);
              if (tap.weight)
                weight = weight ? arith::MulFOp::create(b, loc, weight,
                                                        tap.weight)
                                      .getResult()
                                : tap.weight;
            }
            Value value = tensor::ExtractOp::create(b, loc, input, coords);
            if (!weight) {
              // nearest (or no dimension resized): the element itself.
              sum = value;
            } else {
              if (element != f32)
                value = arith::ExtFOp::create(b, loc, f32, value);
              Value term = arith::MulFOp::create(b, loc, weight, value);
              sum = sum ? arith::AddFOp::create(b, loc, sum, term).getResult()
                        : term;
            }
            int64_t d = rank - 1;
            while (d >= 0 && ++choice[d] == static_cast<int64_t>(taps[d].size()))
              choice[d--] = 0;
            if (d < 0)
              break;
          }
          if (sum.getType() != element)
            sum = arith::TruncFOp::create(b, loc, element, sum);
          return sum;
        });
    rewriter.replaceOp(op, result);
    return success();
  }

  // The input coordinate (f32) of output index `x`, by the coordinate
  // transformation mode, computed as the ONNX reference writes it.
  static Value sourceCoordinate(OpBuilder &b, Location loc, ResizeOp op,
                                Value x, int64_t in, int64_t out,
                                float scale) {
    Type f32 = b.getF32Type();
    auto constant = [&](double value) {
      return scalarConstant(b, loc, f32, value);
    };
    Value xf = arith::SIToFPOp::create(
        b, loc, f32, arith::IndexCastOp::create(b, loc, b.getI64Type(), x));
    auto halfPixel = [&]() -> Value {
      Value shifted = arith::AddFOp::create(b, loc, xf, constant(0.5));
      Value scaled = arith::DivFOp::create(b, loc, shifted, constant(scale));
      return arith::SubFOp::create(b, loc, scaled, constant(0.5));
    };
    switch (op.getCoordinateTransformationMode()) {
    case ResizeCoordinateMode::half_pixel:
      return halfPixel();
    case ResizeCoordinateMode::half_pixel_symmetric: {
      float adjustment = static_cast<float>(out) /
                         (scale * static_cast<float>(in));
      float center = static_cast<float>(in) / 2.0f;
      float offset = center * (1.0f - adjustment);
      return arith::AddFOp::create(b, loc, constant(offset), halfPixel());
    }
    case ResizeCoordinateMode::pytorch_half_pixel:
      return out > 1 ? halfPixel() : constant(0.0);
    case ResizeCoordinateMode::align_corners: {
      if (out == 1)
        return constant(0.0);
      Value stretched =
          arith::MulFOp::create(b, loc, xf, constant(double(in - 1)));
      return arith::DivFOp::create(b, loc, stretched,
                                   constant(double(out - 1)));
    }
    case ResizeCoordinateMode::asymmetric:
      return arith::DivFOp::create(b, loc, xf, constant(scale));
    }
    llvm_unreachable("unknown coordinate transformation mode");
  }

  static Value toIndex(OpBuilder &b, Location loc, Value value) {
    Value asInt = arith::FPToSIOp::create(b, loc, b.getI64Type(), value);
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), asInt);
  }

  // The taps of one resized dimension at input coordinate `x`.
  static SmallVector<Tap> dimTaps(OpBuilder &b, Location loc, ResizeOp op,
                                  Value x, int64_t in) {
    Type f32 = b.getF32Type();
    auto constant = [&](double value) {
      return scalarConstant(b, loc, f32, value);
    };
    switch (op.getMode()) {
    case ResizeMode::nearest: {
      Value rounded;
      switch (op.getNearestMode()) {
      case ResizeNearestMode::round_prefer_floor:
        // x.5 goes down: ceil(x - 0.5).
        rounded = math::CeilOp::create(
            b, loc, arith::SubFOp::create(b, loc, x, constant(0.5)));
        break;
      case ResizeNearestMode::round_prefer_ceil:
        rounded = math::FloorOp::create(
            b, loc, arith::AddFOp::create(b, loc, x, constant(0.5)));
        break;
      case ResizeNearestMode::floor:
        rounded = math::FloorOp::create(b, loc, x);
        break;
      case ResizeNearestMode::ceil:
        rounded = math::CeilOp::create(b, loc, x);
        break;
      }
      return {{clampIndex(b, loc, toIndex(b, loc, rounded), 0, in - 1),
               Value()}};
    }
    case ResizeMode::linear: {
      // Clamping the coordinate first reads the edge twice outside.
      Value clamped = arith::MinimumFOp::create(
          b, loc, arith::MaximumFOp::create(b, loc, x, constant(0.0)),
          constant(double(in - 1)));
      Value floor = math::FloorOp::create(b, loc, clamped);
      Value low = toIndex(b, loc, floor);
      Value high = clampIndex(
          b, loc, arith::AddIOp::create(b, loc, low, indexConstant(b, loc, 1)),
          0, in - 1);
      Value highWeight = arith::SubFOp::create(b, loc, clamped, floor);
      Value lowWeight = arith::SubFOp::create(b, loc, constant(1.0), highWeight);
      return {{low, lowWeight}, {high, highWeight}};
    }
    case ResizeMode::cubic:
      return cubicTaps(b, loc, op, x, in);
    }
    llvm_unreachable("unknown resize mode");
  }

  // Keys' cubic convolution with a = cubic_coeff_a over floor(x) - 1 ..
  // floor(x) + 2; indices outside the input read the edge, or with
  // exclude_outside get weight 0 and the others are renormalized.
  static SmallVector<Tap> cubicTaps(OpBuilder &b, Location loc, ResizeOp op,
                                    Value x, int64_t in) {
    Type f32 = b.getF32Type();
    auto constant = [&](double value) {
      return scalarConstant(b, loc, f32, value);
    };
    auto add = [&](Value l, Value r) {
      return arith::AddFOp::create(b, loc, l, r).getResult();
    };
    auto sub = [&](Value l, Value r) {
      return arith::SubFOp::create(b, loc, l, r).getResult();
    };
    auto mul = [&](Value l, Value r) {
      return arith::MulFOp::create(b, loc, l, r).getResult();
    };
    double a = op.getCubicCoeffA().convertToDouble();
    Value floor = math::FloorOp::create(b, loc, x);
    Value t = sub(x, floor);
    Value one = constant(1.0), two = constant(2.0);
    // Outer taps (distance s in [1, 2]) and inner taps (s in [0, 1]).
    auto outer = [&](Value s) {
      Value p = sub(mul(constant(a), s), constant(5 * a));
      p = add(mul(p, s), constant(8 * a));
      return sub(mul(p, s), constant(4 * a));
    };
    auto inner = [&](Value s) {
      Value p = sub(mul(constant(a + 2), s), constant(a + 3));
      return add(mul(mul(p, s), s), one);
    };
    SmallVector<Value> weights = {outer(add(t, one)), inner(t),
                                  inner(sub(one, t)), outer(sub(two, t))};
    Value base = toIndex(b, loc, floor);
    SmallVector<Tap> taps;
    Value total;
    for (int64_t j = 0; j < 4; ++j) {
      Value index = arith::AddIOp::create(b, loc, base,
                                          indexConstant(b, loc, j - 1));
      Value weight = weights[j];
      if (op.getExcludeOutside()) {
        Value inside = arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index,
                                  indexConstant(b, loc, 0)),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index,
                                  indexConstant(b, loc, in)));
        weight = arith::SelectOp::create(b, loc, inside, weight,
                                         constant(0.0));
        total = total ? add(total, weight) : weight;
      }
      taps.push_back({clampIndex(b, loc, index, 0, in - 1), weight});
    }
    if (total)
      for (Tap &tap : taps)
        tap.weight = arith::DivFOp::create(b, loc, tap.weight, total);
    return taps;
  }
};

//===----------------------------------------------------------------------===//
// ConvTransposeOp
//===----------------------------------------------------------------------===//

SmallVector<int64_t> valuesOr(ArrayRef<int64_t> values, int64_t count,
                              int64_t fill) {
  if (values.empty())
    return SmallVector<int64_t>(count, fill);
  return SmallVector<int64_t>(values);
}

struct ConvTransposeLowering : OpRewritePattern<ConvTransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvTransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType inputType = tensorTypeOf(op.getInput());
    RankedTensorType filterType = tensorTypeOf(op.getFilter());
    RankedTensorType resultType = tensorTypeOf(op.getOutput());
    Type element = inputType.getElementType();
    int64_t n = inputType.getRank() - 2;
    int64_t batch = inputType.getDimSize(0);
    int64_t channels = inputType.getDimSize(1);
    int64_t groups = op.getGroups();
    int64_t groupChannels = channels / groups;
    int64_t groupOutputs = filterType.getDimSize(1);
    SmallVector<int64_t> strides = valuesOr(op.getStrides(), n, 1);
    SmallVector<int64_t> dilations = valuesOr(op.getDilations(), n, 1);
    SmallVector<int64_t> pads = valuesOr(op.getPads(), 2 * n, 0);
    SmallVector<int64_t> outputPadding = valuesOr(op.getOutputPadding(), n, 0);

    // The zero-inserted, padded input [N, C, P..].
    SmallVector<int64_t> paddedShape = {batch, channels};
    SmallVector<int64_t> insertOffsets = {0, 0};
    SmallVector<int64_t> insertStrides = {1, 1};
    SmallVector<int64_t> readOffsets, kernel;
    for (int64_t i = 0; i < n; ++i) {
      int64_t size = inputType.getDimSize(2 + i);
      int64_t k = filterType.getDimSize(2 + i);
      int64_t reach = dilations[i] * (k - 1);
      int64_t low = reach - pads[i];
      int64_t high = outputPadding[i] + reach - pads[n + i];
      int64_t keptLow = std::max<int64_t>(low, 0);
      paddedShape.push_back(keptLow + (size - 1) * strides[i] + 1 +
                            std::max<int64_t>(high, 0));
      insertOffsets.push_back(keptLow);
      insertStrides.push_back(strides[i]);
      readOffsets.push_back(keptLow - low);
      kernel.push_back(k);
    }
    Value padded = filledTensor(rewriter, loc,
                                RankedTensorType::get(paddedShape, element),
                                zeroAttr(element));
    padded = tensor::InsertSliceOp::create(
        rewriter, loc, op.getInput(), padded, indexAttrs(rewriter, insertOffsets),
        indexAttrs(rewriter, inputType.getShape()),
        indexAttrs(rewriter, insertStrides));

    // Split channels into groups: input [N, G, C/G, P..], filter
    // [G, C/G, M/G, K..].
    SmallVector<ReassociationIndices> splitSecond = {{0}, {1, 2}};
    for (int64_t i = 0; i < n; ++i)
      splitSecond.push_back({3 + i});
    SmallVector<int64_t> groupedInputShape = {batch, groups, groupChannels};
    groupedInputShape.append(paddedShape.begin() + 2, paddedShape.end());
    Value groupedInput = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(groupedInputShape, element),
        padded, splitSecond);
    SmallVector<ReassociationIndices> splitFirst = {{0, 1}, {2}};
    for (int64_t i = 0; i < n; ++i)
      splitFirst.push_back({3 + i});
    SmallVector<int64_t> groupedFilterShape = {groups, groupChannels,
                                               groupOutputs};
    groupedFilterShape.append(kernel.begin(), kernel.end());
    auto groupedFilterType = RankedTensorType::get(groupedFilterShape, element);
    Value groupedFilter = tensor::ExpandShapeOp::create(
        rewriter, loc, groupedFilterType, op.getFilter(), splitFirst);
    // Flip the kernel in space.
    SmallVector<AffineExpr> flipExprs;
    for (int64_t d = 0; d < 3 + n; ++d)
      flipExprs.push_back(d < 3 ? getAffineDimExpr(d, ctx)
                                : getAffineConstantExpr(kernel[d - 3] - 1, ctx) -
                                      getAffineDimExpr(d, ctx));
    Value flipped = buildIndexedGeneric(
        rewriter, loc, groupedFilterType, groupedFilter,
        AffineMap::get(3 + n, 0, flipExprs, ctx),
        [](OpBuilder &, Location, ValueRange args, ValueRange) {
          return args[0];
        });

    // The initial value: the bias of each output channel, or zeros.
    SmallVector<int64_t> groupedResultShape = {batch, groups, groupOutputs};
    groupedResultShape.append(resultType.getShape().begin() + 2,
                              resultType.getShape().end());
    auto groupedResultType = RankedTensorType::get(groupedResultShape, element);
    Value init;
    if (Value bias = op.getBias()) {
      Value groupedBias = tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get({groups, groupOutputs}, element),
          bias, ArrayRef<ReassociationIndices>{{0, 1}});
      AffineMap biasMap = AffineMap::get(
          3 + n, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx)}, ctx);
      init = buildIndexedGeneric(
          rewriter, loc, groupedResultType, groupedBias, biasMap,
          [](OpBuilder &, Location, ValueRange args, ValueRange) {
            return args[0];
          });
    } else {
      init = filledTensor(rewriter, loc, groupedResultType, zeroAttr(element));
    }

    // Loops (n, g, m, o.., c, k..).
    int64_t numLoops = 4 + 2 * n;
    auto dim = [&](int64_t d) { return getAffineDimExpr(d, ctx); };
    int64_t channelLoop = 3 + n, kernelLoop = 4 + n;
    SmallVector<AffineExpr> inputExprs = {dim(0), dim(1), dim(channelLoop)};
    SmallVector<AffineExpr> filterExprs = {dim(1), dim(channelLoop), dim(2)};
    SmallVector<AffineExpr> outputExprs = {dim(0), dim(1), dim(2)};
    for (int64_t i = 0; i < n; ++i) {
      inputExprs.push_back(dim(3 + i) + dim(kernelLoop + i) * dilations[i] +
                           readOffsets[i]);
      filterExprs.push_back(dim(kernelLoop + i));
      outputExprs.push_back(dim(3 + i));
    }
    SmallVector<AffineMap> maps = {
        AffineMap::get(numLoops, 0, inputExprs, ctx),
        AffineMap::get(numLoops, 0, filterExprs, ctx),
        AffineMap::get(numLoops, 0, outputExprs, ctx)};
    SmallVector<utils::IteratorType> iterators(3 + n,
                                               utils::IteratorType::parallel);
    iterators.append(1 + n, utils::IteratorType::reduction);
    auto conv = linalg::GenericOp::create(
        rewriter, loc, TypeRange{groupedResultType},
        ValueRange{groupedInput, flipped}, ValueRange{init}, maps, iterators,
        [](OpBuilder &b, Location l, ValueRange args) {
          Value product = arith::MulFOp::create(b, l, args[0], args[1]);
          linalg::YieldOp::create(
              b, l, ValueRange{arith::AddFOp::create(b, l, args[2], product)});
        });
    SmallVector<ReassociationIndices> merge = {{0}, {1, 2}};
    for (int64_t i = 0; i < n; ++i)
      merge.push_back({3 + i});
    rewriter.replaceOp(op, tensor::CollapseShapeOp::create(
                               rewriter, loc, resultType, conv.getResult(0),
                               merge));
    return success();
  }
};

} // namespace

void populateResamplingToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<ResizeLowering, ConvTransposeLowering>(patterns.getContext());
}

} // namespace mlir::kiln
