//===- CustomCallLowering.cpp - Plugin lowerings of custom calls ----------===//
#include "passes/lowering/CustomCallLowering.h"

#include "compiler/customops/CustomOpRegistry.h"
#include "dialects/kiln/KilnDialect.h"

#include "mlir/IR/Builders.h"

namespace mlir::kiln {

LogicalResult lowerRegisteredCustomCalls(Operation *root) {
  SmallVector<CustomCallOp> calls;
  root->walk([&](CustomCallOp call) { calls.push_back(call); });
  for (CustomCallOp call : calls) {
    const CustomOpDefinition *definition =
        lookupCustomOp(call.getCallTarget());
    if (!definition || !definition->lower)
      continue;
    OpBuilder builder(call);
    DictionaryAttr config =
        call.getConfig() ? *call.getConfig() : builder.getDictionaryAttr({});
    FailureOr<SmallVector<Value>> results = definition->lower(
        builder, call.getLoc(), call.getOperands(), config,
        call.getResultTypes());
    if (failed(results))
      return call.emitOpError("the lowering registered for '")
             << call.getCallTarget() << "' failed";
    if (results->size() != call.getNumResults())
      return call.emitOpError("the lowering registered for '")
             << call.getCallTarget() << "' returned " << results->size()
             << " values for " << call.getNumResults() << " results";
    for (auto [index, pair] :
         llvm::enumerate(llvm::zip(call.getResults(), *results))) {
      auto [result, value] = pair;
      if (!value || value.getType() != result.getType())
        return call.emitOpError("the lowering registered for '")
               << call.getCallTarget() << "' returned "
               << (value ? value.getType() : Type()) << " for result #"
               << index << " of type " << result.getType();
    }
    call->replaceAllUsesWith(*results);
    call.erase();
  }
  return success();
}

} // namespace mlir::kiln
