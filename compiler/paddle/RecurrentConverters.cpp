//===- RecurrentConverters.cpp - rnn (mode LSTM) --------------------------===//
//
// paddle.nn.LSTM exports one `rnn` op (legacy Input, PreState, WeightList;
// PIR x, pre_state list, weight list): time-major input [T, N, I], initial
// states [L*D, N, H], and a weight list holding first every (layer,
// direction)'s weight_ih [4H, I] and weight_hh [4H, H], then every bias_ih
// and bias_hh [4H], in that order. Paddle's gates are i, f, g, o; ONNX
// LSTM's are i, o, f, c, so each weight and bias is cut into its four gate
// blocks and put back in ONNX order. Each layer is one ONNX LSTM (both
// directions together); its output [T, D, N, H] becomes the next layer's
// input [T, N, D*H]. The final states (h and c, [L*D, N, H]) are the
// layers' Y_h / Y_c concatenated.
//
//===----------------------------------------------------------------------===//

#include "compiler/paddle/PaddleConverters.h"

using namespace mlir;

namespace mlir::kiln::paddle_import {
namespace {

/// `w` [4H, ...] with its gate blocks reordered i,f,g,o -> i,o,f,g and a
/// leading direction dim of 1 added.
FailureOr<Value> onnxGateOrder(OpContext &ctx, Value w, int64_t hidden) {
  int64_t rank = ctx.typeOf(w).getRank();
  llvm::SmallVector<Value> blocks;
  for (int64_t gate : {0, 3, 1, 2}) {
    auto b = ctx.onnx1("Slice", {w, ctx.i64Vector({gate * hidden}),
                                 ctx.i64Vector({(gate + 1) * hidden}),
                                 ctx.i64Vector({0})});
    if (failed(b))
      return failure();
    blocks.push_back(*b);
  }
  auto joined = ctx.onnx1("Concat", blocks, [](onnx::NodeProto &n) {
    setAttr(n, "axis", int64_t(0));
  });
  if (failed(joined))
    return failure();
  llvm::SmallVector<int64_t> shape{1};
  shape.append(ctx.typeOf(*joined).getShape().begin(),
               ctx.typeOf(*joined).getShape().end());
  (void)rank;
  return ctx.reshape(*joined, shape);
}

FailureOr<Value> concat0(OpContext &ctx, llvm::ArrayRef<Value> values,
                         int64_t axis = 0) {
  if (values.size() == 1)
    return values.front();
  return ctx.onnx1("Concat", values, [&](onnx::NodeProto &n) {
    setAttr(n, "axis", axis);
  });
}

LogicalResult convertRnn(OpContext &ctx) {
  std::string mode = ctx.getString("mode", "LSTM");
  if (mode != "LSTM")
    return ctx.error() << "rnn mode '" << mode
                       << "' is not supported (LSTM only)";
  if (ctx.has("SequenceLength", 3))
    return ctx.error() << "variable sequence lengths (SequenceLength) are "
                          "not supported";
  auto x = ctx.required("Input", 0);
  if (failed(x))
    return failure();
  llvm::SmallVector<Value> states = ctx.inList("PreState", 1);
  llvm::SmallVector<Value> weights = ctx.inList("WeightList", 2);
  int64_t layers = ctx.getInt("num_layers", 1);
  int64_t dirs = ctx.getBool("is_bidirec", false) ? 2 : 1;
  int64_t hidden = ctx.getInt("hidden_size", 0);
  if (hidden <= 0)
    return ctx.error() << "has no hidden_size";
  if (static_cast<int64_t>(weights.size()) != 4 * layers * dirs ||
      llvm::is_contained(weights, Value()))
    return ctx.error() << "expects " << 4 * layers * dirs
                       << " weights (weight_ih, weight_hh, bias_ih, bias_hh "
                          "per layer and direction), got "
                       << weights.size();
  if (states.size() != 2 || llvm::is_contained(states, Value()))
    return ctx.error() << "expects two initial states (h, c), got "
                       << states.size();

  Value input = *x;
  llvm::SmallVector<Value> lastH, lastC;
  int64_t half = 2 * layers * dirs;
  for (int64_t l = 0; l < layers; ++l) {
    llvm::SmallVector<Value> ws, rs, bs;
    for (int64_t d = 0; d < dirs; ++d) {
      int64_t k = l * dirs + d;
      auto w = onnxGateOrder(ctx, weights[2 * k], hidden);
      auto r = onnxGateOrder(ctx, weights[2 * k + 1], hidden);
      auto bi = onnxGateOrder(ctx, weights[half + 2 * k], hidden);
      auto bh = onnxGateOrder(ctx, weights[half + 2 * k + 1], hidden);
      if (failed(w) || failed(r) || failed(bi) || failed(bh))
        return failure();
      auto b = concat0(ctx, {*bi, *bh}, 1);
      if (failed(b))
        return failure();
      ws.push_back(*w);
      rs.push_back(*r);
      bs.push_back(*b);
    }
    auto w = concat0(ctx, ws), r = concat0(ctx, rs), b = concat0(ctx, bs);
    if (failed(w) || failed(r) || failed(b))
      return failure();
    llvm::SmallVector<Value> initial;
    for (Value s : states) {
      auto part = ctx.onnx1("Slice", {s, ctx.i64Vector({l * dirs}),
                                      ctx.i64Vector({(l + 1) * dirs}),
                                      ctx.i64Vector({0})});
      if (failed(part))
        return failure();
      initial.push_back(*part);
    }
    auto outs = ctx.onnx(
        "LSTM", {input, *w, *r, *b, nullptr, initial[0], initial[1]},
        [&](onnx::NodeProto &n) {
          setAttr(n, "hidden_size", hidden);
          setAttr(n, "direction",
                  llvm::StringRef(dirs == 2 ? "bidirectional" : "forward"));
        },
        3, 14);
    if (failed(outs))
      return failure();
    // Y [T, D, N, H] -> [T, N, D*H].
    auto t = ctx.transpose((*outs)[0], {0, 2, 1, 3});
    if (failed(t))
      return failure();
    RankedTensorType yType = ctx.typeOf(*t);
    auto y = reshapeTo(ctx, *t,
                       {yType.getDimSize(0), yType.getDimSize(1),
                        dirs * hidden});
    if (failed(y))
      return failure();
    input = *y;
    lastH.push_back((*outs)[1]);
    lastC.push_back((*outs)[2]);
  }
  ctx.setOut("Out", 0, input);
  if (ctx.outCount("State", 2)) {
    auto h = concat0(ctx, lastH), c = concat0(ctx, lastC);
    if (failed(h) || failed(c))
      return failure();
    ctx.setOutList("State", 2, {*h, *c});
  }
  return success();
}

const ConverterInfo kConverters[] = {
    {"rnn", convertRnn},
    {"pd_op.rnn", convertRnn},
};

} // namespace

llvm::ArrayRef<ConverterInfo> getRecurrentConverters() { return kConverters; }

} // namespace mlir::kiln::paddle_import
