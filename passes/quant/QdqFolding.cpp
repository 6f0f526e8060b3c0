//===- QdqFolding.cpp - Integer contractions from dequantize/quantize -----===//
//
// See QdqFolding.h. The zero points are kept out of the integer
// contractions (which take plain i8 operands) and appear as ordinary Kiln
// ops around them; with constant weights the sums of the weights are
// computed here, at compile time, so the run time adds one multiply-add
// per output element in the contraction's epilogue.
//
//===----------------------------------------------------------------------===//
#include "passes/quant/QdqFolding.h"

#include "dialects/kiln/ConstantFolding.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <cmath>
#include <limits>

namespace mlir::kiln::quant {
namespace {

template <typename OpTy>
FailureOr<Value> make(OpBuilder &b, Location loc, ValueRange operands,
                      ArrayRef<NamedAttribute> attributes = {}) {
  return createCheckedOrFold<OpTy>(b, loc, operands, attributes);
}

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

Value i32Constant(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get(shape, b.getI32Type());
  return ConstantOp::create(b, loc, writeInts(type, values));
}

FailureOr<Value> castTo(OpBuilder &b, Location loc, Value v, Type element) {
  if (typeOf(v).getElementType() == element)
    return v;
  return make<CastOp>(b, loc, v,
                      {b.getNamedAttr("to", TypeAttr::get(element))});
}

FailureOr<Value> reshapeTo(OpBuilder &b, Location loc, Value v,
                           ArrayRef<int64_t> shape) {
  if (typeOf(v).getShape() == shape)
    return v;
  return make<ReshapeOp>(b, loc, v,
                         {b.getNamedAttr("shape", b.getDenseI64ArrayAttr(shape))});
}

/// The i32 values of a zero point: scalars stay as they are (rank 0 or
/// [1]); a per-axis vector [n] is reshaped to `perAxisShape`.
FailureOr<Value> zeroPointAsI32(OpBuilder &b, Location loc, Value zp,
                                ArrayRef<int64_t> perAxisShape) {
  FailureOr<Value> wide = castTo(b, loc, zp, b.getI32Type());
  if (failed(wide))
    return failure();
  RankedTensorType type = typeOf(*wide);
  if (type.getRank() == 1 && type.getDimSize(0) != 1)
    return reshapeTo(b, loc, *wide, perAxisShape);
  return wide;
}

/// Sums of a constant i8/i32 tensor over every dim but `keptDims` (others
/// become size 1), as an i32 constant; std::nullopt when `v` is not a
/// constant.
std::optional<Value> constantSums(OpBuilder &b, Location loc, Value v,
                                  ArrayRef<int64_t> reducedDims) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  std::optional<ConstantTensor> values =
      readConstant(attr, std::numeric_limits<int64_t>::max());
  if (!values || values->isFloat)
    return std::nullopt;
  ArrayRef<int64_t> shape = values->type.getShape();
  SmallVector<int64_t> resultShape(shape);
  for (int64_t d : reducedDims)
    resultShape[d] = 1;
  SmallVector<int64_t> strides = rowMajorStrides(shape);
  SmallVector<int64_t> resultStrides = rowMajorStrides(resultShape);
  int64_t resultSize = 1;
  for (int64_t d : resultShape)
    resultSize *= d;
  std::vector<int64_t> sums(resultSize, 0);
  int64_t total = values->type.getNumElements();
  for (int64_t i = 0; i < total; ++i) {
    int64_t target = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t coord = (i / strides[d]) % shape[d];
      if (resultShape[d] != 1)
        target += coord * resultStrides[d];
    }
    sums[target] += values->intAt(i);
  }
  return i32Constant(b, loc, resultShape, sums);
}

