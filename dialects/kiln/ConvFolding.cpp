//===- ConvFolding.cpp - Folding per-channel affine ops into conv ---------===//
//
// A conv whose filter (and bias, if any) are constants absorbs a following
// per-output-channel affine map y * s[o] + t[o] into its constants:
//
//   W'[o, ...] = W[o, ...] * s[o]      b'[o] = b[o] * s[o] + t[o]
//
// The maps come from batch_norm in inference form (s = scale /
// sqrt(variance + epsilon), t = bias - mean * s) and from an exporter's
// mul / add by a constant that varies only along the channel dimension
// (shape [C, 1, 1], [1, C, 1, 1] or a scalar). The rewrites are
// canonicalization patterns of batch_norm, mul and add, so that
// kiln-graph-cleanup applies them with the folders; the weights are
// rewritten once at compile time and the run time does one conv.
//
// Conditions: the conv result has the affine op as its only user (another
// user needs the unscaled values), the result type does not change (no
// broadcasting), the element type is a float, and the filter fits in
// kMaxMoveBytes. Values are computed in double and rounded once to the
// element type.
//
//===----------------------------------------------------------------------===//

#include "dialects/kiln/ConstantFolding.h"
#include "dialects/kiln/KilnDialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// The values of a float constant of any size as doubles (a splat is
/// expanded), or std::nullopt when `value` is not a static float constant.
/// No element limit: conv filters are large, and each value is touched once.
std::optional<std::vector<double>> readWeights(Value value) {
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  std::optional<ConstantTensor> constant =
      readConstant(attr, std::numeric_limits<int64_t>::max());
  if (!constant || !constant->isFloat)
    return std::nullopt;
  if (constant->isSplat)
    return std::vector<double>(constant->type.getNumElements(),
                               constant->floats.front());
  return std::move(constant->floats);
}

/// Rewrites `consumer` (whose only operand of interest is `conv`'s result)
/// as a conv with the per-output-channel map y * scale[o] + shift[o]
/// folded into its constant filter and bias. `scale` and `shift` have one
/// entry per output channel; an empty `scale` means 1.
LogicalResult foldChannelAffineIntoConv(PatternRewriter &rewriter,
                                        Operation *consumer, ConvOp conv,
                                        ArrayRef<double> scale,
                                        ArrayRef<double> shift) {
  RankedTensorType filterType = conv.getFilter().getType();
  if (!filterType.hasStaticShape() || filterType.getRank() < 1 ||
      !isMovableResult(filterType))
    return rewriter.notifyMatchFailure(consumer, "filter is not static or too large");
  int64_t channels = filterType.getDimSize(0);
  if (static_cast<int64_t>(shift.size()) != channels ||
      (!scale.empty() && static_cast<int64_t>(scale.size()) != channels))
    return rewriter.notifyMatchFailure(consumer, "not one value per output channel");
  for (size_t o = 0; o < shift.size(); ++o)
    if (!std::isfinite(shift[o]) || (!scale.empty() && !std::isfinite(scale[o])))
      return rewriter.notifyMatchFailure(consumer, "non-finite channel map");

  std::optional<std::vector<double>> filter;
  if (!scale.empty()) {
    filter = readWeights(conv.getFilter());
    if (!filter)
      return rewriter.notifyMatchFailure(consumer, "filter is not a constant");
  } else if (!matchPattern(conv.getFilter(), m_Constant())) {
    // A shift alone changes only the bias, but a run-time filter means the
    // conv is not one of a model's fixed layers; keep the graph as written.
    return rewriter.notifyMatchFailure(consumer, "filter is not a constant");
  }
  std::vector<double> bias(channels, 0.0);
  if (Value oldBias = conv.getBias()) {
    std::optional<std::vector<double>> values = readWeights(oldBias);
    if (!values || static_cast<int64_t>(values->size()) != channels)
      return rewriter.notifyMatchFailure(consumer, "bias is not a constant");
    bias = std::move(*values);
  }

  Value newFilter = conv.getFilter();
  Location loc = rewriter.getFusedLoc({conv.getLoc(), consumer->getLoc()});
  if (!scale.empty()) {
    int64_t block = filterType.getNumElements() / std::max<int64_t>(channels, 1);
    for (int64_t o = 0; o < channels; ++o)
      for (int64_t i = 0; i < block; ++i)
        (*filter)[o * block + i] *= scale[o];
    newFilter = ConstantOp::create(rewriter, loc, writeFloats(filterType, *filter));
  }
  for (int64_t o = 0; o < channels; ++o)
    bias[o] = bias[o] * (scale.empty() ? 1.0 : scale[o]) + shift[o];
  auto biasType = RankedTensorType::get({channels}, filterType.getElementType());
  Value newBias = ConstantOp::create(rewriter, loc, writeFloats(biasType, bias));

  // Same input and window attributes, so the result type is unchanged.
  auto folded = ConvOp::create(rewriter, loc, TypeRange{conv.getType()},
                               ValueRange{conv.getInput(), newFilter, newBias},
                               conv->getAttrs());
  rewriter.replaceOp(consumer, folded.getResult());
  rewriter.eraseOp(conv);
  return success();
}

