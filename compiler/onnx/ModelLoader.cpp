//===- ModelLoader.cpp - Reading ONNX ModelProto files --------------------===//

#include "compiler/onnx/ModelLoader.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/MemoryBuffer.h"

#include <google/protobuf/io/coded_stream.h>

#include <climits>

using namespace mlir;

namespace mlir::kiln::onnx_import {

LogicalResult parseModel(llvm::StringRef bytes, llvm::StringRef name,
                         Location loc, onnx::ModelProto &model) {
  // Protobuf's default limit (64 MiB in old releases) rejects real models;
  // a serialized message cannot exceed 2 GiB anyway, larger weights must be
  // stored as external data.
  if (bytes.size() > static_cast<size_t>(INT_MAX))
    return emitError(loc) << "'" << name << "' is " << bytes.size()
                          << " bytes; an ONNX file larger than 2 GiB must keep "
                             "its weights in external data files";
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t *>(bytes.data()),
      static_cast<int>(bytes.size()));
  stream.SetTotalBytesLimit(INT_MAX);
  if (!model.ParseFromCodedStream(&stream) ||
      !stream.ConsumedEntireMessage())
    return emitError(loc) << "'" << name
                          << "' is not a valid ONNX model (the protobuf "
                             "ModelProto could not be parsed; is the file "
                             "truncated or of another format?)";
  if (!model.has_graph())
    return emitError(loc) << "'" << name << "' has no graph";
  return success();
}

LogicalResult loadModel(llvm::StringRef path, Location loc,
                        onnx::ModelProto &model) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return emitError(loc) << "cannot read '" << path
                          << "': " << buffer.getError().message();
  return parseModel((*buffer)->getBuffer(), path, loc, model);
}

} // namespace mlir::kiln::onnx_import
