//===- CustomOpRegistry.h - Operators that plugins add to Kiln --*- C++ -*-===//
//
// A model may use an operator Kiln does not know: a custom domain
// (`com.example::Swish`) or a standard ONNX op outside Kiln's list. A
// plugin (compiler/plugin/, or any code linked into kilnc/kiln-opt)
// registers a CustomOpDefinition for it; then
//
//  - the ONNX importer turns each such node into
//    `kiln.custom_call "NAME"(operands) {config = {attributes}}` with the
//    result types the definition's shape function infers;
//  - kiln-to-linalg either calls the definition's `lower` (kind a: the op
//    becomes Kiln/linalg ops that fuse and tile like built-in ones) or,
//    without one, leaves the call on the host (kind b: an external kernel);
//  - the host plan turns each call left on the host into a CustomCall step
//    that the runtime resolves by NAME among the kernels the service
//    registered (runtime/include/kiln/custom_op.h).
//
// The registry is process-wide. Register before compiling; registration
// and lookup are thread-safe, and a registered definition lives until the
// process ends (lookups return stable pointers).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CUSTOMOPS_CUSTOMOPREGISTRY_H
#define KILN_COMPILER_CUSTOMOPS_CUSTOMOPREGISTRY_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/TypeRange.h"
#include "mlir/IR/ValueRange.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <string>
#include <vector>

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

/// Adds `definition` (its `name` filled in when empty). Fails with a
/// message in `error` when the shape function is missing, the op type is
/// empty, or the (domain, op type) or the name is already registered.
LogicalResult registerCustomOp(CustomOpDefinition definition,
                               std::string &error);

/// The definition for an ONNX node, or null.
const CustomOpDefinition *lookupCustomOpForNode(llvm::StringRef domain,
                                                llvm::StringRef opType);
/// The definition with call target `name`, or null.
const CustomOpDefinition *lookupCustomOp(llvm::StringRef name);
/// Every registered definition, in registration order.
std::vector<const CustomOpDefinition *> registeredCustomOps();

} // namespace mlir::kiln

#endif // KILN_COMPILER_CUSTOMOPS_CUSTOMOPREGISTRY_H
