//===- ConverterRegistry.h - ONNX op type -> converter ----------*- C++ -*-===//
//
// One table maps each supported ONNX op type (default domain) to the
// function that converts it, with the range of opset versions it handles.
// Each op family keeps its part of the table beside its converters
// (ElementwiseConverters.cpp, ContractionConverters.cpp, ...).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_ONNX_CONVERTERREGISTRY_H
#define KILN_COMPILER_ONNX_CONVERTERREGISTRY_H

#include "compiler/onnx/NodeContext.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::kiln::onnx_import {

/// The oldest and newest default-domain opset the importer accepts.
inline constexpr int64_t kMinOpset = 6;
inline constexpr int64_t kMaxOpset = 23;

using ConverterFn = LogicalResult (*)(NodeContext &);

struct ConverterInfo {
  const char *opType;
  ConverterFn convert;
  /// Opset versions the converter handles (inclusive).
  int64_t minOpset = kMinOpset;
  int64_t maxOpset = kMaxOpset;
};

/// The converter for `opType` of the default ONNX domain at `opset`, or
/// null when there is none.
const ConverterInfo *lookupConverter(llvm::StringRef opType, int64_t opset);

/// Every registered converter (for listing and tests).
llvm::ArrayRef<ConverterInfo> allConverters();

// The per-family parts of the table.
llvm::ArrayRef<ConverterInfo> getElementwiseConverters();
llvm::ArrayRef<ConverterInfo> getActivationConverters();
llvm::ArrayRef<ConverterInfo> getContractionConverters();
llvm::ArrayRef<ConverterInfo> getNormalizationConverters();
llvm::ArrayRef<ConverterInfo> getReductionConverters();
llvm::ArrayRef<ConverterInfo> getShapeConverters();
llvm::ArrayRef<ConverterInfo> getRecurrentConverters();
llvm::ArrayRef<ConverterInfo> getIndexingConverters();
llvm::ArrayRef<ConverterInfo> getResamplingConverters();
llvm::ArrayRef<ConverterInfo> getCompositeConverters();
llvm::ArrayRef<ConverterInfo> getQuantizationConverters();

} // namespace mlir::kiln::onnx_import

#endif // KILN_COMPILER_ONNX_CONVERTERREGISTRY_H
