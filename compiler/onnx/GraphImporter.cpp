//===- GraphImporter.cpp - ONNX GraphProto -> func.func of Kiln ops -------===//
//
// Builds `func.func @main`: graph inputs (less the initializers that old-IR
// models also list as inputs) become arguments, initializers become
// kiln.constant ops, every node is handed to its converter in graph order,
// and graph outputs are returned. Names survive as `kiln.name` argument and
// result attributes; symbolic dims become `?` with their names kept in
// `kiln.dim_names`.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/MainFunction.h"
#include "compiler/onnx/ContribQuantConverters.h"
#include "compiler/onnx/ConverterRegistry.h"
#include "compiler/onnx/CustomOpConverter.h"
#include "compiler/onnx/ModelLoader.h"
#include "compiler/onnx/NodeContext.h"
#include "compiler/onnx/OnnxImporter.h"
#include "compiler/onnx/TensorDecoding.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <map>
#include <vector>

using namespace mlir;

namespace mlir::kiln::onnx_import {

bool parseInputShape(llvm::StringRef text, ImportOptions &options,
                     std::string &error) {
  auto [name, dims] = text.rsplit('=');
  if (name.empty() || !text.contains('=')) {
    error = "--input-shape expects NAME=DxDx..., got '" + text.str() + "'";
    return false;
  }
  llvm::SmallVector<int64_t> shape;
  if (!dims.empty()) {
    llvm::SmallVector<llvm::StringRef> parts;
    dims.split(parts, 'x');
    for (llvm::StringRef part : parts) {
      int64_t dim;
      if (part == "?") {
        shape.push_back(ShapedType::kDynamic);
      } else if (part.getAsInteger(10, dim) || dim < 0) {
        error = "--input-shape '" + text.str() + "': '" + part.str() +
                "' is not a dimension (a non-negative integer or ?)";
        return false;
      } else {
        shape.push_back(dim);
      }
    }
  }
  options.inputShapes[name] = shape;
  return true;
}

void registerImporterDialects(MLIRContext &context) {
  context.loadDialect<func::FuncDialect, KilnDialect>();
}

namespace {

class GraphImporter {
public:
  GraphImporter(MLIRContext &context, const onnx::ModelProto &model,
                llvm::StringRef path, const ImportOptions &options)
      : context(context), model(model), graph(model.graph()), path(path),
        options(options), builder(&context),
        fileLoc(FileLineColLoc::get(&context, path, 0, 0)) {
    // External data is looked up next to the model file itself: when the
    // model is reached through a symbolic link (as in Bazel's runfiles), its
    // data files sit beside the link's target, not beside the link.
    llvm::SmallString<256> realPath;
    if (llvm::sys::fs::real_path(path, realPath))
      realPath = path;
    modelDir = llvm::sys::path::parent_path(realPath).str();
  }

  OwningOpRef<ModuleOp> run();

private:
  LogicalResult readOpsets();
  LogicalResult checkSupported();
  LogicalResult checkQuantizedTypes();
  LogicalResult buildSignature(llvm::SmallVectorImpl<Type> &argTypes,
                               llvm::SmallVectorImpl<DictionaryAttr> &argAttrs);
  LogicalResult importNodes();
  LogicalResult checkDeclaredType(const onnx::ValueInfoProto &info,
                                  Value value, llvm::StringRef what);
  std::string nodeDisplayName(int index) const;

