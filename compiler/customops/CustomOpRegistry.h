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
// The registry is process-wide (one per tool: plugins reach it through
// PluginRegistrar::addCustomOp, never by linking it). Register before
// compiling; registration
// and lookup are thread-safe, and a registered definition lives until the
// process ends (lookups return stable pointers).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CUSTOMOPS_CUSTOMOPREGISTRY_H
#define KILN_COMPILER_CUSTOMOPS_CUSTOMOPREGISTRY_H

#include "compiler/customops/CustomOpDefinition.h"

#include <string>
#include <vector>

namespace mlir::kiln {

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
