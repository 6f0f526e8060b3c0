//===- ChannelsLast.cpp - kiln-channels-last ------------------------------===//
//
// Rewrites eligible `kiln.conv` ops into `kiln.conv_nhwc` between
// transposes, then moves the transposes down through elementwise ops so
// that the transposes between consecutive channels-last convolutions meet
// and cancel: a chain of such convolutions (with its ReLUs and residual
// adds) runs channels last, with layout changes only at its edges.
//
// Why: the CPU back end's register tiles put the output's innermost dim in
// the vector lanes. Channels first (NCHW) that is the output pixels, and
// a late CNN stage has few: 49 pixels of a 7x7 plane fill a 32-lane tile
// and 17 lanes of a second, 196 of a 14x14 plane 7 tiles of 32. Channels
// last the lanes are the output channels (256 to 2048 in ResNet-50, whole
// tiles) and the pixels of an output row are the tile's rows.
//
//===----------------------------------------------------------------------===//

#include "dialects/kiln/KilnDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kiln {

#define GEN_PASS_DEF_CHANNELSLAST
#include "passes/Passes.h.inc"

namespace {

constexpr int64_t kToChannelsLast[] = {0, 2, 3, 1};
constexpr int64_t kToChannelsFirst[] = {0, 3, 1, 2};
// OIHW -> HWIO.
constexpr int64_t kFilterToHwio[] = {2, 3, 1, 0};

Value transpose(PatternRewriter &rewriter, Location loc, Value value,
                ArrayRef<int64_t> perm) {
  return TransposeOp::create(rewriter, loc, value,
                             rewriter.getDenseI64ArrayAttr(perm))
      .getResult();
}

// Whether `conv` runs channels last: a 2-D f32 convolution of one group
// and static shapes, with at most `maxPixels` output pixels per image, output
// rows of at least 4 pixels (the register tile's rows; a 1x1 plane, as in
// a squeeze-excite block, is the same bytes either way and would only gain
// two transposes) and at least `minChannels` input and output channels.
bool eligible(ConvOp conv, int64_t maxPixels, int64_t minChannels) {
  auto input = dyn_cast<RankedTensorType>(conv.getInput().getType());
  auto filter = dyn_cast<RankedTensorType>(conv.getFilter().getType());
  auto result = dyn_cast<RankedTensorType>(conv.getType());
  if (!input || !filter || !result || input.getRank() != 4 ||
      !input.hasStaticShape() || !filter.hasStaticShape() ||
      !result.hasStaticShape() || conv.getGroups() != 1 ||
      !input.getElementType().isF32())
    return false;
  int64_t pixels = result.getDimSize(2) * result.getDimSize(3);
  return pixels <= maxPixels && result.getDimSize(3) >= 4 &&
         input.getDimSize(1) >= minChannels &&
         result.getDimSize(1) >= minChannels;
}

struct ConvToChannelsLast : OpRewritePattern<ConvOp> {
  ConvToChannelsLast(MLIRContext *context, int64_t maxPixels,
                     int64_t minChannels)
      : OpRewritePattern(context), maxPixels(maxPixels),
        minChannels(minChannels) {}

  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    if (!eligible(op, maxPixels, minChannels))
      return rewriter.notifyMatchFailure(op, "stays channels first");
    Location loc = op.getLoc();
    Value input = transpose(rewriter, loc, op.getInput(), kToChannelsLast);
    // A constant filter's transpose folds into a new constant.
    Value filter = transpose(rewriter, loc, op.getFilter(), kFilterToHwio);
    auto conv = ConvNhwcOp::create(
        rewriter, loc, input, filter, op.getBias(),
        rewriter.getDenseI64ArrayAttr(op.getStridesOrDefault()),
        rewriter.getDenseI64ArrayAttr(op.getDilationsOrDefault()),
        rewriter.getDenseI64ArrayAttr(op.getPadsOrDefault()));
    rewriter.replaceOp(op, transpose(rewriter, loc, conv.getResult(),
                                     kToChannelsFirst));
    return success();
  }

  int64_t maxPixels, minChannels;
};

