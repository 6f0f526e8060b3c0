//===- Calibration.cpp - Activation ranges for INT8 quantization ----------===//
#include "compiler/quant/Calibration.h"

#include "compiler/artifact/ArtifactSpec.h"
#include "compiler/pipeline/Pipeline.h"
#include "kiln/runtime.h"
#include "tools/kiln/sample_dir.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

namespace mlir::kiln {

namespace {

using ::kiln::quant::CalibrationMethod;
using ::kiln::quant::TensorStatistics;

// The graph function: the one function of an imported module that is not a
// dispatch.
func::FuncOp graphFunction(ModuleOp module) {
  func::FuncOp graph;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func->hasAttr("kiln.dispatch"))
      continue;
    if (graph)
      return nullptr;
    graph = func;
  }
  return graph;
}

// Visits the quantizable ops of `graph` in a fixed order (the same for a
// module and its clone) with each of their activation operands.
void forEachQuantizable(
    func::FuncOp graph, const QuantizeSettings &settings,
    llvm::function_ref<void(Operation *, unsigned, Value)> visit) {
  graph.walk([&](Operation *op) {
    for (unsigned index : quantizableActivations(op, settings))
      visit(op, index, op->getOperand(index));
  });
}

// "the input of kiln.conv "Conv_3"" (or "operand #1 of kiln.matmul ..."
// for a matmul of two activations) for messages.
std::string describeReader(Operation *op, unsigned operand,
                           const QuantizeSettings &settings) {
  std::string text =
      (quantizableActivations(op, settings).size() > 1
           ? "operand #" + std::to_string(operand) + " of "
           : std::string("the input of ")) +
      op->getName().getStringRef().str();
  llvm::SmallVector<std::string> names;
  collectLocationNames(op->getLoc(), names);
  for (const std::string &name : names)
    text += " \"" + name + "\"";
  return text;
}

class Progress {
public:
  Progress(bool enabled, std::string label, size_t total)
      : enabled(enabled), label(std::move(label)), total(total),
        tty(isatty(STDERR_FILENO)), every(std::max<size_t>(1, (total + 7) / 8)) {}
  void done(size_t count) {
    if (!enabled)
      return;
    // On a terminal one line counts up; in a log, a few lines per pass.
    if (tty)
      llvm::errs() << "\r" << label << count << "/" << total << " samples"
                   << (count == total ? "\n" : "");
    else if (count % every == 0 || count == total)
      llvm::errs() << label << count << "/" << total << " samples\n";
    llvm::errs().flush();
  }

private:
  bool enabled;
  std::string label;
  size_t total;
  bool tty;
  size_t every;
};

} // namespace

