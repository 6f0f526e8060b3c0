//===- PaddleImporter.cpp - Paddle Program -> func.func of Kiln ops -------===//
//
// Builds `func.func @main` from a ::kiln::paddle::Program: the feeds become
// arguments (with `--input-shape` fixing Paddle's -1 dims), parameters
// become kiln.constant ops on first use (from the bytes the params reader
// holds), every op goes to the converter registered for its exact type, and
// the fetches are returned. Names survive as `kiln.name` attributes, as in
// the ONNX frontend; locations are NameLoc(op's `where`, model file).
//
//===----------------------------------------------------------------------===//

#include "compiler/paddle/PaddleImporter.h"

#include "compiler/frontend/MainFunction.h"
#include "compiler/paddle/PaddleConverters.h"

#include "llvm/ADT/StringSet.h"

#include <map>
#include <vector>

using namespace mlir;
namespace pd = ::kiln::paddle;

namespace mlir::kiln::paddle_import {
namespace {

const char *dtypeName(pd::DType dtype) {
  switch (dtype) {
  case pd::DType::F32:
    return "float32";
  case pd::DType::F64:
    return "float64";
  case pd::DType::F16:
    return "float16";
  case pd::DType::BF16:
    return "bfloat16";
  case pd::DType::I8:
    return "int8";
  case pd::DType::U8:
    return "uint8";
  case pd::DType::I16:
    return "int16";
  case pd::DType::I32:
    return "int32";
  case pd::DType::I64:
    return "int64";
  case pd::DType::Bool:
    return "bool";
  }
  return "?";
}

/// Kiln's element type for a Paddle dtype; null for the ones Kiln has no
/// tensors of (uint8 outside quantized ops, int16).
Type elementType(MLIRContext *context, pd::DType dtype) {
  Builder b(context);
  switch (dtype) {
  case pd::DType::F32:
    return b.getF32Type();
  case pd::DType::F64:
    return b.getF64Type();
  case pd::DType::F16:
    return b.getF16Type();
  case pd::DType::BF16:
    return b.getBF16Type();
  case pd::DType::I8:
    return b.getI8Type();
  case pd::DType::I32:
    return b.getI32Type();
  case pd::DType::I64:
    return b.getI64Type();
  case pd::DType::Bool:
    return b.getI1Type();
  case pd::DType::U8:
  case pd::DType::I16:
    return nullptr;
  }
  return nullptr;
}

size_t elementBytes(pd::DType dtype) {
  switch (dtype) {
  case pd::DType::F64:
  case pd::DType::I64:
    return 8;
  case pd::DType::F32:
  case pd::DType::I32:
    return 4;
  case pd::DType::F16:
  case pd::DType::BF16:
  case pd::DType::I16:
    return 2;
  default:
    return 1;
  }
}

class ProgramImporter {
public:
  ProgramImporter(MLIRContext &context, const pd::Program &program,
                  const ImportOptions &options)
      : context(context), program(program), options(options),
        builder(&context),
        fileLoc(FileLineColLoc::get(&context, program.modelPath, 0, 0)) {}

  OwningOpRef<ModuleOp> run();

private:
  LogicalResult checkSupported();
  LogicalResult buildSignature(llvm::SmallVectorImpl<Type> &argTypes,
                               llvm::SmallVectorImpl<DictionaryAttr> &argAttrs);
  LogicalResult importOps();
  /// The value named `name`: converted so far, or a parameter (made a
  /// constant now). Null (with an error reported) for a parameter Kiln
  /// cannot hold; null without one for an unknown name.
  Value lookup(llvm::StringRef name, Location loc);
  bool known(llvm::StringRef name) const {
    return table.values.count(name) || table.lists.count(name) ||
           program.params.count(name.str());
  }

  /// A PIR parameter that is not persistable (paddle.nn.LSTM's dropout
  /// state): it has no data in .pdiparams and no value at inference, so
  /// it reads as an absent operand; a converter that needs it says so.
  bool isRuntimeState(llvm::StringRef name) const {
    if (program.format != pd::Format::PirJson || name.starts_with("%"))
      return false;
    auto var = program.vars.find(name.str());
    return var != program.vars.end() && !var->second.persistable &&
           !program.params.count(name.str());
  }

