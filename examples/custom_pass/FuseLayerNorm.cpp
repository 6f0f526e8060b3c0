//===- FuseLayerNorm.cpp - An example Kiln plugin: fuse a written-out LayerNorm ===//
//
// PyTorch exports nn.LayerNorm at opset 16 and older (the default of many
// exporters) as nine ONNX nodes:
//
//   mean = ReduceMean(x, axes)         d = Sub(x, mean)
//   var  = ReduceMean(Pow(d, 2), axes) n = Div(d, Sqrt(Add(var, eps)))
//   y    = Add(Mul(n, gamma), beta)
//
// Kiln imports them one by one and compiles them to four dispatches (two
// reductions and two elementwise kernels, each reading x or d again). This
// pass replaces the chain with one `kiln.layer_norm`, which Kiln compiles
// to a single dispatch. It is a plugin (compiler/plugin/KilnPlugin.h):
//
//   kilnc model.onnx -o model.kiln --load-pass-plugin=libKilnExampleFuseLayerNorm.so
//   kiln-opt in.mlir --load-pass-plugin=libKilnExampleFuseLayerNorm.so
//       --kiln-example-fuse-layer-norm
//
// It matches `mul(d, d)` as well as `pow(d, 2)`, and a chain without the
// affine part (gamma, beta) or with gamma only; the reduced axes must be the
// trailing ones, as layer_norm normalizes from `axis` to the last dim.
//
//===----------------------------------------------------------------------===//

#include "compiler/plugin/KilnPlugin.h"
#include "dialects/kiln/KilnDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

