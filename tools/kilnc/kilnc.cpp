//===- kilnc.cpp - The Kiln model compiler driver -------------------------===//
//
// Imports an ONNX model into the Kiln dialect and, for now, prints it either
// right after import (--emit=onnx-raw) or after graph clean-up
// (--emit=kiln). Every error goes to stderr naming the file, node or tensor,
// and the exit status is non-zero.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/OnnxImporter.h"
#include "dialects/kiln/KilnDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
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

enum class EmitKind { OnnxRaw, Kiln };

cl::OptionCategory kilncCategory("kilnc options");

cl::opt<std::string> inputPath(cl::Positional, cl::Required,
                               cl::desc("<model.onnx>"),
                               cl::cat(kilncCategory));

cl::opt<std::string> outputPath("o", cl::desc("Output file ('-' for stdout)"),
                                cl::value_desc("file"), cl::init("-"),
                                cl::cat(kilncCategory));

cl::opt<EmitKind> emit(
    "emit", cl::desc("What to produce"), cl::init(EmitKind::Kiln),
    cl::values(clEnumValN(EmitKind::OnnxRaw, "onnx-raw",
                          "Kiln IR right after import, before any pass "
                          "(verified)"),
               clEnumValN(EmitKind::Kiln, "kiln",
                          "Kiln IR after kiln-graph-cleanup (default)")),
    cl::cat(kilncCategory));

cl::list<std::string> inputShapes(
    "input-shape",
    cl::desc("Fix the shape of a graph input, e.g. input_ids=1x128 (use ? "
             "for a dynamic dim; repeatable)"),
    cl::value_desc("name=DxDx..."), cl::cat(kilncCategory));

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions({&kilncCategory});
  cl::ParseCommandLineOptions(argc, argv,
                              "kilnc: the Kiln model compiler (ONNX import)\n");

  kiln::onnx_import::ImportOptions options;
  for (const std::string &text : inputShapes) {
    std::string error;
    if (!kiln::onnx_import::parseInputShape(text, options, error)) {
      llvm::errs() << "kilnc: error: " << error << "\n";
      return 1;
    }
  }

  DialectRegistry registry;
  registry.insert<func::FuncDialect, kiln::KilnDialect>();
  MLIRContext context(registry);
  // Errors come out as "<location>: error: <message>"; the locations carry
  // the model file, node or tensor names.
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context, llvm::errs());

  OwningOpRef<ModuleOp> module =
      kiln::onnx_import::importOnnxFile(context, inputPath, options);
  if (!module)
    return 1;

  if (emit == EmitKind::Kiln) {
    PassManager pm(&context);
    pm.addPass(kiln::createGraphCleanup());
    if (failed(pm.run(*module)))
      return 1;
  }

  std::string error;
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
