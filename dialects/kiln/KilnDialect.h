//===- KilnDialect.h - The Kiln dialect and its ops -------------*- C++ -*-===//
//
// Include this header to use the Kiln dialect: the dialect class, its enums
// and every op class generated from KilnOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECTS_KILN_KILNDIALECT_H
#define KILN_DIALECTS_KILN_KILNDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/kiln/KilnDialect.h.inc"
#include "dialects/kiln/KilnEnums.h.inc"

#define GET_OP_CLASSES
#include "dialects/kiln/KilnOps.h.inc"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"

namespace mlir::kiln {

/// Builds an `OpTy` from operands and attributes with its result types
/// inferred, and verifies it. Unlike `OpTy::create`, whose generated
/// builders abort the process when inference fails, this reports inference
/// and verifier errors at `loc` and returns failure (erasing the op):
/// frontends build ops from untrusted model files.
template <typename OpTy>
FailureOr<OpTy> createChecked(OpBuilder &builder, Location loc,
                              ValueRange operands,
                              ArrayRef<NamedAttribute> attributes = {}) {
  OperationState state(loc, OpTy::getOperationName());
  state.addOperands(operands);
  state.addAttributes(attributes);
  SmallVector<Type> resultTypes;
  if (failed(OpTy::inferReturnTypes(
          builder.getContext(), loc, state.operands,
          state.attributes.getDictionary(builder.getContext()),
          state.getRawProperties(), state.regions, resultTypes)))
    return failure();
  state.addTypes(resultTypes);
  Operation *op = builder.create(state);
  // Inference checks shapes; the op's own verifier checks the rest (e.g.
  // clip bounds, pad modes), and folders may rely on both.
  if (failed(mlir::verify(op, /*verifyRecursively=*/false))) {
    op->erase();
    return failure();
  }
  return llvm::cast<OpTy>(op);
}

/// createChecked, then folds the new op when its operands allow (constant
/// inputs are evaluated as the graph is built). Returns the single result,
/// folded or not.
template <typename OpTy>
FailureOr<Value> createCheckedOrFold(OpBuilder &builder, Location loc,
                                     ValueRange operands,
                                     ArrayRef<NamedAttribute> attributes = {}) {
  FailureOr<OpTy> op = createChecked<OpTy>(builder, loc, operands, attributes);
  if (failed(op))
    return failure();
  SmallVector<Value, 1> folded;
  if (succeeded(builder.tryFold(*op, folded)) && folded.size() == 1) {
    // tryFold materializes folded constants before the op; the op itself
    // is now dead. (An in-place fold leaves `folded` empty and keeps it.)
    op->erase();
    return folded.front();
  }
  return op->getResult();
}

} // namespace mlir::kiln

#endif // KILN_DIALECTS_KILN_KILNDIALECT_H
