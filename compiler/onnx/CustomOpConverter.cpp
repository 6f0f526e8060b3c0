//===- CustomOpConverter.cpp - ONNX nodes of plugin-registered ops --------===//
#include "compiler/onnx/CustomOpConverter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

namespace mlir::kiln::onnx_import {

namespace {

/// The node's attributes as MLIR ones (the mapping CustomOpRegistry.h
/// documents for shape functions and lowerings).
FailureOr<DictionaryAttr> convertAttributes(NodeContext &ctx) {
  OpBuilder &b = ctx.builder;
  SmallVector<NamedAttribute> attributes;
  for (const onnx::AttributeProto &a : ctx.node.attribute()) {
    Attribute value;
    switch (a.type()) {
    case onnx::AttributeProto::INT:
      value = b.getI64IntegerAttr(a.i());
      break;
    case onnx::AttributeProto::FLOAT:
      value = b.getF32FloatAttr(a.f());
      break;
    case onnx::AttributeProto::STRING:
      value = b.getStringAttr(a.s());
      break;
    case onnx::AttributeProto::INTS:
      value = b.getDenseI64ArrayAttr(
          SmallVector<int64_t>(a.ints().begin(), a.ints().end()));
      break;
    case onnx::AttributeProto::FLOATS:
      value = b.getDenseF32ArrayAttr(
          SmallVector<float>(a.floats().begin(), a.floats().end()));
      break;
    default:
      return ctx.error() << "attribute '" << a.name()
                         << "' is of ONNX type "
                         << onnx::AttributeProto::AttributeType_Name(a.type())
                         << "; custom ops take INT, FLOAT, STRING, INTS and "
                            "FLOATS attributes";
    }
    attributes.push_back(b.getNamedAttr(a.name(), value));
  }
  return b.getDictionaryAttr(attributes);
}

} // namespace

LogicalResult convertCustomOp(NodeContext &ctx,
                              const CustomOpDefinition &definition) {
  SmallVector<Value> operands;
  for (unsigned i = 0; i < ctx.numInputs(); ++i) {
    if (!ctx.hasInput(i))
      return ctx.error() << "input #" << i
                         << " is empty; custom ops take every input they "
                            "are given, in order";
    operands.push_back(ctx.input(i));
  }
  FailureOr<DictionaryAttr> attributes = convertAttributes(ctx);
  if (failed(attributes))
    return failure();

  // The shape function reports at the node's location; its first error is
  // re-reported naming the node, as the built-in converters' are.
  SmallVector<Type> resultTypes;
  std::string firstError;
  LogicalResult inferred = failure();
  {
    ScopedDiagnosticHandler capture(ctx.getContext(), [&](Diagnostic &diag) {
      if (diag.getSeverity() != DiagnosticSeverity::Error)
        return failure();
      if (firstError.empty())
        firstError = diag.str();
      return success();
    });
    inferred = definition.inferTypes(ctx.loc, ValueRange(operands).getTypes(),
                                     *attributes, resultTypes);
  }
  if (failed(inferred))
    return ctx.error() << "the shape function of custom op '"
                       << definition.name << "' failed"
                       << (firstError.empty() ? "" : ": ") << firstError;
  if (resultTypes.size() != ctx.numOutputs())
    return ctx.error() << "the shape function of custom op '"
                       << definition.name << "' gave " << resultTypes.size()
                       << " result type(s) for " << ctx.numOutputs()
                       << " output(s)";
  for (auto [index, type] : llvm::enumerate(resultTypes))
    if (!isa_and_nonnull<RankedTensorType>(type))
      return ctx.error() << "the shape function of custom op '"
                         << definition.name << "' gave " << type
                         << " for output #" << index
                         << "; results must be ranked tensors";

  auto call = CustomCallOp::create(
      ctx.builder, ctx.loc, resultTypes,
      ctx.builder.getStringAttr(definition.name), operands,
      attributes->empty() ? DictionaryAttr() : *attributes,
      /*has_side_effects=*/UnitAttr());
  if (failed(mlir::verify(call)))
    return failure();
  for (unsigned i = 0; i < ctx.numOutputs(); ++i)
    if (ctx.outputUsed(i))
      ctx.setResult(i, call.getResult(i));
  return success();
}

} // namespace mlir::kiln::onnx_import
