//===- QuantizationConverters.cpp - QDQ and QOperator ONNX ops ------------===//
//
// QuantizeLinear / DequantizeLinear become kiln.quantize / kiln.dequantize
// (per tensor or per axis). The QOperator ops are written in the same
// terms, so that kiln-fold-qdq forms the integer contractions for every
// format alike:
//
//   QLinearMatMul = quantize(matmul(dequantize(a), dequantize(b)), y)
//   QLinearConv   = quantize(conv(dequantize(x), dequantize(w),
//                                 dequantize(bias, sx * sw)), y)
//
// MatMulInteger and ConvInteger have i32 results and are built as integer
// contractions with zero-point corrections directly (QdqFolding.h).
// DynamicQuantizeLinear is computed from a min and max reduction as ONNX
// defines it.
//
// ONNX uint8 data is held biased in i8 (u8 - 128, docs/design.md "INT8"):
// a uint8 zero point is biased like the data, so (q - zp) and the
// saturation bounds stay right. Types Kiln does not quantize to (int16,
// int4, float8) and block quantization are refused before conversion
// (GraphImporter::checkQuantizedTypes).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Composer.h"
#include "compiler/onnx/ConverterRegistry.h"
#include "compiler/onnx/QuantizedValues.h"
#include "passes/quant/QdqFolding.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace mlir::kiln::onnx_import {
namespace {

Type f32(NodeContext &ctx) { return Float32Type::get(ctx.getContext()); }
Type i8(NodeContext &ctx) { return IntegerType::get(ctx.getContext(), 8); }

} // namespace

/// `v` as f32 (scales may be f16 or bf16 from opset 19).
FailureOr<Value> asF32(NodeContext &ctx, Value v) {
  // A null value is an operand whose own construction already failed (and
  // reported why); answering failure keeps the converter from crashing.
  if (!v)
    return failure();
  if (llvm::cast<RankedTensorType>(v.getType()).getElementType().isF32())
    return v;
  return ctx.create<CastOp>(v, {ctx.named("to", TypeAttr::get(f32(ctx)))});
}

/// A zero point of element type `element` and the shape of `scale`, all 0
/// (ONNX's default). For biased uint8 data, a u8 zero point of 0 is -128.
Value zeroPointLike(NodeContext &ctx, Value scale, Type element,
                    bool isUnsigned) {
  auto type = llvm::cast<RankedTensorType>(scale.getType()).clone(element);
  std::vector<int64_t> value(1, isUnsigned ? -128 : 0);
  return ctx.constant(writeInts(type, value));
}

/// The `axis` attribute of a quantize/dequantize node, normalized, when the
/// scale is per axis; 1 (unused) otherwise.
static FailureOr<int64_t> quantizationAxis(NodeContext &ctx, Value scale,
                                           int64_t rank) {
  auto type = llvm::cast<RankedTensorType>(scale.getType());
  if (type.getRank() == 0 || (type.hasStaticShape() && type.getNumElements() == 1))
    return 1;
  if (type.getRank() != 1)
    return ctx.error() << "scale must be a scalar or 1-D, got " << type;
  return normalizeAxis(ctx, ctx.getInt("axis", 1), rank);
}

bool hasOneElement(Value v) {
  auto type = llvm::cast<RankedTensorType>(v.getType());
  return type.hasStaticShape() && type.getNumElements() == 1;
}

/// Quantizers write per-tensor parameters as [] or [1] and do not always
/// give scale and zero point the same one: the zero point takes the
/// scale's shape.
static FailureOr<Value> matchZeroPointShape(NodeContext &ctx, Value zp,
                                            Value scale) {
  auto zpType = llvm::cast<RankedTensorType>(zp.getType());
  auto scaleType = llvm::cast<RankedTensorType>(scale.getType());
  if (zpType.getShape() == scaleType.getShape() || !hasOneElement(zp) ||
      !hasOneElement(scale) || scaleType.getRank() > 1)
    return zp;
  return ctx.reshape(zp, scaleType.getShape());
}

