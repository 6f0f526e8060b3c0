//===- OnnxImporter.h - ONNX model -> Kiln dialect --------------*- C++ -*-===//
//
// The entry point of the ONNX frontend: reads a ModelProto file and builds a
// module holding one `func.func @main` of Kiln ops. Errors are reported as
// MLIR diagnostics that name the file, node or tensor at fault.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_ONNX_ONNXIMPORTER_H
#define KILN_COMPILER_ONNX_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::kiln::onnx_import {

struct ImportOptions {
  /// Shapes that replace the declared shape of named graph inputs
  /// (`--input-shape name=1x3x224x224`).
  llvm::StringMap<llvm::SmallVector<int64_t>> inputShapes;
};

/// Parses `--input-shape` values of the form `name=1x3x224x224` (an empty
/// shape, `name=`, is a scalar) into `options`. Returns false with `error`
/// set on a malformed value.
bool parseInputShape(llvm::StringRef text, ImportOptions &options,
                     std::string &error);

/// Registers the dialects the importer creates ops of.
void registerImporterDialects(MLIRContext &context);

/// Imports the model at `path`. Returns null after reporting errors.
OwningOpRef<ModuleOp> importOnnxFile(MLIRContext &context, llvm::StringRef path,
                                     const ImportOptions &options);

} // namespace mlir::kiln::onnx_import

#endif // KILN_COMPILER_ONNX_ONNXIMPORTER_H
