//===- PaddleImporter.h - Paddle program -> Kiln dialect --------*- C++ -*-===//
//
// The converter half of the Paddle frontend: turns a ::kiln::paddle::Program
// (what the PIR JSON and ProgramDesc readers produce, PaddleProgram.h) into
// a module holding one `func.func @main` of Kiln ops, the same form the ONNX
// frontend builds, so the rest of the pipeline does not know where a model
// came from. Errors are MLIR diagnostics naming the model file and the op.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_PADDLE_PADDLEIMPORTER_H
#define KILN_COMPILER_PADDLE_PADDLEIMPORTER_H

#include "compiler/onnx/OnnxImporter.h"
#include "compiler/paddle/PaddleProgram.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir::kiln::paddle_import {

/// `--input-shape` overrides, shared with the ONNX frontend (Paddle exports
/// usually leave the batch dim as -1).
using ImportOptions = onnx_import::ImportOptions;

/// Imports `program`. Returns null after reporting errors (one report lists
/// every unsupported op type).
OwningOpRef<ModuleOp> importPaddleProgram(MLIRContext &context,
                                          const ::kiln::paddle::Program &program,
                                          const ImportOptions &options);

} // namespace mlir::kiln::paddle_import

#endif // KILN_COMPILER_PADDLE_PADDLEIMPORTER_H
