//===- Pipeline.h - The Kiln compile pipeline as a library ------*- C++ -*-===//
//
// kilnc only parses flags; everything between a model file and a .kiln
// artifact happens here, in named stages:
//
//   import -> graph-optimization -> lowering -> dispatch-formation
//          -> target-codegen (per backend) -> plan -> emit
//
// Each stage ends at a well-defined IR (Kiln dialect, linalg on tensors,
// host function + dispatch functions, target kernels), which is where
// extra passes hook in: `addPassesAfter(stage, ...)` appends passes that
// run right after the stage's own, `addPassesBefore` runs them first, and
// `addTargetPasses` runs them for one backend only. Pass plugins and
// `kilnc --pass-at` place their passes through these
// (compiler/plugin/PluginLoader.h); the pipeline itself knows nothing of
// plugins, and neither do the backends. A compilation can also stop after
// any stage and hand the IR back (kilnc --emit).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_PIPELINE_PIPELINE_H
#define KILN_COMPILER_PIPELINE_PIPELINE_H

#include "compiler/artifact/ArtifactSpec.h"
#include "compiler/pipeline/TargetBackend.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mlir::kiln {

enum class Stage {
  Import,            // the frontend's Kiln IR, verified
  GraphOptimization, // kiln-graph-cleanup: folding, weight transforms
  Lowering,          // kiln-to-linalg: linalg/tensor/arith/math on tensors
  DispatchFormation, // kiln-form-dispatches: host function + dispatches
  TargetCodegen,     // per backend: lowering configs, kernels
  Plan,              // host plan: steps, arena, constants
  Emit,              // executables and the artifact
};

llvm::StringRef stageName(Stage stage);

struct PipelineOptions {
  // Print each dispatch, its lowering configuration and workgroup counts
  // to stderr (kilnc --dump-dispatches).
  bool dumpDispatches = false;
  // Print the time at which each stage ends to stderr (kilnc --time).
  bool timing = false;
  // Mixed precision (kilnc --precision): fp32 (none), bf16 or fp16. Any
  // other value runs kiln-mixed-precision, which reports it. The pass runs
  // at the end of graph-optimization, so lowering sees 16-bit ops.
  std::string precision = "fp32";
  std::vector<std::string> precisionAllow; // --precision-allow
  std::vector<std::string> precisionDeny;  // --precision-deny
  // INT8 post-training quantization (kilnc --quantize=int8): at the end of
  // graph-optimization, `calibrate` (when set) attaches the activation
  // ranges (compiler/quant/Calibration.h), then kiln-quantize runs with
  // `quantizeDeny`.
  bool quantizeInt8 = false;
  std::vector<std::string> quantizeDeny; // --quantize-deny
  bool quantizeSoftmaxOperands = false;  // --quantize-softmax-outputs
  std::function<LogicalResult(ModuleOp)> calibrate;
  // kiln-channels-last at the end of graph-optimization (after precision
  // and quantization, so it sees the convolutions that stay f32): kilnc
  // --conv-layout=auto sets it for CPU targets. Off by default: a
  // calibration build observes the convolutions' NCHW inputs.
  bool channelsLast = false;
  // kiln-fuse-attention at the very end of graph-optimization, and
  // kiln.attention kept through lowering for the backend's own kernel
  // (the CPU backend's online-softmax kernel): kilnc --attention=fused
  // sets it for CPU-only targets.
  bool fuseAttention = false;
};

class Pipeline {
public:
  // Adds passes to a pass manager anchored on builtin.module; a failure
  // (reported by the hook) fails the compilation.
  using PassHook = std::function<LogicalResult(OpPassManager &)>;

  Pipeline(MLIRContext &context, PipelineOptions options);

  // Adds a backend; artifacts get one executable and one plan per backend,
  // in the order they were added.
  void addBackend(std::unique_ptr<TargetBackend> backend);

  // Extra passes on the whole module right after `stage`'s own passes
  // (import: before graph-optimization's; graph-optimization, lowering or
  // dispatch-formation), or on each backend's dispatch module after it
  // configured the dispatches and before its kernels are generated
  // (target-codegen). Hooks of one stage run in the order they were added.
  void addPassesAfter(Stage stage, PassHook hook);

  // Extra passes on the whole module right before `stage`'s own passes
  // (graph-optimization, lowering or dispatch-formation), after every
  // hook of the stage before.
  void addPassesBefore(Stage stage, PassHook hook);

  // Like addPassesAfter(Stage::TargetCodegen, hook), for the backend named
  // `backend` only; run after the hooks for every backend.
  void addTargetPasses(llvm::StringRef backend, PassHook hook);

  // Runs the module-level stages after import, up to and including `last`
  // (at most DispatchFormation). Diagnostics go to the context's handler.
  LogicalResult runUntil(ModuleOp module, Stage last);

  // The whole pipeline after import: fills `spec` with the signature,
  // constants, one executable and one plan per backend.
  LogicalResult compile(ModuleOp module, ::kiln::artifact::ArtifactSpec &spec,
                        std::string &error);

  // For `--emit=llvm`: runs the first backend's codegen on a copy of the
  // dispatch functions and returns the kernel module.
  FailureOr<OwningOpRef<ModuleOp>> generateKernelModule(ModuleOp module);

private:
  FailureOr<OwningOpRef<ModuleOp>>
  generateKernels(ModuleOp module, TargetBackend &backend,
                  llvm::SmallVector<KernelInfo> &table);
  struct Hook {
    Stage stage;
    bool before;
    std::string backend; // target-codegen only; empty: every backend
    PassHook addPasses;
  };

  LogicalResult runHooks(ModuleOp module, Stage stage, bool before,
                         llvm::StringRef backend = "");
  LogicalResult quantize(ModuleOp module);
  void stageDone(Stage stage);

  MLIRContext &context;
  PipelineOptions options;
  std::vector<std::unique_ptr<TargetBackend>> backends;
  std::vector<Hook> hooks;
  double startSeconds = 0;
};

// Prints one line per dispatch of `dispatches`: name, how often `callers`
// (default: the same module) calls it, the ops it holds and its result
// types; then one `  nodes: "A" "B"` line per call with the names in the
// call's location (the ONNX nodes it computes, escaped as in C strings),
// then its lowering configuration when one is set.
void printDispatches(ModuleOp dispatches, llvm::raw_ostream &os,
                     ModuleOp callers = nullptr);

// The names of the NameLocs in `loc` (through fused and call-site
// locations), each once, in order.
void collectLocationNames(Location loc, llvm::SmallVectorImpl<std::string> &names);

// A debugging aid for kiln-compare's tests (kilnc --debug-perturb-node):
// after lowering, adds `delta` to the float result of the last op that
// node `node` produced, so that the compiled model is wrong from that node
// on. Fails at that stage when no such op exists.
void addPerturbNodeHook(Pipeline &pipeline, std::string node, float delta);

} // namespace mlir::kiln

#endif // KILN_COMPILER_PIPELINE_PIPELINE_H
