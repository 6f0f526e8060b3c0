//===- HostPlan.cpp - The host side of a compiled model -------------------===//
#include "compiler/plan/HostPlan.h"

#include "dialects/kiln/KilnDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include "llvm/ADT/StringMap.h"

namespace mlir::kiln::plan {

namespace art = ::kiln::artifact;

namespace {

constexpr uint64_t kAlign = 64;

uint64_t alignUp(uint64_t value) { return (value + kAlign - 1) / kAlign * kAlign; }

FailureOr<art::DType> toDType(Type type) {
  if (type.isF32()) return art::DType::F32;
  if (type.isF16()) return art::DType::F16;
  if (type.isBF16()) return art::DType::BF16;
  if (type.isF64()) return art::DType::F64;
  if (type.isInteger(1)) return art::DType::Bool;
  if (type.isInteger(8)) return art::DType::I8;
  if (type.isInteger(16)) return art::DType::I16;
  if (type.isInteger(32)) return art::DType::I32;
  if (type.isInteger(64)) return art::DType::I64;
  return failure();
}

uint64_t byteSize(RankedTensorType type) {
  // i1 is stored as one byte per element.
  uint64_t width = std::max<uint64_t>(8, type.getElementTypeBitWidth()) / 8;
  return width * type.getNumElements();
}

// Constant bytes in the runtime layout (row-major, i1 as bytes).
FailureOr<std::vector<uint8_t>> constantBytes(ElementsAttr attr) {
  auto type = cast<RankedTensorType>(attr.getType());
  uint64_t size = byteSize(type);
  std::vector<uint8_t> bytes(size);
  if (type.getElementType().isInteger(1)) {
    int64_t i = 0;
    for (bool value : attr.getValues<bool>())
      bytes[i++] = value;
    return bytes;
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    ArrayRef<char> raw = dense.getRawData();
    if (dense.isSplat()) {
      uint64_t width = size / std::max<int64_t>(1, type.getNumElements());
      for (uint64_t offset = 0; offset < size; offset += width)
        std::memcpy(bytes.data() + offset, raw.data(), width);
    } else {
      if (raw.size() != size)
        return failure();
      std::memcpy(bytes.data(), raw.data(), size);
    }
    return bytes;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || blob->getData().size() != size)
      return failure();
    std::memcpy(bytes.data(), blob->getData().data(), size);
    return bytes;
  }
  return failure();
}

struct Buffer {
  art::BufferSpace space = art::BufferSpace::Arena;
  uint32_t index = 0;  // signature or constant index; arena: buffer id
  uint64_t offset = 0;
  uint64_t length = 0;
};

struct ArenaBuffer {
  uint64_t size = 0;
  int64_t first = 0, last = 0; // step indices
  uint64_t offset = 0;
};

// "dispatch_3: linalg.matmul+linalg.generic": the kernel and the ops it
// holds, for `kiln inspect` and `kiln bench --profile`.
std::string stepLabel(func::CallOp call) {
  std::string label = call.getCallee().str();
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  if (!callee || callee.isExternal())
    return label;
  std::string ops;
  for (Operation &op : callee.getBody().front().without_terminator()) {
    if (isa<arith::ConstantOp, tensor::EmptyOp>(op))
      continue;
    ops += (ops.empty() ? "" : "+") + op.getName().getStringRef().str();
  }
  if (!ops.empty())
    label += ": " + ops;
  if (auto note = callee->getAttrOfType<StringAttr>(kKernelNoteAttr))
    label += " [" + note.str() + "]";
  return label;
}

// The first name in a location (the ONNX node an op came from), or "".
std::string nodeName(Location loc) {
  if (auto named = dyn_cast<NameLoc>(loc))
    return named.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location part : fused.getLocations())
      if (std::string name = nodeName(part); !name.empty())
        return name;
  if (auto site = dyn_cast<CallSiteLoc>(loc))
    return nodeName(site.getCallee());
  return "";
}