// unary(transpose(x)) -> transpose(unary(x)) for Kiln's elementwise unary
// ops (same type in and out), when the transpose has no other use.
struct SinkThroughUnary : RewritePattern {
  SinkThroughUnary(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<KilnDialect>(op->getDialect()) ||
        !op->hasTrait<OpTrait::Elementwise>() || op->getNumOperands() != 1 ||
        op->getNumResults() != 1 ||
        op->getOperand(0).getType() != op->getResult(0).getType())
      return failure();
    auto producer = op->getOperand(0).getDefiningOp<TransposeOp>();
    if (!producer || !producer->hasOneUse())
      return failure();
    Operation *moved = rewriter.clone(*op);
    moved->setOperand(0, producer.getInput());
    moved->getResult(0).setType(producer.getInput().getType());
    rewriter.replaceOp(op, transpose(rewriter, op->getLoc(),
                                     moved->getResult(0), producer.getPerm()));
    return success();
  }
};

// `value` transposed by `perm` where that transpose exists already (a
// block's input, transposed for its first convolution, that the block's
// residual add also reads).
Value existingTranspose(Value value, ArrayRef<int64_t> perm) {
  for (Operation *user : value.getUsers())
    if (auto t = dyn_cast<TransposeOp>(user); t && t.getPerm() == perm)
      return t.getResult();
  return Value();
}

// binary(transpose(a, p), transpose(b, p)) -> transpose(binary(a, b), p)
// for same-shaped operands (no broadcasting to reorder); also with one
// operand `c` untransposed whose transpose by p's inverse exists already.
template <typename BinaryOp>
struct SinkThroughBinary : OpRewritePattern<BinaryOp> {
  using OpRewritePattern<BinaryOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(BinaryOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getLhs().getType() != op.getRhs().getType() ||
        op.getLhs().getType() != op.getType())
      return failure();
    auto lhs = op.getLhs().template getDefiningOp<TransposeOp>();
    auto rhs = op.getRhs().template getDefiningOp<TransposeOp>();
    // A transpose used elsewhere too would then run twice: once for its
    // other users, once after the new op.
    if (lhs && !lhs->hasOneUse() && lhs != rhs)
      lhs = nullptr;
    if (rhs && !rhs->hasOneUse() && lhs != rhs)
      rhs = nullptr;
    if (!lhs && !rhs)
      return failure();
    ArrayRef<int64_t> perm = lhs ? lhs.getPerm() : rhs.getPerm();
    auto untransposed = [&](TransposeOp t, Value operand) -> Value {
      if (t && t.getPerm() == perm)
        return t.getInput();
      return existingTranspose(operand, invertPermutationVector(perm));
    };
    Value a = untransposed(lhs, op.getLhs());
    Value b = untransposed(rhs, op.getRhs());
    if (!a || !b || a.getType() != b.getType())
      return failure();
    auto moved = BinaryOp::create(rewriter, op.getLoc(), a, b);
    rewriter.replaceOp(op, transpose(rewriter, op.getLoc(), moved.getResult(),
                                     perm));
    return success();
  }
};

class ChannelsLastPass : public impl::ChannelsLastBase<ChannelsLastPass> {
public:
  using impl::ChannelsLastBase<ChannelsLastPass>::ChannelsLastBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<ConvToChannelsLast>(context, maxPixels, minChannels);
    patterns.add<SinkThroughUnary>(context);
    patterns.add<SinkThroughBinary<AddOp>, SinkThroughBinary<SubOp>,
                 SinkThroughBinary<MulOp>, SinkThroughBinary<MaxOp>,
                 SinkThroughBinary<MinOp>>(context);
    // Transposes of transposes merge, identities vanish and the filters'
    // transposes fold into constants (the ops' folders).
    TransposeOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      signalPassFailure();
      return;
    }
    // Two convs reading one tensor each transposed it: the first transpose
    // (in block order) serves both.
    DenseMap<std::pair<Value, Attribute>, TransposeOp> first;
    SmallVector<TransposeOp> duplicates;
    getOperation()->walk([&](TransposeOp op) {
      auto [it, inserted] =
          first.try_emplace({op.getInput(), op.getPermAttr()}, op);
      if (!inserted && it->second->getBlock() == op->getBlock())
        duplicates.push_back(op);
    });
    for (TransposeOp op : duplicates) {
      op.getResult().replaceAllUsesWith(
          first.lookup({op.getInput(), op.getPermAttr()}).getResult());
      op->erase();
    }
  }
};

} // namespace
} // namespace mlir::kiln