  MLIRContext &context;
  const onnx::ModelProto &model;
  const onnx::GraphProto &graph;
  std::string path;
  std::string modelDir;
  const ImportOptions &options;
  OpBuilder builder;
  Location fileLoc;
  int64_t opset = 0;
  llvm::StringMap<int64_t> domainOpsets;
  llvm::StringSet<> initializerNames;
  /// Graph inputs that are real inputs (not initializers), in order.
  llvm::SmallVector<const onnx::ValueInfoProto *> inputs;
  llvm::StringMap<Value> values;
  /// Values holding ONNX uint8 data, stored biased in i8 (u8 - 128).
  llvm::StringSet<> unsigned8;
};

/// ONNX ops that take uint8 inputs: the quantized ops, which read the
/// biased representation on purpose (onnxruntime's com.microsoft ones
/// included), and data movement, whose outputs are biased uint8 again. Any
/// other op reading uint8 data is refused: it would compute on u8 - 128.
bool readsUnsigned8(const onnx::NodeProto &node) {
  if (node.domain() == kMicrosoftDomain)
    return lookupMicrosoftConverter(node.op_type()) != nullptr;
  return llvm::is_contained(
      {"QuantizeLinear", "DequantizeLinear", "QLinearConv", "QLinearMatMul",
       "MatMulInteger", "ConvInteger", "Shape"},
      node.op_type());
}
/// Ops whose result on biased uint8 data is the biased result on the u8
/// values: they move or select elements (MaxPool selects: subtracting 128
/// keeps the order) and never make a new value. Pad is one only when its
/// pad value is itself a (biased) uint8 input or it copies edges: its
/// default value 0 would mean u8 128.
bool movesUnsigned8(const onnx::NodeProto &node, int64_t opset) {
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return false;
  if (node.op_type() == "Pad") {
    std::string mode = "constant";
    for (const onnx::AttributeProto &attribute : node.attribute())
      if (attribute.name() == "mode")
        mode = attribute.s();
    return mode != "constant" ||
           (opset >= 11 && node.input_size() > 2 && !node.input(2).empty());
  }
  return llvm::is_contained(
      {"Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten", "Identity",
       "MaxPool", "Concat", "Slice", "Gather", "Split", "Expand", "Tile",
       "DepthToSpace", "SpaceToDepth"},
      node.op_type());
}

/// The converter of `node`: the default domain's at `opset`, or one of
/// onnxruntime's com.microsoft quantized ops; null when Kiln has none.
const ConverterInfo *findConverter(const onnx::NodeProto &node,
                                   int64_t opset) {
  if (node.domain().empty() || node.domain() == "ai.onnx")
    return lookupConverter(node.op_type(), opset);
  if (node.domain() == kMicrosoftDomain)
    return lookupMicrosoftConverter(node.op_type());
  return nullptr;
}

std::string GraphImporter::nodeDisplayName(int index) const {
  const onnx::NodeProto &node = graph.node(index);
  if (!node.name().empty())
    return node.name();
  return node.op_type() + "_" + std::to_string(index);
}

LogicalResult GraphImporter::readOpsets() {
  bool found = false;
  for (const onnx::OperatorSetIdProto &entry : model.opset_import()) {
    std::string domain = entry.domain();
    if (domain == "ai.onnx")
      domain = "";
    domainOpsets[domain] = entry.version();
    if (domain.empty()) {
      opset = entry.version();
      found = true;
    }
  }
  // IR version 1 models had no opset_import and meant opset 1.
  if (!found)
    return emitError(fileLoc) << "'" << path
                              << "' imports no version of the default ONNX "
                                 "domain (opset_import is empty); Kiln "
                                 "supports opsets "
                              << kMinOpset << " to " << kMaxOpset;
  if (opset < kMinOpset || opset > kMaxOpset)
    return emitError(fileLoc) << "'" << path << "' uses ONNX opset " << opset
                              << "; Kiln supports opsets " << kMinOpset
                              << " to " << kMaxOpset;
  return success();
}

LogicalResult GraphImporter::checkSupported() {
  // Collect every unsupported (domain, op type) with the nodes using it, so
  // that one report lists all the work a model needs.
  std::map<std::pair<std::string, std::string>, std::vector<std::string>>
      unsupported;
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto &node = graph.node(i);
    std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
    if (findConverter(node, opset))
      continue;
    if (lookupCustomOpForNode(domain, node.op_type()))
      continue; // a plugin provides it
    unsupported[{domain, node.op_type()}].push_back(nodeDisplayName(i));
  }
  if (unsupported.empty())
    return success();
  InFlightDiagnostic diag = emitError(fileLoc);
  diag << "'" << path << "' uses " << unsupported.size()
       << " ONNX operator type(s) Kiln does not support:";
  for (auto &[key, nodes] : unsupported) {
    const auto &[domain, opType] = key;
    auto it = domainOpsets.find(domain);
    diag << "\n  " << (domain.empty() ? "ai.onnx" : domain) << "::" << opType;
    if (it != domainOpsets.end())
      diag << " (opset " << it->second << ")";
    else
      diag << " (domain not imported by the model)";
    diag << ", " << nodes.size() << " node(s): ";
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (i == 8) {
        diag << ", ... (" << nodes.size() - 8 << " more)";
        break;
      }
      diag << (i ? ", '" : "'") << nodes[i] << "'";
    }
  }
  return diag;
}

