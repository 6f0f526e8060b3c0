//===- TensorDecoding.h - ONNX TensorProto -> MLIR constants ----*- C++ -*-===//
//
// Decodes initializers and constant tensors in every encoding ONNX allows:
// raw_data (little-endian bytes), the typed repeated fields (float_data,
// int32_data, int64_data, ...) and external data files next to the model.
// Element types are limited to the ones Kiln handles.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_ONNX_TENSORDECODING_H
#define KILN_COMPILER_ONNX_TENSORDECODING_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringRef.h"

// onnx_pb.h defines ONNX_API before including onnx-ml.pb.h.
#include "onnx/onnx_pb.h"

#include <string>

namespace mlir::kiln::onnx_import {

/// The ONNX name of a TensorProto::DataType value ("FLOAT", "DOUBLE", ...).
llvm::StringRef dtypeName(int32_t dtype);

/// The Kiln element type of an ONNX dtype, or an error at `loc` naming
/// `tensorName` and the dtype.
FailureOr<Type> convertElementType(MLIRContext *context, int32_t dtype,
                                   llvm::StringRef tensorName, Location loc);

/// Resolves the `location` of an external-data tensor against the model's
/// folder. Rejects absolute paths, paths that leave the folder (`..`) and
/// symbolic links resolving outside it; every error names the tensor and
/// the file.
FailureOr<std::string> resolveExternalDataPath(llvm::StringRef modelDir,
                                               llvm::StringRef location,
                                               llvm::StringRef tensorName,
                                               Location loc);

/// Decodes `tensor` into a constant. `modelDir` is the folder external data
/// files are read from.
FailureOr<ElementsAttr> decodeTensor(MLIRContext *context,
                                     const onnx::TensorProto &tensor,
                                     llvm::StringRef modelDir, Location loc);

} // namespace mlir::kiln::onnx_import

#endif // KILN_COMPILER_ONNX_TENSORDECODING_H