// The value of a constant splat float tensor (any shape), if `value` is one.
std::optional<double> splatValue(Value value) {
  DenseElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

// `op`'s operand other than `known`, for a commutative binary op.
template <typename OpTy> Value otherOperand(OpTy op, Value known) {
  return op.getLhs() == known ? op.getRhs() : op.getLhs();
}

// The first normalized axis when `reduce` is a mean over the trailing
// axes of its input with keepdims, else nullopt.
std::optional<int64_t> trailingMeanAxis(ReduceOp reduce) {
  if (!reduce || reduce.getKind() != ReduceKind::mean || !reduce.getKeepdims())
    return std::nullopt;
  auto type = cast<RankedTensorType>(reduce.getInput().getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> axes;
  for (int64_t axis : reduce.getAxes())
    axes.push_back(axis < 0 ? axis + rank : axis);
  llvm::sort(axes);
  if (axes.empty() || rank == 0)
    return std::nullopt;
  for (auto [i, axis] : llvm::enumerate(axes))
    if (axis != rank - static_cast<int64_t>(axes.size() - i))
      return std::nullopt;
  return axes.front();
}

// Rewrites div(x - mean(x), sqrt(mean((x - mean(x))^2) + eps)), and the
// scale and shift that follow it, into kiln.layer_norm.
struct FuseLayerNormPattern : OpRewritePattern<DivOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DivOp div,
                                PatternRewriter &rewriter) const override {
    // d = x - mean(x)
    auto centered = div.getLhs().getDefiningOp<SubOp>();
    if (!centered)
      return rewriter.notifyMatchFailure(div, "numerator is not x - mean");
    Value x = centered.getLhs();
    auto mean = centered.getRhs().getDefiningOp<ReduceOp>();
    std::optional<int64_t> axis = trailingMeanAxis(mean);
    if (!axis || mean.getInput() != x)
      return rewriter.notifyMatchFailure(div, "no trailing mean of x");
    auto type = cast<RankedTensorType>(x.getType());
    if (!isa<FloatType>(type.getElementType()) ||
        centered.getType() != type || div.getType() != type ||
        !type.hasStaticShape())
      return rewriter.notifyMatchFailure(div, "not a static float tensor");

    // sqrt(var + eps), var = mean(d * d) over the same axes
    auto sqrt = div.getRhs().getDefiningOp<SqrtOp>();
    auto addEps = sqrt ? sqrt.getInput().getDefiningOp<AddOp>() : AddOp();
    if (!addEps)
      return rewriter.notifyMatchFailure(div, "denominator is not sqrt(v + eps)");
    std::optional<double> eps;
    ReduceOp variance;
    for (auto [a, b] : {std::pair(addEps.getLhs(), addEps.getRhs()),
                        std::pair(addEps.getRhs(), addEps.getLhs())}) {
      if ((eps = splatValue(b)) && (variance = a.getDefiningOp<ReduceOp>()))
        break;
    }
    if (!eps || !variance || trailingMeanAxis(variance) != axis ||
        variance.getAxes().size() != mean.getAxes().size())
      return rewriter.notifyMatchFailure(div, "no variance over the same axes");
    Operation *square = variance.getInput().getDefiningOp();
    bool isSquare = false;
    if (auto pow = dyn_cast_or_null<PowOp>(square))
      isSquare = pow.getLhs() == centered.getResult() &&
                 splatValue(pow.getRhs()) == 2.0;
    else if (auto mul = dyn_cast_or_null<MulOp>(square))
      isSquare = mul.getLhs() == centered.getResult() &&
                 mul.getRhs() == centered.getResult();
    if (!isSquare)
      return rewriter.notifyMatchFailure(div, "variance is not mean(d^2)");

    // Optional: * gamma, then + beta, each of the normalized shape.
    auto normalizedType = RankedTensorType::get(
        type.getShape().drop_front(*axis), type.getElementType());
    SmallVector<Location> locs = {mean.getLoc(),     centered.getLoc(),
                                  square->getLoc(),  variance.getLoc(),
                                  addEps.getLoc(),   sqrt.getLoc(),
                                  div.getLoc()};
    Operation *last = div;
    Value scale, bias;
    auto singleUser = [](Operation *op) -> Operation * {
      return op->hasOneUse() ? *op->getUsers().begin() : nullptr;
    };
    if (auto mul = dyn_cast_or_null<MulOp>(singleUser(div))) {
      Value gamma = otherOperand(mul, div.getResult());
      if (gamma.getType() == normalizedType && mul.getType() == type) {
        scale = gamma;
        locs.push_back(mul.getLoc());
        last = mul;
        if (auto add = dyn_cast_or_null<AddOp>(singleUser(mul))) {
          Value beta = otherOperand(add, mul.getResult());
          if (beta.getType() == normalizedType && add.getType() == type) {
            bias = beta;
            locs.push_back(add.getLoc());
            last = add;
          }
        }
      }
    }
    if (!scale) {
      // layer_norm always scales; without gamma the scale is all ones.
      scale = ConstantOp::create(
          rewriter, div.getLoc(),
          DenseElementsAttr::get(normalizedType,
                                 rewriter.getFloatAttr(type.getElementType(), 1.0)));
    }

    // The fused op carries every node's location, so kilnc's dispatch list
    // and kiln-compare still name the ONNX nodes it computes.
    rewriter.setInsertionPoint(last);
    auto layerNorm = LayerNormOp::create(
        rewriter, rewriter.getFusedLoc(locs), type, x, scale, bias,
        rewriter.getI64IntegerAttr(*axis - type.getRank()),
        rewriter.getF32FloatAttr(static_cast<float>(*eps)));
    rewriter.replaceOp(last, layerNorm.getResult());
    return success();
  }
};

// doc-region: pass
class FuseLayerNormPass
    : public PassWrapper<FuseLayerNormPass, OperationPass<func::FuncOp>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FuseLayerNormPass)

  StringRef getArgument() const final { return "kiln-example-fuse-layer-norm"; }
  StringRef getDescription() const final {
    return "Replaces a written-out layer normalization (ReduceMean, Sub, "
           "Pow, ReduceMean, Add, Sqrt, Div, Mul, Add) with kiln.layer_norm";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<KilnDialect>();
  }

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseLayerNormPattern>(&getContext());
    // The replaced ops are pure; the driver erases those left unused.
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
// doc-end: pass

// doc-region: entry
void registerPlugin(PluginRegistrar &registrar) {
  PassRegistration<FuseLayerNormPass>();
  // Right after import: the precision and quantization passes of graph
  // optimization then see one layer_norm (which they keep in f32) rather
  // than nine elementwise ops and reductions.
  registrar.addPass(PluginStage::AfterImport,
                    "func.func(kiln-example-fuse-layer-norm)");
}

} // namespace

extern "C" KILN_PLUGIN_EXPORT const KilnPluginInfo *kilnGetPluginInfo() {
  static const KilnPluginInfo info = {KILN_PLUGIN_API_VERSION,
                                      KILN_VERSION_STRING,
                                      "kiln-example-fuse-layer-norm",
                                      registerPlugin};
  return &info;
}
// doc-end: entry
