//===- onnx_importer_fuzzer.cpp - libFuzzer target for the ONNX importer --===//
//
// Feeds ModelProto bytes to the importer (the entry kilnc uses) and verifies
// the module it returns. Import only: code generation per input would make
// the target far too slow to explore the parser and the converters.
//
// Each input gets a fresh MLIRContext so that constants uniqued for one
// input do not pile up across millions of them. The model is written into a
// private, otherwise empty folder: external-data references then resolve to
// nothing outside it.
//
//===----------------------------------------------------------------------===//

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "compiler/onnx/OnnxImporter.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace {

std::string ModelPath() {
  llvm::SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory("kiln-onnx-fuzz", dir))
    std::abort();
  return (dir + "/model.onnx").str();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string path = ModelPath();
  {
    std::error_code error;
    llvm::raw_fd_ostream out(path, error);
    if (error)
      std::abort();
    out.write(reinterpret_cast<const char *>(data), size);
  }

  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  // Errors are the expected outcome for most inputs; what matters is that
  // they are reported rather than crashing.
  mlir::ScopedDiagnosticHandler quiet(&context, [](mlir::Diagnostic &) {
    return mlir::success();
  });
  mlir::kiln::onnx_import::ImportOptions options;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::kiln::onnx_import::importOnnxFile(context, path, options);
  // What the importer returns must be valid IR: a module it built but that
  // fails the verifier would crash or mislead the passes after it.
  if (module && mlir::failed(mlir::verify(*module)))
    std::abort();
  return 0;
}
