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
//   QLinearReduceMean          q(ReduceMean(dq(X), axes, keepdims))
//   QLinearWhere               q(Where(cond, dq(X), dq(Y))) (broadcast)
//   QAttention                 onnxruntime's fused Attention on
//                              dq(input) dq(weight) + bias (quantize_dynamic)
//   DynamicQuantizeLSTM        ONNX LSTM on dequantized, transposed weights
//                              (quantize_dynamic); activations stay f32
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

/// The input checks both average pools share (X, x_scale, x_zp?, y_scale,
/// y_zp?, per-tensor parameters, X of rank >= 3); returns X's rank.
FailureOr<int64_t> checkPoolInputs(NodeContext &ctx) {
  if (failed(ctx.requireInputs(4)) ||
      failed(requireQuantized(ctx, {0, 2, 4})) ||
      failed(requirePerTensor(ctx, {1, 2, 3, 4})))
    return failure();
  int64_t rank = ctx.inputType(0).getRank();
  if (rank < 3)
    return ctx.error() << "expects an input of rank >= 3, got "
                       << ctx.inputType(0);
  return rank;
}

/// QLinearGlobalAveragePool (X, x_scale, x_zp, y_scale, y_zp): the mean of
/// each channel over all spatial dims, kept as 1s. With channels_last the
/// layout is [N, D..., C].
LogicalResult convertQLinearGlobalAveragePool(NodeContext &ctx) {
  FailureOr<int64_t> rank = checkPoolInputs(ctx);
  if (failed(rank))
    return failure();
  bool last = ctx.getInt("channels_last", 0) != 0;
  SmallVector<int64_t> axes;
  for (int64_t d = last ? 1 : 2; d < (last ? *rank - 1 : *rank); ++d)
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
  FailureOr<int64_t> rank = checkPoolInputs(ctx);
  if (failed(rank))
    return failure();
  bool last = ctx.getInt("channels_last", 0) != 0;
  Composer k{ctx};
  Value x = k.check(dequantizeInput(ctx, 0, 1, 2));
  if (last)
    x = k.transpose(x, channelsFirst(*rank));
  if (k.failedAny)
    return failure();
  Value y = k.check(ctx.convertSubNode(
      subNode(ctx, "AveragePool", {"channels_last"}), {x}, 19));
  if (last)
    y = k.transpose(y, channelsLast(*rank));
  if (k.failedAny)
    return failure();
  return setQuantizedResult(ctx, y, 3, 4, 0);
}

/// QLinearReduceMean (data, data_scale, data_zp?, reduced_scale,
/// reduced_zp?) with the required `axes` and `keepdims`: q(ReduceMean(dq(X)))
/// as ONNX ReduceMean-13 (axes an attribute) defines it.
LogicalResult convertQLinearReduceMean(NodeContext &ctx) {
  if (failed(ctx.requireInputs(4)) ||
      failed(requireQuantized(ctx, {0, 2, 4})) ||
      failed(requirePerTensor(ctx, {1, 2, 3, 4})))
    return failure();
  // Both are required by the schema; ReduceMean's defaults (all axes,
  // keepdims=1) would silently mean something else.
  if (!ctx.hasAttr("axes") || !ctx.hasAttr("keepdims"))
    return ctx.error() << "needs the 'axes' and 'keepdims' attributes";
  FailureOr<Value> x = dequantizeInput(ctx, 0, 1, 2);
  if (failed(x))
    return failure();
  FailureOr<Value> y =
      ctx.convertSubNode(subNode(ctx, "ReduceMean"), {*x}, 13);
  return setQuantizedResult(ctx, y, 3, 4, 0);
}