/// Sums over `reducedDims` (kept as size 1) in i32: folded for constants,
/// a kiln.reduce otherwise.
FailureOr<Value> sumsI32(OpBuilder &b, Location loc, Value v,
                         ArrayRef<int64_t> reducedDims) {
  if (std::optional<Value> folded = constantSums(b, loc, v, reducedDims))
    return *folded;
  FailureOr<Value> wide = castTo(b, loc, v, b.getI32Type());
  if (failed(wide))
    return failure();
  return make<ReduceOp>(
      b, loc, *wide,
      {b.getNamedAttr("kind", ReduceKindAttr::get(b.getContext(), ReduceKind::sum)),
       b.getNamedAttr("axes", b.getDenseI64ArrayAttr(reducedDims)),
       b.getNamedAttr("keepdims", b.getBoolAttr(true))});
}

FailureOr<Value> mulValues(OpBuilder &b, Location loc, Value x, Value y) {
  return make<MulOp>(b, loc, {x, y});
}
FailureOr<Value> subValues(OpBuilder &b, Location loc, Value x, Value y) {
  return make<SubOp>(b, loc, {x, y});
}
FailureOr<Value> addValues(OpBuilder &b, Location loc, Value x, Value y) {
  return make<AddOp>(b, loc, {x, y});
}

bool hasOneElement(Value v) {
  RankedTensorType type = typeOf(v);
  return type.hasStaticShape() && type.getNumElements() == 1 &&
         type.getRank() <= 1;
}

std::optional<ConstantTensor> readAny(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  return readConstant(attr, std::numeric_limits<int64_t>::max());
}

} // namespace

bool isZeroOrAbsent(Value value) {
  if (!value)
    return true;
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return false;
  return isSplatOf(attr, 0.0) || [&] {
    std::optional<ConstantTensor> c = readAny(value);
    if (!c)
      return false;
    for (size_t i = 0; i < c->size(); ++i)
      if (c->isFloat ? c->floats[i] != 0.0 : c->ints[i] != 0)
        return false;
    return true;
  }();
}

FailureOr<Value> buildIntegerMatmul(OpBuilder &b, Location loc, Value a,
                                    Value bm, Value za, Value zb) {
  FailureOr<Value> acc = make<MatmulOp>(b, loc, {a, bm});
  if (failed(acc))
    return failure();
  bool hasZa = !isZeroOrAbsent(za), hasZb = !isZeroOrAbsent(zb);
  if (!hasZa && !hasZb)
    return acc;
  RankedTensorType aType = typeOf(a), bType = typeOf(bm);
  if (aType.getRank() < 2 || bType.getRank() < 2)
    return emitError(loc) << "an integer matmul with zero points needs "
                             "operands of rank >= 2, got "
                          << aType << " and " << bType;
  int64_t m = aType.getDimSize(aType.getRank() - 2);
  int64_t n = bType.getDimSize(bType.getRank() - 1);
  int64_t k = aType.getDimSize(aType.getRank() - 1);
  FailureOr<Value> zaWide = failure(), zbWide = failure();
  if (hasZa) {
    // za * colsum(b): colsum over K (dim -2), [..., 1, N].
    FailureOr<Value> colsum = sumsI32(b, loc, bm, {bType.getRank() - 2});
    // Without batch dims the sums are a row vector [N]: read through (n)
    // in the epilogue, so the epilogue still folds onto the contraction's
    // loops (a [1, N] operand would be read through a constant index).
    if (succeeded(colsum) && bType.getRank() == 2)
      colsum = reshapeTo(b, loc, *colsum, {n});
    zaWide = zeroPointAsI32(b, loc, za, {m, 1});
    if (failed(colsum) || failed(zaWide))
      return failure();
    FailureOr<Value> term = mulValues(b, loc, *zaWide, *colsum);
    if (failed(term) || failed(acc = subValues(b, loc, *acc, *term)))
      return failure();
  }
  if (hasZb) {
    // rowsum(a) * zb: rowsum over K (dim -1), [..., M, 1].
    FailureOr<Value> rowsum = sumsI32(b, loc, a, {aType.getRank() - 1});
    zbWide = zeroPointAsI32(b, loc, zb, {n});
    if (failed(rowsum) || failed(zbWide))
      return failure();
    FailureOr<Value> term = mulValues(b, loc, *rowsum, *zbWide);
    if (failed(term) || failed(acc = subValues(b, loc, *acc, *term)))
      return failure();
  }
  if (hasZa && hasZb) {
    if (ShapedType::isDynamic(k))
      return emitError(loc) << "an integer matmul with both zero points "
                               "needs a static K";
    FailureOr<Value> both = mulValues(b, loc, *zaWide, *zbWide);
    if (failed(both))
      return failure();
    FailureOr<Value> term = mulValues(b, loc, *both, i32Constant(b, loc, {}, {k}));
    if (failed(term) || failed(acc = addValues(b, loc, *acc, *term)))
      return failure();
  }
  return acc;
}

