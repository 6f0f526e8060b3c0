//===- ClashingPassPlugin.cpp - A plugin whose pass takes a built-in name ===//
//
// Registers a pass under the name "cse", which MLIR's own pass has: MLIR
// reports the clash as a fatal error, which the loader turns into an error
// naming the plugin and exit status 1 instead of an abort.
//
//===----------------------------------------------------------------------===//
#include "compiler/plugin/KilnPlugin.h"

#include "mlir/IR/BuiltinOps.h"

namespace {

class ClashingPass
    : public mlir::PassWrapper<ClashingPass, mlir::OperationPass<mlir::ModuleOp>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ClashingPass)
  llvm::StringRef getArgument() const final { return "cse"; }
  void runOnOperation() override {}
};

void registerPlugin(mlir::kiln::PluginRegistrar &) {
  mlir::PassRegistration<ClashingPass>();
}

} // namespace

extern "C" KILN_PLUGIN_EXPORT const KilnPluginInfo *kilnGetPluginInfo() {
  static const KilnPluginInfo info = {KILN_PLUGIN_API_VERSION,
                                      KILN_VERSION_STRING,
                                      "kiln-test-clashing-pass", registerPlugin};
  return &info;
}
