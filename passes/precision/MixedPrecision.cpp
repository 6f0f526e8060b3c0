//===- MixedPrecision.cpp - kiln-mixed-precision --------------------------===//
//
// Moves contractions (matmul, conv) and the allowed ops connected to them
// into bf16 or fp16. The pass works on whole regions: it first finds every
// allowed op reachable from a contraction through allowed ops (epilogues,
// and the elementwise and data-movement ops between two contractions),
// then rewrites those ops in block order, so a region's inner edges need
// no casts at all and only its boundary gets `kiln.cast`s. Constants that
// feed a region are converted here, once, rather than cast on every run.
//
// Accumulation in f32 is the lowering's job (a 16-bit matmul or conv
// accumulates in f32 and rounds its result once); this pass only chooses
// types.
//
//===----------------------------------------------------------------------===//
#include "passes/precision/MixedPrecision.h"

#include "dialects/kiln/ConstantFolding.h"
#include "dialects/kiln/KilnDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::kiln {

#define GEN_PASS_DEF_MIXEDPRECISION
#include "passes/Passes.h.inc"

namespace {

llvm::SmallVector<llvm::StringRef> splitList(llvm::StringRef list) {
  llvm::SmallVector<llvm::StringRef> names;
  list.split(names, ' ', -1, /*KeepEmpty=*/false);
  return names;
}

bool isContraction(llvm::StringRef name) {
  return name == "matmul" || name == "conv";
}

bool isF32Tensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getElementType().isF32();
}

bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

// An op may move to 16 bits when every float tensor it reads or writes is
// f32 and it writes at least one (f64 and already-16-bit ops stay as they
// are).
bool hasF32Signature(Operation *op) {
  bool any = false;
  for (Type type : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
    if (!isFloatTensor(type))
      continue;
    if (!isF32Tensor(type))
      return false;
    any = true;
  }
  return any && llvm::any_of(op->getResultTypes(), isF32Tensor);
}

// A convolution of the image itself (one group, fewer than 4 input
// channels: a CNN's stem, ResNet's 7x7 over RGB) stays f32. Its filter is
// small (C*kh*kw = 147 values per output channel in ResNet's), so 16 bits
// save little memory, and that short, odd reduction fits neither the pair
// dot (vdpbf16ps, K in pairs) nor the tile unit (K in 32s): in 16 bits it
// took an im2col dispatch and packed panels, 2.5x the time of the f32
// kernel that gathers the image in place (ResNet-18-style on Sapphire
// Rapids, 0.84 against 0.33 ms). The region then starts at the stem's
// result, with one cast fused into the stem's epilogue.
bool isImageStem(Operation *op) {
  if (op->getName().stripDialect() != "conv" || op->getNumOperands() < 2)
    return false;
  auto groups = op->getAttrOfType<IntegerAttr>("groups");
  if (groups && groups.getInt() != 1)
    return false;
  auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  return input && input.getRank() >= 3 && !input.isDynamicDim(1) &&
         input.getDimSize(1) < 4;
}

Type toHalf(Type type, Type half) {
  if (!isF32Tensor(type))
    return type;
  return cast<RankedTensorType>(type).clone(half);
}