LogicalResult calibrate(ModuleOp module, const CalibrationOptions &options,
                        std::string &error) {
  MLIRContext *context = module.getContext();
  func::FuncOp graph = graphFunction(module);
  if (!graph) {
    error = "calibration needs a module with exactly one graph function";
    return failure();
  }

  // The tensors to observe, each once however many ops read it.
  llvm::MapVector<Value, unsigned> observed;
  struct Reader {
    Operation *op;
    unsigned operand; // the op's operand
    unsigned index;   // into `observed`
  };
  llvm::SmallVector<Reader> readers;
  forEachQuantizable(graph, options.settings,
                     [&](Operation *op, unsigned operand, Value value) {
                       auto inserted = observed.insert({value, observed.size()});
                       readers.push_back({op, operand, inserted.first->second});
                     });
  if (readers.empty()) {
    llvm::errs() << "kilnc: warning: --quantize=int8: the model has no op to "
                    "quantize (quantized ops: "
                 << kQuantizableOps << ")\n";
    return success();
  }

  std::vector<std::string> samples;
  ::kiln::Status status = ::kiln::tools::ListSampleFolders(options.dir, &samples);
  if (!status.ok()) {
    error = "calibration: " + status.message();
    return failure();
  }

  // The observation model: a copy whose graph also returns every observed
  // tensor, named kiln.calibration.<index>.
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
  func::FuncOp copyGraph = graphFunction(*copy);
  llvm::SmallVector<Value> copyValues(observed.size());
  size_t visited = 0;
  forEachQuantizable(copyGraph, options.settings,
                     [&](Operation *, unsigned, Value value) {
                       if (visited < readers.size())
                         copyValues[readers[visited].index] = value;
                       ++visited;
                     });
  if (visited != readers.size()) {
    error = "calibration: the module copy differs from the module";
    return failure();
  }
  Operation *terminator = copyGraph.getBody().front().getTerminator();
  llvm::SmallVector<Value> results(terminator->getOperands());
  llvm::SmallVector<DictionaryAttr> resultAttrs;
  for (unsigned i = 0; i < results.size(); ++i) {
    DictionaryAttr attrs = copyGraph.getResultAttrDict(i);
    resultAttrs.push_back(attrs ? attrs : DictionaryAttr::get(context));
  }
  Builder builder(context);
  for (auto [index, value] : llvm::enumerate(copyValues)) {
    results.push_back(value);
    resultAttrs.push_back(builder.getDictionaryAttr(builder.getNamedAttr(
        "kiln.name",
        builder.getStringAttr("kiln.calibration." + std::to_string(index)))));
  }
  terminator->setOperands(results);
  copyGraph.setType(FunctionType::get(context, copyGraph.getArgumentTypes(),
                                      ValueRange(results).getTypes()));
  copyGraph.setAllResultAttrs(resultAttrs);

  // Compile it (fp32, host CPU) into memory and load it in process.
  FailureOr<std::unique_ptr<TargetBackend>> backend = options.makeBackend(error);
  if (failed(backend))
    return failure();
  Pipeline pipeline(*context, PipelineOptions());
  pipeline.addBackend(std::move(*backend));
  ::kiln::artifact::ArtifactSpec spec;
  spec.sourceName = "calibration";
  if (failed(pipeline.compile(*copy, spec, error))) {
    if (!error.empty())
      error = "compiling the calibration model: " + error;
    return failure();
  }
  std::vector<uint8_t> bytes;
  if (!::kiln::artifact::writeArtifact(spec, bytes, error))
    return failure();
  std::shared_ptr<::kiln::Runtime> runtime;
  std::shared_ptr<const ::kiln::Model> model;
  std::unique_ptr<::kiln::Session> session;
  status = ::kiln::Runtime::Create(::kiln::RuntimeOptions(), &runtime);
  if (status.ok())
    status = runtime->LoadModelFromMemory(bytes.data(), bytes.size(), &model);
  if (status.ok())
    status = ::kiln::Session::Create(model, &session);
  if (!status.ok()) {
    error = "loading the calibration model: " + status.message();
    return failure();
  }
  std::vector<int> outputIndex;
  for (size_t i = 0; i < observed.size(); ++i) {
    int at = model->FindOutput("kiln.calibration." + std::to_string(i));
    if (at < 0 || model->outputs()[at].dtype != ::kiln::DType::F32) {
      error = "calibration: the observation model lacks output " +
              std::to_string(i);
      return failure();
    }
    outputIndex.push_back(at);
  }

  // Every sample is read and checked before the first run, so bad data is
  // reported at once.
  std::vector<std::vector<::kiln::Tensor>> inputs(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    status = ::kiln::tools::ReadSample(samples[i], model->inputs(), &inputs[i]);
    if (!status.ok()) {
      error = "calibration: " + status.message();
      return failure();
    }
  }

  // A reader per observed tensor, for messages.
  std::vector<const Reader *> firstReader(observed.size(), nullptr);
  for (const Reader &reader : readers)
    if (!firstReader[reader.index])
      firstReader[reader.index] = &reader;

  std::vector<TensorStatistics> stats(observed.size());
  auto runSamples = [&](bool histogram) -> LogicalResult {
    Progress progress(options.progress,
                      histogram ? "calibration (histograms): " : "calibration: ",
                      samples.size());
    std::vector<::kiln::Tensor> outputs;
    for (size_t i = 0; i < samples.size(); ++i) {
      status = session->Run(inputs[i], &outputs);
      if (!status.ok()) {
        error = "calibration sample '" + samples[i] + "': " + status.message();
        return failure();
      }
      for (size_t k = 0; k < stats.size(); ++k) {
        const ::kiln::Tensor &tensor = outputs[outputIndex[k]];
        const float *data = tensor.data_as<float>();
        if (histogram) {
          stats[k].ObserveHistogram(data, tensor.element_count());
        } else if (!stats[k].ObserveMinMax(data, tensor.element_count())) {
          error = "calibration sample '" + samples[i] + "': " +
                  describeReader(firstReader[k]->op,
                                 firstReader[k]->operand, options.settings) +
                  " holds NaN or infinite values";
          return failure();
        }
      }
      progress.done(i + 1);
    }
    return success();
  };
  if (failed(runSamples(/*histogram=*/false)))
    return failure();
  if (options.method != CalibrationMethod::MinMax) {
    for (TensorStatistics &s : stats)
      s.StartHistogram(options.method);
    if (failed(runSamples(/*histogram=*/true)))
      return failure();
  }

  // Each op's ranges in the order of its activations: [lo, hi] per
  // activation operand.
  llvm::MapVector<Operation *, llvm::SmallVector<float, 4>> ranges;
  for (const Reader &reader : readers) {
    const TensorStatistics &observedStats = stats[reader.index];
    ::kiln::quant::Range range =
        observedStats.ComputeRange(options.method, options.percentile);
    ranges[reader.op].append({range.lo, range.hi});
    if (options.dumpRanges)
      llvm::errs() << "calibration: "
                   << describeReader(reader.op, reader.operand,
                                     options.settings)
                   << ": ["
                   << llvm::format("%.9g", range.lo) << ", "
                   << llvm::format("%.9g", range.hi) << "] ("
                   << ::kiln::quant::CalibrationMethodName(options.method)
                   << "; observed [" << llvm::format("%.9g", observedStats.min())
                   << ", " << llvm::format("%.9g", observedStats.max())
                   << "])\n";
  }
  for (auto &[op, bounds] : ranges)
    op->setAttr(kInputRangeAttr, DenseF32ArrayAttr::get(context, bounds));
  return success();
}

} // namespace mlir::kiln
