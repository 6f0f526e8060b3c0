//===- Pipeline.cpp - The Kiln compile pipeline as a library --------------===//
#include "compiler/pipeline/Pipeline.h"

#include "compiler/plan/HostPlan.h"
#include "dialects/kiln/KilnDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace mlir::kiln {

namespace {

double nowSeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A copy of `module` with only its dispatch functions, for one backend.
OwningOpRef<ModuleOp> dispatchModule(ModuleOp module) {
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
  for (auto func : llvm::make_early_inc_range(copy->getOps<func::FuncOp>()))
    if (!func->hasAttr("kiln.dispatch"))
      func.erase();
  return copy;
}

} // namespace

llvm::StringRef stageName(Stage stage) {
  switch (stage) {
  case Stage::Import:
    return "import";
  case Stage::GraphOptimization:
    return "graph-optimization";
  case Stage::Lowering:
    return "lowering";
  case Stage::DispatchFormation:
    return "dispatch-formation";
  case Stage::TargetCodegen:
    return "target-codegen";
  case Stage::Plan:
    return "plan";
  case Stage::Emit:
    return "emit";
  }
  return "";
}

Pipeline::Pipeline(MLIRContext &context, PipelineOptions options)
    : context(context), options(options), startSeconds(nowSeconds()) {}

void Pipeline::addBackend(std::unique_ptr<TargetBackend> backend) {
  backends.push_back(std::move(backend));
}

void Pipeline::addPassesAfter(Stage stage, PassHook hook) {
  hooks.push_back({stage, /*before=*/false, "", std::move(hook)});
}

void Pipeline::addPassesBefore(Stage stage, PassHook hook) {
  hooks.push_back({stage, /*before=*/true, "", std::move(hook)});
}

void Pipeline::addTargetPasses(llvm::StringRef backend, PassHook hook) {
  hooks.push_back(
      {Stage::TargetCodegen, /*before=*/false, backend.str(), std::move(hook)});
}

void Pipeline::stageDone(Stage stage) {
  if (options.timing)
    llvm::errs() << "kilnc: " << stageName(stage) << " done at "
                 << llvm::format("%.3f", nowSeconds() - startSeconds)
                 << " s\n";
}

LogicalResult Pipeline::runHooks(ModuleOp module, Stage stage, bool before,
                                 llvm::StringRef backend) {
  PassManager pm(&context);
  bool any = false;
  // Hooks for every backend first, then the backend's own.
  for (bool forOneBackend : {false, true}) {
    for (Hook &hook : hooks) {
      if (hook.stage != stage || hook.before != before ||
          hook.backend.empty() == forOneBackend ||
          (forOneBackend && hook.backend != backend))
        continue;
      if (failed(hook.addPasses(pm)))
        return failure();
      any = true;
    }
  }
  return any ? pm.run(module) : success();
}

LogicalResult Pipeline::runUntil(ModuleOp module, Stage last) {
  struct StagePasses {
    Stage stage;
    std::function<std::unique_ptr<Pass>()> create;
  };
  const StagePasses stages[] = {
      {Stage::GraphOptimization, [] { return createGraphCleanup(); }},
      {Stage::Lowering,
       [this] {
         KilnToLinalgOptions lowering;
         lowering.keepAttention = options.fuseAttention;
         return createKilnToLinalg(lowering);
       }},
      {Stage::DispatchFormation, [] { return createFormDispatches(); }},
  };
  if (failed(runHooks(module, Stage::Import, /*before=*/false)))
    return failure();
  for (const StagePasses &s : stages) {
    if (static_cast<int>(s.stage) > static_cast<int>(last))
      break;
    if (failed(runHooks(module, s.stage, /*before=*/true)))
      return failure();
    PassManager pm(&context);
    pm.addPass(s.create());
    if (s.stage == Stage::GraphOptimization) {
      // Contractions of dequantized int8 values become integer ones; the
      // corrections they add may fold further.
      pm.addPass(createFoldQdq());
      pm.addPass(createGraphCleanup());
    }
    if (s.stage == Stage::GraphOptimization && options.precision != "fp32") {
      MixedPrecisionOptions precision;
      precision.precision = options.precision;
      precision.allow.assign(options.precisionAllow.begin(),
                             options.precisionAllow.end());
      precision.deny.assign(options.precisionDeny.begin(),
                            options.precisionDeny.end());
      pm.addPass(createMixedPrecision(precision));
      // The region edges may leave constants that fold (casts of splats).
      pm.addPass(createGraphCleanup());
    }
    if (failed(pm.run(module)))
      return failure();
    if (s.stage == Stage::GraphOptimization && options.quantizeInt8 &&
        failed(quantize(module)))
      return failure();
    if (s.stage == Stage::GraphOptimization && options.channelsLast) {
      PassManager layout(&context);
      layout.addPass(createChannelsLast());
      if (failed(layout.run(module)))
        return failure();
    }
    // Last: the matmuls that mixed precision or quantization rewrote stay
    // theirs.
    if (s.stage == Stage::GraphOptimization && options.fuseAttention) {
      PassManager attention(&context);
      attention.addPass(createFuseAttention());
      if (failed(attention.run(module)))
        return failure();
    }
    if (failed(runHooks(module, s.stage, /*before=*/false)))
      return failure();
    stageDone(s.stage);
  }
  return success();
}

