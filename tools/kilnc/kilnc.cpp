//===- kilnc.cpp - The Kiln model compiler driver -------------------------===//
//
// Parses flags, imports the model and hands it to the compile pipeline
// (compiler/pipeline), which either stops after a stage and prints its IR
// (--emit) or writes a .kiln artifact. Every error goes to stderr naming the
// file, node or tensor, and the exit status is non-zero.
//
//===----------------------------------------------------------------------===//

#include "compiler/artifact/ArtifactSpec.h"
#include "compiler/onnx/OnnxImporter.h"
#include "compiler/paddle/PaddleImporter.h"
#include "compiler/paddle/PaddleLoader.h"
#include "compiler/pipeline/Pipeline.h"
#include "compiler/plugin/PluginLoader.h"
#include "compiler/targets/cpu/CpuBackend.h"
#include "compiler/targets/cuda/CudaArch.h"
#include "compiler/targets/cuda/CudaBackend.h"
#include "dialects/kiln/KilnDialect.h"
#include "compiler/quant/Calibration.h"
#include "passes/precision/MixedPrecision.h"
#include "passes/quant/Quantize.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "passes/Passes.h"
#include "llvm/Support/Path.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
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
                               cl::desc("<model.onnx | model.json | "
                                        "model.pdmodel>"),
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
                          "a .kiln artifact for the --target backends")),
    cl::cat(kilncCategory));

cl::list<std::string> inputShapes(
    "input-shape",
    cl::desc("Fix the shape of a graph input, e.g. input_ids=1x128 (use ? "
             "for a dynamic dim; repeatable)"),
    cl::value_desc("name=DxDx..."), cl::cat(kilncCategory));

cl::opt<std::string> paramsPath(
    "params",
    cl::desc("Paddle models: the .pdiparams file (default: beside the model, "
             "same stem)"),
    cl::value_desc("file"), cl::init(""), cl::cat(kilncCategory));

cl::opt<std::string> cpuName(
    "cpu",
    cl::desc("Target CPU: native (default), x86-64-v3, x86-64-v4 or an LLVM "
             "x86 CPU name (skylake-avx512, znver4, ...)"),
    cl::init("native"), cl::cat(kilncCategory));

cl::opt<std::string> targetList(
    "target",
    cl::desc("Backends to compile for: cpu (default), cuda (partial: "
             "elementwise dispatches only, compiler only, no GPU runtime "
             "yet) or cpu,cuda (one artifact with both plans)"),
    cl::value_desc("cpu|cuda|cpu,cuda"), cl::init("cpu"),
    cl::cat(kilncCategory));

cl::opt<std::string> cudaArchs(
    "cuda-arch",
    cl::desc("With --target=cuda: the architectures to build cubins for "
             "(default sm_80,sm_90); the PTX targets the lowest"),
    cl::value_desc("sm_NN,..."), cl::init(mlir::kiln::cuda::kDefaultArchs),
    cl::cat(kilncCategory));

cl::opt<bool> dumpDispatches(
    "dump-dispatches",
    cl::desc("Print each dispatch (its ops and workgroup counts) to stderr"),
    cl::init(false), cl::cat(kilncCategory));

cl::opt<std::string> codegen(
    "codegen",
    cl::desc("CPU kernel strategies: auto (register-tiled contractions, "
             "loop order elsewhere; default), loop-order (no register "
             "tiles) or scalar (loops as lowered)"),
    cl::init("auto"), cl::cat(kilncCategory));

cl::opt<std::string> convLayout(
    "conv-layout",
    cl::desc("Activation layout of f32 convolutions on the CPU: auto "
             "(default: with --target=cpu, f32 convolutions of at most 4096 "
             "output pixels and 64 or more channels, a CNN's body after its "
             "stem, run channels last, NHWC, with transposes only at the edges "
             "of each chain of them) or nchw (all channels first, as the model has "
             "them; what --target=cuda and cpu,cuda use)"),
    cl::init("auto"), cl::cat(kilncCategory));

cl::opt<std::string> attentionMode(
    "attention",
    cl::desc("Scaled dot-product attention on the CPU: fused (default: "
             "QK^T, scale, mask, softmax and PV of each head run as one "
             "online-softmax kernel; with --target=cpu only) or unfused "
             "(the matmul / softmax / matmul dispatches the graph spells)"),
    cl::init("fused"), cl::cat(kilncCategory));

// For kiln-compare's tests only: a known fault in one node's result.
cl::opt<std::string> debugPerturbNode(
    "debug-perturb-node",
    cl::desc("Debugging: add --debug-perturb-delta to the result of this "
             "ONNX node (a known fault for kiln-compare's tests)"),
    cl::value_desc("node"), cl::Hidden, cl::cat(kilncCategory));