/// The conv that produces `value` when the value has no other user.
ConvOp singleUseConv(Value value) {
  auto conv = value.getDefiningOp<ConvOp>();
  if (!conv || !conv->hasOneUse())
    return {};
  return conv;
}

/// batch_norm(conv(x, W, b)) -> conv(x, W * s, (b - mean) * s + bias) with
/// s = scale / sqrt(variance + epsilon).
struct FoldBatchNormIntoConv : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp op,
                                PatternRewriter &rewriter) const override {
    ConvOp conv = singleUseConv(op.getInput());
    if (!conv)
      return rewriter.notifyMatchFailure(op, "input is not a single-use conv");
    std::optional<std::vector<double>> gamma = readWeights(op.getScale());
    std::optional<std::vector<double>> beta = readWeights(op.getBias());
    std::optional<std::vector<double>> mean = readWeights(op.getMean());
    std::optional<std::vector<double>> variance = readWeights(op.getVariance());
    if (!gamma || !beta || !mean || !variance)
      return rewriter.notifyMatchFailure(op, "parameters are not constants");
    size_t channels = gamma->size();
    if (beta->size() != channels || mean->size() != channels ||
        variance->size() != channels)
      return rewriter.notifyMatchFailure(op, "parameter sizes differ");
    // The lowering adds epsilon in the element type (f32 attribute).
    double epsilon = op.getEpsilon().convertToDouble();
    std::vector<double> scale(channels), shift(channels);
    for (size_t o = 0; o < channels; ++o) {
      scale[o] = (*gamma)[o] / std::sqrt((*variance)[o] + epsilon);
      shift[o] = (*beta)[o] - (*mean)[o] * scale[o];
    }
    return foldChannelAffineIntoConv(rewriter, op, conv, scale, shift);
  }
};

/// The per-channel values of a constant operand of a binary op applied to a
/// conv result of type `convType` ([N, C, ...]): the constant must broadcast
/// to `convType` varying along dim 1 only (every other dim of size 1, after
/// right alignment). Returns one value per channel.
std::optional<std::vector<double>> channelValues(Value constant,
                                                 RankedTensorType convType) {
  auto type = llvm::cast<RankedTensorType>(constant.getType());
  if (!type.hasStaticShape() || !convType.hasStaticShape() ||
      convType.getRank() < 2 || type.getRank() > convType.getRank())
    return std::nullopt;
  int64_t channels = convType.getDimSize(1);
  int64_t rankOffset = convType.getRank() - type.getRank();
  int64_t constantChannels = 1;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t size = type.getDimSize(d);
    if (d + rankOffset == 1)
      constantChannels = size;
    else if (size != 1)
      return std::nullopt;
  }
  if (constantChannels != 1 && constantChannels != channels)
    return std::nullopt;
  std::optional<std::vector<double>> values = readWeights(constant);
  if (!values || values->empty())
    return std::nullopt;
  if (constantChannels == 1)
    values->assign(channels, values->front());
  return values;
}

/// mul(conv(x, W, b), k) with k constant per channel -> conv(x, W * k, b * k).
/// add(conv(x, W, b), k) -> conv(x, W, b + k).
template <typename OpTy, bool isScale>
struct FoldChannelOpIntoConv : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    for (auto [convSide, constantSide] :
         {std::pair{op.getLhs(), op.getRhs()}, std::pair{op.getRhs(), op.getLhs()}}) {
      ConvOp conv = singleUseConv(convSide);
      if (!conv || conv.getType() != op.getType() ||
          !llvm::isa<FloatType>(conv.getType().getElementType()))
        continue;
      std::optional<std::vector<double>> values =
          channelValues(constantSide, conv.getType());
      if (!values)
        continue;
      if (isScale)
        return foldChannelAffineIntoConv(rewriter, op, conv, *values,
                                         std::vector<double>(values->size(), 0.0));
      return foldChannelAffineIntoConv(rewriter, op, conv, {}, *values);
    }
    return rewriter.notifyMatchFailure(op, "not a conv and a per-channel constant");
  }
};

} // namespace

void BatchNormOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<FoldBatchNormIntoConv>(context);
}

void MulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<FoldChannelOpIntoConv<MulOp, /*isScale=*/true>>(context);
}

void AddOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<FoldChannelOpIntoConv<AddOp, /*isScale=*/false>>(context);
}
