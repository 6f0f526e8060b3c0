//===- RecurrentToLinalg.cpp - Lowering of Kiln lstm, gru and rnn --------===//
//
// Each direction is one scf.for over the time steps carrying `y` and the
// states ([batch, hidden] tensors). The input projection of every step is
// one linalg.matmul before the loop (x [seq*batch, input] @ W^T, with the
// input biases, and for LSTM and RNN the recurrence biases too, as the
// matmul's initial value); inside the loop the recurrence is a linalg.matmul
// whose initial value is that step's projection, and the gates are one
// linalg.generic over [batch, hidden] reading the gate blocks as slices.
//
//===----------------------------------------------------------------------===//

#include "passes/lowering/KilnToLinalg.h"
#include "passes/lowering/LoweringUtils.h"

#include "dialects/kiln/KilnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <functional>

namespace mlir::kiln {
namespace {

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

struct Activation {
  StringRef name;
  double alpha, beta;
};

// ONNX's default alpha / beta for the functions that take them (the
// frontend spells them out; IR written by hand may not).
std::pair<double, double> defaultAlphaBeta(StringRef name) {
  if (name == "affine")
    return {1.0, 0.0};
  if (name == "leaky_relu")
    return {0.01, 0.0};
  if (name == "thresholded_relu")
    return {1.0, 0.0};
  if (name == "scaled_tanh")
    return {1.0, 1.0};
  if (name == "hard_sigmoid")
    return {0.2, 0.5};
  if (name == "elu")
    return {1.0, 0.0};
  return {0.0, 0.0};
}

template <typename OpTy>
Activation activationAt(OpTy op, int64_t index) {
  StringRef name = cast<StringAttr>(op.getActivations()[index]).getValue();
  auto [alpha, beta] = defaultAlphaBeta(name);
  ArrayRef<float> alphas = op.getActivationAlpha();
  ArrayRef<float> betas = op.getActivationBeta();
  if (index < static_cast<int64_t>(alphas.size()))
    alpha = alphas[index];
  if (index < static_cast<int64_t>(betas.size()))
    beta = betas[index];
  return {name, alpha, beta};
}

Value applyActivation(OpBuilder &b, Location loc, const Activation &act,
                      Value x) {
  Type type = x.getType();
  auto constant = [&](double value) {
    return scalarConstant(b, loc, type, value);
  };
  auto nonNegative = [&]() {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, x,
                                 constant(0.0));
  };
  StringRef name = act.name;
  if (name == "sigmoid") {
    Value expNeg = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
    return arith::DivFOp::create(
        b, loc, constant(1.0), arith::AddFOp::create(b, loc, constant(1.0), expNeg));
  }
  if (name == "tanh")
    return math::TanhOp::create(b, loc, x);
  if (name == "relu")
    return arith::MaximumFOp::create(b, loc, x, constant(0.0));
  if (name == "affine")
    return arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, constant(act.alpha), x),
        constant(act.beta));
  if (name == "leaky_relu")
    return arith::SelectOp::create(
        b, loc, nonNegative(), x,
        arith::MulFOp::create(b, loc, constant(act.alpha), x));
  if (name == "thresholded_relu") {
    Value above = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                        constant(act.alpha));
    return arith::SelectOp::create(b, loc, above, x, constant(0.0));
  }
  if (name == "scaled_tanh") {
    Value scaled = arith::MulFOp::create(b, loc, constant(act.beta), x);
    return arith::MulFOp::create(b, loc, constant(act.alpha),
                                 math::TanhOp::create(b, loc, scaled));
  }
  if (name == "hard_sigmoid") {
    Value linear = arith::AddFOp::create(
        b, loc, arith::MulFOp::create(b, loc, constant(act.alpha), x),
        constant(act.beta));
    Value upper = arith::MinimumFOp::create(b, loc, linear, constant(1.0));
    return arith::MaximumFOp::create(b, loc, upper, constant(0.0));
  }
  if (name == "elu") {
    Value expm1 = arith::SubFOp::create(b, loc, math::ExpOp::create(b, loc, x),
                                        constant(1.0));
    return arith::SelectOp::create(
        b, loc, nonNegative(), x,
        arith::MulFOp::create(b, loc, constant(act.alpha), expm1));
  }
  if (name == "softsign") {
    Value denominator = arith::AddFOp::create(
        b, loc, constant(1.0), math::AbsFOp::create(b, loc, x));
    return arith::DivFOp::create(b, loc, x, denominator);
  }
  // softplus (the verifier admits no other name).
  Value onePlusExp = arith::AddFOp::create(b, loc, constant(1.0),
                                           math::ExpOp::create(b, loc, x));
  return math::LogOp::create(b, loc, onePlusExp);
}

