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

std::optional<unsigned>
quantizableActivation(Operation *op, const QuantizeSettings &settings) {
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    // x @ W with W a constant matrix: W's columns are the output channels.
    if (!isF32Tensor(matmul.getLhs(), 2) || !isF32Constant(matmul.getRhs()) ||
        cast<RankedTensorType>(matmul.getRhs().getType()).getRank() != 2 ||
        settings.deniedOps.contains("matmul") ||
        isDeniedNode(op, settings.deniedNodes))
      return std::nullopt;
    return 0;
  }
  if (auto conv = dyn_cast<ConvOp>(op)) {
    if (!isF32Tensor(conv.getInput(), 3) || !isF32Constant(conv.getFilter()) ||
        (conv.getBias() && !isF32Constant(conv.getBias())) ||
        settings.deniedOps.contains("conv") ||
        isDeniedNode(op, settings.deniedNodes))
      return std::nullopt;
    return 0;
  }
  return std::nullopt;
}

} // namespace mlir::kiln
