//===- NodeContext.cpp - What a converter sees of one ONNX node -----------===//

#include "compiler/onnx/NodeContext.h"

#include "compiler/onnx/ConverterRegistry.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace mlir::kiln::onnx_import {

InFlightDiagnostic NodeContext::error() {
  return emitError(loc) << "node '" << displayName << "' (" << node.op_type()
                        << "): ";
}

Value NodeContext::input(unsigned i) const {
  if (!hasInput(i))
    return nullptr;
  return values.lookup(node.input(i));
}

LogicalResult NodeContext::requireInputs(unsigned count) {
  for (unsigned i = 0; i < count; ++i)
    if (!hasInput(i))
      return error() << "expects at least " << count << " inputs, input #"
                     << i << " is missing";
  return success();
}

void NodeContext::setResult(unsigned i, Value value) {
  if (outputUsed(i))
    values[node.output(i)] = value;
}

FailureOr<Value> NodeContext::convertSubNode(onnx::NodeProto sub,
                                             ValueRange inputs,
                                             int64_t subOpset) {
  const ConverterInfo *converter = lookupConverter(sub.op_type(), subOpset);
  if (!converter)
    return error() << "has no converter for its part '" << sub.op_type()
                   << "' at opset " << subOpset;
  // Temporary value names that start with a control character, which no
  // tensor name of a real model uses; they are erased again below.
  std::string prefix = "\x01" + displayName + "/" + sub.op_type() + "/";
  sub.clear_input();
  sub.clear_output();
  for (auto [i, value] : llvm::enumerate(inputs)) {
    std::string name = prefix + "in" + std::to_string(i);
    sub.add_input(value ? name : "");
    if (value)
      values[name] = value;
  }
  sub.add_output(prefix + "out");
  NodeContext subCtx(sub, displayName, subOpset, loc, builder, values,
                     modelDir);
  LogicalResult converted = converter->convert(subCtx);
  Value result = values.lookup(prefix + "out");
  for (const std::string &name : sub.input())
    if (!name.empty())
      values.erase(name);
  values.erase(prefix + "out");
  if (failed(converted))
    return failure();
  if (!result)
    return error() << "its part '" << sub.op_type() << "' has no result";
  return result;
}

LogicalResult NodeContext::requireUnusedOutputsFrom(unsigned first) {
  for (unsigned i = first; i < numOutputs(); ++i)
    if (outputUsed(i))
      return error() << "output #" << i << " ('" << node.output(i)
                     << "') is not supported by Kiln's importer";
  return success();
}

const onnx::AttributeProto *NodeContext::attr(llvm::StringRef name) const {
  for (const onnx::AttributeProto &attribute : node.attribute())
    if (attribute.name() == name)
      return &attribute;
  return nullptr;
}

int64_t NodeContext::getInt(llvm::StringRef name, int64_t defaultValue) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->i() : defaultValue;
}

float NodeContext::getFloat(llvm::StringRef name, float defaultValue) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->f() : defaultValue;
}

std::string NodeContext::getString(llvm::StringRef name,
                                   llvm::StringRef defaultValue) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->s() : defaultValue.str();
}

std::optional<llvm::SmallVector<int64_t>>
NodeContext::getInts(llvm::StringRef name) const {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return std::nullopt;
  return llvm::SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<llvm::SmallVector<float>>
NodeContext::getFloats(llvm::StringRef name) const {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return std::nullopt;
  return llvm::SmallVector<float>(a->floats().begin(), a->floats().end());
}

namespace {

/// The ONNX node an op was built for (its NameLoc), or "?".
std::string nodeNameOf(Operation *op) {
  if (auto name = llvm::dyn_cast<NameLoc>(op->getLoc()))
    return name.getName().str();
  return "?";
}

/// Why `value` did not fold to a constant at import: the first graph input
/// or the first node with only constant operands (one Kiln cannot evaluate
/// at compile time) that it depends on, searched depth first.
std::string whyNotConstant(Value value) {
  llvm::SmallPtrSet<Operation *, 16> seen;
  llvm::SmallVector<Value> work{value};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = llvm::dyn_cast<BlockArgument>(v)) {
      std::string name = "#" + std::to_string(arg.getArgNumber());
      if (auto function = llvm::dyn_cast_or_null<FunctionOpInterface>(
              arg.getOwner()->getParentOp()))
        if (auto attr = function.getArgAttrOfType<StringAttr>(
                arg.getArgNumber(), "kiln.name"))
          name = attr.getValue().str();
      return "it depends on graph input '" + name +
             "', whose value is known only at run time";
    }
    Operation *op = v.getDefiningOp();
    if (!op || !seen.insert(op).second)
      continue;
    bool allConstant = true;
    for (Value operand : llvm::reverse(op->getOperands()))
      if (!matchPattern(operand, m_Constant())) {
        allConstant = false;
        work.push_back(operand);
      }
    if (allConstant)
      return "it depends on node '" + nodeNameOf(op) + "' (" +
             op->getName().getStringRef().str() +
             "), which Kiln cannot evaluate at compile time (no constant "
             "folder, or a result over " +
             std::to_string(kMaxFoldElements) + " elements)";
  }
  return "it is not computable from the model's constants and static "
         "shapes";
}

} // namespace