FailureOr<Value> buildIntegerConv(OpBuilder &b, Location loc, Value x, Value w,
                                  Value zx, Value zw, Value bias,
                                  const ConvWindow &window) {
  RankedTensorType xType = typeOf(x), wType = typeOf(w);
  int64_t rank = xType.getRank();
  int64_t spatial = rank - 2;
  bool hasZx = !isZeroOrAbsent(zx), hasZw = !isZeroOrAbsent(zw);
  bool padded = llvm::any_of(window.pads, [](int64_t p) { return p != 0; });
  Value input = x;
  SmallVector<int64_t> convPads = window.pads;
  if (hasZx && padded) {
    // The padding must hold zx so that it contributes (zx - zx) * w = 0.
    SmallVector<int64_t> padAll(2 * rank, 0);
    for (int64_t i = 0; i < spatial; ++i) {
      padAll[2 + i] = window.pads[i];
      padAll[rank + 2 + i] = window.pads[spatial + i];
    }
    std::optional<ConstantTensor> zxValue = readAny(zx);
    double padValue = zxValue ? double(zxValue->intAt(0)) : 0.0;
    FailureOr<Value> p = make<PadOp>(
        b, loc, x,
        {b.getNamedAttr("pads", b.getDenseI64ArrayAttr(padAll)),
         b.getNamedAttr("value", b.getF64FloatAttr(padValue))});
    if (failed(p))
      return failure();
    input = *p;
    if (!zxValue) {
      // A run-time zero point (DynamicQuantizeLinear): select it where the
      // padding is, through a constant mask [1, 1, D'...].
      RankedTensorType paddedType = typeOf(input);
      if (!paddedType.hasStaticShape())
        return emitError(loc) << "a run-time input zero point with padding "
                                 "needs static spatial dims";
      SmallVector<int64_t> maskShape = {1, 1};
      for (int64_t i = 0; i < spatial; ++i)
        maskShape.push_back(paddedType.getDimSize(2 + i));
      SmallVector<int64_t> maskStrides = rowMajorStrides(maskShape);
      int64_t size = 1;
      for (int64_t d : maskShape)
        size *= d;
      std::vector<int64_t> mask(size);
      for (int64_t i = 0; i < size; ++i) {
        bool inPad = false;
        for (int64_t d = 0; d < spatial; ++d) {
          int64_t coord = (i / maskStrides[2 + d]) % maskShape[2 + d];
          inPad |= coord < window.pads[d] ||
                   coord >= maskShape[2 + d] - window.pads[spatial + d];
        }
        mask[i] = inPad;
      }
      Value maskValue = ConstantOp::create(
          b, loc,
          writeInts(RankedTensorType::get(maskShape, b.getI1Type()), mask));
      FailureOr<Value> selected = make<SelectOp>(b, loc, {maskValue, zx, input});
      if (failed(selected))
        return failure();
      input = *selected;
    }
    convPads.assign(2 * spatial, 0);
  }
  auto convAttrs = [&](ArrayRef<int64_t> pads) {
    return SmallVector<NamedAttribute>{
        b.getNamedAttr("strides", b.getDenseI64ArrayAttr(window.strides)),
        b.getNamedAttr("dilations", b.getDenseI64ArrayAttr(window.dilations)),
        b.getNamedAttr("pads", b.getDenseI64ArrayAttr(pads)),
        b.getNamedAttr("groups", b.getI64IntegerAttr(window.groups))};
  };
  int64_t filters = wType.getDimSize(0);
  // Per-output-channel values broadcast as [M, 1, ..., 1].
  SmallVector<int64_t> channelShape = {filters};
  channelShape.append(spatial, 1);
  SmallVector<int64_t> filterDims;
  for (int64_t d = 1; d < wType.getRank(); ++d)
    filterDims.push_back(d);
  FailureOr<Value> zxWide = failure(), zwWide = failure();
  if (hasZx) {
    // - zx * sum(w[m]) is per output channel: it joins the i32 bias [M],
    // which the conv's lowering adds in its epilogue (constant when zx and
    // the filter are).
    FailureOr<Value> sums = sumsI32(b, loc, w, filterDims);
    zxWide = castTo(b, loc, zx, b.getI32Type());
    if (failed(sums) || failed(zxWide))
      return failure();
    FailureOr<Value> sumsPerChannel = reshapeTo(b, loc, *sums, {filters});
    if (failed(sumsPerChannel))
      return failure();
    FailureOr<Value> zxScalar = zxWide;
    if (typeOf(*zxWide).getRank() != 0)
      zxScalar = reshapeTo(b, loc, *zxWide, {});
    if (failed(zxScalar))
      return failure();
    FailureOr<Value> term = mulValues(b, loc, *zxScalar, *sumsPerChannel);
    if (failed(term))
      return failure();
    FailureOr<Value> newBias = bias ? subValues(b, loc, bias, *term)
                                    : make<NegOp>(b, loc, *term);
    if (failed(newBias))
      return failure();
    bias = *newBias;
  }
  SmallVector<Value> operands = {input, w};
  if (bias)
    operands.push_back(bias);
  FailureOr<Value> acc = make<ConvOp>(b, loc, operands, convAttrs(convPads));
  if (failed(acc))
    return failure();
  if (!hasZw)
    return acc;
  if (hasZw) {
    // zw[m] * (sum of the window of x over m's group): a convolution with
    // a filter of ones (one filter for all channels without groups).
    SmallVector<int64_t> onesShape(wType.getShape());
    if (window.groups == 1)
      onesShape[0] = 1;
    if (!RankedTensorType::get(onesShape, b.getI8Type()).hasStaticShape())
      return emitError(loc) << "a non-zero weight zero point needs a static "
                               "filter shape";
    Value ones = ConstantOp::create(
        b, loc,
        writeInts(RankedTensorType::get(onesShape, b.getI8Type()), {1}));
    FailureOr<Value> windowSums =
        make<ConvOp>(b, loc, {input, ones}, convAttrs(convPads));
    zwWide = zeroPointAsI32(b, loc, zw, channelShape);
    if (failed(windowSums) || failed(zwWide))
      return failure();
    FailureOr<Value> term = mulValues(b, loc, *windowSums, *zwWide);
    if (failed(term) || failed(acc = subValues(b, loc, *acc, *term)))
      return failure();
    if (hasZx) {
      int64_t windowSize = 1;
      for (int64_t d : ArrayRef<int64_t>(onesShape).drop_front())
        windowSize *= d;
      FailureOr<Value> both = mulValues(b, loc, *zxWide, *zwWide);
      if (failed(both))
        return failure();
      FailureOr<Value> corr =
          mulValues(b, loc, *both, i32Constant(b, loc, {}, {windowSize}));
      if (failed(corr) || failed(acc = addValues(b, loc, *acc, *corr)))
        return failure();
    }
  }
  return acc;
}

