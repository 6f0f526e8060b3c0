//===- Passes.h - Kiln passes -----------------------------------*- C++ -*-===//
//
// Declarations of every Kiln pass (generated from Passes.td) and
// registerKilnPasses(), which makes them available to kiln-opt, kilnc and
// pass pipelines by their `kiln-*` names.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_PASSES_PASSES_H
#define KILN_PASSES_PASSES_H

#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir::kiln {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace mlir::kiln

#endif // KILN_PASSES_PASSES_H
