//===- OpContext.cpp - What a converter sees of one Paddle op -------------===//

#include "compiler/paddle/OpContext.h"

#include "compiler/onnx/ConverterRegistry.h"
#include "compiler/onnx/NodeContext.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using ::kiln::paddle::AttrValue;

namespace mlir::kiln::paddle_import {

InFlightDiagnostic OpContext::error() {
  return emitError(loc) << op.where << ": ";
}

llvm::SmallVector<std::string> OpContext::names(llvm::StringRef slot,
                                                unsigned pirIndex) const {
  std::string key = isPir() ? std::to_string(pirIndex) : slot.str();
  llvm::SmallVector<std::string> result;
  for (const ::kiln::paddle::Slot &s : op.inputs)
    if (s.name == key)
      for (const std::string &name : s.values)
        if (!name.empty() && name != "%0")
          result.push_back(name);
  return result;
}

Value OpContext::in(llvm::StringRef slot, unsigned pirIndex) {
  llvm::SmallVector<std::string> given = names(slot, pirIndex);
  if (given.empty())
    return nullptr;
  return lookupValue(given.front());
}

FailureOr<Value> OpContext::required(llvm::StringRef slot, unsigned pirIndex) {
  Value v = in(slot, pirIndex);
  if (!v) {
    if (isPir())
      return error() << "operand #" << pirIndex << " is missing";
    return error() << "input slot '" << slot << "' is missing";
  }
  return v;
}

llvm::SmallVector<Value> OpContext::inList(llvm::StringRef slot,
                                           unsigned pirIndex) {
  llvm::SmallVector<Value> result;
  for (const std::string &name : names(slot, pirIndex)) {
    auto list = table.lists.find(name);
    if (list != table.lists.end()) {
      result.append(list->second.begin(), list->second.end());
      continue;
    }
    result.push_back(lookupValue(name));
  }
  return result;
}

static const ::kiln::paddle::Slot *findSlot(const std::vector<::kiln::paddle::Slot> &slots,
                                          llvm::StringRef name) {
  for (const ::kiln::paddle::Slot &s : slots)
    if (s.name == name)
      return &s;
  return nullptr;
}

void OpContext::setOut(llvm::StringRef slot, unsigned pirIndex, Value value) {
  std::string key = isPir() ? std::to_string(pirIndex) : slot.str();
  if (const ::kiln::paddle::Slot *s = findSlot(op.outputs, key))
    if (!s->values.empty() && !s->values.front().empty())
      table.values[s->values.front()] = value;
}

void OpContext::setOutList(llvm::StringRef slot, unsigned pirIndex,
                           llvm::ArrayRef<Value> values) {
  std::string key = isPir() ? std::to_string(pirIndex) : slot.str();
  const ::kiln::paddle::Slot *s = findSlot(op.outputs, key);
  if (!s)
    return;
  if (isPir()) {
    if (!s->values.empty())
      table.lists[s->values.front()] =
          llvm::SmallVector<Value>(values.begin(), values.end());
    return;
  }
  for (auto [name, value] : llvm::zip(s->values, values))
    if (!name.empty())
      table.values[name] = value;
}

size_t OpContext::outCount(llvm::StringRef slot, unsigned pirIndex) const {
  std::string key = isPir() ? std::to_string(pirIndex) : slot.str();
  const ::kiln::paddle::Slot *s = findSlot(op.outputs, key);
  return s ? s->values.size() : 0;
}

void OpContext::setResult(unsigned i, Value value) {
  if (isPir()) {
    setOut("", i, value);
    return;
  }
  for (llvm::StringRef slot : {"Out", "Y", "Output"})
    if (findSlot(op.outputs, slot)) {
      setOut(slot, 0, value);
      return;
    }
}

const AttrValue *OpContext::attr(llvm::StringRef name) const {
  auto it = op.attrs.find(name.str());
  return it == op.attrs.end() ? nullptr : &it->second;
}

int64_t OpContext::getInt(llvm::StringRef name, int64_t defaultValue) const {
  const AttrValue *a = attr(name);
  if (!a)
    return defaultValue;
  if (auto *i = std::get_if<int64_t>(a))
    return *i;
  if (auto *b = std::get_if<bool>(a))
    return *b;
  if (auto *d = std::get_if<double>(a))
    return static_cast<int64_t>(*d);
  return defaultValue;
}

double OpContext::getFloat(llvm::StringRef name, double defaultValue) const {
  const AttrValue *a = attr(name);
  if (!a)
    return defaultValue;
  if (auto *d = std::get_if<double>(a))
    return *d;
  if (auto *i = std::get_if<int64_t>(a))
    return static_cast<double>(*i);
  if (auto *s = std::get_if<std::string>(a)) {
    double v;
    if (!llvm::StringRef(*s).getAsDouble(v))
      return v;
  }
  return defaultValue;
}

bool OpContext::getBool(llvm::StringRef name, bool defaultValue) const {
  const AttrValue *a = attr(name);
  if (!a)
    return defaultValue;
  if (auto *b = std::get_if<bool>(a))
    return *b;
  if (auto *i = std::get_if<int64_t>(a))
    return *i != 0;
  return defaultValue;
}

std::string OpContext::getString(llvm::StringRef name,
                                 llvm::StringRef defaultValue) const {
  const AttrValue *a = attr(name);
  if (auto *s = a ? std::get_if<std::string>(a) : nullptr)
    return *s;
  return defaultValue.str();
}

std::optional<llvm::SmallVector<int64_t>>
OpContext::getInts(llvm::StringRef name) const {
  const AttrValue *a = attr(name);
  if (!a)
    return std::nullopt;
  llvm::SmallVector<int64_t> result;
  if (auto *v = std::get_if<std::vector<int64_t>>(a))
    result.assign(v->begin(), v->end());
  else if (auto *v = std::get_if<std::vector<double>>(a))
    for (double d : *v)
      result.push_back(static_cast<int64_t>(d));
  else if (auto *v = std::get_if<std::vector<bool>>(a))
    for (bool b : *v)
      result.push_back(b);
  else if (auto *i = std::get_if<int64_t>(a))
    result.push_back(*i);
  else if (!std::get_if<std::vector<std::string>>(a))
    return std::nullopt;
  return result;
}

std::optional<llvm::SmallVector<double>>
OpContext::getFloats(llvm::StringRef name) const {
  const AttrValue *a = attr(name);
  if (!a)
    return std::nullopt;
  llvm::SmallVector<double> result;
  if (auto *v = std::get_if<std::vector<double>>(a))
    result.assign(v->begin(), v->end());
  else if (auto *v = std::get_if<std::vector<int64_t>>(a))
    for (int64_t i : *v)
      result.push_back(static_cast<double>(i));
  else if (auto *d = std::get_if<double>(a))
    result.push_back(*d);
  else if (auto *i = std::get_if<int64_t>(a))
    result.push_back(static_cast<double>(*i));
  else if (!std::get_if<std::vector<bool>>(a) &&
           !std::get_if<std::vector<std::string>>(a))
    return std::nullopt;
  return result;
}

FailureOr<Type> OpContext::getDType(llvm::StringRef name, Type defaultType) {
  const AttrValue *a = attr(name);
  Builder b(getContext());
  if (!a) {
    if (defaultType)
      return defaultType;
    return error() << "has no '" << name << "' attribute";
  }
  if (auto *code = std::get_if<int64_t>(a)) {
    // Legacy ProgramDesc VarType::Type codes; -1 means "like the input".
    switch (*code) {
    case -1:
      if (defaultType)
        return defaultType;
      break;
    case 0:
      return Type(b.getI1Type());
    case 2:
      return Type(b.getI32Type());
    case 3:
      return Type(b.getI64Type());
    case 4:
      return Type(b.getF16Type());
    case 5:
      return Type(b.getF32Type());
    case 6:
      return Type(b.getF64Type());
    case 21:
      return Type(b.getI8Type());
    case 22:
      return Type(b.getBF16Type());
    default:
      break;
    }
    return error() << "dtype code " << *code << " ('" << name
                   << "') is not one Kiln handles (bool, int8, int32, int64, "
                      "float16, bfloat16, float32, float64)";
  }
  if (auto *s = std::get_if<std::string>(a)) {
    llvm::StringRef n = *s;
    if (n == "float32")
      return Type(b.getF32Type());
    if (n == "float64")
      return Type(b.getF64Type());
    if (n == "float16")
      return Type(b.getF16Type());
    if (n == "bfloat16")
      return Type(b.getBF16Type());
    if (n == "int64")
      return Type(b.getI64Type());
    if (n == "int32")
      return Type(b.getI32Type());
    if (n == "int8")
      return Type(b.getI8Type());
    if (n == "bool")
      return Type(b.getI1Type());
    if ((n == "undefined" || n.empty()) && defaultType)
      return defaultType;
    return error() << "dtype '" << n << "' ('" << name
                   << "') is not one Kiln handles (bool, int8, int32, int64, "
                      "float16, bfloat16, float32, float64)";
  }
  return error() << "attribute '" << name << "' is not a dtype";
}

static std::optional<ConstantTensor> readConstantValue(Value value) {
  Attribute attr;
  if (value && matchPattern(value, m_Constant(&attr)))
    return readConstant(attr);
  return std::nullopt;
}

FailureOr<llvm::SmallVector<int64_t>>
OpContext::constantInts(Value value, llvm::StringRef what) {
  std::optional<ConstantTensor> c = readConstantValue(value);
  if (!c)
    return error() << what
                   << " must be a constant or computable at compile time from "
                      "the model's parameters and static input shapes (give "
                      "dynamic dims with --input-shape)";
  llvm::SmallVector<int64_t> result;
  for (int64_t k = 0, n = c->type.getNumElements(); k < n; ++k)
    result.push_back(c->isFloat ? static_cast<int64_t>(c->floatAt(k))
                                : c->intAt(k));
  return result;
}

FailureOr<llvm::SmallVector<double>>
OpContext::constantFloats(Value value, llvm::StringRef what) {
  std::optional<ConstantTensor> c = readConstantValue(value);
  if (!c)
    return error() << what
                   << " must be a constant or computable at compile time from "
                      "the model's parameters and static input shapes";
  llvm::SmallVector<double> result;
  for (int64_t k = 0, n = c->type.getNumElements(); k < n; ++k)
    result.push_back(c->isFloat ? c->floatAt(k) : double(c->intAt(k)));
  return result;
}

FailureOr<std::optional<llvm::SmallVector<int64_t>>>
OpContext::intsFromAttrOrOperand(llvm::StringRef attrName,
                                 llvm::ArrayRef<llvm::StringRef> legacySlots,
                                 std::optional<unsigned> pirIndex) {
  using Result = std::optional<llvm::SmallVector<int64_t>>;
  if (isPir()) {
    if (pirIndex && has("", *pirIndex)) {
      llvm::SmallVector<int64_t> all;
      for (Value v : inList("", *pirIndex)) {
        auto ints = constantInts(v, attrName);
        if (failed(ints))
          return failure();
        all.append(ints->begin(), ints->end());
      }
      return Result(all);
    }
    return Result(getInts(attrName));
  }
  for (llvm::StringRef slot : legacySlots) {
    if (!has(slot, 0))
      continue;
    llvm::SmallVector<int64_t> all;
    for (Value v : inList(slot, 0)) {
      auto ints = constantInts(v, (attrName + " ('" + slot + "')").str());
      if (failed(ints))
        return failure();
      all.append(ints->begin(), ints->end());
    }
    return Result(all);
  }
  return Result(getInts(attrName));
}

FailureOr<double>
OpContext::floatFromAttrOrOperand(llvm::StringRef attrName,
                                  double defaultValue,
                                  llvm::StringRef legacySlot,
                                  std::optional<unsigned> pirIndex) {
  Value v;
  if (isPir() && pirIndex)
    v = in("", *pirIndex);
  else if (!isPir() && !legacySlot.empty())
    v = in(legacySlot, 0);
  if (v) {
    auto floats = constantFloats(v, attrName);
    if (failed(floats))
      return failure();
    if (floats->size() != 1)
      return error() << attrName << " must be one value, got "
                     << floats->size();
    return floats->front();
  }
  return getFloat(attrName, defaultValue);
}

FailureOr<Value> OpContext::cast(Value input, Type elementType) {
  if (typeOf(input).getElementType() == elementType)
    return input;
  return create<CastOp>(input, {named("to", TypeAttr::get(elementType))});
}

FailureOr<llvm::SmallVector<Value>>
OpContext::onnx(llvm::StringRef opType, llvm::ArrayRef<Value> inputs,
                const std::function<void(onnx::NodeProto &)> &setAttrs,
                unsigned numOutputs, int64_t opset) {
  const onnx_import::ConverterInfo *converter =
      onnx_import::lookupConverter(opType, opset);
  if (!converter)
    return error() << "internal error: no ONNX converter for " << opType;
  onnx::NodeProto node;
  node.set_op_type(opType.str());
  llvm::StringMap<Value> values;
  for (auto [i, value] : llvm::enumerate(inputs)) {
    std::string name = value ? "in" + std::to_string(i) : "";
    node.add_input(name);
    if (value)
      values[name] = value;
  }
  for (unsigned i = 0; i < numOutputs; ++i)
    node.add_output("out" + std::to_string(i));
  if (setAttrs)
    setAttrs(node);
  onnx_import::NodeContext sub(node, op.where + " [as ONNX " + opType.str() +
                                         "]",
                               opset, loc, builder, values, "");
  if (failed(converter->convert(sub)))
    return failure();
  llvm::SmallVector<Value> results;
  for (unsigned i = 0; i < numOutputs; ++i) {
    Value v = values.lookup("out" + std::to_string(i));
    if (!v)
      return error() << "internal error: ONNX " << opType << " gave no output #"
                     << i;
    results.push_back(v);
  }
  return results;
}

void setAttr(onnx::NodeProto &node, llvm::StringRef name, int64_t value) {
  onnx::AttributeProto *a = node.add_attribute();
  a->set_name(name.str());
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

void setAttr(onnx::NodeProto &node, llvm::StringRef name, double value) {
  onnx::AttributeProto *a = node.add_attribute();
  a->set_name(name.str());
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(static_cast<float>(value));
}

void setAttr(onnx::NodeProto &node, llvm::StringRef name,
             llvm::StringRef value) {
  onnx::AttributeProto *a = node.add_attribute();
  a->set_name(name.str());
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(value.str());
}

void setAttr(onnx::NodeProto &node, llvm::StringRef name,
             llvm::ArrayRef<int64_t> values) {
  onnx::AttributeProto *a = node.add_attribute();
  a->set_name(name.str());
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values)
    a->add_ints(v);
}

FailureOr<Value> reshapeTo(OpContext &ctx, Value value,
                           llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> target(shape.begin(), shape.end());
  int dynamic = 0;
  for (int64_t &d : target)
    if (ShapedType::isDynamic(d)) {
      d = -1;
      ++dynamic;
    }
  if (dynamic > 1)
    return ctx.error() << "needs a static shape here (" << ctx.typeOf(value)
                       << " has several dynamic dims); fix them with "
                          "--input-shape";
  // Kiln's reshape reads -1 as a dynamic dim; with a static input it is
  // resolved here from the element count.
  RankedTensorType type = ctx.typeOf(value);
  if (dynamic == 1 && type.hasStaticShape()) {
    int64_t known = 1;
    for (int64_t d : target)
      if (d != -1)
        known *= d;
    for (int64_t &d : target)
      if (d == -1)
        d = known ? type.getNumElements() / known : 0;
  }
  return ctx.reshape(value, target);
}

} // namespace mlir::kiln::paddle_import
