//===- QdqFolding.h - Integer contractions from dequantize/quantize -*- C++ -*-===//
//
// The rewrites that turn f32 contractions of dequantized int8 values into
// integer contractions (i8 x i8 -> i32) with their zero-point corrections
// and a dequantize epilogue:
//
//   matmul(dequantize(qa, sa, za), dequantize(qb, sb, 0))
//     -> dequantize(matmul(qa, qb) - za * colsum(qb), sa * sb, 0)
//   (qb constant; or qa constant per row with zb; or both computed per
//   tensor, each zero point's sums taken at run time)
//   conv(dequantize(qx, sx, zx), dequantize(qw, sw, 0), dequantize(b, sx*sw, 0))
//     -> dequantize(conv(pad(qx, zx), qw) - zx * sum(qw) + b, sx * sw, 0)
//
// Used by the kiln-fold-qdq pass, by the ONNX importer (MatMulInteger,
// ConvInteger) and by kiln-quantize. Every builder creates ops through
// createCheckedOrFold, so constant operands (the column sums of constant
// weights, products of constant scales) fold as they are built. None of
// these functions is a rewrite pattern: callers use a plain OpBuilder and
// erase what they replace themselves.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PASSES_QUANT_QDQFOLDING_H
#define KILN_PASSES_QUANT_QDQFOLDING_H

#include "dialects/kiln/KilnDialect.h"

#include "mlir/IR/Builders.h"

namespace mlir::kiln::quant {

/// True if `value` is null or a constant whose every element is 0.
bool isZeroOrAbsent(Value value);

/// (a - za) x (b - zb) in i32, numpy.matmul semantics, from i8 `a`
/// [..., M, K] and `b` [..., K, N] (both of rank >= 2 when a zero point is
/// non-zero). `za` is null (0), one element, or per row ([M]); `zb` is
/// null, one element, or per column ([N]); both i8. Expressed as the i8
/// contraction minus `za * colsum(b)` minus `rowsum(a) * zb` plus
/// `K * za * zb`; a constant `b` gives constant column sums.
FailureOr<Value> buildIntegerMatmul(OpBuilder &builder, Location loc, Value a,
                                    Value b, Value za, Value zb);

/// Window attributes of a convolution (strides, dilations, pads [begin...,
/// end...], groups), as kiln.conv takes them.
struct ConvWindow {
  SmallVector<int64_t> strides, dilations, pads;
  int64_t groups = 1;
};

/// conv(x - zx, w - zw) + bias in i32 from i8 `x` [N, C, D...] and `w`
/// [M, C/g, K...]. `zx` is null or one i8 element (run-time values allowed:
/// the padding is then written with a select); `zw` null, one element or
/// per output channel ([M]). `bias` is
/// null or i32 [M]. The input is padded explicitly with zx, so the padding
/// contributes (zx - zx) * w = 0 as in ONNX.
FailureOr<Value> buildIntegerConv(OpBuilder &builder, Location loc, Value x,
                                  Value w, Value zx, Value zw, Value bias,
                                  const ConvWindow &window);

/// Rewrites `op` (a kiln.matmul or kiln.conv on f32 operands) into an
/// integer contraction when its operands match the folds above; returns
/// failure (and leaves the IR unchanged) otherwise. The conditions: the
/// lhs / input is a per-tensor dequantize of i8; the rhs / filter is a
/// dequantize of a constant i8 tensor with a constant zero point, per
/// tensor or per output column / channel (a non-zero one costs a run-time
/// sum of the activation); a conv's bias, if any, is a dequantize of
/// a constant i32 tensor by sx * sw with zero point 0 (or an f32 value,
/// added after the dequantize).
LogicalResult foldQdqContraction(OpBuilder &builder, Operation *op);

/// Drops a kiln.relu or kiln.clip (f32) feeding `op` when the quantize's
/// own saturation to [-128, 127] does the clamping: quantize(clip(x, A, B),
/// s, z) is clamp(quantize(x, s, z), q(A), q(B)) for a constant finite
/// scale s > 0 (every step of quantize is monotone), so when q(A) is -128
/// for every channel the lower bound goes (a NaN still ends at -128), and
/// the upper bound goes when q(B) is 127 or stays as an i8 clip to q(B)
/// (one value per tensor). Relu is clip(x, 0, none). Returns failure and
/// leaves the IR unchanged otherwise (e.g. a zero point above -128 with
/// A = 0). The clamp itself stays for its other users.
LogicalResult foldClampIntoQuantize(OpBuilder &builder, QuantizeOp op);
/// Moves a transpose or reshape of a dequantized constant below the
/// dequantize (so a Gemm's transB weight stays int8): returns the new
/// dequantize, or failure when `op` does not match.
FailureOr<Value> sinkDataMovementIntoDequantize(OpBuilder &builder,
                                                Operation *op);

/// The whole fold over `root`: data movement of dequantized constants is
/// sunk, every matching contraction is rewritten, and the dequantizes of
/// constants that are left are evaluated (they stay f32 weights), and
/// clamps before quantizes are folded (foldClampIntoQuantize).
void foldQdq(Operation *root);

} // namespace mlir::kiln::quant

#endif // KILN_PASSES_QUANT_QDQFOLDING_H
