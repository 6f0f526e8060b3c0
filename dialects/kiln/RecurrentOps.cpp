//===- RecurrentOps.cpp - Kiln lstm, gru and rnn ops ----------------------===//
//
// The recurrent layers stay single ops so that a later pass can hand them
// to a fused kernel whole. Type inference checks every weight and state
// operand against the layout ONNX gives it (LSTM returns one state result
// per initial state it can take: y_h and y_c); the verifier checks the
// activation list, whose length depends on the direction.
//
//===----------------------------------------------------------------------===//

#include "dialects/kiln/KilnDialect.h"
#include "dialects/kiln/OpHelpers.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// The activation names the recurrent ops accept (ONNX's, in snake case).
bool isKnownActivation(StringRef name) {
  return llvm::StringSwitch<bool>(name)
      .Cases({"sigmoid", "tanh", "relu", "affine", "leaky_relu",
              "thresholded_relu", "scaled_tanh", "hard_sigmoid", "elu",
              "softsign", "softplus"},
             true)
      .Default(false);
}

/// Shapes every recurrent op shares. `numInitialStates` is how many
/// initial states the op takes when it takes any (initial_h, initial_c),
/// each [num_dir, batch, hidden]; it is also the number of state results
/// that follow `y`.
template <typename OpTy>
LogicalResult inferRecurrent(std::optional<Location> loc,
                             typename OpTy::Adaptor adaptor, int64_t numGates,
                             int64_t numInitialStates,
                             SmallVectorImpl<Type> &types) {
  StringRef name = OpTy::getOperationName();
  auto typeOf = [](Value v) { return llvm::cast<RankedTensorType>(v.getType()); };
  RankedTensorType x = typeOf(adaptor.getX());
  for (auto [operandName, operand] :
       {std::pair<StringRef, Value>("w", adaptor.getW()),
        std::pair<StringRef, Value>("r", adaptor.getR()),
        std::pair<StringRef, Value>("bias", adaptor.getBias())}) {
    if (failed(checkSameElementType(loc, name, "x", x, operandName,
                                    operand.getType())))
      return failure();
  }
  int64_t numDirections =
      adaptor.getDirection() == RnnDirection::bidirectional ? 2 : 1;
  int64_t hidden = adaptor.getHiddenSizeAttr().getInt();
  shape::ShapeOrError y =
      shape::recurrent(x.getShape(), typeOf(adaptor.getW()).getShape(),
                       typeOf(adaptor.getR()).getShape(), numDirections,
                       hidden, numGates);
  if (!y.ok())
    return inferenceError(loc, name, y.error);
  // recurrent() checked that 2 * numGates * hidden (and so 3 * hidden for
  // the peepholes) fits in int64.
  shape::ShapeOrError bias =
      shape::matchShape("bias", typeOf(adaptor.getBias()).getShape(),
                        {numDirections, 2 * numGates * hidden});
  if (!bias.ok())
    return inferenceError(loc, name,
                          bias.error + " [num_directions, " +
                              std::to_string(2 * numGates) + " * hidden_size]");
  ValueRange states = adaptor.getInitialStates();
  if (!states.empty() &&
      static_cast<int64_t>(states.size()) != numInitialStates)
    return inferenceError(loc, name,
                          "takes no initial states or " +
                              std::to_string(numInitialStates) + ", got " +
                              std::to_string(states.size()));
  shape::Shape stateShape = {numDirections, x.getDimSize(1), hidden};
  for (auto [index, state] : llvm::enumerate(states)) {
    std::string stateName = "initial state #" + std::to_string(index);
    if (failed(checkSameElementType(loc, name, "x", x, stateName,
                                    state.getType())))
      return failure();
    shape::ShapeOrError match =
        shape::matchShape(stateName, typeOf(state).getShape(), stateShape);
    if (!match.ok())
      return inferenceError(loc, name,
                            match.error +
                                " [num_directions, batch, hidden_size]");
  }
  Type element = x.getElementType();
  types.push_back(RankedTensorType::get(y.shape, element));
  for (int64_t i = 0; i < numInitialStates; ++i)
    types.push_back(RankedTensorType::get(stateShape, element));
  return success();
}

/// The activation list has `perDirection` names per direction, all known,
/// and alpha/beta (when given) one entry per activation.
template <typename OpTy>
LogicalResult verifyActivations(OpTy op, int64_t perDirection) {
  ArrayAttr activations = op.getActivations();
  int64_t expected = perDirection * op.getNumDirections();
  if (static_cast<int64_t>(activations.size()) != expected)
    return op.emitOpError("needs ")
           << expected << " activations (" << perDirection
           << " per direction, " << stringifyRnnDirection(op.getDirection())
           << "), got " << activations.size();
  for (auto [index, attr] : llvm::enumerate(activations)) {
    StringRef activation = llvm::cast<StringAttr>(attr).getValue();
    if (!isKnownActivation(activation))
      return op.emitOpError("activation #")
             << index << " '" << activation << "' is not a known activation";
  }
  for (auto [what, values] :
       {std::pair<StringRef, ArrayRef<float>>("activation_alpha",
                                              op.getActivationAlpha()),
        std::pair<StringRef, ArrayRef<float>>("activation_beta",
                                              op.getActivationBeta())})
    if (!values.empty() && static_cast<int64_t>(values.size()) != expected)
      return op.emitOpError()
             << what << " has " << values.size()
             << " entries; it needs one per activation (" << expected << ")";
  if (std::optional<APFloat> clip = op.getClip();
      clip && !(clip->convertToDouble() > 0.0))
    return op.emitOpError("clip (")
           << clip->convertToDouble() << ") must be positive";
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// LstmOp
//===----------------------------------------------------------------------===//

LogicalResult LstmOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<LstmOp>(context, loc, adaptor)))
    return failure();
  if (failed(inferRecurrent<LstmOp>(loc, adaptor, /*numGates=*/4,
                                    /*numInitialStates=*/2, types)))
    return failure();
  auto x = llvm::cast<RankedTensorType>(adaptor.getX().getType());
  Value peepholes = adaptor.getPeepholes();
  if (failed(checkSameElementType(loc, getOperationName(), "x", x, "peepholes",
                                  peepholes.getType())))
    return failure();
  int64_t numDirections =
      adaptor.getDirection() == RnnDirection::bidirectional ? 2 : 1;
  shape::ShapeOrError match = shape::matchShape(
      "peepholes", llvm::cast<RankedTensorType>(peepholes.getType()).getShape(),
      {numDirections, 3 * adaptor.getHiddenSizeAttr().getInt()});
  if (!match.ok())
    return inferenceError(loc, getOperationName(),
                          match.error + " [num_directions, 3 * hidden_size]");
  return success();
}

LogicalResult LstmOp::verify() { return verifyActivations(*this, 3); }

//===----------------------------------------------------------------------===//
// GruOp
//===----------------------------------------------------------------------===//

LogicalResult GruOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<GruOp>(context, loc, adaptor)))
    return failure();
  return inferRecurrent<GruOp>(loc, adaptor, /*numGates=*/3,
                               /*numInitialStates=*/1, types);
}

LogicalResult GruOp::verify() { return verifyActivations(*this, 2); }

//===----------------------------------------------------------------------===//
// RnnOp
//===----------------------------------------------------------------------===//

LogicalResult RnnOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<RnnOp>(context, loc, adaptor)))
    return failure();
  return inferRecurrent<RnnOp>(loc, adaptor, /*numGates=*/1,
                               /*numInitialStates=*/1, types);
}

LogicalResult RnnOp::verify() { return verifyActivations(*this, 1); }
