//===- CustomOpConverter.h - ONNX nodes of plugin-registered ops -*- C++ -*-===//
//
// A node whose (domain, op type) has a CustomOpDefinition
// (compiler/customops/CustomOpRegistry.h) becomes one `kiln.custom_call`
// named after the definition, its attributes in `config`, its result types
// from the definition's shape function. GraphImporter consults the registry
// before Kiln's own converters, so a plugin may also provide a standard op
// Kiln lacks (or replace one it has).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_ONNX_CUSTOMOPCONVERTER_H
#define KILN_COMPILER_ONNX_CUSTOMOPCONVERTER_H

#include "compiler/customops/CustomOpRegistry.h"
#include "compiler/onnx/NodeContext.h"

namespace mlir::kiln::onnx_import {

/// Builds the custom call for `ctx`'s node. Errors name the node: an
/// attribute of a kind the call cannot carry (tensors, graphs, lists of
/// strings), an empty optional input, the shape function's own error, or a
/// result count or type that does not match the node.
LogicalResult convertCustomOp(NodeContext &ctx,
                              const CustomOpDefinition &definition);

} // namespace mlir::kiln::onnx_import

#endif // KILN_COMPILER_ONNX_CUSTOMOPCONVERTER_H