/// Quantized ops with types Kiln does not quantize to (int16, int4,
/// float8...) or block quantization are reported naming the node, before
/// their initializers are decoded (whose error would name only a tensor).
LogicalResult GraphImporter::checkQuantizedTypes() {
  llvm::StringMap<int32_t> dtypes;
  for (const onnx::TensorProto &init : graph.initializer())
    dtypes[init.name()] = init.data_type();
  for (const onnx::ValueInfoProto &info : graph.input())
    if (info.type().has_tensor_type() && !dtypes.count(info.name()))
      dtypes[info.name()] = info.type().tensor_type().elem_type();
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto &node = graph.node(i);
    if (!node.domain().empty() ||
        !llvm::is_contained({"QuantizeLinear", "DequantizeLinear",
                             "QLinearConv", "QLinearMatMul", "MatMulInteger",
                             "ConvInteger"},
                            node.op_type()))
      continue;
    Location loc =
        NameLoc::get(builder.getStringAttr(nodeDisplayName(i)), fileLoc);
    auto unsupported = [&](const llvm::Twine &what) {
      return emitError(loc) << "node '" << nodeDisplayName(i) << "' ("
                            << node.op_type() << "): " << what
                            << " is not supported (Kiln quantizes to int8 "
                               "and uint8 only)";
    };
    for (const onnx::AttributeProto &attribute : node.attribute()) {
      if (attribute.name() == "block_size" && attribute.i() != 0)
        return unsupported("block quantization (block_size = " +
                           llvm::Twine(attribute.i()) + ")");
      if (attribute.name() == "output_dtype" && attribute.i() != 0 &&
          attribute.i() != onnx::TensorProto::INT8 &&
          attribute.i() != onnx::TensorProto::UINT8)
        return unsupported("output_dtype " +
                           llvm::Twine(dtypeName(attribute.i())));
    }
    for (const std::string &input : node.input()) {
      auto it = dtypes.find(input);
      if (it == dtypes.end())
        continue;
      int32_t dtype = it->second;
      bool integer = dtype == onnx::TensorProto::INT8 ||
                     dtype == onnx::TensorProto::UINT8 ||
                     dtype == onnx::TensorProto::INT32;
      bool floating = dtype == onnx::TensorProto::FLOAT ||
                      dtype == onnx::TensorProto::FLOAT16 ||
                      dtype == onnx::TensorProto::BFLOAT16;
      if (!integer && !floating)
        return unsupported("input '" + llvm::Twine(input) + "' of type " +
                           dtypeName(dtype));
    }
  }
  return success();
}