/// kiln.dequantize of `q` by `scale` and `zp` (null: 0) along `axis`.
FailureOr<Value> dequantize(NodeContext &ctx, Value q, bool qUnsigned,
                            Value scale, Value zp, int64_t axis) {
  FailureOr<Value> s = asF32(ctx, scale);
  if (failed(s) || !q)
    return failure();
  Type element = llvm::cast<RankedTensorType>(q.getType()).getElementType();
  if (!zp)
    zp = zeroPointLike(ctx, *s, element, qUnsigned);
  FailureOr<Value> z = matchZeroPointShape(ctx, zp, *s);
  if (failed(z))
    return failure();
  zp = *z;
  return ctx.create<DequantizeOp>({q, *s, zp},
                                  {ctx.namedInt("axis", axis)});
}

/// kiln.quantize of `x` (any float or int32, computed in f32).
FailureOr<Value> quantize(NodeContext &ctx, Value x, Value scale, Value zp,
                          int64_t axis) {
  FailureOr<Value> xf = asF32(ctx, x);
  FailureOr<Value> s = asF32(ctx, scale);
  if (failed(xf) || failed(s))
    return failure();
  FailureOr<Value> z = matchZeroPointShape(ctx, zp, *s);
  if (failed(z))
    return failure();
  return ctx.create<QuantizeOp>({*xf, *s, *z}, {ctx.namedInt("axis", axis)});
}

/// Fails with an error naming the first of `inputs` (when present) whose
/// element type is not an integer of one of `widths` bits.
LogicalResult requireQuantized(NodeContext &ctx, ArrayRef<unsigned> inputs,
                               ArrayRef<unsigned> widths) {
  for (unsigned i : inputs) {
    if (!ctx.hasInput(i))
      continue;
    Type element = ctx.inputType(i).getElementType();
    if (llvm::any_of(widths, [&](unsigned w) { return element.isInteger(w); }))
      continue;
    return ctx.error() << "input #" << i << " ('" << ctx.node.input(i)
                       << "') has element type " << element
                       << ", expected a quantized (int8/uint8"
                       << (widths.size() > 1 ? "/int32" : "") << ") tensor";
  }
  return success();
}

