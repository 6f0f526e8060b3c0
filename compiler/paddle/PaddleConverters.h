//===- PaddleConverters.h - Paddle op type -> converter ---------*- C++ -*-===//
//
// One table maps each supported Paddle op type, exactly as the file names
// it, to its converter: legacy types ("conv2d", "elementwise_add") and PIR
// names ("pd_op.conv2d", "pd_op.add") each have an entry, usually sharing
// one function that reads its operands through OpContext (legacy slot name
// or PIR position). Each op family keeps its part of the table beside its
// converters.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_PADDLE_PADDLECONVERTERS_H
#define KILN_COMPILER_PADDLE_PADDLECONVERTERS_H

#include "compiler/paddle/OpContext.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::kiln::paddle_import {

using ConverterFn = LogicalResult (*)(OpContext &);

struct ConverterInfo {
  const char *opType;
  ConverterFn convert;
};

/// The converter for `opType`, or null when Kiln has none.
const ConverterInfo *lookupConverter(llvm::StringRef opType);

/// Every registered converter (for listing and tests).
llvm::ArrayRef<ConverterInfo> allConverters();

/// Op types that are known and deliberately unsupported, with why (e.g.
/// multiclass_nms); null for others.
const char *unsupportedReason(llvm::StringRef opType);

// The per-family parts of the table.
llvm::ArrayRef<ConverterInfo> getConvPoolConverters();
llvm::ArrayRef<ConverterInfo> getNormalizationConverters();
llvm::ArrayRef<ConverterInfo> getMathConverters();
llvm::ArrayRef<ConverterInfo> getActivationConverters();
llvm::ArrayRef<ConverterInfo> getShapeConverters();
llvm::ArrayRef<ConverterInfo> getResizeConverters();
llvm::ArrayRef<ConverterInfo> getRecurrentConverters();

} // namespace mlir::kiln::paddle_import

#endif // KILN_COMPILER_PADDLE_PADDLECONVERTERS_H
