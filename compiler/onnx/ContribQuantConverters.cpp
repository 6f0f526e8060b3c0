//===- ContribQuantConverters.cpp - com.microsoft QOperator ops ----------===//
//
// onnxruntime's quantization tool (quantize_static, QuantFormat.QOperator)
// writes every quantized op that ONNX lacks as a com.microsoft op. Each is
// defined as "dequantize the inputs, run the float op, quantize the
// result" (onnxruntime's contrib op schemas), and is built in exactly those
// terms:
//
//   QLinearAdd / QLinearMul    q(dq(A) + dq(B)), q(dq(A) * dq(B)) (broadcast)
//   QLinearSigmoid             q(Sigmoid(dq(X)))
//   QLinearLeakyRelu           q(LeakyRelu(dq(X), alpha))
//   QLinearSoftmax             q(Softmax(dq(X), axis)) as ONNX Softmax of the
//                              node's `opset` attribute
//   QLinearGlobalAveragePool   q(mean of dq(X) over the spatial dims), NCHW
//                              or, with channels_last, NHWC
//   QLinearAveragePool         q(AveragePool(dq(X))), NCHW or channels_last
//   QLinearConcat              q(Concat(dq(X_i)))
//   QGemm                      alpha * dq(A') dq(B') + dq(C, alpha sa sb),
//                              quantized when y_scale is given
//
// kiln-fold-qdq then turns QGemm's matmul of dequantized operands into an
// integer contraction like QLinearMatMul's, and kiln-form-dispatches fuses
// each dequantize -> elementwise -> quantize chain into one dispatch. The
// float part reuses the default-domain converter (NodeContext::
// convertSubNode) so that its attributes mean exactly what ONNX says.
//
// uint8 data is held biased in i8 (docs/design.md "INT8"); a zero point of
// the output, when absent, is 0 of the input's type, as onnxruntime reads
// it. Every scale and zero point here is per tensor (the schemas say so),
// except QGemm's b_scale / b_zero_point, which may be per column.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ContribQuantConverters.h"

#include "compiler/onnx/Composer.h"
#include "compiler/onnx/QuantizedValues.h"

using namespace mlir;