  MLIRContext &context;
  const pd::Program &program;
  const ImportOptions &options;
  OpBuilder builder;
  Location fileLoc;
  ValueTable table;
  bool paramFailed = false;
};

LogicalResult ProgramImporter::checkSupported() {
  // Every unsupported op type with the ops using it, so that one report
  // lists all the work a model needs (as the ONNX frontend does).
  std::map<std::string, std::vector<std::string>> unsupported;
  for (const pd::Op &op : program.ops)
    if (!lookupConverter(op.type))
      unsupported[op.type].push_back(op.where);
  if (unsupported.empty())
    return success();
  InFlightDiagnostic diag = emitError(fileLoc);
  diag << "'" << program.modelPath << "' uses " << unsupported.size()
       << " Paddle op type(s) Kiln does not support:";
  for (auto &[type, ops] : unsupported) {
    diag << "\n  " << type << ", " << ops.size() << " op(s): ";
    for (size_t i = 0; i < ops.size(); ++i) {
      if (i == 8) {
        diag << ", ... (" << ops.size() - 8 << " more)";
        break;
      }
      diag << (i ? ", '" : "'") << ops[i] << "'";
    }
    if (const char *reason = unsupportedReason(type))
      diag << "\n    (" << reason << ")";
  }
  return diag;
}

LogicalResult ProgramImporter::buildSignature(
    llvm::SmallVectorImpl<Type> &argTypes,
    llvm::SmallVectorImpl<DictionaryAttr> &argAttrs) {
  llvm::StringSet<> feedNames;
  for (const std::string &feed : program.feeds) {
    feedNames.insert(feed);
    Location loc = NameLoc::get(builder.getStringAttr(feed), fileLoc);
    auto var = program.vars.find(feed);
    if (var == program.vars.end())
      return emitError(loc) << "'" << program.modelPath << "': feed '" << feed
                            << "' has no variable description";
    Type element = elementType(&context, var->second.dtype);
    if (!element)
      return emitError(loc) << "graph input '" << feed << "' has dtype "
                            << dtypeName(var->second.dtype)
                            << ", which Kiln does not take as an input";
    llvm::SmallVector<int64_t> shape;
    auto overridden = options.inputShapes.find(feed);
    if (overridden != options.inputShapes.end()) {
      shape = overridden->second;
      const std::vector<int64_t> &dims = var->second.dims;
      bool fits = dims.size() == shape.size();
      for (size_t i = 0; fits && i < dims.size(); ++i)
        fits = dims[i] < 0 || ShapedType::isDynamic(shape[i]) ||
               dims[i] == shape[i];
      if (!fits) {
        InFlightDiagnostic diag = emitError(loc);
        diag << "--input-shape " << feed << "=";
        llvm::interleave(shape, diag, "x");
        diag << " does not fit the declared shape [";
        llvm::interleaveComma(dims, diag);
        diag << "] of graph input '" << feed << "' (-1 is any size)";
        return diag;
      }
    } else {
      for (int64_t d : var->second.dims)
        shape.push_back(d < 0 ? ShapedType::kDynamic : d);
    }
    argTypes.push_back(RankedTensorType::get(shape, element));
    argAttrs.push_back(builder.getDictionaryAttr(
        {builder.getNamedAttr("kiln.name", builder.getStringAttr(feed))}));
  }
  for (const auto &entry : options.inputShapes)
    if (!feedNames.contains(entry.getKey()))
      return emitError(fileLoc) << "--input-shape names '" << entry.getKey()
                                << "', which is not an input of '"
                                << program.modelPath << "'";
  return success();
}

Value ProgramImporter::lookup(llvm::StringRef name, Location useLoc) {
  if (Value v = table.values.lookup(name))
    return v;
  auto it = program.params.find(name.str());
  if (it == program.params.end())
    return nullptr;
  const pd::Param &param = it->second;
  Location loc = NameLoc::get(builder.getStringAttr(name), fileLoc);
  Type element = elementType(&context, param.dtype);
  if (!element || param.dtype == pd::DType::Bool) {
    emitError(loc) << "parameter '" << name << "' in '" << program.paramsPath
                   << "' has dtype " << dtypeName(param.dtype)
                   << ", which Kiln does not hold as a constant";
    paramFailed = true;
    return nullptr;
  }
  int64_t count = 1;
  for (int64_t d : param.dims)
    count *= d;
  if (llvm::any_of(param.dims, [](int64_t d) { return d < 0; }) ||
      static_cast<uint64_t>(count) * elementBytes(param.dtype) != param.bytes ||
      (param.bytes && !param.data)) {
    emitError(loc) << "parameter '" << name << "' in '" << program.paramsPath
                   << "' holds " << param.bytes
                   << " bytes, which does not match its dims";
    paramFailed = true;
    return nullptr;
  }
  auto type = RankedTensorType::get(param.dims, element);
  // The bytes are little-endian and dense, as DenseElementsAttr keeps them
  // on this (x86-64) host.
  auto attr = DenseElementsAttr::getFromRawBuffer(
      type, llvm::ArrayRef<char>(static_cast<const char *>(param.data),
                                 param.bytes));
  // Constants go to the top of the function so every later use sees them.
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(builder.getInsertionBlock());
  Value v = ConstantOp::create(builder, loc, attr).getResult();
  table.values[name] = v;
  (void)useLoc;
  return v;
}

LogicalResult ProgramImporter::importOps() {
  for (const pd::Op &op : program.ops) {
    Location loc = NameLoc::get(builder.getStringAttr(op.where), fileLoc);
    for (const pd::Slot &slot : op.inputs)
      for (const std::string &name : slot.values) {
        if (name.empty() || name == "%0" || known(name) ||
            isRuntimeState(name))
          continue;
        InFlightDiagnostic diag = emitError(loc);
        diag << op.where << ": ";
        if (program.format == pd::Format::PirJson)
          diag << "operand #" << slot.name;
        else
          diag << "input slot '" << slot.name << "'";
        diag << " names '" << name
             << "', which is not a graph input, a parameter in '"
             << program.paramsPath
             << "' or a result Kiln converted from an earlier op";
        auto var = program.vars.find(name);
        if (var != program.vars.end() && var->second.persistable)
          diag << " (the program marks it persistable, but the params file "
                  "has no such parameter)";
        return diag;
      }
    OpContext ctx(program, op, loc, builder, table,
                  [this, loc](llvm::StringRef name) {
                    return lookup(name, loc);
                  });
    if (failed(lookupConverter(op.type)->convert(ctx)) || paramFailed)
      return failure();
  }
  return success();
}

OwningOpRef<ModuleOp> ProgramImporter::run() {
  if (failed(checkSupported()))
    return nullptr;
  llvm::SmallVector<Type> argTypes;
  llvm::SmallVector<DictionaryAttr> argAttrs;
  if (failed(buildSignature(argTypes, argAttrs)))
    return nullptr;

  frontend::MainFunction main(builder, fileLoc, argTypes, argAttrs);
  for (auto [name, arg] : llvm::zip(program.feeds, main.arguments()))
    table.values[name] = arg;

  if (failed(importOps()))
    return nullptr;

  llvm::SmallVector<Value> results;
  llvm::SmallVector<DictionaryAttr> resultAttrs;
  for (auto [i, name] : llvm::enumerate(program.fetches)) {
    Value value = lookup(name, fileLoc);
    if (!value)
      return (emitError(fileLoc) << "'" << program.modelPath << "': fetch '"
                                 << name
                                 << "' is not produced by any op, input or "
                                    "parameter",
              nullptr);
    // PIR values have no names of their own ("%37"); name the outputs as
    // Paddle Inference does for PIR programs.
    std::string outName = llvm::StringRef(name).starts_with("%")
                              ? "fetch_name_" + std::to_string(i)
                              : name;
    results.push_back(value);
    resultAttrs.push_back(builder.getDictionaryAttr({builder.getNamedAttr(
        "kiln.name", builder.getStringAttr(outName))}));
  }
  if (results.empty())
    return (emitError(fileLoc) << "'" << program.modelPath
                               << "' fetches nothing",
            nullptr);
  return main.finish(results, resultAttrs);
}

} // namespace

OwningOpRef<ModuleOp> importPaddleProgram(MLIRContext &context,
                                          const ::kiln::paddle::Program &program,
                                          const ImportOptions &options) {
  onnx_import::registerImporterDialects(context);
  return ProgramImporter(context, program, options).run();
}

} // namespace mlir::kiln::paddle_import
