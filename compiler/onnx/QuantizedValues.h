//===- QuantizedValues.h - Quantize/dequantize for converters --*- C++ -*-===//
//
// The steps every converter of a quantized ONNX op takes: scales as f32,
// ONNX's default zero points (0, which for uint8 data held biased in i8 is
// -128; docs/design.md "INT8"), kiln.quantize / kiln.dequantize, and the
// check that an input is 8-bit quantized data. Shared by the default-domain
// converters (QuantizationConverters.cpp) and onnxruntime's com.microsoft
// ones (ContribQuantConverters.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_ONNX_QUANTIZEDVALUES_H
#define KILN_COMPILER_ONNX_QUANTIZEDVALUES_H

#include "compiler/onnx/NodeContext.h"

namespace mlir::kiln::onnx_import {

/// `v` as f32 (scales may be f16 or bf16 from opset 19).
FailureOr<Value> asF32(NodeContext &ctx, Value v);

/// A zero point of element type `element` and the shape of `scale`, all 0
/// (ONNX's default). For biased uint8 data, a u8 zero point of 0 is -128.
Value zeroPointLike(NodeContext &ctx, Value scale, Type element,
                    bool isUnsigned);

/// True if `v` is statically one element (a per-tensor parameter).
bool hasOneElement(Value v);

/// kiln.dequantize of `q` by `scale` and `zp` (null: ONNX's default 0)
/// along `axis`.
FailureOr<Value> dequantize(NodeContext &ctx, Value q, bool qUnsigned,
                            Value scale, Value zp, int64_t axis);

/// kiln.quantize of `x` (any float or int32, computed in f32).
FailureOr<Value> quantize(NodeContext &ctx, Value x, Value scale, Value zp,
                          int64_t axis);

/// Fails with an error naming the first of `inputs` (when present) whose
/// element type is not an integer of one of `widths` bits.
LogicalResult requireQuantized(NodeContext &ctx, ArrayRef<unsigned> inputs,
                               ArrayRef<unsigned> widths = {8});

} // namespace mlir::kiln::onnx_import

#endif // KILN_COMPILER_ONNX_QUANTIZEDVALUES_H