namespace {

/// The operands of a dequantize that the folds accept as a quantized
/// activation: i8, per tensor.
DequantizeOp activationDequantize(Value v) {
  auto dq = v.getDefiningOp<DequantizeOp>();
  if (!dq || !typeOf(dq.getInput()).getElementType().isInteger(8) ||
      dq.getQuantizedAxis())
    return {};
  return dq;
}

/// A dequantize of a constant i8 weight with a constant zero point, per
/// tensor or per `axis`. The zero point is 0 for Kiln's own PTQ and
/// onnxruntime's int8 weights; onnxruntime's per-channel uint8 weights
/// have one per channel, which costs a run-time sum of the activation
/// (rowsum(a) * zw for a matmul, window sums for a conv; see
/// buildIntegerMatmul / buildIntegerConv) but keeps the contraction in
/// integers.
DequantizeOp weightDequantize(Value v, int64_t axis) {
  auto dq = v.getDefiningOp<DequantizeOp>();
  if (!dq || !typeOf(dq.getInput()).getElementType().isInteger(8) ||
      !matchPattern(dq.getInput(), m_Constant()) ||
      !matchPattern(dq.getZeroPoint(), m_Constant()))
    return {};
  std::optional<int64_t> dqAxis = dq.getQuantizedAxis();
  if (dqAxis && *dqAxis != axis)
    return {};
  return dq;
}

/// The scale of the i32 result sa * sb (per tensor or per output
/// channel/column) and a zero point of 0 of the same shape.
FailureOr<std::pair<Value, Value>> productScale(OpBuilder &b, Location loc,
                                                DequantizeOp lhs,
                                                DequantizeOp rhs) {
  Value sa = lhs.getScale(), sb = rhs.getScale();
  // Per-tensor scales of shape [1] and [] mix; keep per-axis ones 1-D.
  if (typeOf(sa).getRank() == 1 && hasOneElement(sa) &&
      typeOf(sb).getRank() == 0) {
    FailureOr<Value> r = reshapeTo(b, loc, sa, {});
    if (failed(r))
      return failure();
    sa = *r;
  }
  FailureOr<Value> scale = mulValues(b, loc, sa, sb);
  if (failed(scale))
    return failure();
  RankedTensorType scaleType = typeOf(*scale);
  if (!scaleType.hasStaticShape())
    return failure();
  std::vector<int64_t> zeros(1, 0);
  Value zero = ConstantOp::create(
      b, loc, writeInts(scaleType.clone(b.getI32Type()), zeros));
  return std::make_pair(*scale, zero);
}

/// The integer matmuls kiln-fold-qdq forms (rank >= 2 operands):
///   dq(a) x dq(W)   W constant, per tensor or per column; a non-zero
///                   zero point of W (per tensor or per column) costs a
///                   run-time rowsum(a) term;
///   dq(W) x dq(b)   W constant, per tensor or per row, so b's zero point
///                   costs a constant rowsum(W) term (and W's, per row, a
///                   run-time colsum(b) term);
///   dq(a) x dq(b)   both computed and per tensor (attention's Q K^T and
///                   P V); the zero points' colsum(b) / rowsum(a) terms are
///                   kiln.reduce sums at run time.
/// The result is dequantize(i32, sa * sb) along the columns (or rows).
LogicalResult foldMatmul(OpBuilder &b, MatmulOp op) {
  Location loc = op.getLoc();
  RankedTensorType lhsType = typeOf(op.getLhs()), rhsType = typeOf(op.getRhs());
  if (lhsType.getRank() < 2 || rhsType.getRank() < 2)
    return failure();
  int64_t rank = std::max(lhsType.getRank(), rhsType.getRank());
  DequantizeOp lhs, rhs;
  Value za, zb;
  int64_t scaleAxis = rank - 1;
  if ((rhs = weightDequantize(op.getRhs(), rhsType.getRank() - 1)) &&
      (lhs = activationDequantize(op.getLhs()))) {
    za = lhs.getZeroPoint();
    zb = rhs.getZeroPoint();
  } else if ((lhs = weightDequantize(op.getLhs(), lhsType.getRank() - 2)) &&
             (rhs = activationDequantize(op.getRhs()))) {
    za = lhs.getZeroPoint();
    zb = rhs.getZeroPoint();
    if (lhs.getQuantizedAxis())
      scaleAxis = rank - 2;
  } else if ((lhs = activationDequantize(op.getLhs())) &&
             (rhs = activationDequantize(op.getRhs()))) {
    za = lhs.getZeroPoint();
    zb = rhs.getZeroPoint();
  } else {
    return failure();
  }
  b.setInsertionPoint(op);
  FailureOr<Value> acc =
      buildIntegerMatmul(b, loc, lhs.getInput(), rhs.getInput(), za, zb);
  FailureOr<std::pair<Value, Value>> scale = productScale(b, loc, lhs, rhs);
  if (failed(acc) || failed(scale))
    return failure();
  FailureOr<Value> y = make<DequantizeOp>(
      b, loc, {*acc, scale->first, scale->second},
      {b.getNamedAttr("axis", b.getI64IntegerAttr(scaleAxis))});
  if (failed(y))
    return failure();
  op.getResult().replaceAllUsesWith(*y);
  op.erase();
  return success();
}

/// Whether the constant scale `biasScale` equals sx * sw element for
/// element (computed in f32, as quantizers compute it), so that an i32
/// bias is already in the accumulator's units.
bool biasScaleMatches(Value biasScale, Value productScale) {
  std::optional<ConstantTensor> bias = readAny(biasScale);
  std::optional<ConstantTensor> product = readAny(productScale);
  if (!bias || !product || !bias->isFloat || !product->isFloat)
    return false;
  int64_t n = std::max<int64_t>(bias->type.getNumElements(),
                                product->type.getNumElements());
  if (!hasOneElement(biasScale) && bias->type.getNumElements() != n)
    return false;
  if (!hasOneElement(productScale) && product->type.getNumElements() != n)
    return false;
  for (int64_t i = 0; i < n; ++i) {
    float lhs = static_cast<float>(bias->floatAt(bias->isSplat ? 0 : (bias->size() == 1 ? 0 : i)));
    float rhs = static_cast<float>(product->floatAt(product->isSplat ? 0 : (product->size() == 1 ? 0 : i)));
    if (lhs != rhs)
      return false;
  }
  return true;
}

LogicalResult foldConv(OpBuilder &b, ConvOp op) {
  Location loc = op.getLoc();
  DequantizeOp input = activationDequantize(op.getInput());
  DequantizeOp filter = weightDequantize(op.getFilter(), 0);
  if (!input || !filter)
    return failure();
  b.setInsertionPoint(op);
  FailureOr<std::pair<Value, Value>> scale = productScale(b, loc, input, filter);
  if (failed(scale))
    return failure();
  // An i32 bias in the accumulator's units joins the contraction; any
  // other bias is added in f32 after the dequantize.
  Value intBias, floatBias = op.getBias();
  if (auto biasDq = floatBias ? floatBias.getDefiningOp<DequantizeOp>()
                              : DequantizeOp()) {
    if (typeOf(biasDq.getInput()).getElementType().isInteger(32) &&
        typeOf(biasDq.getInput()).getRank() == 1 &&
        isZeroOrAbsent(biasDq.getZeroPoint()) &&
        biasScaleMatches(biasDq.getScale(), scale->first)) {
      intBias = biasDq.getInput();
      floatBias = Value();
    }
  }
  ConvWindow window{op.getStridesOrDefault(), op.getDilationsOrDefault(),
                    op.getPadsOrDefault(),
                    static_cast<int64_t>(op.getGroups())};
  FailureOr<Value> acc =
      buildIntegerConv(b, loc, input.getInput(), filter.getInput(),
                       input.getZeroPoint(), filter.getZeroPoint(), intBias,
                       window);
  if (failed(acc))
    return failure();
  FailureOr<Value> y = make<DequantizeOp>(
      b, loc, {*acc, scale->first, scale->second},
      {b.getNamedAttr("axis", b.getI64IntegerAttr(1))});
  if (failed(y))
    return failure();
  if (floatBias) {
    int64_t spatial = typeOf(*y).getRank() - 2;
    SmallVector<int64_t> channelShape = {typeOf(floatBias).getDimSize(0)};
    channelShape.append(spatial, 1);
    FailureOr<Value> perChannel = reshapeTo(b, loc, floatBias, channelShape);
    if (failed(perChannel) || failed(y = addValues(b, loc, *y, *perChannel)))
      return failure();
  }
  op.getResult().replaceAllUsesWith(*y);
  op.erase();
  return success();
}

/// quantize(x, s, z) of the value `bound` (f32 arithmetic, as the kernels
/// and QuantizeOp::fold do it), for scale/zero-point element `i`.
int64_t quantizeBound(float bound, const ConstantTensor &scale,
                      const ConstantTensor &zeroPoint, int64_t i) {
  float scaleValue = static_cast<float>(scale.floatAt(scale.size() == 1 ? 0 : i));
  float rounded =
      std::nearbyint(bound / scaleValue) +
      static_cast<float>(zeroPoint.intAt(zeroPoint.size() == 1 ? 0 : i));
  return static_cast<int64_t>(std::min(127.0f, std::max(-128.0f, rounded)));
}

} // namespace