FailureOr<ConstantTensor> NodeContext::constantInput(unsigned i,
                                                    llvm::StringRef what) {
  Value value = input(i);
  Attribute attr;
  std::optional<ConstantTensor> constant;
  if (value && matchPattern(value, m_Constant(&attr)))
    constant = readConstant(attr);
  if (!constant) {
    InFlightDiagnostic diag = error();
    diag << what << " (input #" << i << " '"
         << (i < numInputs() ? node.input(i) : "")
         << "') must be a constant or computable at compile time from the "
            "model's constants and static input shapes; ";
    if (!value)
      diag << "it is absent";
    else if (attr)
      diag << "it is a constant of "
           << llvm::cast<ShapedType>(value.getType()).getNumElements()
           << " elements, more than the " << kMaxFoldElements
           << " Kiln reads at import";
    else
      diag << whyNotConstant(value);
    diag << ". Kiln does not handle a computed " << what << " yet";
    return diag;
  }
  return std::move(*constant);
}

FailureOr<llvm::SmallVector<int64_t>>
NodeContext::constantInts(unsigned i, llvm::StringRef what) {
  FailureOr<ConstantTensor> constant = constantInput(i, what);
  if (failed(constant))
    return failure();
  if (constant->isFloat)
    return error() << what << " (input #" << i << ") must be an integer tensor";
  int64_t count = constant->type.getNumElements();
  llvm::SmallVector<int64_t> result;
  result.reserve(count);
  for (int64_t k = 0; k < count; ++k)
    result.push_back(constant->intAt(k));
  return result;
}

FailureOr<llvm::SmallVector<double>>
NodeContext::constantFloats(unsigned i, llvm::StringRef what) {
  FailureOr<ConstantTensor> constant = constantInput(i, what);
  if (failed(constant))
    return failure();
  int64_t count = constant->type.getNumElements();
  llvm::SmallVector<double> result;
  result.reserve(count);
  for (int64_t k = 0; k < count; ++k)
    result.push_back(constant->isFloat ? constant->floatAt(k)
                                       : double(constant->intAt(k)));
  return result;
}

FailureOr<std::optional<llvm::SmallVector<int64_t>>>
NodeContext::intsFromAttrOrInput(llvm::StringRef attrName, unsigned inputIndex,
                                 int64_t firstOpsetWithInput) {
  if (opset < firstOpsetWithInput)
    return std::optional<llvm::SmallVector<int64_t>>(getInts(attrName));
  if (!hasInput(inputIndex))
    return std::optional<llvm::SmallVector<int64_t>>();
  FailureOr<llvm::SmallVector<int64_t>> values =
      constantInts(inputIndex, attrName);
  if (failed(values))
    return failure();
  return std::optional<llvm::SmallVector<int64_t>>(std::move(*values));
}

FailureOr<llvm::SmallVector<int64_t>>
convKernelShape(NodeContext &ctx, llvm::StringRef filterLayout) {
  RankedTensorType inputType = ctx.inputType(0), filterType = ctx.inputType(1);
  if (inputType.getRank() < 3 || filterType.getRank() != inputType.getRank())
    return ctx.error() << "expects input [N, C, D...] and filter "
                       << filterLayout << " of the same rank >= 3, got "
                       << inputType << " and " << filterType;
  size_t n = inputType.getRank() - 2;
  llvm::SmallVector<int64_t> kernel;
  if (auto given = ctx.getInts("kernel_shape")) {
    kernel = *given;
  } else {
    for (size_t i = 0; i < n; ++i)
      kernel.push_back(filterType.getDimSize(2 + i));
  }
  if (kernel.size() != n || llvm::any_of(kernel, ShapedType::isDynamic))
    return ctx.error() << "needs a static kernel of " << n << " dims";
  return kernel;
}

} // namespace mlir::kiln::onnx_import
