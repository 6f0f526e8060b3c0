//===- RecurrentConverters.cpp - LSTM, GRU and RNN -------------------------===//
//
// ONNX recurrent nodes map to kiln.lstm / kiln.gru / kiln.rnn, one op per
// node, so that later passes can fuse each layer into one kernel. What the
// dialect has one form for is normalized here: layout 1 (batch first) is
// transposed to the sequence-first layout around the op, a missing bias
// (and LSTM's peepholes) becomes zeros, the activation list and its
// alpha/beta are spelled out for every direction, and the sequence lengths
// must be absent or all equal to the sequence length (Kiln has no masking
// of padded steps).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ConverterRegistry.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace mlir::kiln::onnx_import {
namespace {

/// One activation of a recurrent node: its Kiln name, whether it reads
/// alpha / beta, and their ONNX defaults.
struct ActivationInfo {
  const char *kilnName;
  bool usesAlpha, usesBeta;
  float alpha, beta;
};

/// ONNX names activations in CamelCase; onnxruntime compares them without
/// case, and so does this table.
std::optional<ActivationInfo> lookupActivation(llvm::StringRef onnxName) {
  std::string lower = llvm::StringRef(onnxName).lower();
  return llvm::StringSwitch<std::optional<ActivationInfo>>(lower)
      .Case("sigmoid", ActivationInfo{"sigmoid", false, false, 0, 0})
      .Case("tanh", ActivationInfo{"tanh", false, false, 0, 0})
      .Case("relu", ActivationInfo{"relu", false, false, 0, 0})
      .Case("affine", ActivationInfo{"affine", true, true, 1.0f, 0.0f})
      .Case("leakyrelu", ActivationInfo{"leaky_relu", true, false, 0.01f, 0})
      .Case("thresholdedrelu",
            ActivationInfo{"thresholded_relu", true, false, 1.0f, 0})
      .Case("scaledtanh", ActivationInfo{"scaled_tanh", true, true, 1.0f, 1.0f})
      .Case("hardsigmoid",
            ActivationInfo{"hard_sigmoid", true, true, 0.2f, 0.5f})
      .Case("elu", ActivationInfo{"elu", true, false, 1.0f, 0})
      .Case("softsign", ActivationInfo{"softsign", false, false, 0, 0})
      .Case("softplus", ActivationInfo{"softplus", false, false, 0, 0})
      .Default(std::nullopt);
}

/// What differs between LSTM, GRU and RNN.
struct RecurrentKind {
  int64_t numGates;
  llvm::SmallVector<const char *, 3> defaultActivations;
  /// Index of initial_h; initial_c (LSTM) follows it, P after that.
  unsigned initialHInput;
  bool isLstm;
};

/// The attributes and operands that every recurrent node shares, resolved.
struct RecurrentNode {
  RnnDirection direction;
  int64_t numDirections;
  int64_t hidden;
  bool batchFirst;
  Value x;
  Value bias;
  llvm::SmallVector<Value, 2> initialStates;
  llvm::SmallVector<NamedAttribute> attrs;
};

FailureOr<Value> toSequenceFirst(NodeContext &ctx, Value value, bool batchFirst) {
  if (!batchFirst)
    return value;
  return ctx.transpose(value, {1, 0, 2});
}

FailureOr<RecurrentNode> prepareRecurrent(NodeContext &ctx,
                                          const RecurrentKind &kind) {
  if (failed(ctx.requireInputs(3)))
    return failure();
  RecurrentNode node;
  std::string direction = ctx.getString("direction", "forward");
  if (direction == "forward")
    node.direction = RnnDirection::forward;
  else if (direction == "reverse")
    node.direction = RnnDirection::reverse;
  else if (direction == "bidirectional")
    node.direction = RnnDirection::bidirectional;
  else
    return ctx.error() << "unknown direction '" << direction << "'";
  node.numDirections = node.direction == RnnDirection::bidirectional ? 2 : 1;

  RankedTensorType rType = ctx.inputType(2);
  if (ctx.hasAttr("hidden_size")) {
    node.hidden = ctx.getInt("hidden_size", 0);
  } else if (rType.getRank() == 3 && !rType.isDynamicDim(2)) {
    // The attribute is optional in the schema; R [dirs, gates*H, H] says it.
    node.hidden = rType.getDimSize(2);
  } else {
    return ctx.error() << "has no hidden_size and R " << rType
                       << " does not give it";
  }
  if (node.hidden < 1)
    return ctx.error() << "hidden_size " << node.hidden << " must be positive";

  int64_t layout = ctx.opset >= 14 ? ctx.getInt("layout", 0) : 0;
  if (layout != 0 && layout != 1)
    return ctx.error() << "layout " << layout << " is not 0 or 1";
  node.batchFirst = layout == 1;
  RankedTensorType xType = ctx.inputType(0);
  if (xType.getRank() != 3)
    return ctx.error() << "expects X of rank 3, got " << xType;
  FailureOr<Value> x = toSequenceFirst(ctx, ctx.input(0), node.batchFirst);
  if (failed(x))
    return failure();
  node.x = *x;
  int64_t seqLength = llvm::cast<RankedTensorType>(node.x.getType()).getDimSize(0);

  // sequence_lens: Kiln runs every step of every batch entry, which is what
  // the lengths say only when they all equal the sequence length.
  if (ctx.hasInput(4)) {
    if (!matchPattern(ctx.input(4), m_Constant()))
      return ctx.error() << "sequence_lens is computed by the graph; it must "
                            "be absent or a constant equal to the sequence "
                            "length for every batch entry (Kiln does not mask "
                            "padded steps)";
    FailureOr<llvm::SmallVector<int64_t>> lengths =
        ctx.constantInts(4, "sequence_lens");
    if (failed(lengths))
      return failure();
    for (int64_t length : *lengths)
      if (ShapedType::isDynamic(seqLength) || length != seqLength)
        return ctx.error() << "sequence_lens entry " << length
                           << " differs from the sequence length "
                           << (ShapedType::isDynamic(seqLength)
                                   ? std::string("?")
                                   : std::to_string(seqLength))
                           << "; Kiln does not mask padded steps";
  }

  Type element = xType.getElementType();
  if (ctx.hasInput(3)) {
    node.bias = ctx.input(3);
  } else {
    auto type = RankedTensorType::get(
        {node.numDirections, 2 * kind.numGates * node.hidden}, element);
    node.bias = ctx.constant(DenseElementsAttr::get(
        type, ctx.builder.getFloatAttr(element, 0.0)));
  }

  // Initial states: none, or all the op takes (LSTM: h and c); a missing
  // one is zeros, which needs a static batch size.
  unsigned numStates = kind.isLstm ? 2 : 1;
  bool anyState = false;
  for (unsigned i = 0; i < numStates; ++i)
    anyState |= ctx.hasInput(kind.initialHInput + i);
  if (anyState) {
    for (unsigned i = 0; i < numStates; ++i) {
      unsigned index = kind.initialHInput + i;
      if (ctx.hasInput(index)) {
        if (ctx.inputType(index).getRank() != 3)
          return ctx.error() << "expects initial state input #" << index
                             << " of rank 3, got " << ctx.inputType(index);
        FailureOr<Value> state =
            toSequenceFirst(ctx, ctx.input(index), node.batchFirst);
        if (failed(state))
          return failure();
        node.initialStates.push_back(*state);
        continue;
      }
      int64_t batch = llvm::cast<RankedTensorType>(node.x.getType()).getDimSize(1);
      if (ShapedType::isDynamic(batch))
        return ctx.error() << "gives only one of initial_h and initial_c with "
                              "a dynamic batch size; Kiln needs both or "
                              "neither";
      auto type = RankedTensorType::get({node.numDirections, batch, node.hidden},
                                        element);
      node.initialStates.push_back(ctx.constant(DenseElementsAttr::get(
          type, ctx.builder.getFloatAttr(element, 0.0))));
    }
  }

  // Activations: the given list (one set per direction; a single set for a
  // bidirectional node is used for both), or the defaults. Alpha and beta
  // are consumed in order by the activations that take them.
  llvm::SmallVector<std::string> names;
  if (ctx.hasAttr("activations")) {
    for (const std::string &name : ctx.attr("activations")->strings())
      names.push_back(name);
  } else {
    for (int64_t d = 0; d < node.numDirections; ++d)
      for (const char *name : kind.defaultActivations)
        names.push_back(name);
  }
  size_t perDirection = kind.defaultActivations.size();
  if (names.size() == perDirection && node.numDirections == 2)
    names.append(llvm::SmallVector<std::string>(names));
  if (names.size() != perDirection * node.numDirections)
    return ctx.error() << "has " << names.size() << " activations, expected "
                       << perDirection * node.numDirections;
  llvm::SmallVector<float> alphas =
      ctx.getFloats("activation_alpha").value_or(llvm::SmallVector<float>());
  llvm::SmallVector<float> betas =
      ctx.getFloats("activation_beta").value_or(llvm::SmallVector<float>());
  size_t nextAlpha = 0, nextBeta = 0;
  llvm::SmallVector<Attribute> kilnNames;
  llvm::SmallVector<float> kilnAlphas, kilnBetas;
  for (const std::string &name : names) {
    std::optional<ActivationInfo> info = lookupActivation(name);
    if (!info)
      return ctx.error() << "unknown activation '" << name << "'";
    kilnNames.push_back(ctx.builder.getStringAttr(info->kilnName));
    float alpha = info->alpha, beta = info->beta;
    if (info->usesAlpha && nextAlpha < alphas.size())
      alpha = alphas[nextAlpha++];
    if (info->usesBeta && nextBeta < betas.size())
      beta = betas[nextBeta++];
    kilnAlphas.push_back(alpha);
    kilnBetas.push_back(beta);
  }

  node.attrs = {
      ctx.named("direction",
                RnnDirectionAttr::get(ctx.getContext(), node.direction)),
      ctx.namedInt("hidden_size", node.hidden),
      ctx.named("activations", ctx.builder.getArrayAttr(kilnNames)),
      ctx.named("activation_alpha", ctx.builder.getDenseF32ArrayAttr(kilnAlphas)),
      ctx.named("activation_beta", ctx.builder.getDenseF32ArrayAttr(kilnBetas))};
  if (ctx.hasAttr("clip"))
    node.attrs.push_back(
        ctx.named("clip", ctx.builder.getF32FloatAttr(ctx.getFloat("clip", 0))));
  return node;
}

/// Sets the node's outputs from the op's results: Y [seq, dirs, batch, H]
/// and the states [dirs, batch, H], transposed back for layout 1.
LogicalResult setRecurrentResults(NodeContext &ctx, const RecurrentNode &node,
                                  Operation *op) {
  for (unsigned i = 0; i < op->getNumResults(); ++i) {
    if (!ctx.outputUsed(i))
      continue;
    FailureOr<Value> result = op->getResult(i);
    if (node.batchFirst)
      result = i == 0 ? ctx.transpose(*result, {2, 0, 1, 3})
                      : ctx.transpose(*result, {1, 0, 2});
    if (failed(ctx.setResult(i, result)))
      return failure();
  }
  return ctx.requireUnusedOutputsFrom(op->getNumResults());
}

template <typename OpTy>
LogicalResult buildRecurrent(NodeContext &ctx, const RecurrentNode &node,
                             llvm::ArrayRef<Value> extraOperands,
                             llvm::ArrayRef<NamedAttribute> extraAttrs) {
  llvm::SmallVector<Value> operands{node.x, ctx.input(1), ctx.input(2),
                                    node.bias};
  operands.append(extraOperands.begin(), extraOperands.end());
  operands.append(node.initialStates.begin(), node.initialStates.end());
  llvm::SmallVector<NamedAttribute> attrs(node.attrs);
  attrs.append(extraAttrs.begin(), extraAttrs.end());
  FailureOr<OpTy> op = createChecked<OpTy>(ctx.builder, ctx.loc, operands, attrs);
  if (failed(op))
    return failure();
  return setRecurrentResults(ctx, node, *op);
}

LogicalResult convertLstm(NodeContext &ctx) {
  RecurrentKind kind{4, {"Sigmoid", "Tanh", "Tanh"}, 5, true};
  FailureOr<RecurrentNode> node = prepareRecurrent(ctx, kind);
  if (failed(node))
    return failure();
  Value peepholes;
  if (ctx.hasInput(7)) {
    peepholes = ctx.input(7);
  } else {
    Type element = ctx.inputType(0).getElementType();
    auto type = RankedTensorType::get({node->numDirections, 3 * node->hidden},
                                      element);
    peepholes = ctx.constant(
        DenseElementsAttr::get(type, ctx.builder.getFloatAttr(element, 0.0)));
  }
  return buildRecurrent<LstmOp>(
      ctx, *node, {peepholes},
      {ctx.named("input_forget",
                 ctx.builder.getBoolAttr(ctx.getInt("input_forget", 0)))});
}

LogicalResult convertGru(NodeContext &ctx) {
  RecurrentKind kind{3, {"Sigmoid", "Tanh"}, 5, false};
  FailureOr<RecurrentNode> node = prepareRecurrent(ctx, kind);
  if (failed(node))
    return failure();
  return buildRecurrent<GruOp>(
      ctx, *node, {},
      {ctx.named("linear_before_reset",
                 ctx.builder.getBoolAttr(ctx.getInt("linear_before_reset", 0)))});
}

LogicalResult convertRnn(NodeContext &ctx) {
  RecurrentKind kind{1, {"Tanh"}, 5, false};
  FailureOr<RecurrentNode> node = prepareRecurrent(ctx, kind);
  if (failed(node))
    return failure();
  return buildRecurrent<RnnOp>(ctx, *node, {}, {});
}

const ConverterInfo kConverters[] = {
    {"LSTM", convertLstm},
    {"GRU", convertGru},
    {"RNN", convertRnn},
};

} // namespace

llvm::ArrayRef<ConverterInfo> getRecurrentConverters() { return kConverters; }

} // namespace mlir::kiln::onnx_import
