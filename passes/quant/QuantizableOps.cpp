//===- QuantizableOps.cpp - The ops kiln-quantize quantizes ---------------===//
//
// One definition of "quantizable", used by calibration (to choose the
// tensors it observes) and by kiln-quantize (to choose the ops it
// rewrites), so every op the pass quantizes has a calibrated range.
//
//===----------------------------------------------------------------------===//
#include "passes/quant/Quantize.h"

#include "dialects/kiln/KilnDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::kiln {

namespace {

bool isF32Tensor(Value value, int64_t minRank) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.getElementType().isF32() && type.getRank() >= minRank;
}

bool isF32Constant(Value value) {
  return value.getDefiningOp<ConstantOp>() && isF32Tensor(value, 0);
}

void collectNames(Location loc, llvm::StringSet<> &names) {
  if (auto named = dyn_cast<NameLoc>(loc))
    names.insert(named.getName().strref());
  else if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location part : fused.getLocations())
      collectNames(part, names);
  else if (auto site = dyn_cast<CallSiteLoc>(loc))
    collectNames(site.getCallee(), names);
}

// Whether `v` is a softmax's output, looking through data movement.
bool isSoftmaxOutput(Value v) {
  while (Operation *producer = v.getDefiningOp()) {
    if (isa<SoftmaxOp>(producer))
      return true;
    if (!isa<ReshapeOp, TransposeOp>(producer))
      return false;
    v = producer->getOperand(0);
  }
  return false;
}

bool isDeniedNode(Operation *op, const llvm::StringSet<> &nodes) {
  if (nodes.empty())
    return false;
  llvm::StringSet<> names;
  collectNames(op->getLoc(), names);
  return llvm::any_of(names, [&](const auto &name) {
    return nodes.contains(name.getKey());
  });
}

} // namespace

bool parseQuantizeSettings(Operation *module, llvm::ArrayRef<std::string> deny,
                           QuantizeSettings &settings, std::string &error) {
  settings = QuantizeSettings();
  llvm::SmallVector<llvm::StringRef> quantizable;
  llvm::StringRef(kQuantizableOps).split(quantizable, ' ');
  llvm::StringSet<> nodeNames;
  if (module)
    module->walk([&](Operation *op) { collectNames(op->getLoc(), nodeNames); });
  for (const std::string &name : deny) {
    if (name.empty())
      continue;
    if (llvm::is_contained(quantizable, name)) {
      settings.deniedOps.insert(name);
      continue;
    }
    // kiln.* ops that are never quantized are a mistake worth naming (the
    // user may expect e.g. `softmax` to be quantized otherwise).
    MLIRContext *context = module ? module->getContext() : nullptr;
    if (context &&
        RegisteredOperationName::lookup("kiln." + name, context)) {
      error = "'" + name + "' is never quantized (quantized ops: " +
              std::string(kQuantizableOps) + ")";
      return false;
    }
    if (module && !nodeNames.contains(name)) {
      error = "'" + name + "' is neither a quantized op (" +
              std::string(kQuantizableOps) +
              ") nor the name of a node of the model";
      return false;
    }
    settings.deniedNodes.insert(name);
  }
  return true;
}

SmallVector<unsigned, 2>
quantizableActivations(Operation *op, const QuantizeSettings &settings) {
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    // Rank >= 2 on both sides: a constant operand is a weight (quantized
    // per output channel: the rhs's columns, the lhs's rows), a computed
    // one an activation. Two constants fold away; nothing to quantize.
    Value lhs = matmul.getLhs(), rhs = matmul.getRhs();
    if (!isF32Tensor(lhs, 2) || !isF32Tensor(rhs, 2) ||
        settings.deniedOps.contains("matmul") ||
        isDeniedNode(op, settings.deniedNodes))
      return {};
    bool lhsConst = isF32Constant(lhs), rhsConst = isF32Constant(rhs);
    if (lhsConst && rhsConst)
      return {};
    if (rhsConst)
      return {0};
    if (lhsConst)
      return {1};
    if (!settings.softmaxOperands &&
        (isSoftmaxOutput(lhs) || isSoftmaxOutput(rhs)))
      return {};
    return {0, 1};
  }
  if (auto conv = dyn_cast<ConvOp>(op)) {
    if (!isF32Tensor(conv.getInput(), 3) || !isF32Constant(conv.getFilter()) ||
        (conv.getBias() && !isF32Constant(conv.getBias())) ||
        settings.deniedOps.contains("conv") ||
        isDeniedNode(op, settings.deniedNodes))
      return {};
    return {0};
  }
  return {};
}

} // namespace mlir::kiln