/// QLinearWhere (condition, X, x_scale, x_zp, Y, y_scale, y_zp, z_scale,
/// z_zp): q(Where(condition, dq(X), dq(Y))), numpy broadcasting; X, Y and
/// the output are each 8-bit of their own zero point's type.
LogicalResult convertQLinearWhere(NodeContext &ctx) {
  if (failed(ctx.requireInputs(9)) ||
      failed(requireQuantized(ctx, {1, 3, 4, 6, 8})) ||
      failed(requirePerTensor(ctx, {2, 3, 5, 6, 7, 8})))
    return failure();
  if (!ctx.inputType(0).getElementType().isInteger(1))
    return ctx.error() << "condition must be bool, got " << ctx.inputType(0);
  Composer k{ctx};
  Value x = k.check(dequantizeInput(ctx, 1, 2, 3));
  Value y = k.check(dequantizeInput(ctx, 4, 5, 6));
  if (k.failedAny)
    return failure();
  FailureOr<Value> z =
      ctx.convertSubNode(subNode(ctx, "Where"), {ctx.input(0), x, y}, 16);
  return setQuantizedResult(ctx, z, 7, 8, 8);
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

/// [0, size) of dim `axis` of `x`, every other dim whole.
Value sliceDim(Composer &k, Value x, int64_t axis, int64_t start,
               int64_t end) {
  if (!k.ready({x}))
    return nullptr;
  auto type = llvm::cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> starts(type.getRank(), 0), steps(type.getRank(), 1);
  SmallVector<int64_t> ends(type.getShape());
  starts[axis] = start;
  ends[axis] = end;
  return k.op<SliceOp>({x}, {k.ctx.namedInts("starts", starts),
                             k.ctx.namedInts("ends", ends),
                             k.ctx.namedInts("steps", steps)});
}

/// QAttention's additive mask [B, 1, S or 1, S] from mask_index (int32),
/// as onnxruntime's CPU attention builds it: `filter` where a key is masked
/// (raw 2-D [B, S] or 3-D [B, S, S] masks: value <= 0; 1-D [B]: at or after
/// the end position; 1-D [2B]: also before the start position), plus
/// `filter` above the diagonal when unidirectional. Null when neither
/// applies.
FailureOr<Value> attentionMask(NodeContext &ctx, Composer &k, int64_t batch,
                               int64_t seq, float filter,
                               bool unidirectional) {
  Type f32 = Float32Type::get(ctx.getContext());
  Value mask; // [B, 1, 1 or S, S] f32
  auto positions = [&](int64_t rank, int64_t axis) {
    SmallVector<int64_t> shape(rank, 1);
    shape[axis] = seq;
    SmallVector<int32_t> values;
    for (int64_t j = 0; j < seq; ++j)
      values.push_back(j);
    auto type = RankedTensorType::get(shape, ctx.builder.getI32Type());
    return ctx.constant(DenseElementsAttr::get(type, llvm::ArrayRef(values)));
  };
  if (ctx.hasInput(5)) {
    RankedTensorType type = ctx.inputType(5);
    if (!type.getElementType().isInteger(32))
      return ctx.error() << "mask_index must be int32, got " << type;
    Value index = ctx.input(5);
    Value masked; // i1, true where a key is masked
    Value zero = k.c(index, 0);
    if (type.getShape() == ArrayRef<int64_t>{batch, seq}) {
      masked = k.reshape(k.cmp(CompareDirection::le, index, zero),
                         {batch, 1, 1, seq});
    } else if (type.getShape() == ArrayRef<int64_t>{batch, seq, seq}) {
      masked = k.reshape(k.cmp(CompareDirection::le, index, zero),
                         {batch, 1, seq, seq});
    } else if (type.getRank() == 1 && (type.getDimSize(0) == batch ||
                                       type.getDimSize(0) == 2 * batch)) {
      Value keys = positions(4, 3);
      Value end = k.reshape(sliceDim(k, index, 0, 0, batch), {batch, 1, 1, 1});
      masked = k.cmp(CompareDirection::ge, keys, end);
      if (type.getDimSize(0) == 2 * batch) {
        Value start = k.reshape(sliceDim(k, index, 0, batch, 2 * batch),
                                {batch, 1, 1, 1});
        masked =
            k.bin<OrOp>(masked, k.cmp(CompareDirection::lt, keys, start));
      }
    } else {
      return ctx.error() << "mask_index " << type
                         << " is not supported (expects [" << batch << "], ["
                         << 2 * batch << "], [" << batch << ", " << seq
                         << "] or [" << batch << ", " << seq << ", " << seq
                         << "] for input [" << batch << ", " << seq
                         << ", hidden])";
    }
    Value filterValue = ctx.scalar(f32, filter);
    mask = k.select(masked, filterValue, ctx.scalar(f32, 0.0));
  }
  if (unidirectional) {
    // Query i sees keys 0..i; later keys get one more `filter`.
    Value later = k.cmp(CompareDirection::gt, positions(2, 1),
                        k.reshape(positions(2, 1), {seq, 1}));
    Value causal =
        k.select(later, ctx.scalar(f32, filter), ctx.scalar(f32, 0.0));
    mask = mask ? k.bin<AddOp>(mask, causal) : causal;
  }
  if (k.failedAny)
    return failure();
  return mask;
}

/// QAttention (input, weight, bias, input_scale, weight_scale, mask_index?,
/// input_zero_point?, weight_zero_point?, past?) with num_heads: the
/// quantize_dynamic form of onnxruntime's fused Attention.
///   QKV = dq(input) dq(weight) + bias          [B, S, 3H], weight [H, 3H]
///   Y   = softmax(Q K^T * scale + mask) V      per head, merged to [B, S, H]
/// weight_scale / weight_zero_point are per tensor or per column ([3H]).
/// The float attention is ONNX Attention-23 (3-D Q, K, V), so the graph
/// passes see what an exported attention gives them; kiln-fold-qdq turns
/// the QKV projection into an integer contraction.
LogicalResult convertQAttention(NodeContext &ctx) {
  if (failed(ctx.requireInputs(5)) || failed(ctx.requireUnusedOutputsFrom(1)) ||
      failed(requireQuantized(ctx, {0, 1, 6, 7})) ||
      failed(requirePerTensor(ctx, {3, 6})))
    return failure();
  if (ctx.hasInput(8))
    return ctx.error() << "past (a KV cache) is not supported";
  if (ctx.getInt("do_rotary", 0) != 0)
    return ctx.error() << "do_rotary != 0 is not supported";
  if (!ctx.hasAttr("num_heads"))
    return ctx.error() << "needs the 'num_heads' attribute";
  int64_t heads = ctx.getInt("num_heads", 0);
  RankedTensorType xType = ctx.inputType(0), wType = ctx.inputType(1),
                   bType = ctx.inputType(2);
  if (xType.getRank() != 3 || !xType.hasStaticShape())
    return ctx.error() << "expects a static input [batch, sequence, hidden], "
                          "got "
                       << xType;
  int64_t batch = xType.getDimSize(0), seq = xType.getDimSize(1),
          hidden = xType.getDimSize(2);
  if (wType.getShape() != ArrayRef<int64_t>{hidden, 3 * hidden})
    return ctx.error() << "expects weight [" << hidden << ", " << 3 * hidden
                       << "] for input " << xType << ", got " << wType;
  if (!bType.getElementType().isF32() ||
      bType.getShape() != ArrayRef<int64_t>{3 * hidden})
    return ctx.error() << "expects an f32 bias [" << 3 * hidden << "], got "
                       << bType;
  if (heads <= 0 || hidden % heads != 0)
    return ctx.error() << "hidden size " << hidden
                       << " is not a positive multiple of num_heads " << heads;
  for (unsigned i : {4u, 7u}) {
    if (!ctx.hasInput(i) || hasOneElement(ctx.input(i)))
      continue;
    if (ctx.inputType(i).getShape() != ArrayRef<int64_t>{3 * hidden})
      return ctx.error() << "input #" << i << " ('" << ctx.node.input(i)
                         << "') must be one element or per column ["
                         << 3 * hidden << "], got " << ctx.inputType(i);
  }
  Composer k{ctx};
  Value x = k.check(dequantizeInput(ctx, 0, 3, 6));
  Value w = k.check(dequantize(ctx, ctx.input(1), ctx.isUnsigned8(1),
                               ctx.input(4), ctx.input(7), 1));
  Value qkv = k.bin<AddOp>(k.bin<MatmulOp>(x, w), ctx.input(2));
  if (k.failedAny)
    return failure();
  Value q = sliceDim(k, qkv, 2, 0, hidden);
  Value key = sliceDim(k, qkv, 2, hidden, 2 * hidden);
  Value v = sliceDim(k, qkv, 2, 2 * hidden, 3 * hidden);
  FailureOr<Value> mask =
      attentionMask(ctx, k, batch, seq, ctx.getFloat("mask_filter_value", -10000.0f),
                    ctx.getInt("unidirectional", 0) != 0);
  if (failed(mask) || k.failedAny)
    return failure();

  onnx::NodeProto sub;
  sub.set_op_type("Attention");
  sub.set_name(ctx.node.name());
  auto addInt = [&](const char *name, int64_t value) {
    onnx::AttributeProto *a = sub.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
  };
  addInt("q_num_heads", heads);
  addInt("kv_num_heads", heads);
  // scale 0 (the default) means 1/sqrt(head size), as in Attention-23
  // without the attribute.
  float scale = ctx.getFloat("scale", 0.0f);
  if (scale != 0.0f) {
    onnx::AttributeProto *a = sub.add_attribute();
    a->set_name("scale");
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(scale);
  }
  SmallVector<Value> operands = {q, key, v};
  if (*mask)
    operands.push_back(*mask);
  return ctx.setResult(0, ctx.convertSubNode(sub, operands, 23));
}

/// DynamicQuantizeLSTM (X, W, R, B?, sequence_lens?, initial_h?,
/// initial_c?, P?, W_scale, W_zero_point, R_scale, R_zero_point): ONNX LSTM
/// on 8-bit weights stored transposed (W [D, input, 4H], R [D, H, 4H]),
/// scaled per direction ([D]) or per direction and gate column ([D, 4H]).
/// Kiln dequantizes the weights and runs the f32 LSTM; onnxruntime also
/// quantizes X and each step's hidden state dynamically, so the two differ
/// by that activation rounding (docs/precision.md).
FailureOr<Value> dequantizeLstmWeight(NodeContext &ctx, Composer &k,
                                      unsigned q, unsigned s, unsigned z) {
  RankedTensorType type = ctx.inputType(q);
  if (type.getRank() != 3 || !type.hasStaticShape())
    return ctx.error() << "input #" << q << " ('" << ctx.node.input(q)
                       << "') must be a static [directions, rows, 4 * hidden], "
                          "got "
                       << type;
  int64_t dirs = type.getDimSize(0), rows = type.getDimSize(1),
          cols = type.getDimSize(2);
  RankedTensorType sType = ctx.inputType(s);
  if (ctx.inputType(z).getShape() != sType.getShape())
    return ctx.error() << "input #" << z << " ('" << ctx.node.input(z)
                       << "') must have the shape of its scale " << sType
                       << ", got " << ctx.inputType(z);
  // [D, rows, 4H] -> ONNX LSTM's [D, 4H, rows].
  Value t = k.transpose(ctx.input(q), {0, 2, 1});
  Value dq;
  if (sType.getShape() == ArrayRef<int64_t>{dirs}) {
    dq = k.check(dequantize(ctx, t, ctx.isUnsigned8(q), ctx.input(s),
                            ctx.input(z), 0));
  } else if (sType.getShape() == ArrayRef<int64_t>{dirs, cols}) {
    // One scale per (direction, gate column): dequantize [D * 4H, rows]
    // along its rows.
    Value flat = k.reshape(t, {dirs * cols, rows});
    Value scale = k.reshape(ctx.input(s), {dirs * cols});
    Value zp = k.reshape(ctx.input(z), {dirs * cols});
    if (k.failedAny)
      return failure();
    dq = k.reshape(k.check(dequantize(ctx, flat, ctx.isUnsigned8(q), scale,
                                      zp, 0)),
                   {dirs, cols, rows});
  } else {
    return ctx.error() << "input #" << s << " ('" << ctx.node.input(s)
                       << "') must be [" << dirs << "] or [" << dirs << ", "
                       << cols << "], got " << sType;
  }
  if (k.failedAny)
    return failure();
  return dq;
}

LogicalResult convertDynamicQuantizeLstm(NodeContext &ctx) {
  if (failed(ctx.requireInputs(3)))
    return failure();
  // Inputs 3-7 are LSTM's optional ones; the four weight parameters after
  // them are required.
  for (unsigned i = 8; i < 12; ++i)
    if (!ctx.hasInput(i))
      return ctx.error() << "expects 12 inputs (W_scale, W_zero_point, "
                            "R_scale and R_zero_point last), input #"
                         << i << " is missing";
  if (failed(requireQuantized(ctx, {1, 2, 9, 11})))
    return failure();
  if (ctx.getInt("layout", 0) != 0)
    return ctx.error() << "layout " << ctx.getInt("layout", 0)
                       << " is not supported (expects 0)";
  Composer k{ctx};
  FailureOr<Value> w = dequantizeLstmWeight(ctx, k, 1, 8, 9);
  if (failed(w))
    return failure();
  FailureOr<Value> r = dequantizeLstmWeight(ctx, k, 2, 10, 11);
  if (failed(r))
    return failure();
  SmallVector<Value> inputs = {ctx.input(0), *w, *r};
  for (unsigned i = 3; i < 8; ++i)
    inputs.push_back(ctx.input(i));
  // Trailing absent inputs are dropped so the LSTM sees what it expects.
  while (!inputs.back())
    inputs.pop_back();
  // The sub-node gives Y, the kiln.lstm's first result (layout 0 needs no
  // transpose); Y_h and Y_c are that op's other two.
  FailureOr<Value> y = ctx.convertSubNode(subNode(ctx, "LSTM"), inputs, 14);
  if (failed(y))
    return failure();
  auto lstm = y->getDefiningOp<LstmOp>();
  if (!lstm || lstm->getResult(0) != *y)
    return ctx.error() << "internal error: its LSTM part did not give a "
                          "kiln.lstm result";
  for (unsigned i = 0; i < 3; ++i)
    if (ctx.outputUsed(i))
      ctx.setResult(i, lstm->getResult(i));
  return ctx.requireUnusedOutputsFrom(3);
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
    {"QLinearReduceMean", convertQLinearReduceMean},
    {"QLinearWhere", convertQLinearWhere},
    {"QAttention", convertQAttention},
    {"DynamicQuantizeLSTM", convertDynamicQuantizeLstm},
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
