//===- ConverterRegistry.cpp - ONNX op type -> converter ------------------===//

#include "compiler/onnx/ConverterRegistry.h"

#include <vector>

namespace mlir::kiln::onnx_import {

llvm::ArrayRef<ConverterInfo> allConverters() {
  static const std::vector<ConverterInfo> table = [] {
    std::vector<ConverterInfo> all;
    for (llvm::ArrayRef<ConverterInfo> family :
         {getElementwiseConverters(), getActivationConverters(),
          getContractionConverters(), getNormalizationConverters(),
          getReductionConverters(), getShapeConverters(),
          getRecurrentConverters(), getIndexingConverters(),
          getResamplingConverters(), getCompositeConverters(),
          getQuantizationConverters()})
      all.insert(all.end(), family.begin(), family.end());
    return all;
  }();
  return table;
}

const ConverterInfo *lookupConverter(llvm::StringRef opType, int64_t opset) {
  for (const ConverterInfo &info : allConverters())
    if (opType == info.opType && info.minOpset <= opset &&
        opset <= info.maxOpset)
      return &info;
  return nullptr;
}

} // namespace mlir::kiln::onnx_import