// Every name in a location, joined by ",": the ONNX nodes a fused step
// computes ("fc,fc_relu").
void collectNames(Location loc, std::string &names) {
  if (auto named = dyn_cast<NameLoc>(loc)) {
    std::string name = named.getName().str();
    for (StringRef seen : llvm::split(names, ','))
      if (seen == name)
        return;
    names += (names.empty() ? "" : ",") + name;
  } else if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location part : fused.getLocations())
      collectNames(part, names);
  } else if (auto site = dyn_cast<CallSiteLoc>(loc)) {
    collectNames(site.getCallee(), names);
  }
}

// A kiln.gemm_call's fields as the artifact's GemmCall (bindings are filled
// in after arena placement).
art::GemmCallSpec gemmSpec(GemmCallOp gemm) {
  art::GemmCallSpec g;
  g.dtype = art::DType::F32; // the cuda backend refuses other GEMMs
  g.compute = art::DType::F32;
  g.batch = gemm.getBatch();
  g.m = gemm.getM();
  g.n = gemm.getN();
  g.k = gemm.getK();
  g.transposeA = gemm.getTransposeA();
  g.transposeB = gemm.getTransposeB();
  g.lda = gemm.getLda();
  g.ldb = gemm.getLdb();
  g.ldc = gemm.getLdc();
  g.ldd = gemm.getLdd();
  g.batchStrideA = gemm.getBatchStrideA();
  g.batchStrideB = gemm.getBatchStrideB();
  g.batchStrideC = gemm.getBatchStrideC();
  g.batchStrideD = gemm.getBatchStrideD();
  g.alpha = gemm.getAlpha().convertToFloat();
  g.beta = gemm.getBeta().convertToFloat();
  g.epilogue = static_cast<art::GemmEpilogue>(gemm.getEpilogue());
  return g;
}

// A custom call's `config` in the artifact's attribute kinds (the C ABI's
// kiln_custom_attr_t): integers and booleans as Int, floats as Float,
// strings as String, arrays of integers or floats as Ints / Floats. The
// dictionary is sorted by name, and so are the attributes.
LogicalResult serializeAttributes(CustomCallOp call,
                                  std::vector<art::CustomAttributeSpec> &out) {
  using Kind = art::CustomAttributeSpec::Kind;
  std::optional<DictionaryAttr> config = call.getConfig();
  if (!config)
    return success();
  for (NamedAttribute named : *config) {
    art::CustomAttributeSpec a;
    a.name = named.getName().str();
    Attribute value = named.getValue();
    bool ok = true;
    if (auto b = dyn_cast<BoolAttr>(value)) {
      a.kind = Kind::Int;
      a.ints = {b.getValue() ? 1 : 0};
    } else if (auto i = dyn_cast<IntegerAttr>(value)) {
      a.kind = Kind::Int;
      a.ints = {i.getValue().getSExtValue()};
    } else if (auto f = dyn_cast<FloatAttr>(value)) {
      a.kind = Kind::Float;
      a.floats = {f.getValueAsDouble()};
    } else if (auto str = dyn_cast<StringAttr>(value)) {
      a.kind = Kind::String;
      a.string = str.str();
    } else if (auto ints = dyn_cast<DenseI64ArrayAttr>(value)) {
      a.kind = Kind::Ints;
      a.ints.assign(ints.asArrayRef().begin(), ints.asArrayRef().end());
    } else if (auto ints32 = dyn_cast<DenseI32ArrayAttr>(value)) {
      a.kind = Kind::Ints;
      a.ints.assign(ints32.asArrayRef().begin(), ints32.asArrayRef().end());
    } else if (auto floats = dyn_cast<DenseF32ArrayAttr>(value)) {
      a.kind = Kind::Floats;
      a.floats.assign(floats.asArrayRef().begin(), floats.asArrayRef().end());
    } else if (auto doubles = dyn_cast<DenseF64ArrayAttr>(value)) {
      a.kind = Kind::Floats;
      a.floats.assign(doubles.asArrayRef().begin(), doubles.asArrayRef().end());
    } else if (auto array = dyn_cast<ArrayAttr>(value)) {
      // [] is an empty Ints; otherwise all integers or all floats.
      a.kind = llvm::all_of(array, [](Attribute e) { return isa<IntegerAttr>(e); })
                   ? Kind::Ints
                   : Kind::Floats;
      for (Attribute element : array) {
        if (auto i = dyn_cast<IntegerAttr>(element); i && a.kind == Kind::Ints)
          a.ints.push_back(i.getValue().getSExtValue());
        else if (auto f = dyn_cast<FloatAttr>(element); f && a.kind == Kind::Floats)
          a.floats.push_back(f.getValueAsDouble());
        else
          ok = false;
      }
    } else {
      ok = false;
    }
    if (!ok)
      return call.emitOpError("attribute '")
             << a.name << "' = " << value
             << " cannot be passed to an external kernel (integers, floats, "
                "strings and arrays of integers or floats can)";
    out.push_back(std::move(a));
  }
  return success();
}

} // namespace