namespace {

LogicalResult convertQuantizeLinear(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  Value x = ctx.input(0), scale = ctx.input(1);
  FailureOr<int64_t> axis =
      quantizationAxis(ctx, scale, ctx.inputType(0).getRank());
  if (failed(axis))
    return failure();
  bool isUnsigned;
  Value zp = ctx.input(2);
  if (zp) {
    if (failed(requireQuantized(ctx, {2})))
      return failure();
    isUnsigned = ctx.isUnsigned8(2);
  } else {
    // Without a zero point the output type is output_dtype (opset 21),
    // uint8 by default.
    isUnsigned = ctx.getInt("output_dtype", onnx::TensorProto::UINT8) ==
                 onnx::TensorProto::UINT8;
    FailureOr<Value> s = asF32(ctx, scale);
    if (failed(s))
      return failure();
    zp = zeroPointLike(ctx, *s, i8(ctx), isUnsigned);
  }
  if (failed(ctx.setResult(0, quantize(ctx, x, scale, zp, *axis))))
    return failure();
  if (isUnsigned)
    ctx.markUnsigned8(0);
  return success();
}

LogicalResult convertDequantizeLinear(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  if (failed(requireQuantized(ctx, {0, 2}, {8, 32})))
    return failure();
  Value q = ctx.input(0), scale = ctx.input(1);
  FailureOr<int64_t> axis =
      quantizationAxis(ctx, scale, ctx.inputType(0).getRank());
  if (failed(axis))
    return failure();
  FailureOr<Value> y =
      dequantize(ctx, q, ctx.isUnsigned8(0), scale, ctx.input(2), *axis);
  if (failed(y))
    return failure();
  // From opset 19 the output has the scale's type.
  Type scaleElement = ctx.inputType(1).getElementType();
  if (!scaleElement.isF32())
    y = ctx.create<CastOp>(*y, {ctx.named("to", TypeAttr::get(scaleElement))});
  return ctx.setResult(0, y);
}

/// Per-row (axis rank - 2) or per-column (rank - 1) parameters of the
/// QLinearMatMul operands, per tensor when they have one element.
int64_t matmulAxis(Value scale, int64_t rank, bool columns) {
  auto type = llvm::cast<RankedTensorType>(scale.getType());
  if (type.getRank() == 0 || (type.hasStaticShape() && type.getNumElements() == 1))
    return 1;
  return columns ? rank - 1 : rank - 2;
}

LogicalResult convertQLinearMatMul(NodeContext &ctx) {
  if (failed(ctx.requireInputs(8)))
    return failure();
  if (failed(requireQuantized(ctx, {0, 2, 3, 5, 7})))
    return failure();
  int64_t aRank = ctx.inputType(0).getRank(), bRank = ctx.inputType(3).getRank();
  if (aRank < 2 || bRank < 2)
    return ctx.error() << "expects operands of rank >= 2, got "
                       << ctx.inputType(0) << " and " << ctx.inputType(3);
  FailureOr<Value> a =
      dequantize(ctx, ctx.input(0), ctx.isUnsigned8(0), ctx.input(1),
                 ctx.input(2), matmulAxis(ctx.input(1), aRank, false));
  FailureOr<Value> b =
      dequantize(ctx, ctx.input(3), ctx.isUnsigned8(3), ctx.input(4),
                 ctx.input(5), matmulAxis(ctx.input(4), bRank, true));
  if (failed(a) || failed(b))
    return failure();
  FailureOr<Value> y = ctx.create<MatmulOp>({*a, *b});
  if (failed(y))
    return failure();
  int64_t yRank = llvm::cast<RankedTensorType>(y->getType()).getRank();
  if (failed(ctx.setResult(0, quantize(ctx, *y, ctx.input(6), ctx.input(7),
                                       matmulAxis(ctx.input(6), yRank, false)))))
    return failure();
  if (ctx.isUnsigned8(7))
    ctx.markUnsigned8(0);
  return success();
}

/// The window of a Conv-like node with ONNX defaults (explicit pads only;
/// auto_pad is resolved for static inputs).
FailureOr<quant::ConvWindow> convWindow(NodeContext &ctx, unsigned xIndex,
                                        unsigned wIndex) {
  RankedTensorType x = ctx.inputType(xIndex), w = ctx.inputType(wIndex);
  if (x.getRank() < 3 || w.getRank() != x.getRank())
    return ctx.error() << "expects input [N, C, D...] and filter [M, C/g, "
                          "K...] of the same rank, got "
                       << x << " and " << w;
  int64_t n = x.getRank() - 2;
  quant::ConvWindow window;
  window.strides = ctx.getInts("strides").value_or(SmallVector<int64_t>(n, 1));
  window.dilations =
      ctx.getInts("dilations").value_or(SmallVector<int64_t>(n, 1));
  window.groups = ctx.getInt("group", 1);
  if (window.strides.size() != size_t(n) || window.dilations.size() != size_t(n))
    return ctx.error() << "strides and dilations need " << n << " entries";
  std::string autoPad = ctx.getString("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    window.pads = ctx.getInts("pads").value_or(SmallVector<int64_t>(2 * n, 0));
    if (window.pads.size() != size_t(2 * n))
      return ctx.error() << "pads has " << window.pads.size()
                         << " entries, expected " << 2 * n;
    return window;
  }
  window.pads.assign(2 * n, 0);
  if (autoPad == "VALID")
    return window;
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return ctx.error() << "unknown auto_pad '" << autoPad << "'";
  for (int64_t i = 0; i < n; ++i) {
    int64_t in = x.getDimSize(2 + i), k = w.getDimSize(2 + i);
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(k))
      return ctx.error() << "auto_pad " << autoPad
                         << " needs static spatial dims";
    int64_t s = window.strides[i];
    int64_t out = (in + s - 1) / s;
    int64_t total = std::max<int64_t>(
        0, (out - 1) * s + (k - 1) * window.dilations[i] + 1 - in);
    int64_t small = total / 2, large = total - small;
    window.pads[i] = autoPad == "SAME_UPPER" ? small : large;
    window.pads[n + i] = autoPad == "SAME_UPPER" ? large : small;
  }
  return window;
}

