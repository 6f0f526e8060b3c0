//===- FoldQdq.cpp - kiln-fold-qdq ----------------------------------------===//
//
// Drives the int8 folds of QdqFolding.h over a module. The folds build
// their replacements with a plain OpBuilder (folding constants as they go)
// rather than as rewrite patterns, so this pass walks the graph itself.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/quant/QdqFolding.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::kiln {

#define GEN_PASS_DEF_FOLDQDQ
#include "passes/Passes.h.inc"

namespace {

class FoldQdqPass : public impl::FoldQdqBase<FoldQdqPass> {
public:
  using impl::FoldQdqBase<FoldQdqPass>::FoldQdqBase;
  void runOnOperation() override { quant::foldQdq(getOperation()); }
};

} // namespace
} // namespace mlir::kiln
