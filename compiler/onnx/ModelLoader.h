//===- ModelLoader.h - Reading ONNX ModelProto files ------------*- C++ -*-===//
//
// Parses a serialized ModelProto with the protobuf classes of the system's
// ONNX package, with a size limit large enough for big models.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_ONNX_MODELLOADER_H
#define KILN_COMPILER_ONNX_MODELLOADER_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/StringRef.h"

// onnx_pb.h defines ONNX_API before including onnx-ml.pb.h.
#include "onnx/onnx_pb.h"

namespace mlir::kiln::onnx_import {

/// Reads `path` into `model`; reports (at `loc`) a missing, unreadable or
/// malformed file, naming it.
LogicalResult loadModel(llvm::StringRef path, Location loc,
                        onnx::ModelProto &model);

/// Same, from bytes already in memory; `name` is used in messages.
LogicalResult parseModel(llvm::StringRef bytes, llvm::StringRef name,
                         Location loc, onnx::ModelProto &model);

} // namespace mlir::kiln::onnx_import

#endif // KILN_COMPILER_ONNX_MODELLOADER_H
