//===- QuantizationToLinalg.cpp - Lowering of quantize and dequantize -----===//
//
// kiln.quantize and kiln.dequantize become one all-parallel linalg.generic
// each, reading the scale and zero point through an indexing map: (d_axis)
// for a per-axis scale, () for a per-tensor one (a [1] parameter is
// collapsed to rank 0 first). Being elementwise generics, they join the dispatch of the
// contraction they follow or precede.
//
//   quantize:   fptosi(clamp(roundeven(x / s) + sitofp(zp), -128, 127)) : i8
//   dequantize: sitofp(extsi(q) - extsi(zp)) * s                          : f32
//
// The arithmetic is the constant folders' (QuantizationOps.cpp) and
// onnxruntime's: f32 division, round half to even, the difference in i32.
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

// The map reading a scale or zero point of `type` inside a loop nest of
// `rank` loops over the quantized tensor.
AffineMap parameterMap(MLIRContext *ctx, RankedTensorType type, int64_t rank,
                       std::optional<int64_t> axis) {
  if (axis)
    return AffineMap::get(rank, 0, {getAffineDimExpr(*axis, ctx)}, ctx);
  SmallVector<AffineExpr> exprs(type.getRank(), getAffineConstantExpr(0, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

// A generic over `resultType` reading (input, scale, zero point) and
// yielding body(input, scale, zero point).
Value buildQuantizationGeneric(OpBuilder &b, Location loc,
                               RankedTensorType resultType, Value input,
                               Value scale, Value zeroPoint,
                               std::optional<int64_t> axis, ScalarBody body) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = resultType.getRank();
  if (!axis) {
    // One-element parameters of shape [1] are read as rank 0, through
    // (): a projected permutation, unlike a constant index, so that the
    // generic still folds onto a contraction's loops across reshapes.
    auto toScalar = [&](Value v) -> Value {
      if (tensorTypeOf(v).getRank() == 0)
        return v;
      return tensor::CollapseShapeOp::create(
          b, loc, RankedTensorType::get({}, tensorTypeOf(v).getElementType()),
          v, ArrayRef<ReassociationIndices>{});
    };
    scale = toScalar(scale);
    zeroPoint = toScalar(zeroPoint);
  }
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<AffineMap> maps = {
      identity, parameterMap(ctx, tensorTypeOf(scale), rank, axis),
      parameterMap(ctx, tensorTypeOf(zeroPoint), rank, axis), identity};
  SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType},
             ValueRange{input, scale, zeroPoint},
             ValueRange{emptyTensor(b, loc, resultType)}, maps, iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, body(nb, l, args.drop_back()));
             })
      .getResult(0);
}

class QuantizePattern : public OpRewritePattern<QuantizeOp> {
public:
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Value result = buildQuantizationGeneric(
        rewriter, op.getLoc(), tensorTypeOf(op.getResult()), op.getInput(),
        op.getScale(), op.getZeroPoint(), op.getQuantizedAxis(),
        [](OpBuilder &b, Location l, ValueRange args) {
          Type f32 = args[0].getType();
          Value scaled = arith::DivFOp::create(b, l, args[0], args[1]);
          Value rounded = math::RoundEvenOp::create(b, l, scaled);
          Value zeroPoint = arith::SIToFPOp::create(b, l, f32, args[2]);
          Value shifted = arith::AddFOp::create(b, l, rounded, zeroPoint);
          // maxnumf/minnumf: a NaN lands on -128 instead of reaching
          // fptosi, whose result for NaN is poison.
          Value low = scalarConstant(b, l, f32, -128.0);
          Value high = scalarConstant(b, l, f32, 127.0);
          Value clamped = arith::MinNumFOp::create(
              b, l, arith::MaxNumFOp::create(b, l, shifted, low), high);
          return arith::FPToSIOp::create(b, l, args[2].getType(), clamped)
              .getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

class DequantizePattern : public OpRewritePattern<DequantizeOp> {
public:
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DequantizeOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Value result = buildQuantizationGeneric(
        rewriter, op.getLoc(), tensorTypeOf(op.getResult()), op.getInput(),
        op.getScale(), op.getZeroPoint(), op.getQuantizedAxis(),
        [](OpBuilder &b, Location l, ValueRange args) {
          Type i32 = b.getI32Type();
          Value q = args[0], zeroPoint = args[2];
          if (q.getType() != i32) {
            q = arith::ExtSIOp::create(b, l, i32, q);
            zeroPoint = arith::ExtSIOp::create(b, l, i32, zeroPoint);
          }
          Value difference = arith::SubIOp::create(b, l, q, zeroPoint);
          Value asFloat =
              arith::SIToFPOp::create(b, l, args[1].getType(), difference);
          return arith::MulFOp::create(b, l, asFloat, args[1]).getResult();
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateQuantizationToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<QuantizePattern, DequantizePattern>(patterns.getContext());
}

} // namespace mlir::kiln
