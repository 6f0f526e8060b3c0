//===- kilnc.cpp - The Kiln model compiler driver -------------------------===//
//
// Imports an ONNX model into the Kiln dialect and, for now, prints it either
// right after import (--emit=onnx-raw) or after graph clean-up
// (--emit=kiln). Every error goes to stderr naming the file, node or tensor,
// and the exit status is non-zero.
//
//===----------------------------------------------------------------------===//

#include "compiler/artifact/ArtifactSpec.h"
#include "compiler/cpu/HostPlan.h"
#include "compiler/cpu/KernelCodegen.h"
#include "compiler/cpu/ObjectEmitter.h"
#include "compiler/onnx/OnnxImporter.h"
#include "dialects/kiln/KilnDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "llvm/Support/Path.h"
#include <chrono>
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace {

enum class EmitKind { OnnxRaw, Kiln, Linalg, Dispatches, Llvm, Artifact, Auto };

cl::OptionCategory kilncCategory("kilnc options");

cl::opt<std::string> inputPath(cl::Positional, cl::Required,
                               cl::desc("<model.onnx>"),
                               cl::cat(kilncCategory));

cl::opt<std::string> outputPath("o", cl::desc("Output file ('-' for stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(kilncCategory));

cl::opt<EmitKind> emit(
    "emit",
    cl::desc("What to produce (default: artifact when -o ends in .kiln, "
             "else kiln)"),
    cl::init(EmitKind::Auto),
    cl::values(clEnumValN(EmitKind::OnnxRaw, "onnx-raw",
                          "Kiln IR right after import, before any pass "
                          "(verified)"),
               clEnumValN(EmitKind::Kiln, "kiln",
                          "Kiln IR after kiln-graph-cleanup"),
               clEnumValN(EmitKind::Linalg, "linalg",
                          "linalg/tensor IR after kiln-to-linalg"),
               clEnumValN(EmitKind::Dispatches, "dispatches",
                          "host function and dispatch functions after "
                          "kiln-form-dispatches"),
               clEnumValN(EmitKind::Llvm, "llvm",
                          "the kernels in the LLVM dialect"),
               clEnumValN(EmitKind::Artifact, "artifact",
                          "a .kiln artifact for the CPU")),
    cl::cat(kilncCategory));

cl::list<std::string> inputShapes(
    "input-shape",
    cl::desc("Fix the shape of a graph input, e.g. input_ids=1x128 (use ? "
             "for a dynamic dim; repeatable)"),
    cl::value_desc("name=DxDx..."), cl::cat(kilncCategory));

cl::opt<std::string> cpuName(
    "cpu",
    cl::desc("Target CPU: native (default), x86-64-v3, x86-64-v4 or an LLVM "
             "x86 CPU name (skylake-avx512, znver4, ...)"),
    cl::init("native"), cl::cat(kilncCategory));

cl::opt<bool> dumpDispatches(
    "dump-dispatches",
    cl::desc("Print each dispatch (its ops and workgroup counts) to stderr"),
    cl::init(false), cl::cat(kilncCategory));

cl::opt<bool> noVectorize("no-vectorize",
                          cl::desc("Keep reduction loops in their lowered "
                                   "order (mostly scalar code)"),
                          cl::init(false), cl::cat(kilncCategory));

cl::opt<bool> timing("time", cl::desc("Print the time of each stage"),
                     cl::init(false), cl::cat(kilncCategory));

// One line per dispatch: name, the ops it holds, how often it is called.
void printDispatches(ModuleOp module) {
  llvm::StringMap<int> calls;
  module.walk([&](func::CallOp call) { ++calls[call.getCallee()]; });
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func->hasAttr("kiln.dispatch"))
      continue;
    llvm::errs() << func.getName() << " (called " << calls[func.getName()]
                 << "x):";
    for (Operation &op : func.getBody().front().without_terminator()) {
      if (isa<arith::ConstantOp, tensor::EmptyOp>(op))
        continue;
      llvm::errs() << " " << op.getName().getStringRef();
      if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
        int reductions = generic.getNumReductionLoops();
        llvm::errs() << (reductions ? "[reduction]" : "[parallel]");
      }
    }
    llvm::errs() << "  ->";
    for (Type t : func.getResultTypes())
      llvm::errs() << " " << t;
    llvm::errs() << "\n";
  }
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions({&kilncCategory});
  cl::ParseCommandLineOptions(argc, argv,
                              "kilnc: the Kiln model compiler\n");
  // LLD, linked in process, resets every cl::opt when it runs; keep the
  // values that are read after linking.
  const std::string outputFile = outputPath;
  const bool showTiming = timing;

  mlir::kiln::onnx_import::ImportOptions options;
  for (const std::string &text : inputShapes) {
    std::string error;
    if (!mlir::kiln::onnx_import::parseInputShape(text, options, error)) {
      llvm::errs() << "kilnc: error: " << error << "\n";
      return 1;
    }
  }

  DialectRegistry registry;
  registry.insert<func::FuncDialect, mlir::kiln::KilnDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  MLIRContext context(registry);
  // The code generators create ops of many dialects outside any pass.
  context.loadAllAvailableDialects();
  // Errors come out as "<location>: error: <message>"; the locations carry
  // the model file, node or tensor names.
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context, llvm::errs());

  OwningOpRef<ModuleOp> module =
      mlir::kiln::onnx_import::importOnnxFile(context, inputPath, options);
  if (!module)
    return 1;

  EmitKind kind = emit;
  if (kind == EmitKind::Auto)
    kind = llvm::StringRef(outputPath).ends_with(".kiln") ? EmitKind::Artifact
                                                           : EmitKind::Kiln;
  auto start = std::chrono::steady_clock::now();
  auto stage = [&](const char *name) {
    if (showTiming)
      llvm::errs() << "kilnc: " << name << " done at " << secondsSince(start)
                   << " s\n";
  };
  if (kind != EmitKind::OnnxRaw) {
    PassManager pm(&context);
    pm.addPass(mlir::kiln::createGraphCleanup());
    if (kind != EmitKind::Kiln)
      pm.addPass(mlir::kiln::createKilnToLinalg());
    if (kind != EmitKind::Kiln && kind != EmitKind::Linalg)
      pm.addPass(mlir::kiln::createFormDispatches());
    if (failed(pm.run(*module)))
      return 1;
    stage("import, lowering and dispatch formation");
  }
  if (dumpDispatches)
    printDispatches(*module);

  std::string error;
  if (kind == EmitKind::Llvm || kind == EmitKind::Artifact) {
    // Kernels and host plan come from two copies of the module.
    OwningOpRef<ModuleOp> kernels(cast<ModuleOp>((*module)->clone()));
    func::FuncOp host;
    for (auto func : llvm::make_early_inc_range(kernels->getOps<func::FuncOp>()))
      if (!func->hasAttr("kiln.dispatch"))
        func.erase();
    for (auto func : module->getOps<func::FuncOp>())
      if (!func->hasAttr("kiln.dispatch"))
        host = func;
    if (!host) {
      llvm::errs() << "kilnc: error: the model has no graph function\n";
      return 1;
    }
    FailureOr<SmallVector<mlir::kiln::cpu::KernelInfo>> kernelInfos =
        mlir::kiln::cpu::generateKernels(*kernels, !noVectorize);
    if (failed(kernelInfos))
      return 1;
    stage("kernel generation");
    if (dumpDispatches)
      for (const auto &k : *kernelInfos)
        llvm::errs() << k.name << ": workgroups " << k.workgroups[0] << "x"
                     << k.workgroups[1] << "x" << k.workgroups[2] << ", "
                     << k.bindingCount << " bindings\n";
    if (kind == EmitKind::Llvm) {
      auto output = openOutputFile(outputPath, &error);
      if (!output) {
        llvm::errs() << "kilnc: error: " << error << "\n";
        return 1;
      }
      kernels->print(output->os());
      output->keep();
      return 0;
    }
    FailureOr<mlir::kiln::cpu::TargetChoice> target =
        mlir::kiln::cpu::resolveTarget(cpuName, error);
    if (failed(target)) {
      llvm::errs() << "kilnc: error: " << error << "\n";
      return 1;
    }
    FailureOr<std::vector<uint8_t>> object =
        mlir::kiln::cpu::emitSharedObject(*kernels, *target, error);
    if (failed(object)) {
      llvm::errs() << "kilnc: error: " << error << "\n";
      return 1;
    }
    stage("object code and link");
    ::kiln::artifact::ArtifactSpec spec;
    spec.sourceName = llvm::sys::path::filename(inputPath).str();
    if (failed(mlir::kiln::cpu::planHost(host, *kernelInfos, spec)))
      return 1;
    ::kiln::artifact::ExecutableSpec executable;
    executable.cpu = target->cpu;
    executable.requiredFeatures = target->required;
    executable.blob = std::move(*object);
    for (const auto &k : *kernelInfos)
      executable.kernels.push_back({k.name, k.bindingCount, 0});
    spec.executables.push_back(std::move(executable));
    if (outputFile == "-") {
      llvm::errs() << "kilnc: error: an artifact needs -o FILE.kiln\n";
      return 1;
    }
    if (!::kiln::artifact::writeArtifactFile(spec, outputFile, error)) {
      llvm::errs() << "kilnc: error: " << error << "\n";
      return 1;
    }
    stage("artifact");
    if (showTiming) {
      const auto &plan = spec.plans.front();
      llvm::errs() << "kilnc: " << plan.steps.size() << " steps, "
                   << kernelInfos->size() << " kernels, arena "
                   << plan.arenaSize << " bytes (intermediates "
                   << plan.intermediateBytes << " bytes)\n";
    }
    return 0;
  }

  auto output = openOutputFile(outputPath, &error);
  if (!output) {
    llvm::errs() << "kilnc: error: " << error << "\n";
    return 1;
  }
  module->print(output->os());
  output->os() << "\n";
  output->keep();
  return 0;
}
