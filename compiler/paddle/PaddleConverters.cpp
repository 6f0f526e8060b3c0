//===- PaddleConverters.cpp - The table of all Paddle converters ----------===//

#include "compiler/paddle/PaddleConverters.h"

#include "llvm/ADT/StringMap.h"

#include <vector>

namespace mlir::kiln::paddle_import {

llvm::ArrayRef<ConverterInfo> allConverters() {
  static const std::vector<ConverterInfo> all = [] {
    std::vector<ConverterInfo> result;
    for (auto part :
         {getConvPoolConverters(), getNormalizationConverters(),
          getMathConverters(), getActivationConverters(), getShapeConverters(),
          getResizeConverters(), getRecurrentConverters()})
      result.insert(result.end(), part.begin(), part.end());
    return result;
  }();
  return all;
}

const ConverterInfo *lookupConverter(llvm::StringRef opType) {
  static const llvm::StringMap<const ConverterInfo *> table = [] {
    llvm::StringMap<const ConverterInfo *> result;
    for (const ConverterInfo &info : allConverters())
      result[info.opType] = &info;
    return result;
  }();
  return table.lookup(opType);
}

const char *unsupportedReason(llvm::StringRef opType) {
  if (opType.consume_front("pd_op.")) {
  }
  if (opType.starts_with("multiclass_nms") || opType == "matrix_nms" ||
      opType == "generate_proposals" || opType == "generate_proposals_v2")
    return "detection post-processing (NMS) is not supported by Kiln; "
           "export the model without it (e.g. PaddleDetection's "
           "exclude_nms / exclude_post_process) and run NMS on the outputs";
  return nullptr;
}

} // namespace mlir::kiln::paddle_import