SmallVector<NamedAttribute> convAttrs(NodeContext &ctx,
                                      const quant::ConvWindow &window) {
  return {ctx.namedInts("strides", window.strides),
          ctx.namedInts("dilations", window.dilations),
          ctx.namedInts("pads", window.pads),
          ctx.namedInt("groups", window.groups)};
}

LogicalResult convertQLinearConv(NodeContext &ctx) {
  if (failed(ctx.requireInputs(8)))
    return failure();
  if (failed(requireQuantized(ctx, {0, 2, 3, 5, 7})))
    return failure();
  if (ctx.hasInput(8) && !ctx.inputType(8).getElementType().isInteger(32))
    return ctx.error() << "bias must be int32, got " << ctx.inputType(8);
  FailureOr<quant::ConvWindow> window = convWindow(ctx, 0, 3);
  if (failed(window))
    return failure();
  if (!llvm::cast<RankedTensorType>(ctx.input(1).getType()).hasStaticShape() ||
      llvm::cast<RankedTensorType>(ctx.input(1).getType()).getNumElements() != 1)
    return ctx.error() << "x_scale must be a scalar (per tensor)";
  FailureOr<Value> x = dequantize(ctx, ctx.input(0), ctx.isUnsigned8(0),
                                  ctx.input(1), ctx.input(2), 1);
  // Filters are quantized per tensor or per output channel (axis 0).
  FailureOr<Value> w =
      dequantize(ctx, ctx.input(3), ctx.isUnsigned8(3), ctx.input(4),
                 ctx.input(5), 0);
  if (failed(x) || failed(w))
    return failure();
  SmallVector<Value> operands = {*x, *w};
  if (ctx.hasInput(8)) {
    // The bias is int32 in units of x_scale * w_scale.
    Composer k{ctx};
    Value sx = k.check(asF32(ctx, ctx.input(1)));
    Value sw = k.check(asF32(ctx, ctx.input(4)));
    Value biasScale = k.bin<MulOp>(sx, sw);
    if (k.failedAny)
      return failure();
    auto scaleType = llvm::cast<RankedTensorType>(biasScale.getType());
    if (scaleType.getRank() == 1 && scaleType.getNumElements() != 1) {
      // Per channel: [M].
    } else {
      biasScale = k.reshape(biasScale, {});
    }
    FailureOr<Value> bias =
        dequantize(ctx, ctx.input(8), false, biasScale, Value(), 0);
    if (k.failedAny || failed(bias))
      return failure();
    operands.push_back(*bias);
  }
  FailureOr<Value> y = ctx.create<ConvOp>(operands, convAttrs(ctx, *window));
  if (failed(y))
    return failure();
  if (failed(ctx.setResult(0, quantize(ctx, *y, ctx.input(6), ctx.input(7), 1))))
    return failure();
  if (ctx.isUnsigned8(7))
    ctx.markUnsigned8(0);
  return success();
}

/// The zero point (input `zpIndex`) of the integer operand `index`: as
/// given, or ONNX's default 0, which for biased uint8 data is -128.
Value integerZeroPoint(NodeContext &ctx, unsigned index, unsigned zpIndex) {
  if (ctx.hasInput(zpIndex))
    return ctx.input(zpIndex);
  if (!ctx.isUnsigned8(index))
    return Value();
  return ctx.constant(writeInts(
      RankedTensorType::get({}, i8(ctx)), std::vector<int64_t>(1, -128)));
}