LogicalResult planHost(func::FuncOp host, ArrayRef<KernelInfo> kernels,
                       uint32_t executable, StringRef target,
                       art::ArtifactSpec &spec) {
  // The signature is the same for every target: the first plan fills it.
  // Constants are shared by content: a later plan adds only those its
  // backend's data tiling laid out differently.
  const bool first = spec.plans.empty();
  llvm::StringMap<uint32_t> kernelIndex;
  for (auto [i, kernel] : llvm::enumerate(kernels))
    kernelIndex[kernel.name] = i;

  // Signature.
  auto describe = [&](Type type, DictionaryAttr attrs, std::string fallback,
                      art::TensorSpec &tensor) -> LogicalResult {
    auto ranked = dyn_cast<RankedTensorType>(type);
    if (!ranked || !ranked.hasStaticShape())
      return host.emitError("'") << fallback << "' has a dynamic shape; the "
                                                "CPU back end needs static shapes";
    FailureOr<art::DType> dtype = toDType(ranked.getElementType());
    if (failed(dtype))
      return host.emitError("'") << fallback << "' has unsupported type " << type;
    tensor.name = fallback;
    if (attrs)
      if (auto name = attrs.getAs<StringAttr>("kiln.name"))
        tensor.name = name.str();
    tensor.dtype = *dtype;
    // ONNX uint8 inputs and outputs: i8 inside, U8 to the caller.
    if (attrs && *dtype == art::DType::I8)
      if (auto declared = attrs.getAs<StringAttr>("kiln.dtype"))
        if (declared.getValue() == "u8")
          tensor.dtype = art::DType::U8;
    tensor.dims.assign(ranked.getShape().begin(), ranked.getShape().end());
    return success();
  };
  for (unsigned i = 0; first && i < host.getNumArguments(); ++i) {
    art::TensorSpec tensor;
    if (failed(describe(host.getArgument(i).getType(), host.getArgAttrDict(i),
                        "input_" + std::to_string(i), tensor)))
      return failure();
    spec.inputs.push_back(tensor);
  }
  for (unsigned i = 0; first && i < host.getNumResults(); ++i) {
    art::TensorSpec tensor;
    if (failed(describe(host.getResultTypes()[i], host.getResultAttrDict(i),
                        "output_" + std::to_string(i), tensor)))
      return failure();
    spec.outputs.push_back(tensor);
  }

  DenseMap<Value, Buffer> buffers;
  for (auto [i, arg] : llvm::enumerate(host.getArguments()))
    buffers[arg] = {art::BufferSpace::Input, uint32_t(i), 0,
                    byteSize(cast<RankedTensorType>(arg.getType()))};

  auto ret = cast<func::ReturnOp>(host.getBody().front().getTerminator());
  // The root value behind reshapes.
  auto root = [](Value v) {
    while (Operation *def = v.getDefiningOp()) {
      if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(def))
        break;
      v = def->getOperand(0);
    }
    return v;
  };
  // Dispatch results written straight into an output buffer.
  DenseMap<Value, uint32_t> outputOf;
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    Value source = root(value);
    if (isa_and_nonnull<func::CallOp, CustomCallOp, GemmCallOp>(
            source.getDefiningOp()) &&
        !outputOf.count(source))
      outputOf[source] = i;
  }

  std::vector<ArenaBuffer> arena;
  int64_t step = 0;
  auto touch = [&](Value v) {
    auto it = buffers.find(v);
    if (it != buffers.end() && it->second.space == art::BufferSpace::Arena)
      arena[it->second.index].last = step;
  };
  std::vector<art::StepSpec> steps;
  // The op behind each step (a dispatch call or a custom call).
  std::vector<Operation *> stepOps;
  // Step index -> arena buffer id of the kernel's scratch binding.
  DenseMap<size_t, uint32_t> scratchOf;
  for (Operation &op : host.getBody().front()) {
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      auto elements = dyn_cast<ElementsAttr>(constant.getValue());
      if (!elements)
        continue; // scalars are only used inside dispatches
      FailureOr<std::vector<uint8_t>> bytes = constantBytes(elements);
      if (failed(bytes))
        return constant.emitOpError("constant cannot be serialized");
      if (!first) {
        // A later target shares the constants the earlier ones stored
        // when its bytes are the same (its own data tiling may have
        // packed some differently; those are added).
        auto same = llvm::find_if(spec.constants, [&](const auto &c) {
          return c.data == *bytes;
        });
        if (same != spec.constants.end()) {
          uint32_t index = same - spec.constants.begin();
          buffers[constant.getResult()] = {art::BufferSpace::Constant, index,
                                           0, same->data.size()};
          continue;
        }
      }
      uint32_t index = spec.constants.size();
      art::ConstantSpec c;
      c.name = "constant_" + std::to_string(index);
      if (auto loc = dyn_cast<NameLoc>(constant.getLoc()))
        c.name = loc.getName().str();
      c.data = std::move(*bytes);
      buffers[constant.getResult()] = {art::BufferSpace::Constant, index, 0,
                                       c.data.size()};
      spec.constants.push_back(std::move(c));
      continue;
    }
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op)) {
      auto it = buffers.find(op.getOperand(0));
      if (it == buffers.end())
        return op.emitOpError("reads a value with no buffer");
      // Copy before inserting: the insertion may rehash and move `it`.
      Buffer source = it->second;
      buffers[op.getResult(0)] = source;
      continue;
    }
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
      // A contiguous slice (kiln-form-dispatches left it on the host) is
      // the same bytes at an offset.
      auto it = buffers.find(slice.getSource());
      if (it == buffers.end())
        return op.emitOpError("reads a value with no buffer");
      auto source = slice.getSourceType();
      uint64_t element =
          std::max<uint64_t>(8, source.getElementTypeBitWidth()) / 8;
      uint64_t offset = 0, stride = 1;
      for (int64_t d = source.getRank() - 1; d >= 0; --d) {
        offset += slice.getStaticOffsets()[d] * stride;
        stride *= source.getDimSize(d);
      }
      Buffer view = it->second;
      view.offset += offset * element;
      view.length = byteSize(slice.getType());
      buffers[slice.getResult()] = view;
      continue;
    }
    if (isa<func::ReturnOp>(op))
      break;
    // Results of a dispatch or custom call: the caller's output buffer when
    // a graph output is this value, else an arena buffer live from here.
    auto placeResults = [&](ResultRange results) {
      for (Value result : results) {
        auto type = cast<RankedTensorType>(result.getType());
        auto out = outputOf.find(result);
        if (out != outputOf.end()) {
          buffers[result] = {art::BufferSpace::Output, out->second, 0,
                             byteSize(type)};
        } else {
          buffers[result] = {art::BufferSpace::Arena, uint32_t(arena.size()),
                             0, byteSize(type)};
          arena.push_back({alignUp(std::max<uint64_t>(byteSize(type), 1)),
                           step, step, 0});
        }
      }
    };
    if (auto custom = dyn_cast<CustomCallOp>(op)) {
      // An external kernel (kind b): the runtime resolves the name.
      art::StepSpec s;
      s.kind = art::StepSpec::Kind::CustomCall;
      s.label = "custom_call " + custom.getCallTarget().str();
      s.customCall.op = custom.getCallTarget().str();
      s.customCall.node = nodeName(custom.getLoc());
      auto describeOperand = [&](Value v) -> FailureOr<art::CustomOperandSpec> {
        auto type = dyn_cast<RankedTensorType>(v.getType());
        if (!type || !type.hasStaticShape())
          return custom.emitOpError("has an operand or result of type ")
                 << v.getType() << "; external kernels need static shapes";
        FailureOr<art::DType> dtype = toDType(type.getElementType());
        if (failed(dtype))
          return custom.emitOpError("has an operand or result of type ")
                 << type << ", which the artifact cannot describe";
        art::CustomOperandSpec operand;
        operand.dtype = *dtype;
        operand.dims.assign(type.getShape().begin(), type.getShape().end());
        return operand;
      };
      for (Value operand : custom.getOperands()) {
        if (!buffers.count(operand))
          return custom.emitOpError("reads a value with no buffer");
        FailureOr<art::CustomOperandSpec> described = describeOperand(operand);
        if (failed(described))
          return failure();
        s.customCall.inputs.push_back(*described);
        touch(operand);
      }
      for (Value result : custom.getResults()) {
        FailureOr<art::CustomOperandSpec> described = describeOperand(result);
        if (failed(described))
          return failure();
        s.customCall.outputs.push_back(*described);
      }
      if (failed(serializeAttributes(custom, s.customCall.attributes)))
        return failure();
      placeResults(custom.getResults());
      steps.push_back(std::move(s));
      stepOps.push_back(&op);
      ++step;
      continue;
    }
    if (auto gemm = dyn_cast<GemmCallOp>(op)) {
      // A vendor-library GEMM (GPU plans): its operands are read, its
      // result placed like a dispatch's.
      if (!getElementTypeOrSelf(gemm.getType()).isF32())
        return gemm.emitOpError("has element type ")
               << getElementTypeOrSelf(gemm.getType())
               << "; library GEMMs are f32 only";
      art::StepSpec s;
      s.kind = art::StepSpec::Kind::LibraryCall;
      collectNames(gemm.getLoc(), s.libraryCall.node);
      s.libraryCall.gemm = gemmSpec(gemm);
      s.label = "cublasLt matmul" + (s.libraryCall.node.empty()
                                         ? std::string()
                                         : " " + s.libraryCall.node);
      for (Value operand : gemm->getOperands()) {
        if (!buffers.count(operand))
          return gemm.emitOpError("reads a value with no buffer");
        touch(operand);
      }
      placeResults(gemm->getResults());
      steps.push_back(std::move(s));
      stepOps.push_back(&op);
      ++step;
      continue;
    }
    auto call = dyn_cast<func::CallOp>(op);
    if (!call)
      return op.emitOpError("is left on the host after dispatch formation; "
                            "the CPU back end cannot run it");
    auto kernel = kernelIndex.find(call.getCallee());
    if (kernel == kernelIndex.end())
      return call.emitOpError("calls an unknown dispatch");
    art::StepSpec s;
    s.kind = art::StepSpec::Kind::Dispatch;
    s.label = stepLabel(call);
    s.dispatch.executable = executable;
    s.dispatch.kernel = kernel->second;
    for (int d = 0; d < 3; ++d)
      s.dispatch.workgroups[d] = kernels[kernel->second].workgroups[d];
    // Bindings are filled in after arena placement.
    for (Value operand : call.getOperands()) {
      if (!buffers.count(operand))
        return call.emitOpError("reads a value with no buffer");
      touch(operand);
    }
    placeResults(call.getResults());
    const KernelInfo &info = kernels[kernel->second];
    if (call.getNumOperands() + call.getNumResults() +
            (info.scratchBytes ? 1 : 0) != info.bindingCount)
      return call.emitOpError("passes ")
             << call.getNumOperands() + call.getNumResults()
             << " buffers to kernel '" << info.name << "', which takes "
             << info.bindingCount << " bindings"
             << (info.scratchBytes ? " (the last one its scratch)" : "");
    // Kernel scratch beyond the stack budget: an arena buffer live during
    // this step only, bound last.
    if (uint64_t scratch = info.scratchBytes) {
      scratchOf[steps.size()] = uint32_t(arena.size());
      arena.push_back({alignUp(scratch), step, step, 0});
    }
    steps.push_back(std::move(s));
    stepOps.push_back(&op);
    ++step;
  }
  // Uses by the return keep buffers alive to the end (copies read them).
  for (Value value : ret.getOperands())
    touch(value);

  // Best-fit placement, largest first.
  std::vector<size_t> order(arena.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return arena[a].size > arena[b].size;
  });
  std::vector<size_t> placed;
  uint64_t arenaSize = 0, intermediate = 0;
  for (size_t id : order) {
    ArenaBuffer &buffer = arena[id];
    intermediate += buffer.size;
    std::vector<std::pair<uint64_t, uint64_t>> busy;
    for (size_t other : placed) {
      const ArenaBuffer &o = arena[other];
      if (o.first <= buffer.last && buffer.first <= o.last)
        busy.push_back({o.offset, o.offset + o.size});
    }
    llvm::sort(busy);
    // The smallest gap that fits; else after the last busy range.
    uint64_t bestOffset = UINT64_MAX, bestGap = UINT64_MAX, cursor = 0;
    for (auto [begin, end] : busy) {
      if (begin > cursor && begin - cursor >= buffer.size &&
          begin - cursor < bestGap) {
        bestGap = begin - cursor;
        bestOffset = cursor;
      }
      cursor = std::max(cursor, end);
    }
    buffer.offset = bestOffset != UINT64_MAX ? bestOffset : cursor;
    arenaSize = std::max(arenaSize, buffer.offset + buffer.size);
    placed.push_back(id);
  }

  auto binding = [&](const Buffer &b) {
    art::BindingSpec spec;
    spec.space = b.space;
    spec.length = b.length;
    if (b.space == art::BufferSpace::Arena) {
      spec.index = 0;
      spec.offset = arena[b.index].offset + b.offset;
    } else {
      spec.index = b.index;
      spec.offset = b.offset;
    }
    return spec;
  };
  // Bindings, now that arena offsets are known.
  for (size_t index = 0; index < stepOps.size(); ++index) {
    if (auto custom = dyn_cast<CustomCallOp>(stepOps[index])) {
      art::CustomCallSpec &c = steps[index].customCall;
      for (auto [operand, value] : llvm::zip(c.inputs, custom.getOperands()))
        operand.binding = binding(buffers[value]);
      for (auto [operand, value] : llvm::zip(c.outputs, custom.getResults()))
        operand.binding = binding(buffers[value]);
      continue;
    }
    if (auto gemm = dyn_cast<GemmCallOp>(stepOps[index])) {
      art::GemmCallSpec &g = steps[index].libraryCall.gemm;
      // An absent operand is an empty arena binding.
      auto bind = [&](Value v) {
        return v ? binding(buffers[v]) : art::BindingSpec{};
      };
      g.a = bind(gemm.getA());
      g.b = bind(gemm.getB());
      g.c = bind(gemm.getC());
      g.bias = bind(gemm.getBias());
      g.d = bind(gemm.getD());
      continue;
    }
    auto call = cast<func::CallOp>(stepOps[index]);
    art::DispatchSpec &d = steps[index].dispatch;
    for (Value operand : call.getOperands())
      d.bindings.push_back(binding(buffers[operand]));
    for (Value result : call.getResults())
      d.bindings.push_back(binding(buffers[result]));
    auto scratch = scratchOf.find(index);
    if (scratch != scratchOf.end())
      d.bindings.push_back(binding({art::BufferSpace::Arena, scratch->second, 0,
                                    kernels[d.kernel].scratchBytes}));
  }
  // Outputs not written in place are copied.
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    Value source = root(value);
    auto in = outputOf.find(source);
    if (in != outputOf.end() && in->second == i)
      continue;
    art::StepSpec s;
    s.kind = art::StepSpec::Kind::Copy;
    s.label = "copy to output '" + spec.outputs[i].name + "'";
    s.copy.source = binding(buffers[value]);
    s.copy.target = {art::BufferSpace::Output, uint32_t(i), 0,
                     s.copy.source.length};
    steps.push_back(std::move(s));
  }

  art::PlanSpec plan;
  plan.target = target.str();
  plan.steps = std::move(steps);
  plan.arenaSize = arenaSize;
  plan.intermediateBytes = intermediate;
  spec.plans.push_back(std::move(plan));
  return success();
}

} // namespace mlir::kiln::plan