namespace mlir::kiln::onnx_import {
namespace {

/// Fails naming the node unless every given input of `indices` holds one
/// element (a per-tensor scale or zero point).
LogicalResult requirePerTensor(NodeContext &ctx, ArrayRef<unsigned> indices) {
  for (unsigned i : indices)
    if (ctx.hasInput(i) && !hasOneElement(ctx.input(i)))
      return ctx.error() << "input #" << i << " ('" << ctx.node.input(i)
                         << "') must be a per-tensor scale or zero point (one "
                            "element), got "
                         << ctx.inputType(i);
  return success();
}

/// dq(input `q`) by the scale and zero point at `s` and `z` (z may be absent).
FailureOr<Value> dequantizeInput(NodeContext &ctx, unsigned q, unsigned s,
                                 unsigned z) {
  return dequantize(ctx, ctx.input(q), ctx.isUnsigned8(q), ctx.input(s),
                    ctx.input(z), 1);
}

/// Sets output 0 to q(y) by the scale at `s` and zero point at `z`. An
/// absent zero point is 0 of the type of input `like` (the output has the
/// inputs' type), which for uint8 is -128 biased.
LogicalResult setQuantizedResult(NodeContext &ctx, FailureOr<Value> y,
                                 unsigned s, unsigned z, unsigned like) {
  if (failed(y))
    return failure();
  bool isUnsigned =
      ctx.hasInput(z) ? ctx.isUnsigned8(z) : ctx.isUnsigned8(like);
  Value zp = ctx.input(z);
  if (!zp) {
    FailureOr<Value> scale = asF32(ctx, ctx.input(s));
    if (failed(scale))
      return failure();
    zp = zeroPointLike(ctx, *scale, IntegerType::get(ctx.getContext(), 8),
                       isUnsigned);
  }
  if (failed(ctx.setResult(0, quantize(ctx, *y, ctx.input(s), zp, 1))))
    return failure();
  if (isUnsigned)
    ctx.markUnsigned8(0);
  return success();
}

/// This node's attributes on a default-domain node of `opType`, less
/// `dropped` (the com.microsoft-only ones).
onnx::NodeProto subNode(NodeContext &ctx, llvm::StringRef opType,
                        ArrayRef<llvm::StringRef> dropped = {}) {
  onnx::NodeProto sub;
  sub.set_op_type(opType.str());
  sub.set_name(ctx.node.name());
  for (const onnx::AttributeProto &attribute : ctx.node.attribute())
    if (!llvm::is_contained(dropped, attribute.name()))
      *sub.add_attribute() = attribute;
  return sub;
}

/// QLinearAdd / QLinearMul: (A, A_scale, A_zp?, B, B_scale, B_zp?, C_scale,
/// C_zp?), numpy broadcasting.
template <typename BinaryOp>
LogicalResult convertQLinearBinary(NodeContext &ctx) {
  if (failed(ctx.requireInputs(7)) ||
      failed(requireQuantized(ctx, {0, 2, 3, 5, 7})) ||
      failed(requirePerTensor(ctx, {1, 2, 4, 5, 6, 7})))
    return failure();
  Composer k{ctx};
  Value a = k.check(dequantizeInput(ctx, 0, 1, 2));
  Value b = k.check(dequantizeInput(ctx, 3, 4, 5));
  Value y = k.bin<BinaryOp>(a, b);
  if (k.failedAny)
    return failure();
  return setQuantizedResult(ctx, y, 6, 7, 0);
}

/// One-input ops (X, X_scale, X_zp?, Y_scale, Y_zp?) computed by the
/// default-domain op `opType` with this node's attributes.
template <const char *opType>
LogicalResult convertQLinearUnary(NodeContext &ctx) {
  if (failed(ctx.requireInputs(4)) ||
      failed(requireQuantized(ctx, {0, 2, 4})) ||
      failed(requirePerTensor(ctx, {1, 2, 3, 4})))
    return failure();
  FailureOr<Value> x = dequantizeInput(ctx, 0, 1, 2);
  if (failed(x))
    return failure();
  FailureOr<Value> y = ctx.convertSubNode(subNode(ctx, opType), {*x}, 13);
  return setQuantizedResult(ctx, y, 3, 4, 0);
}
constexpr char kSigmoid[] = "Sigmoid";
constexpr char kLeakyRelu[] = "LeakyRelu";

/// QLinearSoftmax: Softmax as ONNX's version `opset` (an attribute the
/// node must have) defines it: from 13 along `axis` (default -1), before
/// over the input flattened to 2-D at `axis`.
LogicalResult convertQLinearSoftmax(NodeContext &ctx) {
  if (failed(ctx.requireInputs(5)) ||
      failed(requireQuantized(ctx, {0, 2, 4})) ||
      failed(requirePerTensor(ctx, {1, 2, 3, 4})))
    return failure();
  if (!ctx.hasAttr("opset"))
    return ctx.error() << "needs the 'opset' attribute (the Softmax version "
                          "whose axis semantics apply)";
  int64_t opset = ctx.getInt("opset", 13);
  onnx::NodeProto sub = subNode(ctx, "Softmax", {"opset"});
  if (!ctx.hasAttr("axis")) {
    // The contrib op's axis defaults to -1 at every opset, unlike ONNX
    // Softmax before 13 (1).
    onnx::AttributeProto *axis = sub.add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(-1);
  }
  FailureOr<Value> x = dequantizeInput(ctx, 0, 1, 2);
  if (failed(x))
    return failure();
  FailureOr<Value> y = ctx.convertSubNode(
      sub, {*x}, std::clamp<int64_t>(opset, kMinOpset, kMaxOpset));
  return setQuantizedResult(ctx, y, 3, 4, 0);
}

/// NHWC <-> NCHW permutations for `rank`.
SmallVector<int64_t> channelsFirst(int64_t rank) {
  SmallVector<int64_t> perm = {0, rank - 1};
  for (int64_t d = 1; d < rank - 1; ++d)
    perm.push_back(d);
  return perm;
}
SmallVector<int64_t> channelsLast(int64_t rank) {
  SmallVector<int64_t> perm = {0};
  for (int64_t d = 2; d < rank; ++d)
    perm.push_back(d);
  perm.push_back(1);
  return perm;
}

/// QLinearGlobalAveragePool (X, x_scale, x_zp, y_scale, y_zp): the mean of
/// each channel over all spatial dims, kept as 1s. With channels_last the
/// layout is [N, D..., C].
LogicalResult convertQLinearGlobalAveragePool(NodeContext &ctx) {
  if (failed(ctx.requireInputs(4)) ||
      failed(requireQuantized(ctx, {0, 2, 4})) ||
      failed(requirePerTensor(ctx, {1, 2, 3, 4})))
    return failure();
  int64_t rank = ctx.inputType(0).getRank();
  if (rank < 3)
    return ctx.error() << "expects an input of rank >= 3, got "
                       << ctx.inputType(0);
  bool last = ctx.getInt("channels_last", 0) != 0;
  SmallVector<int64_t> axes;
  for (int64_t d = last ? 1 : 2; d < (last ? rank - 1 : rank); ++d)
    axes.push_back(d);
  Composer k{ctx};
  Value x = k.check(dequantizeInput(ctx, 0, 1, 2));
  Value y = k.reduce(ReduceKind::mean, x, axes, true);
  if (k.failedAny)
    return failure();
  return setQuantizedResult(ctx, y, 3, 4, 0);
}

/// QLinearAveragePool (X, x_scale, x_zp?, y_scale, y_zp?): ONNX AveragePool
/// with the node's window attributes, on NCHW or (channels_last) NHWC.
LogicalResult convertQLinearAveragePool(NodeContext &ctx) {
  if (failed(ctx.requireInputs(4)) ||
      failed(requireQuantized(ctx, {0, 2, 4})) ||
      failed(requirePerTensor(ctx, {1, 2, 3, 4})))
    return failure();
  int64_t rank = ctx.inputType(0).getRank();
  if (rank < 3)
    return ctx.error() << "expects an input of rank >= 3, got "
                       << ctx.inputType(0);
  bool last = ctx.getInt("channels_last", 0) != 0;
  Composer k{ctx};
  Value x = k.check(dequantizeInput(ctx, 0, 1, 2));
  if (last)
    x = k.transpose(x, channelsFirst(rank));
  if (k.failedAny)
    return failure();
  Value y = k.check(ctx.convertSubNode(
      subNode(ctx, "AveragePool", {"channels_last"}), {x}, 19));
  if (last)
    y = k.transpose(y, channelsLast(rank));
  if (k.failedAny)
    return failure();
  return setQuantizedResult(ctx, y, 3, 4, 0);
}

/// QLinearConcat (Y_scale, Y_zp, then X_i, X_i_scale, X_i_zp per input).
LogicalResult convertQLinearConcat(NodeContext &ctx) {
  if (failed(ctx.requireInputs(5)))
    return failure();
  if ((ctx.numInputs() - 2) % 3 != 0)
    return ctx.error() << "expects Y_scale, Y_zero_point and a (tensor, "
                          "scale, zero point) triple per input, got "
                       << ctx.numInputs() << " inputs";
  if (!ctx.hasAttr("axis"))
    return ctx.error() << "needs the 'axis' attribute";
  SmallVector<unsigned> quantized = {1}, perTensor = {0, 1};
  for (unsigned i = 2; i < ctx.numInputs(); i += 3) {
    if (failed(ctx.requireInputs(i + 3)))
      return failure();
    quantized.append({i, i + 2});
    perTensor.append({i + 1, i + 2});
  }
  if (failed(requireQuantized(ctx, quantized)) ||
      failed(requirePerTensor(ctx, perTensor)))
    return failure();
  int64_t rank = ctx.inputType(2).getRank();
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.getInt("axis", 0), rank);
  if (failed(axis))
    return failure();
  SmallVector<Value> parts;
  for (unsigned i = 2; i < ctx.numInputs(); i += 3) {
    FailureOr<Value> part = dequantizeInput(ctx, i, i + 1, i + 2);
    if (failed(part))
      return failure();
    parts.push_back(*part);
  }
  FailureOr<Value> y =
      ctx.create<ConcatOp>(parts, {ctx.namedInt("axis", *axis)});
  return setQuantizedResult(ctx, y, 0, 1, 2);
}

/// QGemm (A, a_scale, a_zp, B, b_scale, b_zp, C?, y_scale?, y_zp?) with
/// alpha, transA and transB:
///   Y = alpha * dq(A') dq(B') + dq(C, alpha * a_scale * b_scale)
/// where C is int32 (zero point 0) broadcast to [M, N] and b_scale/b_zp
/// are per tensor or per column of B' ([N]). Y is f32 without y_scale and
/// q(Y, y_scale, y_zp) with it. The operands are transposed while still
/// quantized, so that kiln-fold-qdq sees matmul(dq(a), dq(b_const)).
LogicalResult convertQGemm(NodeContext &ctx) {
  if (failed(ctx.requireInputs(6)) ||
      failed(requireQuantized(ctx, {0, 2, 3, 5, 8})) ||
      failed(requirePerTensor(ctx, {1, 2, 7, 8})))
    return failure();
  if (ctx.hasInput(6) && !ctx.inputType(6).getElementType().isInteger(32))
    return ctx.error() << "C must be int32, got " << ctx.inputType(6);
  if (ctx.hasInput(8) && !ctx.hasInput(7))
    return ctx.error() << "has y_zero_point but no y_scale";
  if (ctx.inputType(0).getRank() != 2 || ctx.inputType(3).getRank() != 2)
    return ctx.error() << "expects 2-D A and B, got " << ctx.inputType(0)
                       << " and " << ctx.inputType(3);
  Composer k{ctx};
  Value a = ctx.input(0), b = ctx.input(3);
  if (ctx.getInt("transA", 0))
    a = k.transpose(a, {1, 0});
  if (ctx.getInt("transB", 0))
    b = k.transpose(b, {1, 0});
  if (k.failedAny)
    return failure();
  Value bScale = ctx.input(4);
  bool perColumn = !hasOneElement(bScale);
  if (perColumn &&
      llvm::cast<RankedTensorType>(bScale.getType()).getRank() != 1)
    return ctx.error() << "b_scale must be one element or 1-D [N], got "
                       << bScale.getType();
  Value da = k.check(
      dequantize(ctx, a, ctx.isUnsigned8(0), ctx.input(1), ctx.input(2), 1));
  Value db =
      k.check(dequantize(ctx, b, ctx.isUnsigned8(3), bScale, ctx.input(5), 1));
  Value y = k.op<MatmulOp>({da, db});
  // Mismatched A/B shapes (e.g. a transB the file got wrong) fail here;
  // stop before building on a null product.
  if (k.failedAny)
    return failure();
  double alpha = ctx.getFloat("alpha", 1.0f);
  if (alpha != 1.0)
    y = k.bin<MulOp>(y, k.c(y, alpha));
  if (ctx.hasInput(6)) {
    // C is in units of alpha * a_scale * b_scale.
    Value sa = k.check(asF32(ctx, ctx.input(1)));
    Value sb = k.check(asF32(ctx, bScale));
    Value cScale = k.bin<MulOp>(k.reshape(sa, {}), sb);
    if (alpha != 1.0)
      cScale = k.bin<MulOp>(cScale, k.c(cScale, alpha));
    Value c = ctx.input(6);
    Value dc;
    if (!perColumn) {
      dc =
          k.check(dequantize(ctx, c, false, k.reshape(cScale, {}), Value(), 1));
    } else {
      // A per-column scale meets C of any broadcastable shape: scale the
      // integers as floats, as dequantize would along C's last dim.
      dc = k.bin<MulOp>(k.cast(c, Float32Type::get(ctx.getContext())), cScale);
    }
    y = k.bin<AddOp>(y, dc);
  }
  if (k.failedAny)
    return failure();
  if (!ctx.hasInput(7))
    return ctx.setResult(0, FailureOr<Value>(y));
  return setQuantizedResult(ctx, y, 7, 8, 0);
}

const ConverterInfo kConverters[] = {
    {"QLinearAdd", convertQLinearBinary<AddOp>},
    {"QLinearMul", convertQLinearBinary<MulOp>},
    {"QLinearSigmoid", convertQLinearUnary<kSigmoid>},
    {"QLinearLeakyRelu", convertQLinearUnary<kLeakyRelu>},
    {"QLinearSoftmax", convertQLinearSoftmax},
    {"QLinearGlobalAveragePool", convertQLinearGlobalAveragePool},
    {"QLinearAveragePool", convertQLinearAveragePool},
    {"QLinearConcat", convertQLinearConcat},
    {"QGemm", convertQGemm},
};

} // namespace

const ConverterInfo *lookupMicrosoftConverter(llvm::StringRef opType) {
  for (const ConverterInfo &info : kConverters)
    if (opType == info.opType)
      return &info;
  return nullptr;
}

llvm::ArrayRef<ConverterInfo> getMicrosoftConverters() { return kConverters; }

} // namespace mlir::kiln::onnx_import