// f32 -> 16-bit storage, rounding to nearest even (as the runtime's casts
// do). nullptr when the constant is not a readable dense f32 tensor.
ElementsAttr convertConstant(Attribute value, FloatType half) {
  std::optional<RawElements> raw = readRawElements(value);
  if (!raw || raw->elementBytes != 4)
    return nullptr;
  RankedTensorType type = raw->type.clone(half);
  auto convert = [&](const char *bytes) {
    float f;
    std::memcpy(&f, bytes, sizeof f);
    llvm::APFloat v(f);
    bool lost = false;
    v.convert(half.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    return v;
  };
  if (raw->isSplat)
    return DenseElementsAttr::get(type, convert(raw->at(0)));
  int64_t count = type.getNumElements();
  std::vector<uint16_t> bits(count);
  for (int64_t i = 0; i < count; ++i)
    bits[i] = static_cast<uint16_t>(
        convert(raw->at(i)).bitcastToAPInt().getZExtValue());
  return DenseElementsAttr::getFromRawBuffer(
      type, llvm::ArrayRef<char>(reinterpret_cast<const char *>(bits.data()),
                                 bits.size() * sizeof(uint16_t)));
}

Value createCast(OpBuilder &b, Location loc, Value input, Type element) {
  OperationState state(loc, "kiln.cast");
  state.addOperands(input);
  state.addAttribute("to", TypeAttr::get(element));
  state.addTypes(cast<RankedTensorType>(input.getType()).clone(element));
  return b.create(state)->getResult(0);
}

class MixedPrecisionPass : public impl::MixedPrecisionBase<MixedPrecisionPass> {
public:
  using impl::MixedPrecisionBase<MixedPrecisionPass>::MixedPrecisionBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    PrecisionSettings settings;
    std::string error;
    if (!parsePrecisionSettings(&getContext(), precision, allow, deny,
                                settings, error)) {
      module.emitError() << "kiln-mixed-precision: " << error;
      return signalPassFailure();
    }
    llvm::StringSet<> allowed;
    for (const std::string &name : settings.allowed)
      allowed.insert(name);
    MLIRContext *ctx = &getContext();
    FloatType half = settings.bf16 ? FloatType(BFloat16Type::get(ctx))
                                   : FloatType(Float16Type::get(ctx));
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        convertFunction(func, allowed, half);
  }

private:
  void convertFunction(func::FuncOp func, const llvm::StringSet<> &allowed,
                       FloatType half) {
    auto candidate = [&](Operation *op) {
      return op->getName().getDialectNamespace() == "kiln" &&
             allowed.contains(op->getName().stripDialect()) &&
             hasF32Signature(op) && !isImageStem(op);
    };
    // Regions: grow from every allowed contraction through allowed ops,
    // along f32 tensors in both directions.
    llvm::SetVector<Operation *> region;
    llvm::SmallVector<Operation *> work;
    func.walk([&](Operation *op) {
      if (candidate(op) && isContraction(op->getName().stripDialect()) &&
          region.insert(op))
        work.push_back(op);
    });
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      auto visit = [&](Operation *other) {
        if (other && candidate(other) && region.insert(other))
          work.push_back(other);
      };
      for (Value operand : op->getOperands())
        if (isF32Tensor(operand.getType()))
          visit(operand.getDefiningOp());
      for (Value result : op->getResults())
        if (isF32Tensor(result.getType()))
          for (Operation *user : result.getUsers())
            visit(user);
    }
    if (region.empty())
      return;

    // Rewrite in block order, so every producer inside a region is
    // converted before its users.
    llvm::DenseMap<Value, Value> halfOf; // f32 value -> its 16-bit version
    OpBuilder b(func.getContext());
    auto halfValue = [&](Value v) -> Value {
      if (Value known = halfOf.lookup(v))
        return known;
      Value converted;
      Operation *def = v.getDefiningOp();
      // A cast back to f32 out of a 16-bit value: use the 16-bit value
      // (the cancelling pair folds away; the f32 cast dies if unused).
      if (def && def->getName().getStringRef() == "kiln.cast" &&
          cast<RankedTensorType>(def->getOperand(0).getType())
                  .getElementType() == half) {
        converted = def->getOperand(0);
      } else if (def && def->getName().getStringRef() == "kiln.constant") {
        if (ElementsAttr attr = convertConstant(
                def->getAttrOfType<ElementsAttr>("value"), half)) {
          b.setInsertionPointAfter(def);
          OperationState state(def->getLoc(), "kiln.constant");
          state.addAttribute("value", attr);
          state.addTypes(attr.getType());
          converted = b.create(state)->getResult(0);
        }
      }
      if (!converted) {
        if (def)
          b.setInsertionPointAfter(def);
        else
          b.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
        converted = createCast(b, v.getLoc(), v, half);
      }
      halfOf[v] = converted;
      return converted;
    };
    llvm::SmallVector<Operation *> ordered;
    func.walk([&](Operation *op) {
      if (region.contains(op))
        ordered.push_back(op);
    });
    for (Operation *op : ordered) {
      OperationState state(op->getLoc(), op->getName());
      for (Value operand : op->getOperands())
        state.addOperands(isF32Tensor(operand.getType()) ? halfValue(operand)
                                                         : operand);
      state.addAttributes(op->getAttrs());
      for (Type type : op->getResultTypes())
        state.addTypes(toHalf(type, half));
      b.setInsertionPoint(op);
      Operation *converted = b.create(state);
      for (auto [oldResult, newResult] :
           llvm::zip(op->getResults(), converted->getResults())) {
        if (!isF32Tensor(oldResult.getType())) {
          oldResult.replaceAllUsesWith(newResult);
          continue;
        }
        // Users outside the region read an f32 copy; users inside find
        // the 16-bit value through halfOf (or through the cast).
        Value back = createCast(b, op->getLoc(), newResult,
                                b.getF32Type());
        oldResult.replaceAllUsesWith(back);
        halfOf[back] = newResult;
      }
      op->erase();
    }
    // Casts and constants that nothing reads any more (the f32 side of
    // cancelled pairs, replaced weights).
    llvm::SmallVector<Operation *> dead;
    func.walk([&](Operation *op) {
      llvm::StringRef name = op->getName().getStringRef();
      if ((name == "kiln.cast" || name == "kiln.constant") && op->use_empty())
        dead.push_back(op);
    });
    // Reverse order: a dead cast may be the last user of a constant.
    for (Operation *op : llvm::reverse(dead))
      op->erase();
    func.walk([&](Operation *op) {
      if (op->getName().getStringRef() == "kiln.constant" && op->use_empty())
        op->erase();
    });
  }
};

} // namespace