LogicalResult Pipeline::quantize(ModuleOp module) {
  // Calibration runs on the graph as the quantized model will see it:
  // after clean-up (BatchNorm folded into conv weights, constants laid
  // out), so the observed tensors are exactly the contractions' inputs.
  if (options.calibrate && failed(options.calibrate(module)))
    return failure();
  PassManager pm(&context);
  QuantizeOptions quantize;
  quantize.deny.assign(options.quantizeDeny.begin(), options.quantizeDeny.end());
  quantize.softmaxOperands = options.quantizeSoftmaxOperands;
  pm.addPass(createQuantize(quantize));
  // Zero-point corrections and the f32 weights of unfolded contractions
  // fold to constants.
  pm.addPass(createGraphCleanup());
  return pm.run(module);
}

FailureOr<OwningOpRef<ModuleOp>>
Pipeline::generateKernels(ModuleOp module, TargetBackend &backend,
                          SmallVector<KernelInfo> &table) {
  OwningOpRef<ModuleOp> kernels = dispatchModule(module);
  if (failed(backend.configureDispatches(*kernels)) ||
      failed(runHooks(*kernels, Stage::TargetCodegen, /*before=*/false,
                      backend.name())))
    return failure();
  if (options.dumpDispatches)
    printDispatches(*kernels, llvm::errs(), module);
  FailureOr<SmallVector<KernelInfo>> generated =
      backend.generateKernels(*kernels);
  if (failed(generated))
    return failure();
  table = std::move(*generated);
  if (options.dumpDispatches)
    for (const KernelInfo &k : table)
      llvm::errs() << k.name << ": workgroups " << k.workgroups[0] << "x"
                   << k.workgroups[1] << "x" << k.workgroups[2] << ", "
                   << k.bindingCount << " bindings\n";
  return kernels;
}

FailureOr<OwningOpRef<ModuleOp>> Pipeline::generateKernelModule(ModuleOp module) {
  if (backends.empty())
    return module.emitError("no target backend");
  if (failed(runUntil(module, Stage::DispatchFormation)) ||
      failed(backends.front()->packConstants(module)) ||
      failed(backends.front()->formLibraryCalls(module)))
    return failure();
  SmallVector<KernelInfo> table;
  return generateKernels(module, *backends.front(), table);
}

LogicalResult Pipeline::compile(ModuleOp module,
                                ::kiln::artifact::ArtifactSpec &spec,
                                std::string &error) {
  if (backends.empty()) {
    error = "no target backend";
    return failure();
  }
  if (failed(runUntil(module, Stage::DispatchFormation)))
    return failure();
  auto hostOf = [](ModuleOp m) {
    func::FuncOp host;
    for (auto func : m.getOps<func::FuncOp>())
      if (!func->hasAttr("kiln.dispatch"))
        host = func;
    return host;
  };
  if (!hostOf(module)) {
    error = "the model has no graph function";
    return failure();
  }
  for (auto [index, backend] : llvm::enumerate(backends)) {
    // Each backend packs constants for its own kernels (data tiling), so
    // it works on its own copy of the host function and dispatches.
    OwningOpRef<ModuleOp> targetModule(cast<ModuleOp>(module->clone()));
    if (failed(backend->packConstants(*targetModule)) ||
        failed(backend->formLibraryCalls(*targetModule)))
      return failure();
    func::FuncOp host = hostOf(*targetModule);
    SmallVector<KernelInfo> table;
    FailureOr<OwningOpRef<ModuleOp>> kernels =
        generateKernels(*targetModule, *backend, table);
    if (failed(kernels))
      return failure();
    stageDone(Stage::TargetCodegen);
    FailureOr<::kiln::artifact::ExecutableSpec> executable =
        backend->emitExecutable(**kernels, table, error);
    if (failed(executable))
      return failure();
    if (failed(plan::planHost(host, table, index, executable->target, spec)))
      return failure();
    stageDone(Stage::Plan);
    spec.executables.push_back(std::move(*executable));
  }
  stageDone(Stage::Emit);
  return success();
}

