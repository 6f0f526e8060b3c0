//===- CustomCallLowering.h - Plugin lowerings of custom calls --*- C++ -*-===//
//
// kiln-to-linalg's first step: every `kiln.custom_call` whose call target
// has a registered lowering (compiler/customops/CustomOpRegistry.h, kind a)
// is replaced by the ops that lowering builds, which the Kiln patterns then
// lower like any other. Calls without one are external kernels (kind b)
// and stay for the host plan.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PASSES_LOWERING_CUSTOMCALLLOWERING_H
#define KILN_PASSES_LOWERING_CUSTOMCALLLOWERING_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"

namespace mlir::kiln {

/// Expands the registered lowerings of the custom calls under `root`.
/// Fails, with an error at the call, when a lowering fails or returns
/// values that do not match the call's results.
LogicalResult lowerRegisteredCustomCalls(Operation *root);

} // namespace mlir::kiln

#endif // KILN_PASSES_LOWERING_CUSTOMCALLLOWERING_H