LogicalResult convertMatMulInteger(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  if (failed(requireQuantized(ctx, {0, 1, 2, 3})))
    return failure();
  FailureOr<Value> y = quant::buildIntegerMatmul(
      ctx.builder, ctx.loc, ctx.input(0), ctx.input(1),
      integerZeroPoint(ctx, 0, 2), integerZeroPoint(ctx, 1, 3));
  if (failed(y))
    return ctx.error() << "cannot build the integer matmul of "
                       << ctx.inputType(0) << " and " << ctx.inputType(1);
  return ctx.setResult(0, y);
}

LogicalResult convertConvInteger(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  if (failed(requireQuantized(ctx, {0, 1, 2, 3})))
    return failure();
  FailureOr<quant::ConvWindow> window = convWindow(ctx, 0, 1);
  if (failed(window))
    return failure();
  FailureOr<Value> y = quant::buildIntegerConv(
      ctx.builder, ctx.loc, ctx.input(0), ctx.input(1),
      integerZeroPoint(ctx, 0, 2), integerZeroPoint(ctx, 1, 3), Value(),
      *window);
  if (failed(y))
    return ctx.error() << "cannot build the integer convolution of "
                       << ctx.inputType(0) << " and " << ctx.inputType(1);
  return ctx.setResult(0, y);
}

/// y_scale = (max(0, max x) - min(0, min x)) / 255 (1 when that is 0),
/// y_zero_point = round(clamp(-min / y_scale, 0, 255)), y = quantize(x):
/// uint8 outputs, as ONNX and onnxruntime compute them.
LogicalResult convertDynamicQuantizeLinear(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  Composer k{ctx};
  Value x = k.check(asF32(ctx, ctx.input(0)));
  if (!x)
    return failure();
  int64_t rank = llvm::cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < rank; ++d)
    all.push_back(d);
  Value zero = k.c(x, 0.0);
  Value lo = k.bin<MinOp>(k.reduce(ReduceKind::min, x, all, false), zero);
  Value hi = k.bin<MaxOp>(k.reduce(ReduceKind::max, x, all, false), zero);
  Value range = k.bin<SubOp>(hi, lo);
  Value scale = k.select(k.cmp(CompareDirection::eq, range, zero), k.c(x, 1.0),
                         k.bin<DivOp>(range, k.c(x, 255.0)));
  Value zpFloat = k.un<RoundOp>(
      k.clip(k.bin<DivOp>(k.un<NegOp>(lo), scale), 0.0, 255.0));
  // Biased: the u8 zero point minus 128, exact in f32.
  Value zp = k.cast(k.bin<SubOp>(zpFloat, k.c(x, 128.0)), i8(ctx));
  Value y = k.ready({x, scale, zp})
                ? k.check(ctx.create<QuantizeOp>({x, scale, zp},
                                                 {ctx.namedInt("axis", 1)}))
                : Value();
  if (k.failedAny || !y)
    return failure();
  ctx.setResult(0, y);
  ctx.setResult(1, scale);
  ctx.setResult(2, zp);
  ctx.markUnsigned8(0);
  ctx.markUnsigned8(2);
  return success();
}

const ConverterInfo kConverters[] = {
    {"QuantizeLinear", convertQuantizeLinear, 10},
    {"DequantizeLinear", convertDequantizeLinear, 10},
    {"QLinearMatMul", convertQLinearMatMul, 10},
    {"QLinearConv", convertQLinearConv, 10},
    {"MatMulInteger", convertMatMulInteger, 10},
    {"ConvInteger", convertConvInteger, 10},
    {"DynamicQuantizeLinear", convertDynamicQuantizeLinear, 11},
};

} // namespace

llvm::ArrayRef<ConverterInfo> getQuantizationConverters() { return kConverters; }

} // namespace mlir::kiln::onnx_import