LogicalResult
GraphImporter::buildSignature(llvm::SmallVectorImpl<Type> &argTypes,
                              llvm::SmallVectorImpl<DictionaryAttr> &argAttrs) {
  llvm::StringSet<> inputNames;
  for (const onnx::ValueInfoProto &info : graph.input()) {
    // Old IR versions list initializers among the inputs; they are weights.
    if (initializerNames.contains(info.name()))
      continue;
    inputNames.insert(info.name());
    Location loc = NameLoc::get(builder.getStringAttr(info.name()), fileLoc);
    if (!info.type().has_tensor_type())
      return emitError(loc) << "graph input '" << info.name()
                            << "' is not a tensor; Kiln handles only tensors";
    const onnx::TypeProto::Tensor &tensorType = info.type().tensor_type();
    FailureOr<Type> elementType = convertElementType(
        &context, tensorType.elem_type(), info.name(), loc);
    if (failed(elementType))
      return failure();

    llvm::SmallVector<int64_t> shape;
    llvm::SmallVector<Attribute> dimNames;
    bool anyDimName = false;
    auto overridden = options.inputShapes.find(info.name());
    if (overridden != options.inputShapes.end()) {
      shape = overridden->second;
    } else {
      if (!tensorType.has_shape())
        return emitError(loc) << "graph input '" << info.name()
                              << "' has no shape (not even a rank); give one "
                                 "with --input-shape "
                              << info.name() << "=DxDx...";
      for (const auto &dim : tensorType.shape().dim()) {
        if (dim.has_dim_value() && dim.dim_value() >= 0) {
          shape.push_back(dim.dim_value());
          dimNames.push_back(builder.getStringAttr(""));
        } else {
          shape.push_back(ShapedType::kDynamic);
          dimNames.push_back(builder.getStringAttr(dim.dim_param()));
          anyDimName |= !dim.dim_param().empty();
        }
      }
    }
    argTypes.push_back(RankedTensorType::get(shape, *elementType));
    llvm::SmallVector<NamedAttribute> attrs{
        builder.getNamedAttr("kiln.name", builder.getStringAttr(info.name()))};
    // A uint8 input keeps dtype U8 in the artifact; the graph reads it
    // biased (see run()).
    if (tensorType.elem_type() == onnx::TensorProto::UINT8)
      attrs.push_back(
          builder.getNamedAttr("kiln.dtype", builder.getStringAttr("u8")));
    if (anyDimName)
      attrs.push_back(builder.getNamedAttr("kiln.dim_names",
                                           builder.getArrayAttr(dimNames)));
    argAttrs.push_back(builder.getDictionaryAttr(attrs));
    inputs.push_back(&info);
  }
  for (const auto &entry : options.inputShapes)
    if (!inputNames.contains(entry.getKey()))
      return emitError(fileLoc) << "--input-shape names '" << entry.getKey()
                                << "', which is not an input of '" << path
                                << "'";
  return success();
}

LogicalResult GraphImporter::importNodes() {
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto &node = graph.node(i);
    std::string name = nodeDisplayName(i);
    Location loc = NameLoc::get(builder.getStringAttr(name), fileLoc);
    for (const std::string &input : node.input())
      if (!input.empty() && !values.count(input))
        return emitError(loc) << "node '" << name << "' (" << node.op_type()
                              << "): input '" << input
                              << "' is not a graph input, an initializer or "
                                 "the output of an earlier node";
    bool unsignedInput = false;
    for (const std::string &input : node.input())
      unsignedInput |= unsigned8.contains(input);
    if (unsignedInput && !readsUnsigned8(node) && !movesUnsigned8(node, opset))
      return emitError(loc)
             << "node '" << name << "' (" << node.op_type()
             << ") reads uint8 data, which is not supported outside "
                "quantized ops (Kiln holds uint8 tensors only as quantized "
                "data: QuantizeLinear, DequantizeLinear, QLinearConv, "
                "QLinearMatMul, MatMulInteger, ConvInteger, onnxruntime's "
                "com.microsoft QLinear ops and QGemm, and data movement "
                "between them)";
    NodeContext ctx(node, name, opset, loc, builder, values, modelDir);
    ctx.unsigned8 = &unsigned8;
    // A plugin's definition wins over Kiln's converter for the same op.
    if (const CustomOpDefinition *custom =
            lookupCustomOpForNode(node.domain(), node.op_type())) {
      if (failed(convertCustomOp(ctx, *custom)))
        return failure();
    } else if (failed(findConverter(node, opset)->convert(ctx))) {
      return failure();
    }
    if (movesUnsigned8(node, opset) && node.input_size() > 0 &&
        unsigned8.contains(node.input(0)))
      for (const std::string &output : node.output())
        unsigned8.insert(output);
    if (node.op_type() == "Constant" || node.op_type() == "ConstantOfShape")
      for (const onnx::AttributeProto &attribute : node.attribute())
        if (attribute.name() == "value" &&
            attribute.t().data_type() == onnx::TensorProto::UINT8)
          for (const std::string &output : node.output())
            unsigned8.insert(output);
    for (int o = 0; o < node.output_size(); ++o)
      if (!node.output(o).empty() && !values.count(node.output(o)))
        return emitError(loc) << "node '" << name << "' (" << node.op_type()
                              << "): output #" << o << " ('" << node.output(o)
                              << "') is not supported by Kiln's importer";
  }
  return success();
}

