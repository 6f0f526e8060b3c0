//===- ConstantOps.cpp - Kiln constant and custom_call ops ----------------===//

#include "dialects/kiln/KilnDialect.h"
#include "dialects/kiln/OpHelpers.h"

using namespace mlir;
using namespace mlir::kiln;

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *context,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  if (failed(prepareForInference<ConstantOp>(context, loc, adaptor)))
    return failure();
  auto type = llvm::dyn_cast<RankedTensorType>(adaptor.getValue().getType());
  if (!type)
    return inferenceError(loc, getOperationName(),
                          "value must be a ranked tensor constant");
  types.push_back(type);
  return success();
}

LogicalResult ConstantOp::verify() {
  // This hook runs before the type inference check (an interface verifier
  // that runs with the regions), so the value may still be of any shape.
  auto type = llvm::dyn_cast<RankedTensorType>(getValue().getType());
  if (!type)
    return emitOpError("value must be a ranked tensor constant");
  if (!type.hasStaticShape())
    return emitOpError("value must have a static shape, got ") << type;
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// CustomCallOp
//===----------------------------------------------------------------------===//

LogicalResult CustomCallOp::verify() {
  if (getCallTarget().empty())
    return emitOpError("call_target must name a registered custom operator");
  return success();
}

void CustomCallOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  // Unless declared otherwise, a custom op is a pure function of its
  // operands, so unused calls may be removed and duplicates merged.
  if (!getHasSideEffects())
    return;
  effects.emplace_back(MemoryEffects::Read::get());
  effects.emplace_back(MemoryEffects::Write::get());
}
