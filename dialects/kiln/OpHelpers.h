//===- OpHelpers.h - Shared helpers for Kiln op implementations -*- C++ -*-===//
//
// Small helpers used by the files that implement Kiln ops: preparing the
// operands and attributes that type inference runs on, reporting a type
// inference failure with the op's name, turning a shape-inference result
// into a tensor type, and filling in defaulted window attributes. Internal
// to the dialect library.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECTS_KILN_OPHELPERS_H
#define KILN_DIALECTS_KILN_OPHELPERS_H

#include "dialects/kiln/ShapeInference.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::kiln {

/// Emits "'<op>' op <message>" at `loc` (when there is one) and fails. Type
/// inference runs both while parsing and while verifying, so its messages
/// carry the op name the way `emitOpError` would.
inline LogicalResult inferenceError(std::optional<Location> loc,
                                    llvm::StringRef opName,
                                    const llvm::Twine &message) {
  return emitOptionalError(loc, "'", opName, "' op ", message);
}

/// Type inference runs on what a parser or builder collected, before the op
/// exists and before its invariants are verified: attributes declared with
/// DefaultValuedAttr are not filled in yet (their adaptor getters would
/// dereference a null attribute), attributes may be of the wrong kind, and
/// operands may not be ranked tensors (every Kiln tensor operand is one).
/// Rebuilds `adaptor` with the defaults filled in and checks the attributes,
/// with the messages the verifier would give, and the operand types, so that
/// inference reports an error instead of crashing.
template <typename OpTy>
LogicalResult prepareForInference(MLIRContext *context,
                                  std::optional<Location> loc,
                                  typename OpTy::Adaptor &adaptor) {
  NamedAttrList attributes(adaptor.getAttributes());
  OperationName(OpTy::getOperationName(), context)
      .populateDefaultAttrs(attributes);
  adaptor = typename OpTy::Adaptor(adaptor.getOperands(),
                                   attributes.getDictionary(context));
  if (loc) {
    if (failed(adaptor.verify(*loc)))
      return failure();
  } else {
    // Without a location the caller asked for no diagnostics.
    ScopedDiagnosticHandler silence(context,
                                    [](Diagnostic &) { return success(); });
    if (failed(adaptor.verify(UnknownLoc::get(context))))
      return failure();
  }
  for (auto [index, operand] : llvm::enumerate(adaptor.getOperands())) {
    if (llvm::isa<RankedTensorType>(operand.getType()))
      continue;
    std::string message;
    llvm::raw_string_ostream os(message);
    os << "operand #" << index << " must be a ranked tensor, got "
       << operand.getType();
    return inferenceError(loc, OpTy::getOperationName(), os.str());
  }
  return success();
}

/// Pushes a tensor type of `result` and `elementType` onto `types`, or
/// reports `result.error`.
inline LogicalResult
pushInferredType(std::optional<Location> loc, llvm::StringRef opName,
                 const shape::ShapeOrError &result, Type elementType,
                 llvm::SmallVectorImpl<Type> &types) {
  if (!result.ok())
    return inferenceError(loc, opName, result.error);
  types.push_back(RankedTensorType::get(result.shape, elementType));
  return success();
}

/// `values` if non-empty, else `count` copies of `fill`: window attributes
/// (strides, dilations, pads) are optional and default to 1 or 0.
inline llvm::SmallVector<int64_t> valuesOrFill(llvm::ArrayRef<int64_t> values,
                                               int64_t count, int64_t fill) {
  if (!values.empty())
    return llvm::SmallVector<int64_t>(values);
  return llvm::SmallVector<int64_t>(count < 0 ? 0 : count, fill);
}

/// Reports that two operands' element types differ.
inline LogicalResult
checkSameElementType(std::optional<Location> loc, llvm::StringRef opName,
                     llvm::StringRef lhsName, Type lhs, llvm::StringRef rhsName,
                     Type rhs) {
  Type lhsElement = cast<ShapedType>(lhs).getElementType();
  Type rhsElement = cast<ShapedType>(rhs).getElementType();
  if (lhsElement == rhsElement)
    return success();
  std::string message;
  llvm::raw_string_ostream os(message);
  os << lhsName << " element type " << lhsElement << " differs from "
     << rhsName << " element type " << rhsElement;
  return inferenceError(loc, opName, os.str());
}

} // namespace mlir::kiln

#endif // KILN_DIALECTS_KILN_OPHELPERS_H