void collectLocationNames(Location loc, SmallVectorImpl<std::string> &names) {
  if (auto named = dyn_cast<NameLoc>(loc)) {
    std::string name = named.getName().str();
    if (!llvm::is_contained(names, name))
      names.push_back(name);
  } else if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location part : fused.getLocations())
      collectLocationNames(part, names);
  } else if (auto site = dyn_cast<CallSiteLoc>(loc)) {
    collectLocationNames(site.getCallee(), names);
  }
}

void printDispatches(ModuleOp dispatches, llvm::raw_ostream &os,
                     ModuleOp callers) {
  llvm::StringMap<int> calls;
  // The names in each call's location (the ONNX nodes, and initializers
  // folded into them, that the call computes), one list per call.
  llvm::StringMap<SmallVector<SmallVector<std::string>>> callNodes;
  (callers ? callers : dispatches).walk([&](func::CallOp call) {
    ++calls[call.getCallee()];
    collectLocationNames(call.getLoc(),
                         callNodes[call.getCallee()].emplace_back());
  });
  for (auto func : dispatches.getOps<func::FuncOp>()) {
    if (!func->hasAttr("kiln.dispatch"))
      continue;
    os << func.getName();
    if (!calls.empty())
      os << " (called " << calls[func.getName()] << "x)";
    os << ":";
    for (Operation &op : func.getBody().front().without_terminator()) {
      if (isa<arith::ConstantOp, tensor::EmptyOp>(op))
        continue;
      os << " " << op.getName().getStringRef();
      if (auto generic = dyn_cast<linalg::GenericOp>(op))
        os << (generic.getNumReductionLoops() ? "[reduction]" : "[parallel]");
    }
    os << "  ->";
    for (Type t : func.getResultTypes())
      os << " " << t;
    os << "\n";
    for (const SmallVector<std::string> &names : callNodes[func.getName()]) {
      os << "  nodes:";
      for (const std::string &name : names) {
        os << " \"";
        llvm::printEscapedString(name, os);
        os << "\"";
      }
      os << "\n";
    }
    if (Attribute config = func->getAttr(kLoweringConfigAttr))
      os << "  config: " << config << "\n";
    if (auto note = func->getAttrOfType<StringAttr>(kKernelNoteAttr))
      os << "  kernel: " << note.getValue() << "\n";
  }
  // Library calls (the cuda target's cuBLASLt GEMMs) run on the host as
  // plan steps of their own, in place of the dispatches they replaced.
  (callers ? callers : dispatches).walk([&](GemmCallOp gemm) {
    os << "library_call cublasLt matmul: batch " << gemm.getBatch() << ", m "
       << gemm.getM() << ", n " << gemm.getN() << ", k " << gemm.getK()
       << ", epilogue " << stringifyGemmEpilogue(gemm.getEpilogue())
       << "  -> " << gemm.getType() << "\n  nodes:";
    SmallVector<std::string> names;
    collectLocationNames(gemm.getLoc(), names);
    for (const std::string &name : names) {
      os << " \"";
      llvm::printEscapedString(name, os);
      os << "\"";
    }
    os << "\n";
  });
  // External custom ops (kind b) stay on the host as plan steps of their
  // own; listing them shows what did not fuse.
  (callers ? callers : dispatches).walk([&](CustomCallOp call) {
    os << "custom_call \"" << call.getCallTarget() << "\" (external kernel):";
    for (Type t : call.getOperandTypes())
      os << " " << t;
    os << "  ->";
    for (Type t : call.getResultTypes())
      os << " " << t;
    os << "\n  nodes:";
    SmallVector<std::string> names;
    collectLocationNames(call.getLoc(), names);
    for (const std::string &name : names) {
      os << " \"";
      llvm::printEscapedString(name, os);
      os << "\"";
    }
    os << "\n";
  });
}

} // namespace mlir::kiln
