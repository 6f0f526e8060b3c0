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

#endif // KILN_DIALECTS_KILN_KILNDIALECT_H