LogicalResult foldClampIntoQuantize(OpBuilder &b, QuantizeOp op) {
  Operation *clamp = op.getInput().getDefiningOp();
  if (!clamp || !isa<ClipOp, ReluOp>(clamp) ||
      !typeOf(op.getInput()).getElementType().isF32())
    return failure();
  std::optional<ConstantTensor> scale = readAny(op.getScale());
  std::optional<ConstantTensor> zeroPoint = readAny(op.getZeroPoint());
  if (!scale || !zeroPoint || !scale->isFloat || zeroPoint->isFloat)
    return failure();
  int64_t count = std::max<int64_t>(scale->type.getNumElements(),
                                    zeroPoint->type.getNumElements());
  // Division by a finite positive scale, rounding and adding the zero
  // point are all monotone (non-decreasing), so quantize(clip(x, A, B)) is
  // clamp(quantize(x), q(A), q(B)) for every x that is not a NaN.
  std::optional<double> low = 0.0, high;
  if (auto clip = dyn_cast<ClipOp>(clamp)) {
    low = clip.getMin() ? std::optional<double>(clip.getMin()->convertToDouble())
                        : std::nullopt;
    if (clip.getMax())
      high = clip.getMax()->convertToDouble();
  }
  if (low && high && *low > *high)
    return failure();
  int64_t highest = std::numeric_limits<int64_t>::min();
  for (int64_t i = 0; i < count; ++i) {
    float s = static_cast<float>(scale->floatAt(scale->size() == 1 ? 0 : i));
    if (!(s > 0.0f) || std::isinf(s))
      return failure();
    // The lower bound must quantize to -128: then a NaN (which the clip
    // passes on or maps to the bound, and which the quantize sends to
    // -128) also gives -128 without the clip.
    if (low && quantizeBound(static_cast<float>(*low), *scale, *zeroPoint,
                             i) != -128)
      return failure();
    int64_t q = high ? quantizeBound(static_cast<float>(*high), *scale,
                                     *zeroPoint, i)
                     : 127;
    if (i > 0 && q != highest)
      return failure(); // one i8 bound per tensor only
    highest = q;
  }
  b.setInsertionPoint(op);
  FailureOr<Value> quantized = make<QuantizeOp>(
      b, op.getLoc(), {clamp->getOperand(0), op.getScale(), op.getZeroPoint()},
      {b.getNamedAttr("axis", op.getAxisAttr())});
  if (failed(quantized))
    return failure();
  Value result = *quantized;
  if (highest < 127) {
    FailureOr<Value> clipped = make<ClipOp>(
        b, op.getLoc(), {result},
        {b.getNamedAttr("max", b.getF64FloatAttr(static_cast<double>(highest)))});
    if (failed(clipped))
      return failure();
    result = *clipped;
  }
  op.getResult().replaceAllUsesWith(result);
  op.erase();
  return success();
}

