//===- KilnDialect.cpp - Kiln dialect registration ------------------------===//
//
// Registers the Kiln ops and materializes folded constants. The op hooks
// live in one file per op family (see KilnOps.td).
//
//===----------------------------------------------------------------------===//

#include "dialects/kiln/KilnDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace mlir::kiln;

#include "dialects/kiln/KilnDialect.cpp.inc"
#include "dialects/kiln/KilnEnums.cpp.inc"

void KilnDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/kiln/KilnOps.cpp.inc"
      >();
}

Operation *KilnDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto elements = llvm::dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

#define GET_OP_CLASSES
#include "dialects/kiln/KilnOps.cpp.inc"
