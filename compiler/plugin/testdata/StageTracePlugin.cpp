//===- StageTracePlugin.cpp - A test plugin that reports every stage -----===//
//
// Places one pass at every plugin stage (textual pipelines for most, a
// factory for before-codegen.cpu) that prints what the IR holds there to
// stderr, one line per run:
//
//   kiln-test-trace: STAGE funcs=F dispatches=D kiln=K linalg=L configs=C
//
// F: func.func ops; D: those marked kiln.dispatch; K, L: ops of the kiln
// and linalg dialects; C: dispatches with a kiln.lowering_config. The lit
// test tests/lit/tools/kilnc-plugin-stages.test checks the order of the
// stages and that each sees the IR KilnPlugin.h promises.
//
//===----------------------------------------------------------------------===//
#include "compiler/plugin/KilnPlugin.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/raw_ostream.h"

namespace {

class TraceStagePass
    : public mlir::PassWrapper<TraceStagePass,
                               mlir::OperationPass<mlir::ModuleOp>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TraceStagePass)

  TraceStagePass() = default;
  TraceStagePass(const TraceStagePass &other) : PassWrapper(other) {}
  explicit TraceStagePass(llvm::StringRef name) { stage = name.str(); }

  llvm::StringRef getArgument() const final { return "kiln-test-trace-stage"; }
  llvm::StringRef getDescription() const final {
    return "Prints what the module holds (a test of plugin stages)";
  }

  void runOnOperation() override {
    int64_t funcs = 0, dispatches = 0, kiln = 0, linalg = 0, configs = 0;
    getOperation().walk([&](mlir::Operation *op) {
      llvm::StringRef dialect = op->getName().getDialectNamespace();
      kiln += dialect == "kiln";
      linalg += dialect == "linalg";
      if (auto func = llvm::dyn_cast<mlir::func::FuncOp>(op)) {
        ++funcs;
        dispatches += func->hasAttr("kiln.dispatch");
        configs += func->hasAttr("kiln.lowering_config");
      }
    });
    llvm::errs() << "kiln-test-trace: " << stage << " funcs=" << funcs
                 << " dispatches=" << dispatches << " kiln=" << kiln
                 << " linalg=" << linalg << " configs=" << configs << "\n";
  }

  Option<std::string> stage{*this, "stage", llvm::cl::desc("Stage name")};
};

void registerPlugin(mlir::kiln::PluginRegistrar &registrar) {
  using mlir::kiln::PluginStage;
  mlir::PassRegistration<TraceStagePass>();
  // Added in reverse order: the pipeline, not the order of calls, decides
  // when each runs.
  registrar.addPass(PluginStage::BeforeCodegen,
                    [] { return std::make_unique<TraceStagePass>("before-codegen.cpu"); },
                    "cpu");
  registrar.addPass(PluginStage::BeforeCodegen,
                    "kiln-test-trace-stage{stage=before-codegen}");
  registrar.addPass(PluginStage::AfterDispatchFormation,
                    "builtin.module(kiln-test-trace-stage{stage=after-dispatch-formation})");
  registrar.addPass(PluginStage::BeforeLowering,
                    "kiln-test-trace-stage{stage=before-lowering}");
  registrar.addPass(PluginStage::AfterGraphOptimization,
                    "kiln-test-trace-stage{stage=after-graph-optimization}");
  registrar.addPass(PluginStage::AfterImport,
                    "kiln-test-trace-stage{stage=after-import}");
  // Never runs in kilnc's tests: no backend is called "gpu".
  registrar.addPass(PluginStage::BeforeCodegen,
                    "kiln-test-trace-stage{stage=before-codegen.gpu}", "gpu");
}

} // namespace

extern "C" KILN_PLUGIN_EXPORT const KilnPluginInfo *kilnGetPluginInfo() {
  static const KilnPluginInfo info = {KILN_PLUGIN_API_VERSION,
                                      KILN_VERSION_STRING, "kiln-test-stage-trace",
                                      registerPlugin};
  return &info;
}
