//===- swish_shape.h - com.example::Swish's shape and type function -------===//
//
// Shared by both example plugins: Swish(x; beta) = x * sigmoid(beta * x)
// keeps its input's shape and float type.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_EXAMPLES_CUSTOM_OP_SWISH_SHAPE_H
#define KILN_EXAMPLES_CUSTOM_OP_SWISH_SHAPE_H

#include "compiler/customops/CustomOpDefinition.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

namespace swish_example {

// doc-region: shape
inline mlir::LogicalResult inferSwishTypes(mlir::Location loc, mlir::TypeRange operands,
                                           mlir::DictionaryAttr attributes,
                                           llvm::SmallVectorImpl<mlir::Type> &results) {
  if (operands.size() != 1)
    return mlir::emitError(loc) << "Swish takes 1 input, got " << operands.size();
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(operands[0]);
  if (!type || !llvm::isa<mlir::FloatType>(type.getElementType()))
    return mlir::emitError(loc) << "Swish takes a float tensor, got " << operands[0];
  if (mlir::Attribute beta = attributes.get("beta"); beta && !llvm::isa<mlir::FloatAttr>(beta))
    return mlir::emitError(loc) << "Swish's attribute 'beta' must be a FLOAT, got " << beta;
  results.push_back(type);
  return mlir::success();
}
// doc-end: shape

} // namespace swish_example

#endif // KILN_EXAMPLES_CUSTOM_OP_SWISH_SHAPE_H