/// Fails, naming the tensor, when the type Kiln inferred for `value`
/// contradicts what the model declares for it: another dtype, another
/// rank, or another size of a dim both know. (A dim the model leaves
/// symbolic or negative, as Paddle's exporter writes -1 for "any", or that
/// Kiln infers as dynamic, contradicts nothing; graph inputs read a
/// negative dim as dynamic too.)
LogicalResult GraphImporter::checkDeclaredType(const onnx::ValueInfoProto &info,
                                               Value value,
                                               llvm::StringRef what) {
  if (!info.type().has_tensor_type())
    return success();
  const onnx::TypeProto::Tensor &declared = info.type().tensor_type();
  auto inferred = llvm::cast<RankedTensorType>(value.getType());
  Location loc = NameLoc::get(builder.getStringAttr(info.name()), fileLoc);
  bool contradicts = false;
  if (declared.elem_type() != onnx::TensorProto::UNDEFINED) {
    FailureOr<Type> element =
        convertElementType(&context, declared.elem_type(), info.name(), loc);
    if (failed(element))
      return failure();
    contradicts |= *element != inferred.getElementType();
  }
  if (declared.has_shape()) {
    const auto &dims = declared.shape().dim();
    if (dims.size() != inferred.getRank())
      contradicts = true;
    else
      for (auto [dim, size] : llvm::zip(dims, inferred.getShape()))
        contradicts |= dim.has_dim_value() && dim.dim_value() >= 0 &&
                       !ShapedType::isDynamic(size) && dim.dim_value() != size;
  }
  if (!contradicts)
    return success();
  InFlightDiagnostic diag = emitError(loc);
  diag << what << " '" << info.name() << "' is declared as "
       << dtypeName(declared.elem_type());
  if (declared.has_shape()) {
    diag << " [";
    llvm::interleaveComma(declared.shape().dim(), diag, [&](const auto &dim) {
      if (dim.has_dim_value())
        diag << dim.dim_value();
      else
        diag << (dim.dim_param().empty() ? "?" : dim.dim_param());
    });
    diag << "]";
  }
  diag << " but the graph computes " << inferred;
  return diag;
}