//===----------------------------------------------------------------------===//
// Tensor helpers
//===----------------------------------------------------------------------===//

// `source[offsets..]` of `sizes`, with the leading `dropped` unit
// dimensions removed from the result type.
Value sliceOf(OpBuilder &b, Location loc, Value source,
              ArrayRef<OpFoldResult> offsets, ArrayRef<int64_t> sizes,
              int64_t dropped) {
  auto type = RankedTensorType::get(sizes.drop_front(dropped),
                                    tensorTypeOf(source).getElementType());
  SmallVector<OpFoldResult> strides(sizes.size(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, type, source, offsets,
                                        indexAttrs(b, sizes), strides);
}

Value insertInto(OpBuilder &b, Location loc, Value source, Value dest,
                 ArrayRef<OpFoldResult> offsets, ArrayRef<int64_t> sizes) {
  SmallVector<OpFoldResult> strides(sizes.size(), b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(b, loc, source, dest, offsets,
                                       indexAttrs(b, sizes), strides);
}

// [rows, cols] -> [cols, rows].
Value transpose2d(OpBuilder &b, Location loc, Value matrix) {
  RankedTensorType type = tensorTypeOf(matrix);
  auto transposed = RankedTensorType::get(
      {type.getDimSize(1), type.getDimSize(0)}, type.getElementType());
  return linalg::TransposeOp::create(b, loc, matrix,
                                     emptyTensor(b, loc, transposed),
                                     ArrayRef<int64_t>{1, 0})
      .getResult()
      .front();
}

// lhs [m, k] @ rhs [k, n] + acc [m, n].
Value matmulAcc(OpBuilder &b, Location loc, Value lhs, Value rhs, Value acc) {
  return linalg::MatmulOp::create(b, loc, TypeRange{acc.getType()},
                                  ValueRange{lhs, rhs}, ValueRange{acc})
      .getResult(0);
}

// A [rows, n] tensor whose every row is `row` ([n]).
Value broadcastRows(OpBuilder &b, Location loc, Value row, int64_t rows) {
  RankedTensorType rowType = tensorTypeOf(row);
  auto type = RankedTensorType::get({rows, rowType.getDimSize(0)},
                                    rowType.getElementType());
  return buildElementwise(
      b, loc, type, row,
      [](OpBuilder &, Location, ValueRange s) { return s[0]; });
}

Value addVectors(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return buildElementwise(b, loc, tensorTypeOf(lhs), ValueRange{lhs, rhs},
                          [](OpBuilder &nb, Location l, ValueRange s) {
                            return arith::AddFOp::create(nb, l, s[0], s[1])
                                .getResult();
                          });
}

// Column block `block` ([rows, hidden]) of a [rows, blocks * hidden] tensor.
Value gateBlock(OpBuilder &b, Location loc, Value gates, int64_t block,
                int64_t hidden) {
  RankedTensorType type = tensorTypeOf(gates);
  return sliceOf(b, loc, gates,
                 indexAttrs(b, {0, block * hidden}),
                 {type.getDimSize(0), hidden}, 0);
}

// A linalg.generic over [batch, hidden]: `matrices` are read elementwise,
// `rows` ([hidden]) broadcast over the batch; the body returns one value
// per result.
using CellBody = function_ref<SmallVector<Value>(OpBuilder &, Location,
                                                 ValueRange matrices,
                                                 ValueRange rows)>;
SmallVector<Value> buildCell(OpBuilder &b, Location loc,
                             RankedTensorType stateType, ValueRange matrices,
                             ValueRange rows, int64_t numResults,
                             CellBody body) {
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
  AffineMap row = AffineMap::get(2, 0, getAffineDimExpr(1, ctx));
  SmallVector<Value> inputs(matrices);
  inputs.append(rows.begin(), rows.end());
  SmallVector<AffineMap> maps(matrices.size(), identity);
  maps.append(rows.size(), row);
  maps.append(numResults, identity);
  SmallVector<Value> inits;
  for (int64_t i = 0; i < numResults; ++i)
    inits.push_back(emptyTensor(b, loc, stateType));
  SmallVector<Type> types(numResults, stateType);
  auto generic = linalg::GenericOp::create(
      b, loc, types, inputs, inits, maps,
      SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        SmallVector<Value> results =
            body(nb, l, args.take_front(matrices.size()),
                 args.slice(matrices.size(), rows.size()));
        linalg::YieldOp::create(nb, l, results);
      });
  return SmallVector<Value>(generic.getResults());
}

//===----------------------------------------------------------------------===//
// The driver every recurrent op shares
//===----------------------------------------------------------------------===//

// What one time step of one direction computes: the new states (h first)
// from the step's input projection [batch, gates * hidden] and the states.
using StepFn = std::function<SmallVector<Value>(
    OpBuilder &, Location, Value projection, ValueRange states)>;

struct Recurrence {
  int64_t seq, batch, input, hidden, gates, dirs;
  int64_t numStates;
  Type element;
  RnnDirection direction;
  Value x, w, r, bias;
  ValueRange initialStates;
  // Whether the recurrence biases join the input projection (all gates but
  // GRU's hidden gate read them outside a product).
  bool foldRecurrenceBias;
};

// Prepares direction `d` (weights, biases: values built before its loop)
// and returns its step.
using PrepareFn = function_ref<StepFn(OpBuilder &, Location, int64_t d,
                                      Value recurrenceT, Value recurrenceBias)>;

// Returns y, then the last value of each state.
SmallVector<Value> buildRecurrence(OpBuilder &b, Location loc,
                                   const Recurrence &rec, PrepareFn prepare) {
  int64_t seq = rec.seq, batch = rec.batch, hidden = rec.hidden;
  int64_t width = rec.gates * hidden;
  Type element = rec.element;
  auto stateType = RankedTensorType::get({batch, hidden}, element);
  auto yType = RankedTensorType::get({seq, rec.dirs, batch, hidden}, element);
  auto finalType = RankedTensorType::get({rec.dirs, batch, hidden}, element);
  Value y = emptyTensor(b, loc, yType);
  SmallVector<Value> finals(rec.numStates, emptyTensor(b, loc, finalType));
  auto flatX = RankedTensorType::get({seq * batch, rec.input}, element);
  Value x2d = tensor::CollapseShapeOp::create(
      b, loc, flatX, rec.x, ArrayRef<ReassociationIndices>{{0, 1}, {2}});

  for (int64_t d = 0; d < rec.dirs; ++d) {
    bool reverse = rec.direction == RnnDirection::reverse || d == 1;
    Value wT = transpose2d(
        b, loc, sliceOf(b, loc, rec.w, indexAttrs(b, {d, 0, 0}),
                        {1, width, rec.input}, 1));
    Value rT = transpose2d(
        b, loc, sliceOf(b, loc, rec.r, indexAttrs(b, {d, 0, 0}),
                        {1, width, hidden}, 1));
    Value inputBias =
        sliceOf(b, loc, rec.bias, indexAttrs(b, {d, 0}), {1, width}, 1);
    Value recurrenceBias =
        sliceOf(b, loc, rec.bias, indexAttrs(b, {d, width}), {1, width}, 1);
    Value projectionBias = rec.foldRecurrenceBias
                               ? addVectors(b, loc, inputBias, recurrenceBias)
                               : inputBias;
    Value projection = matmulAcc(
        b, loc, x2d, wT, broadcastRows(b, loc, projectionBias, seq * batch));
    projection = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({seq, batch, width}, element),
        projection, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
    StepFn step = prepare(b, loc, d, rT, recurrenceBias);

    SmallVector<Value> inits = {y};
    for (int64_t s = 0; s < rec.numStates; ++s) {
      if (rec.initialStates.empty())
        inits.push_back(
            filledTensor(b, loc, stateType, zeroAttr(element)));
      else
        inits.push_back(sliceOf(b, loc, rec.initialStates[s],
                                indexAttrs(b, {d, 0, 0}),
                                {1, batch, hidden}, 1));
    }
    auto loop = scf::ForOp::create(
        b, loc, indexConstant(b, loc, 0), indexConstant(b, loc, seq),
        indexConstant(b, loc, 1), inits,
        [&](OpBuilder &nb, Location l, Value t, ValueRange carried) {
          Value time = t;
          if (reverse)
            time = arith::SubIOp::create(nb, l, indexConstant(nb, l, seq - 1),
                                         t);
          SmallVector<OpFoldResult> at = {time, nb.getIndexAttr(0),
                                          nb.getIndexAttr(0)};
          Value stepProjection =
              sliceOf(nb, l, projection, at, {1, batch, width}, 1);
          SmallVector<Value> states =
              step(nb, l, stepProjection, carried.drop_front());
          SmallVector<OpFoldResult> yAt = {time, nb.getIndexAttr(d),
                                           nb.getIndexAttr(0),
                                           nb.getIndexAttr(0)};
          SmallVector<Value> yields = {
              insertInto(nb, l, states.front(), carried[0], yAt,
                         {1, 1, batch, hidden})};
          for (auto [state, previous] :
               llvm::zip(states, carried.drop_front()))
            yields.push_back(copyIntoCarried(nb, l, state, previous));
          scf::YieldOp::create(nb, l, yields);
        });
    y = loop.getResult(0);
    for (int64_t s = 0; s < rec.numStates; ++s)
      finals[s] = insertInto(b, loc, loop.getResult(1 + s), finals[s],
                             indexAttrs(b, {d, 0, 0}), {1, batch, hidden});
  }
  SmallVector<Value> results = {y};
  results.append(finals.begin(), finals.end());
  return results;
}

template <typename OpTy>
Recurrence describe(OpTy op, int64_t gates, int64_t numStates,
                    bool foldRecurrenceBias) {
  RankedTensorType xType = tensorTypeOf(op.getX());
  Recurrence rec;
  rec.seq = xType.getDimSize(0);
  rec.batch = xType.getDimSize(1);
  rec.input = xType.getDimSize(2);
  rec.hidden = op.getHiddenSize();
  rec.gates = gates;
  rec.dirs = op.getNumDirections();
  rec.numStates = numStates;
  rec.element = xType.getElementType();
  rec.direction = op.getDirection();
  rec.x = op.getX();
  rec.w = op.getW();
  rec.r = op.getR();
  rec.bias = op.getBias();
  rec.initialStates = op.getInitialStates();
  rec.foldRecurrenceBias = foldRecurrenceBias;
  return rec;
}

// Clamps a gate pre-activation to [-clip, clip] when the op has `clip`.
Value clipped(OpBuilder &b, Location loc, Value x, FloatAttr clip) {
  if (!clip)
    return x;
  double limit = clip.getValueAsDouble();
  Value upper = arith::MinimumFOp::create(
      b, loc, x, scalarConstant(b, loc, x.getType(), limit));
  return arith::MaximumFOp::create(
      b, loc, upper, scalarConstant(b, loc, x.getType(), -limit));
}

//===----------------------------------------------------------------------===//
// LstmOp
//===----------------------------------------------------------------------===//

struct LstmLowering : OpRewritePattern<LstmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LstmOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Recurrence rec = describe(op, 4, 2, /*foldRecurrenceBias=*/true);
    int64_t hidden = rec.hidden;
    auto stateType = RankedTensorType::get({rec.batch, hidden}, rec.element);
    FloatAttr clip = op.getClipAttr();
    bool inputForget = op.getInputForget();
    Value peepholes = op.getPeepholes();
    SmallVector<Value> results = buildRecurrence(
        rewriter, op.getLoc(), rec,
        [&](OpBuilder &b, Location loc, int64_t d, Value rT,
            Value) -> StepFn {
          // Peepholes Pi, Po, Pf, each [hidden].
          SmallVector<Value> peep;
          for (int64_t k = 0; k < 3; ++k)
            peep.push_back(sliceOf(b, loc, peepholes,
                                   indexAttrs(b, {d, k * hidden}),
                                   {1, hidden}, 1));
          Activation f = activationAt(op, 3 * d);
          Activation g = activationAt(op, 3 * d + 1);
          Activation h = activationAt(op, 3 * d + 2);
          return [=](OpBuilder &sb, Location l, Value projection,
                     ValueRange states) -> SmallVector<Value> {
            // Gate blocks i, o, f, c of x@W^T + h@R^T + biases.
            Value gates = matmulAcc(sb, l, states[0], rT, projection);
            SmallVector<Value> matrices;
            for (int64_t k = 0; k < 4; ++k)
              matrices.push_back(gateBlock(sb, l, gates, k, hidden));
            matrices.push_back(states[1]);
            return buildCell(
                sb, l, stateType, matrices, peep, 2,
                [&](OpBuilder &cb, Location cl, ValueRange m,
                    ValueRange p) -> SmallVector<Value> {
                  Value c = m[4];
                  auto act = [&](const Activation &a, Value pre) {
                    return applyActivation(cb, cl, a, clipped(cb, cl, pre, clip));
                  };
                  auto plus = [&](Value lhs, Value rhs) {
                    return arith::AddFOp::create(cb, cl, lhs, rhs).getResult();
                  };
                  auto times = [&](Value lhs, Value rhs) {
                    return arith::MulFOp::create(cb, cl, lhs, rhs).getResult();
                  };
                  Value i = act(f, plus(m[0], times(p[0], c)));
                  Value forget;
                  if (inputForget)
                    forget = arith::SubFOp::create(
                        cb, cl, scalarConstant(cb, cl, c.getType(), 1.0), i);
                  else
                    forget = act(f, plus(m[2], times(p[2], c)));
                  Value candidate = act(g, m[3]);
                  Value cell = plus(times(forget, c), times(i, candidate));
                  Value o = act(f, plus(m[1], times(p[1], cell)));
                  Value hiddenState =
                      times(o, applyActivation(cb, cl, h, cell));
                  return {hiddenState, cell};
                });
          };
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// GruOp
//===----------------------------------------------------------------------===//

struct GruLowering : OpRewritePattern<GruOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GruOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Recurrence rec = describe(op, 3, 1, /*foldRecurrenceBias=*/false);
    int64_t hidden = rec.hidden, batch = rec.batch;
    auto stateType = RankedTensorType::get({batch, hidden}, rec.element);
    FloatAttr clip = op.getClipAttr();
    bool linearBeforeReset = op.getLinearBeforeReset();
    SmallVector<Value> results = buildRecurrence(
        rewriter, op.getLoc(), rec,
        [&](OpBuilder &b, Location loc, int64_t d, Value rT,
            Value recurrenceBias) -> StepFn {
          Activation f = activationAt(op, 2 * d);
          Activation g = activationAt(op, 2 * d + 1);
          auto act = [=](OpBuilder &cb, Location cl, const Activation &a,
                         Value pre) {
            return applyActivation(cb, cl, a, clipped(cb, cl, pre, clip));
          };
          if (linearBeforeReset) {
            Value biasRows = broadcastRows(b, loc, recurrenceBias, batch);
            return [=](OpBuilder &sb, Location l, Value projection,
                       ValueRange states) -> SmallVector<Value> {
              // h@R^T + Rb, all three blocks.
              Value recurrence = matmulAcc(sb, l, states[0], rT, biasRows);
              SmallVector<Value> matrices;
              for (int64_t k = 0; k < 3; ++k)
                matrices.push_back(gateBlock(sb, l, projection, k, hidden));
              for (int64_t k = 0; k < 3; ++k)
                matrices.push_back(gateBlock(sb, l, recurrence, k, hidden));
              matrices.push_back(states[0]);
              return buildCell(
                  sb, l, stateType, matrices, {}, 1,
                  [&](OpBuilder &cb, Location cl, ValueRange m,
                      ValueRange) -> SmallVector<Value> {
                    Value z = act(cb, cl, f,
                                  arith::AddFOp::create(cb, cl, m[0], m[3]));
                    Value r = act(cb, cl, f,
                                  arith::AddFOp::create(cb, cl, m[1], m[4]));
                    Value candidate = act(
                        cb, cl, g,
                        arith::AddFOp::create(
                            cb, cl, m[2],
                            arith::MulFOp::create(cb, cl, r, m[5])));
                    return {blend(cb, cl, z, candidate, m[6])};
                  });
            };
          }
          // (r * h) @ Rh^T needs r first: z and r from the first two blocks,
          // then a second product for the hidden gate.
          Value zrT = sliceOf(b, loc, rT, indexAttrs(b, {0, 0}),
                              {hidden, 2 * hidden}, 0);
          Value hT = sliceOf(b, loc, rT, indexAttrs(b, {0, 2 * hidden}),
                             {hidden, hidden}, 0);
          Value zrBias = broadcastRows(
              b, loc,
              sliceOf(b, loc, recurrenceBias, indexAttrs(b, {0}),
                      {2 * hidden}, 0),
              batch);
          Value hBias = broadcastRows(
              b, loc,
              sliceOf(b, loc, recurrenceBias, indexAttrs(b, {2 * hidden}),
                      {hidden}, 0),
              batch);
          return [=](OpBuilder &sb, Location l, Value projection,
                     ValueRange states) -> SmallVector<Value> {
            Value h = states[0];
            Value recurrence = matmulAcc(sb, l, h, zrT, zrBias);
            SmallVector<Value> gates = {
                gateBlock(sb, l, projection, 0, hidden),
                gateBlock(sb, l, projection, 1, hidden),
                gateBlock(sb, l, recurrence, 0, hidden),
                gateBlock(sb, l, recurrence, 1, hidden), h};
            SmallVector<Value> zAndResetH = buildCell(
                sb, l, stateType, gates, {}, 2,
                [&](OpBuilder &cb, Location cl, ValueRange m,
                    ValueRange) -> SmallVector<Value> {
                  Value z = act(cb, cl, f,
                                arith::AddFOp::create(cb, cl, m[0], m[2]));
                  Value r = act(cb, cl, f,
                                arith::AddFOp::create(cb, cl, m[1], m[3]));
                  return {z, arith::MulFOp::create(cb, cl, r, m[4])};
                });
            Value resetRecurrence =
                matmulAcc(sb, l, zAndResetH[1], hT, hBias);
            return buildCell(
                sb, l, stateType,
                {zAndResetH[0], gateBlock(sb, l, projection, 2, hidden),
                 resetRecurrence, h},
                {}, 1,
                [&](OpBuilder &cb, Location cl, ValueRange m,
                    ValueRange) -> SmallVector<Value> {
                  Value candidate = act(
                      cb, cl, g, arith::AddFOp::create(cb, cl, m[1], m[2]));
                  return {blend(cb, cl, m[0], candidate, m[3])};
                });
          };
        });
    rewriter.replaceOp(op, results);
    return success();
  }

  // (1 - z) * candidate + z * h.
  static Value blend(OpBuilder &b, Location loc, Value z, Value candidate,
                     Value h) {
    Value one = scalarConstant(b, loc, z.getType(), 1.0);
    Value keep = arith::MulFOp::create(
        b, loc, arith::SubFOp::create(b, loc, one, z), candidate);
    return arith::AddFOp::create(b, loc, keep,
                                 arith::MulFOp::create(b, loc, z, h));
  }
};

//===----------------------------------------------------------------------===//
// RnnOp
//===----------------------------------------------------------------------===//

struct RnnLowering : OpRewritePattern<RnnOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RnnOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireStaticShapes(op, rewriter)))
      return failure();
    Recurrence rec = describe(op, 1, 1, /*foldRecurrenceBias=*/true);
    auto stateType =
        RankedTensorType::get({rec.batch, rec.hidden}, rec.element);
    FloatAttr clip = op.getClipAttr();
    SmallVector<Value> results = buildRecurrence(
        rewriter, op.getLoc(), rec,
        [&](OpBuilder &, Location, int64_t d, Value rT, Value) -> StepFn {
          Activation f = activationAt(op, d);
          return [=](OpBuilder &sb, Location l, Value projection,
                     ValueRange states) -> SmallVector<Value> {
            Value pre = matmulAcc(sb, l, states[0], rT, projection);
            return buildCell(sb, l, stateType, pre, {}, 1,
                             [&](OpBuilder &cb, Location cl, ValueRange m,
                                 ValueRange) -> SmallVector<Value> {
                               return {applyActivation(
                                   cb, cl, f, clipped(cb, cl, m[0], clip))};
                             });
          };
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void populateRecurrentToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<LstmLowering, GruLowering, RnnLowering>(patterns.getContext());
}

} // namespace mlir::kiln
