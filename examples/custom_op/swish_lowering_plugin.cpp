//===- swish_lowering_plugin.cpp - com.example::Swish, kind (a) -----------===//
//
// A kilnc plugin that provides com.example::Swish as a lowering to Kiln
// ops: x * sigmoid(beta * x). kiln-to-linalg lowers those like any others,
// so Swish fuses into the dispatch of the MatMul before it.
//
//   kilnc swish.onnx --load-pass-plugin=libSwishLoweringPlugin.so -o swish.kiln
//
//===----------------------------------------------------------------------===//
#include "compiler/customops/CustomOpDefinition.h"
#include "compiler/plugin/KilnPlugin.h"
#include "dialects/kiln/KilnDialect.h"
#include "examples/custom_op/swish_shape.h"

using namespace mlir;

namespace {

// doc-region: lowering
FailureOr<SmallVector<Value>> lowerSwish(OpBuilder &b, Location loc, ValueRange operands,
                                         DictionaryAttr attributes, TypeRange) {
  Value x = operands[0];
  Type element = cast<RankedTensorType>(x.getType()).getElementType();
  double beta = 1.0;
  if (auto attr = attributes.getAs<FloatAttr>("beta"))
    beta = attr.getValueAsDouble();
  Value betaValue = kiln::ConstantOp::create(
      b, loc, DenseElementsAttr::get(RankedTensorType::get({}, element),
                                     FloatAttr::get(element, beta)));
  // createChecked infers each result type and reports errors at `loc`.
  FailureOr<kiln::MulOp> scaled = kiln::createChecked<kiln::MulOp>(b, loc, {x, betaValue});
  if (failed(scaled))
    return failure();
  FailureOr<kiln::SigmoidOp> gate =
      kiln::createChecked<kiln::SigmoidOp>(b, loc, {scaled->getResult()});
  if (failed(gate))
    return failure();
  FailureOr<kiln::MulOp> y = kiln::createChecked<kiln::MulOp>(b, loc, {x, gate->getResult()});
  if (failed(y))
    return failure();
  return SmallVector<Value>{y->getResult()};
}

void registerSwish(kiln::PluginRegistrar &registrar) {
  kiln::CustomOpDefinition swish;
  swish.domain = "com.example";
  swish.opType = "Swish"; // call target: "com.example.Swish"
  swish.inferTypes = swish_example::inferSwishTypes;
  swish.lower = lowerSwish; // kind (a)
  registrar.addCustomOp(std::move(swish));
}
// doc-end: lowering

} // namespace

extern "C" KILN_PLUGIN_EXPORT const KilnPluginInfo *kilnGetPluginInfo() {
  static const KilnPluginInfo info = {KILN_PLUGIN_API_VERSION, KILN_VERSION_STRING,
                                      "swish-lowering", registerSwish};
  return &info;
}