OwningOpRef<ModuleOp> GraphImporter::run() {
  if (failed(readOpsets()) || failed(checkSupported()) ||
      failed(checkQuantizedTypes()))
    return nullptr;
  for (const onnx::TensorProto &init : graph.initializer())
    initializerNames.insert(init.name());
  if (graph.sparse_initializer_size() > 0)
    return (emitError(fileLoc) << "'" << path
                               << "' has sparse initializers, which Kiln "
                                  "does not handle",
            nullptr);

  llvm::SmallVector<Type> argTypes;
  llvm::SmallVector<DictionaryAttr> argAttrs;
  if (failed(buildSignature(argTypes, argAttrs)))
    return nullptr;

  frontend::MainFunction main(builder, fileLoc, argTypes, argAttrs);
  for (auto [info, arg] : llvm::zip(inputs, main.arguments())) {
    values[info->name()] = arg;
    if (info->type().tensor_type().elem_type() != onnx::TensorProto::UINT8)
      continue;
    // The caller's u8 bytes, read as i8, become u8 - 128 by flipping the
    // top bit: a wrapping add of -128.
    Location loc = NameLoc::get(builder.getStringAttr(info->name()), fileLoc);
    FailureOr<Value> biased = createCheckedOrFold<AddOp>(
        builder, loc, {arg, ConstantOp::create(builder, loc,
                                               DenseElementsAttr::get(
                                                   RankedTensorType::get(
                                                       {}, builder.getI8Type()),
                                                   builder.getI8IntegerAttr(-128)
                                                       .getValue()))});
    if (failed(biased))
      return nullptr;
    values[info->name()] = *biased;
    unsigned8.insert(info->name());
  }

  for (const onnx::TensorProto &init : graph.initializer()) {
    Location loc = NameLoc::get(builder.getStringAttr(init.name()), fileLoc);
    FailureOr<ElementsAttr> value =
        decodeTensor(&context, init, modelDir, loc);
    if (failed(value))
      return nullptr;
    values[init.name()] = ConstantOp::create(builder, loc, *value);
    if (init.data_type() == onnx::TensorProto::UINT8)
      unsigned8.insert(init.name());
  }

  if (failed(importNodes()))
    return nullptr;
  for (const onnx::ValueInfoProto &info : graph.value_info())
    if (Value value = values.lookup(info.name()))
      if (failed(checkDeclaredType(info, value, "tensor")))
        return nullptr;

  llvm::SmallVector<Value> results;
  llvm::SmallVector<DictionaryAttr> resultAttrs;
  for (const onnx::ValueInfoProto &info : graph.output()) {
    Value value = values.lookup(info.name());
    if (!value)
      return (emitError(fileLoc) << "graph output '" << info.name()
                                 << "' is not produced by any node, input or "
                                    "initializer",
              nullptr);
    if (failed(checkDeclaredType(info, value, "graph output")))
      return nullptr;
    llvm::SmallVector<NamedAttribute> attrs{builder.getNamedAttr(
        "kiln.name", builder.getStringAttr(info.name()))};
    bool isUnsigned = unsigned8.contains(info.name());
    int32_t declared = info.type().tensor_type().elem_type();
    if ((declared == onnx::TensorProto::UINT8 && !isUnsigned) ||
        (declared == onnx::TensorProto::INT8 && isUnsigned))
      return (emitError(fileLoc)
                  << "graph output '" << info.name() << "' is declared as "
                  << dtypeName(declared) << " but the graph computes "
                  << (isUnsigned ? "UINT8" : "INT8") << " data",
              nullptr);
    if (isUnsigned) {
      // Back from u8 - 128 to the caller's u8 bytes.
      Location loc = NameLoc::get(builder.getStringAttr(info.name()), fileLoc);
      Value bias = ConstantOp::create(
          builder, loc,
          DenseElementsAttr::get(RankedTensorType::get({}, builder.getI8Type()),
                                 builder.getI8IntegerAttr(-128).getValue()));
      FailureOr<Value> unbiased =
          createCheckedOrFold<AddOp>(builder, loc, {value, bias});
      if (failed(unbiased))
        return nullptr;
      value = *unbiased;
      attrs.push_back(
          builder.getNamedAttr("kiln.dtype", builder.getStringAttr("u8")));
    }
    results.push_back(value);
    resultAttrs.push_back(builder.getDictionaryAttr(attrs));
  }
  return main.finish(results, resultAttrs);
}

} // namespace

OwningOpRef<ModuleOp> importOnnxFile(MLIRContext &context, llvm::StringRef path,
                                     const ImportOptions &options) {
  registerImporterDialects(context);
  onnx::ModelProto model;
  if (failed(loadModel(path, FileLineColLoc::get(&context, path, 0, 0), model)))
    return nullptr;
  return GraphImporter(context, model, path, options).run();
}

} // namespace mlir::kiln::onnx_import