LogicalResult foldQdqContraction(OpBuilder &b, Operation *op) {
  if (op->getNumResults() != 1 ||
      !typeOf(op->getResult(0)).getElementType().isF32())
    return failure();
  if (auto matmul = dyn_cast<MatmulOp>(op))
    return foldMatmul(b, matmul);
  if (auto conv = dyn_cast<ConvOp>(op))
    return foldConv(b, conv);
  return failure();
}

FailureOr<Value> sinkDataMovementIntoDequantize(OpBuilder &b, Operation *op) {
  if (!isa<TransposeOp, ReshapeOp>(op))
    return failure();
  auto dq = op->getOperand(0).getDefiningOp<DequantizeOp>();
  if (!dq || !matchPattern(dq.getInput(), m_Constant()))
    return failure();
  std::optional<int64_t> axis = dq.getQuantizedAxis();
  int64_t newAxis = 1;
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    if (axis) {
      ArrayRef<int64_t> perm = transpose.getPerm();
      auto it = llvm::find(perm, *axis);
      if (it == perm.end())
        return failure();
      newAxis = it - perm.begin();
    }
  } else if (axis) {
    return failure(); // a reshape may split or merge the quantized axis
  }
  b.setInsertionPoint(op);
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(dq.getInput());
  state.addAttributes(op->getAttrs());
  state.addTypes(typeOf(op->getResult(0)).clone(b.getI8Type()));
  Operation *moved = b.create(state);
  SmallVector<Value, 1> folded;
  Value quantized = moved->getResult(0);
  if (succeeded(b.tryFold(moved, folded)) && folded.size() == 1) {
    moved->erase();
    quantized = folded.front();
  }
  FailureOr<Value> newDq = make<DequantizeOp>(
      b, op->getLoc(), {quantized, dq.getScale(), dq.getZeroPoint()},
      {b.getNamedAttr("axis", b.getI64IntegerAttr(newAxis))});
  if (failed(newDq))
    return failure();
  op->getResult(0).replaceAllUsesWith(*newDq);
  op->erase();
  return newDq;
}

