//===- ErfApproximation.cpp - erf as one rational function ----------------===//
//
// MLIR's polynomial approximation of erf picks its coefficients from three
// intervals with selects: in a vector loop every coefficient is a blend
// (about 20 vblendvps per 8 lanes on AVX2, and more live constants than 16
// ymm registers hold, so LLVM reloads and spills). On a Zen 3 that was ~90
// instructions per 8 outputs, and an erf GELU epilogue took about a third of
// BERT's FFN-up matmul dispatch. One rational function over the whole range
// needs no selects: erf is odd, saturates to 1.0f for |x| >= 3.92, and
// x * P(x^2) / Q(x^2) with degrees 5 and 5 fits it on [0, 4] within 2.5e-8
// relative error in exact arithmetic.
//
// Evaluated in f32 (Horner with FMAs) the result is within 5.5 ulp of erf
// (max abs error 3.3e-7, near |x| = 3.4 where erf is close to 1); the
// coefficients and these figures come from scripts/fit_erf.py. NaN stays NaN
// (the clamp's compare is ordered), +-inf gives +-1, -0 gives -0, and the
// result never leaves [-1, 1].
//
//===----------------------------------------------------------------------===//

#include "compiler/targets/cpu/ErfApproximation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::kiln::cpu {
namespace {

// erf(a) ~= a * P(a^2) / Q(a^2) on [0, kClamp]; lowest degree first.
constexpr float kClamp = 4.0f;
constexpr float kP[] = {1.12837911f,    0.193544611f,    0.0531017482f,
                        0.00388334575f, 0.000284569076f, 1.98682255e-06f};
constexpr float kQ[] = {1.0f,          0.504857004f,   0.115349874f,
                        0.0152072469f, 0.00118557783f, 3.74207702e-05f};

// erf(x / c) for a constant c as erf(x * (1 / c)): exporters write erf
// GELU as x / sqrt(2) (PyTorch's `x / math.sqrt(2.0)`), and a vector
// division has a fraction of a multiply's throughput, next to the
// division erf's own rational approximation already does (measured: the
// FFN-up dispatch of bert_encoder 2.6% faster on a Zen 3). The argument
// moves by at most an ulp or so, and erf's slope is at most 2/sqrt(pi), so
// erf moves by about as little; onnxruntime's fused Gelu multiplies by 1/sqrt(2) too. Only erf's
// argument is changed; divisions elsewhere stay exact.
struct ErfOfQuotientByConstant : OpRewritePattern<math::ErfOp> {
  ErfOfQuotientByConstant(MLIRContext *ctx)
      : OpRewritePattern<math::ErfOp>(ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(math::ErfOp erf,
                                PatternRewriter &rewriter) const override {
    auto div = erf.getOperand().getDefiningOp<arith::DivFOp>();
    if (!div)
      return failure();
    // Elementwise code is still scalar here (LLVM's loop vectorizer widens
    // it later), so the divisor is a scalar constant.
    FloatAttr divisor;
    if (!matchPattern(div.getRhs(), m_Constant(&divisor)))
      return failure();
    APFloat c = divisor.getValue();
    if (c.isZero() || !c.isFinite())
      return failure();
    APFloat reciprocal(c.getSemantics(), 1);
    if (reciprocal.divide(c, APFloat::rmNearestTiesToEven) & APFloat::opOverflow)
      return failure();
    rewriter.setInsertionPoint(erf);
    Value factor = arith::ConstantOp::create(
        rewriter, div.getLoc(), rewriter.getFloatAttr(div.getType(), reciprocal));
    Value product = arith::MulFOp::create(rewriter, div.getLoc(), div.getLhs(),
                                          factor, div.getFastmathAttr());
    rewriter.modifyOpInPlace(erf, [&] { erf->setOperand(0, product); });
    return success();
  }
};

// erf itself (after ErfOfQuotientByConstant, whose benefit is higher).
struct ErfAsRational : OpRewritePattern<math::ErfOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ErfOp erf,
                                PatternRewriter &rewriter) const override {
    Type type = erf.getType();
    auto element = dyn_cast<FloatType>(getElementTypeOrSelf(type));
    if (!element || element.getWidth() > 32)
      return rewriter.notifyMatchFailure(erf, "f64 erf is not approximated");
    Location loc = erf.getLoc();
    Type f32 = rewriter.getF32Type();
    Type wide = f32;
    if (auto shaped = dyn_cast<ShapedType>(type))
      wide = shaped.clone(f32);
    auto constant = [&](float value) -> Value {
      TypedAttr attr = rewriter.getF32FloatAttr(value);
      if (auto shaped = dyn_cast<ShapedType>(wide))
        attr = SplatElementsAttr::get(shaped, attr);
      return arith::ConstantOp::create(rewriter, loc, wide, attr);
    };

    Value x = erf.getOperand();
    // f16 and bf16 are computed in f32 and rounded once at the end.
    if (!element.isF32())
      x = arith::ExtFOp::create(rewriter, loc, wide, x);
    Value clamp = constant(kClamp);
    Value a = math::AbsFOp::create(rewriter, loc, x);
    // Ordered: a NaN is not clamped and propagates.
    Value big = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OGT,
                                      a, clamp);
    a = arith::SelectOp::create(rewriter, loc, big, clamp, a);
    Value s = arith::MulFOp::create(rewriter, loc, a, a);
    auto horner = [&](ArrayRef<float> coefficients) {
      Value acc = constant(coefficients.back());
      for (float c : llvm::reverse(coefficients.drop_back()))
        acc = math::FmaOp::create(rewriter, loc, acc, s, constant(c));
      return acc;
    };
    Value numerator = arith::MulFOp::create(rewriter, loc, a, horner(kP));
    Value r = arith::DivFOp::create(rewriter, loc, numerator, horner(kQ));
    // f32 rounding can land a hair above 1 where erf is within an ulp of it.
    Value one = constant(1.0f);
    Value over =
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OGT, r, one);
    r = arith::SelectOp::create(rewriter, loc, over, one, r);
    r = math::CopySignOp::create(rewriter, loc, r, x);
    if (!element.isF32())
      r = arith::TruncFOp::create(rewriter, loc, type, r);
    rewriter.replaceOp(erf, r);
    return success();
  }
};

} // namespace

void populateErfApproximationPatterns(RewritePatternSet &patterns) {
  patterns.add<ErfOfQuotientByConstant, ErfAsRational>(patterns.getContext());
}

} // namespace mlir::kiln::cpu