cl::opt<float> debugPerturbDelta(
    "debug-perturb-delta",
    cl::desc("Debugging: what --debug-perturb-node adds (default 0.5)"),
    cl::init(0.5f), cl::Hidden, cl::cat(kilncCategory));

cl::opt<std::string> precision(
    "precision",
    cl::desc("Compute type of contractions and their epilogues: fp32 "
             "(default), bf16 or fp16 (accumulation stays f32; inputs and "
             "outputs keep their types)"),
    cl::init("fp32"), cl::cat(kilncCategory));
const std::string precisionListsHelp =
    std::string("Ops moved to 16 bits by default (when connected to a "
                "matmul or conv): ") +
    mlir::kiln::kPrecisionAllowedOps + ". Always f32: " +
    mlir::kiln::kPrecisionDeniedOps;
// cl::desc keeps a StringRef, so the text lives in a global.
const std::string precisionAllowHelp =
    "Kiln ops added to the 16-bit list (e.g. div,sqrt). " + precisionListsHelp;
cl::list<std::string> precisionAllow(
    "precision-allow", cl::CommaSeparated,
    cl::desc(precisionAllowHelp),
    cl::value_desc("op,..."), cl::cat(kilncCategory));
cl::list<std::string> precisionDeny(
    "precision-deny", cl::CommaSeparated,
    cl::desc("Kiln ops kept in f32 (e.g. gelu,add)"),
    cl::value_desc("op,..."), cl::cat(kilncCategory));

// cl::desc keeps a StringRef, so the text lives in a global.
const std::string quantizeHelp =
    std::string("Quantization: none (default) or int8 (post-training, needs "
                "--calibration). Quantized: ") +
    mlir::kiln::kQuantizableOps +
    " (constant weights s8 symmetric per output channel, activations u8 "
    "asymmetric per tensor, both operands of a matmul of two activations s8 "
    "symmetric); every other op stays f32";
cl::opt<std::string> quantize("quantize", cl::desc(quantizeHelp),
                              cl::init("none"), cl::cat(kilncCategory));
cl::opt<std::string> calibrationDir(
    "calibration",
    cl::desc("Calibration samples for --quantize=int8: one sub-folder per "
             "sample (test_data_set_*/input_N.pb or NAME.npy), or NAME.npy "
             "files for a single sample"),
    cl::value_desc("dir"), cl::cat(kilncCategory));
cl::opt<std::string> calibrationMethod(
    "calibration-method",
    cl::desc("How activation ranges are chosen: minmax (default), "
             "percentile (--calibration-percentile of the values) or "
             "entropy (KL-divergence threshold)"),
    cl::init("minmax"), cl::cat(kilncCategory));
cl::opt<double> calibrationPercentile(
    "calibration-percentile",
    cl::desc("Percentile kept on each side by --calibration-method="
             "percentile, in (50, 100] (default 99.99)"),
    cl::init(99.99), cl::cat(kilncCategory));
cl::opt<bool> dumpCalibration(
    "dump-calibration",
    cl::desc("Print the calibrated range of each quantized op's input to "
             "stderr"),
    cl::init(false), cl::cat(kilncCategory));
cl::list<std::string> quantizeDeny(
    "quantize-deny", cl::CommaSeparated,
    cl::desc("Kiln ops (matmul, conv) or ONNX node names kept in f32"),
    cl::value_desc("op-or-node,..."), cl::cat(kilncCategory));

cl::opt<bool> quantizeSoftmaxOutputs(
    "quantize-softmax-outputs",
    cl::desc("With --quantize=int8, also quantize matmuls that read a "
             "softmax's output (attention's P V); slower on x86 today"),
    cl::init(false), cl::cat(kilncCategory));

cl::opt<bool> timing("time", cl::desc("Print the time of each stage"),
                     cl::init(false), cl::cat(kilncCategory));

cl::list<std::string> passPlugins(
    "load-pass-plugin",
    cl::desc("Load a Kiln plugin (compiler/plugin/KilnPlugin.h); its passes "
             "run at the stages it names (repeatable)"),
    cl::value_desc("libplugin.so"), cl::cat(kilncCategory));
// cl::desc keeps a StringRef, so the text lives in a global.
const std::string passAtHelp =
    "Run a pass pipeline (any registered pass, built-in or from a plugin, "
    "nested in builtin.module, e.g. 'func.func(canonicalize)') at a stage: " +
    mlir::kiln::pluginStageNames() + " (repeatable)";
