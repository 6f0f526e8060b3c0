//===- ContribQuantConverters.h - com.microsoft quantized ops ---*- C++ -*-===//
//
// The converters of the com.microsoft ops that onnxruntime's quantization
// tool writes in its QOperator format (QLinearAdd, QGemm, ...). They are
// the only ops of a domain other than ONNX's default one that Kiln
// imports; GraphImporter looks them up by domain.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_ONNX_CONTRIBQUANTCONVERTERS_H
#define KILN_COMPILER_ONNX_CONTRIBQUANTCONVERTERS_H

#include "compiler/onnx/ConverterRegistry.h"

namespace mlir::kiln::onnx_import {

/// The domain of onnxruntime's contrib ops.
inline constexpr const char *kMicrosoftDomain = "com.microsoft";

/// The converter of com.microsoft op `opType` (every version: onnxruntime
/// has only version 1 of these), or null.
const ConverterInfo *lookupMicrosoftConverter(llvm::StringRef opType);

/// Every com.microsoft converter (for listing and tests).
llvm::ArrayRef<ConverterInfo> getMicrosoftConverters();

} // namespace mlir::kiln::onnx_import

#endif // KILN_COMPILER_ONNX_CONTRIBQUANTCONVERTERS_H