void foldQdq(Operation *root) {
  OpBuilder b(root->getContext());
  SmallVector<Operation *> movement;
  root->walk([&](Operation *op) {
    if (isa<TransposeOp, ReshapeOp>(op))
      movement.push_back(op);
  });
  for (Operation *op : movement)
    (void)sinkDataMovementIntoDequantize(b, op);

  SmallVector<Operation *> contractions;
  root->walk([&](Operation *op) {
    if (isa<MatmulOp, ConvOp>(op))
      contractions.push_back(op);
  });
  for (Operation *op : contractions)
    (void)foldQdqContraction(b, op);

  // Clamps (Relu, Clip) right before a quantize whose saturation already
  // does their work leave the epilogues.
  SmallVector<QuantizeOp> quantizes;
  root->walk([&](QuantizeOp op) { quantizes.push_back(op); });
  for (QuantizeOp op : quantizes)
    (void)foldClampIntoQuantize(b, op);

  // Dequantizes of constants that joined no integer contraction become
  // f32 weights (the f32 path then reads them directly).
  SmallVector<DequantizeOp> dequantizes;
  root->walk([&](DequantizeOp op) { dequantizes.push_back(op); });
  for (DequantizeOp op : dequantizes) {
    if (op->use_empty())
      continue;
    if (DenseElementsAttr value = op.evaluateConstant()) {
      b.setInsertionPoint(op);
      op.getResult().replaceAllUsesWith(
          ConstantOp::create(b, op.getLoc(), value));
    }
  }

  // What the rewrites left unused (the f32 contractions' dequantizes, the
  // weights they read) is removed; kiln-graph-cleanup would do the same.
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<Operation *> dead;
    root->walk([&](Operation *op) {
      if (op != root && isa<KilnDialect>(op->getDialect()) &&
          op->use_empty() && isPure(op))
        dead.push_back(op);
    });
    for (Operation *op : dead)
      op->erase();
    changed = !dead.empty();
  }
}

} // namespace mlir::kiln::quant
