//===- CustomOpDefinition.h - What a plugin says about an op ----*- C++ -*-===//
//
// The description of one custom operator that a plugin hands to
// PluginRegistrar::addCustomOp (compiler/plugin/KilnPlugin.h): which ONNX
// nodes it matches, its shape and type function, and either a lowering
// (kind a) or nothing, for an external kernel the runtime resolves by name
// (kind b). Header only: a plugin includes it and links nothing of Kiln.
// How the compiler uses a definition: CustomOpRegistry.h.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CUSTOMOPS_CUSTOMOPDEFINITION_H
#define KILN_COMPILER_CUSTOMOPS_CUSTOMOPDEFINITION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/TypeRange.h"
#include "mlir/IR/ValueRange.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <string>

namespace mlir::kiln {

/// The result types of one call from its operand types and attributes
/// (ONNX attributes as MLIR ones: INT -> i64 IntegerAttr, FLOAT -> f32
/// FloatAttr, STRING -> StringAttr, INTS -> DenseI64ArrayAttr, FLOATS ->
/// DenseF32ArrayAttr). Report errors with `emitError(loc)`; the importer
/// prefixes nothing, so say which op and operand is at fault.
using CustomOpInferTypesFn = std::function<LogicalResult(
    Location loc, TypeRange operandTypes, DictionaryAttr attributes,
    SmallVectorImpl<Type> &resultTypes)>;

/// Kind (a): builds the op at the builder's insertion point from Kiln ops
/// (lowered further by kiln-to-linalg) or linalg/tensor/arith/math ops on
/// tensors, and returns one value per result, of `resultTypes`. Report
/// errors with `emitError(loc)` and return failure().
using CustomOpLowerFn = std::function<FailureOr<SmallVector<Value>>(
    OpBuilder &builder, Location loc, ValueRange operands,
    DictionaryAttr attributes, TypeRange resultTypes)>;

struct CustomOpDefinition {
  /// The ONNX domain and op type the importer matches ("com.example",
  /// "Swish"); "" (or "ai.onnx") is the default domain. A definition for a
  /// default-domain op that Kiln already converts replaces Kiln's
  /// converter.
  std::string domain;
  std::string opType;
  /// The call target: `kiln.custom_call "NAME"` and, for an external
  /// kernel, the name the runtime resolves. Empty: "<domain>.<opType>"
  /// ("com.example.Swish"; "ai.onnx.Celu" for the default domain).
  std::string name;
  /// Required.
  CustomOpInferTypesFn inferTypes;
  /// Set: kind (a), a lowering. Empty: kind (b), an external kernel.
  CustomOpLowerFn lower;
};

} // namespace mlir::kiln

#endif // KILN_COMPILER_CUSTOMOPS_CUSTOMOPDEFINITION_H