bool parsePrecisionSettings(MLIRContext *context, llvm::StringRef precision,
                            llvm::ArrayRef<std::string> allow,
                            llvm::ArrayRef<std::string> deny,
                            PrecisionSettings &settings, std::string &error) {
  if (precision == "bf16") {
    settings.bf16 = true;
  } else if (precision == "fp16") {
    settings.bf16 = false;
  } else {
    error = "unknown precision '" + precision.str() +
            "' (expected bf16 or fp16)";
    return false;
  }
  context->getOrLoadDialect<KilnDialect>();
  llvm::StringSet<> known;
  for (RegisteredOperationName op : context->getRegisteredOperations())
    if (op.getDialectNamespace() == "kiln")
      known.insert(op.stripDialect());
  llvm::StringSet<> denied;
  for (llvm::StringRef name : splitList(kPrecisionDeniedOps))
    denied.insert(name);
  auto check = [&](llvm::StringRef name, llvm::StringRef list) {
    if (!known.contains(name)) {
      error = "unknown Kiln op '" + name.str() + "' in the " + list.str() +
              " list (use Kiln op names such as matmul, add, gelu)";
      return false;
    }
    return true;
  };
  for (const std::string &name : deny) {
    if (!check(name, "deny"))
      return false;
    denied.insert(name);
  }
  std::vector<std::string> allowed;
  llvm::StringSet<> seen;
  auto add = [&](llvm::StringRef name) {
    if (seen.insert(name).second)
      allowed.push_back(name.str());
  };
  for (llvm::StringRef name : splitList(kPrecisionAllowedOps))
    add(name);
  for (const std::string &name : allow) {
    if (!check(name, "allow"))
      return false;
    if (llvm::is_contained(splitList(kPrecisionDeniedOps), name)) {
      error = "'" + name + "' always stays f32 and cannot be allowed";
      return false;
    }
    if (name == "constant" || name == "cast" || name == "custom_call") {
      error = "'" + name + "' has no 16-bit form and cannot be allowed";
      return false;
    }
    add(name);
  }
  settings.allowed.clear();
  for (const std::string &name : allowed)
    if (!denied.contains(name))
      settings.allowed.push_back(name);
  return true;
}

} // namespace mlir::kiln