cl::list<std::string> passAt("pass-at", cl::desc(passAtHelp),
                             cl::value_desc("stage:pipeline"),
                             cl::cat(kilncCategory));

// Loads --load-pass-plugin's plugins and parses --pass-at, in that order
// (a --pass-at pipeline may name a plugin's pass). Registers the built-in
// passes first, only when needed: most compilations name none.
bool collectPlacements(std::vector<mlir::kiln::PassPlacement> &placements) {
  if (passPlugins.empty() && passAt.empty())
    return true;
  mlir::registerAllPasses();
  mlir::kiln::registerKilnPasses();
  mlir::kiln::cpu::registerCpuBackendPasses();
  mlir::kiln::cuda::registerCudaBackendPasses();
  for (const std::string &path : passPlugins) {
    mlir::kiln::PluginLoadResult loaded = mlir::kiln::loadPlugin(path);
    if (!loaded.plugin) {
      llvm::errs() << "kilnc: error: " << loaded.error << "\n";
      return false;
    }
    placements.insert(placements.end(), loaded.plugin->placements.begin(),
                      loaded.plugin->placements.end());
  }
  // Targets compiled for (--target); a bad name is reported with --target.
  SmallVector<llvm::StringRef> targets;
  llvm::StringRef(targetList).split(targets, ',');
  for (llvm::StringRef &target : targets)
    target = target.trim();
  for (const std::string &argument : passAt) {
    mlir::kiln::PassPlacement placement;
    std::string error;
    if (!mlir::kiln::parsePassAt(argument, targets, placement, error)) {
      llvm::errs() << "kilnc: error: " << error << "\n";
      return false;
    }
    placements.push_back(std::move(placement));
  }
  return true;
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
  const bool showDispatches = dumpDispatches;

  std::vector<mlir::kiln::PassPlacement> placements;
  if (!collectPlacements(placements))
    return 1;

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

  // The frontend comes from the extension: Paddle's PIR JSON (.json) and
  // legacy ProgramDesc (.pdmodel) models, ONNX otherwise.
  llvm::StringRef extension = llvm::sys::path::extension(inputPath.getValue());
  bool paddle = extension == ".json" || extension == ".pdmodel";
  if (!paddle && !paramsPath.empty()) {
    llvm::errs() << "kilnc: error: --params is for Paddle models (.json, "
                    ".pdmodel); '"
                 << inputPath << "' is read as ONNX\n";
    return 1;
  }
  OwningOpRef<ModuleOp> module;
  if (paddle) {
    ::kiln::paddle::Program program;
    std::string loadError;
    if (!::kiln::paddle::loadPaddleModel(inputPath, paramsPath, program,
                                         loadError)) {
      llvm::errs() << "kilnc: error: " << loadError << "\n";
      return 1;
    }
    module = mlir::kiln::paddle_import::importPaddleProgram(context, program,
                                                            options);
  } else {
    module =
        mlir::kiln::onnx_import::importOnnxFile(context, inputPath, options);
  }
  if (!module)
    return 1;

  EmitKind kind = emit;
  if (kind == EmitKind::Auto)
    kind = llvm::StringRef(outputPath).ends_with(".kiln") ? EmitKind::Artifact
                                                           : EmitKind::Kiln;
  if (kind == EmitKind::Artifact && outputFile == "-") {
    llvm::errs() << "kilnc: error: an artifact needs -o FILE.kiln\n";
    return 1;
  }

  mlir::kiln::cpu::CpuBackendOptions cpuOptions;
  cpuOptions.cpu = cpuName;
  std::optional<mlir::kiln::cpu::ConfigOptions> configOptions =
      mlir::kiln::cpu::parseConfigOptions(codegen);
  if (!configOptions) {
    llvm::errs() << "kilnc: error: unknown --codegen '" << codegen
                 << "' (expected auto, loop-order or scalar)\n";
    return 1;
  }
  cpuOptions.config = *configOptions;
  std::string error;
  bool wantCpu = false, wantCuda = false;
  {
    SmallVector<StringRef> names;
    StringRef(targetList).split(names, ',');
    for (StringRef name : names) {
      if (name.trim() == "cpu" && !wantCpu) {
        wantCpu = true;
      } else if (name.trim() == "cuda" && !wantCuda) {
        wantCuda = true;
      } else {
        llvm::errs() << "kilnc: error: bad --target '" << targetList
                     << "' (expected cpu, cuda or cpu,cuda)\n";
        return 1;
      }
    }
  }
  std::optional<std::vector<std::string>> archs =
      mlir::kiln::cuda::parseArchList(cudaArchs, error);
  if (!archs) {
    llvm::errs() << "kilnc: error: " << error << "\n";
    return 1;
  }
  if (!wantCuda && cudaArchs.getNumOccurrences()) {
    llvm::errs() << "kilnc: error: --cuda-arch needs --target=cuda or "
                    "--target=cpu,cuda\n";
    return 1;
  }
  SmallVector<std::unique_ptr<mlir::kiln::TargetBackend>> backends;
  if (wantCpu) {
    auto backend = mlir::kiln::cpu::createCpuBackend(cpuOptions, error);
    if (failed(backend)) {
      llvm::errs() << "kilnc: error: " << error << "\n";
      return 1;
    }
    backends.push_back(std::move(*backend));
  }
  if (wantCuda) {
    mlir::kiln::cuda::CudaBackendOptions cudaOptions;
    cudaOptions.archs = *archs;
    auto backend = mlir::kiln::cuda::createCudaBackend(cudaOptions, error);
    if (failed(backend)) {
      llvm::errs() << "kilnc: error: " << error << "\n";
      return 1;
    }
    backends.push_back(std::move(*backend));
  }
  mlir::kiln::PipelineOptions pipelineOptions;
  if (convLayout != "auto" && convLayout != "nchw") {
    llvm::errs() << "kilnc: error: unknown --conv-layout '" << convLayout
                 << "' (expected auto or nchw)\n";
    return 1;
  }
  // The layout is the CPU kernels' choice, made on the graph both plans
  // share: a cpu,cuda artifact keeps the model's NCHW for both.
  pipelineOptions.channelsLast = wantCpu && !wantCuda && convLayout == "auto";
  if (attentionMode != "fused" && attentionMode != "unfused") {
    llvm::errs() << "kilnc: error: unknown --attention '" << attentionMode
                 << "' (expected fused or unfused)\n";
    return 1;
  }
  // Only the CPU kernel runs a kept kiln.attention: the CUDA backend (no
  // attention kernel yet) and the other --codegen modes run the chain.
  pipelineOptions.fuseAttention = wantCpu && !wantCuda &&
                                  attentionMode == "fused" &&
                                  codegen == "auto";
  pipelineOptions.precision = precision;
  pipelineOptions.precisionAllow.assign(precisionAllow.begin(),
                                        precisionAllow.end());
  pipelineOptions.precisionDeny.assign(precisionDeny.begin(),
                                       precisionDeny.end());
  if (precision != "fp32" && precision != "bf16" && precision != "fp16") {
    llvm::errs() << "kilnc: error: unknown --precision '" << precision
                 << "' (expected fp32, bf16 or fp16)\n";
    return 1;
  }
  if (precision != "fp32") {
    mlir::kiln::PrecisionSettings settings;
    if (!mlir::kiln::parsePrecisionSettings(
            &context, precision, pipelineOptions.precisionAllow,
            pipelineOptions.precisionDeny, settings, error)) {
      llvm::errs() << "kilnc: error: --precision: " << error << "\n";
      return 1;
    }
  } else if (!precisionAllow.empty() || !precisionDeny.empty()) {
    llvm::errs() << "kilnc: error: --precision-allow and --precision-deny "
                    "need --precision=bf16 or fp16\n";
    return 1;
  }
  if (quantize != "none" && quantize != "int8") {
    llvm::errs() << "kilnc: error: unknown --quantize '" << quantize
                 << "' (expected none or int8)\n";
    return 1;
  }
  if (quantize == "int8") {
    mlir::kiln::CalibrationOptions calibration;
    if (calibrationDir.empty()) {
      llvm::errs() << "kilnc: error: --quantize=int8 needs --calibration=DIR "
                      "(sample inputs for the activation ranges)\n";
      return 1;
    }
    if (precision != "fp32") {
      llvm::errs() << "kilnc: error: --quantize=int8 and --precision="
                   << precision << " cannot be combined\n";
      return 1;
    }
    if (!::kiln::quant::ParseCalibrationMethod(calibrationMethod,
                                               &calibration.method)) {
      llvm::errs() << "kilnc: error: unknown --calibration-method '"
                   << calibrationMethod
                   << "' (expected minmax, percentile or entropy)\n";
      return 1;
    }
    if (!(calibrationPercentile > 50.0 && calibrationPercentile <= 100.0)) {
      llvm::errs() << "kilnc: error: --calibration-percentile="
                   << llvm::format("%g", calibrationPercentile.getValue())
                   << " is outside (50, 100]\n";
      return 1;
    }
    if (calibrationPercentile.getNumOccurrences() &&
        calibration.method != ::kiln::quant::CalibrationMethod::Percentile) {
      llvm::errs() << "kilnc: error: --calibration-percentile needs "
                      "--calibration-method=percentile\n";
      return 1;
    }
    std::vector<std::string> deny(quantizeDeny.begin(), quantizeDeny.end());
    if (!mlir::kiln::parseQuantizeSettings(*module, deny,
                                           calibration.settings, error)) {
      llvm::errs() << "kilnc: error: --quantize-deny: " << error << "\n";
      return 1;
    }
    calibration.settings.softmaxOperands = quantizeSoftmaxOutputs;
    calibration.dir = calibrationDir;
    calibration.percentile = calibrationPercentile;
    calibration.dumpRanges = dumpCalibration;
    // The observation model runs here, so it is compiled for this CPU
    // whatever --cpu the artifact targets.
    mlir::kiln::cpu::CpuBackendOptions hostOptions;
    hostOptions.cpu = "native";
    calibration.makeBackend = [hostOptions](std::string &error) {
      return mlir::kiln::cpu::createCpuBackend(hostOptions, error);
    };
    pipelineOptions.quantizeInt8 = true;
    pipelineOptions.quantizeDeny = deny;
    pipelineOptions.quantizeSoftmaxOperands = quantizeSoftmaxOutputs;
    pipelineOptions.calibrate = [calibration](ModuleOp module) {
      std::string error;
      if (succeeded(mlir::kiln::calibrate(module, calibration, error)))
        return success();
      if (!error.empty())
        llvm::errs() << "kilnc: error: " << error << "\n";
      return failure();
    };
  } else if (!calibrationDir.empty() || !quantizeDeny.empty() ||
             quantizeSoftmaxOutputs || calibrationMethod.getNumOccurrences() ||
             calibrationPercentile.getNumOccurrences() || dumpCalibration) {
    llvm::errs() << "kilnc: error: --calibration, --calibration-method, "
                    "--calibration-percentile, --dump-calibration, "
                    "--quantize-deny and --quantize-softmax-outputs need "
                    "--quantize=int8\n";
    return 1;
  }
  pipelineOptions.dumpDispatches = dumpDispatches;
  pipelineOptions.timing = showTiming;
  mlir::kiln::Pipeline pipeline(context, pipelineOptions);
  for (auto &backend : backends)
    pipeline.addBackend(std::move(backend));
  mlir::kiln::addPlacements(pipeline, placements);
  if (!debugPerturbNode.empty())
    mlir::kiln::addPerturbNodeHook(pipeline, debugPerturbNode,
                                   debugPerturbDelta);

  auto writeIR = [&](ModuleOp printed) {
    auto output = openOutputFile(outputFile, &error);
    if (!output) {
      llvm::errs() << "kilnc: error: " << error << "\n";
      return 1;
    }
    printed->print(output->os());
    output->os() << "\n";
    output->keep();
    return 0;
  };
  using mlir::kiln::Stage;
  switch (kind) {
  case EmitKind::OnnxRaw:
    return writeIR(*module);
  case EmitKind::Kiln:
  case EmitKind::Linalg:
  case EmitKind::Dispatches: {
    Stage last = kind == EmitKind::Kiln     ? Stage::GraphOptimization
                 : kind == EmitKind::Linalg ? Stage::Lowering
                                            : Stage::DispatchFormation;
    if (failed(pipeline.runUntil(*module, last)))
      return 1;
    if (showDispatches)
      mlir::kiln::printDispatches(*module, llvm::errs());
    return writeIR(*module);
  }
  case EmitKind::Llvm: {
    auto kernels = pipeline.generateKernelModule(*module);
    if (failed(kernels))
      return 1;
    return writeIR(**kernels);
  }
  case EmitKind::Artifact:
  case EmitKind::Auto:
    break;
  }
  ::kiln::artifact::ArtifactSpec spec;
  spec.sourceName = llvm::sys::path::filename(inputPath).str();
  if (failed(pipeline.compile(*module, spec, error))) {
    if (!error.empty())
      llvm::errs() << "kilnc: error: " << error << "\n";
    return 1;
  }
  if (!::kiln::artifact::writeArtifactFile(spec, outputFile, error)) {
    llvm::errs() << "kilnc: error: " << error << "\n";
    return 1;
  }
  if (showTiming) {
    const auto &plan = spec.plans.front();
    llvm::errs() << "kilnc: " << plan.steps.size() << " steps, "
                 << spec.executables.front().kernels.size()
                 << " kernels, arena " << plan.arenaSize
                 << " bytes (intermediates " << plan.intermediateBytes
                 << " bytes)\n";
  }
  return 0;
}
