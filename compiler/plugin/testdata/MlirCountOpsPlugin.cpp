//===- MlirCountOpsPlugin.cpp - An MLIR pass plugin, not a Kiln one -------===//
//
// A plain MLIR pass plugin (mlirGetPassPluginInfo, no kilnGetPluginInfo):
// kiln-opt hands such a file to MLIR's own loader, so the plugins written
// for mlir-opt keep working there (tests/lit/tools/pass-plugin.mlir);
// kilnc refuses it. Its pass annotates each function with how many Kiln
// ops it holds (`kiln.op_count`).
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

namespace {

class CountKilnOpsPass
    : public mlir::PassWrapper<CountKilnOpsPass,
                               mlir::OperationPass<mlir::func::FuncOp>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CountKilnOpsPass)

  llvm::StringRef getArgument() const final { return "example-count-kiln-ops"; }
  llvm::StringRef getDescription() const final {
    return "Annotates each function with the number of Kiln ops it holds";
  }

  void runOnOperation() override {
    mlir::func::FuncOp function = getOperation();
    int64_t count = 0;
    // Compare the dialect namespace rather than linking the Kiln dialect:
    // the plugin must not carry a second copy of it.
    function.walk([&](mlir::Operation *op) {
      if (op->getName().getDialectNamespace() == "kiln")
        ++count;
    });
    mlir::Builder builder(function.getContext());
    function->setAttr("kiln.op_count", builder.getI64IntegerAttr(count));
  }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "KilnTestMlirCountOps", LLVM_VERSION_STRING,
          []() { mlir::PassRegistration<CountKilnOpsPass>(); }};
}
