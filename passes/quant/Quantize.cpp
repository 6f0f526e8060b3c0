//===- Quantize.cpp - kiln-quantize ----------------------------------------===//
//
// INT8 post-training quantization of a calibrated Kiln graph. For each
// quantizable matmul/conv (passes/quant/Quantize.h) the pass
//   - quantizes the constant weights here, symmetric s8 per output channel,
//     and feeds the op `dequantize(q_w, s_w, 0)`;
//   - puts `dequantize(quantize(x, s_x, z_x))` on the activation input, with
//     s_x, z_x from the calibrated range (u8 asymmetric, stored biased);
//   - gives a conv bias as `dequantize(q_b i32, s_x * s_w, 0)`;
// and then runs the QDQ folding, which rewrites those patterns into integer
// contractions (i8 x i8 -> i32) with their epilogues. The scheme is the
// one of onnxruntime's static quantization (QUInt8 activations, QInt8
// per-channel weights), so its accuracy is known.
//
//===----------------------------------------------------------------------===//
#include "passes/quant/Quantize.h"

#include "dialects/kiln/ConstantFolding.h"
#include "dialects/kiln/KilnDialect.h"
#include "passes/Passes.h"
#include "passes/quant/QdqFolding.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

#include <cmath>
#include <cstring>

namespace mlir::kiln {

#define GEN_PASS_DEF_QUANTIZE
#include "passes/Passes.h.inc"

namespace {

// Activation parameters: u8 asymmetric over [lo, hi] (containing 0), held
// as biased s8 (u8 - 128), the storage of Kiln's int8 ops.
struct ActivationParams {
  float scale;
  int8_t zeroPoint; // biased
};

ActivationParams activationParams(float lo, float hi) {
  lo = std::min(lo, 0.0f);
  hi = std::max(hi, 0.0f);
  float scale = (hi - lo) / 255.0f;
  // An all-zero tensor: any scale represents it; 1 keeps the divisions
  // finite.
  if (!(scale > 0) || !std::isnormal(scale))
    scale = 1.0f;
  double zero = std::nearbyint(-static_cast<double>(lo) / scale);
  int u8 = static_cast<int>(std::min(255.0, std::max(0.0, zero)));
  return {scale, static_cast<int8_t>(u8 - 128)};
}

// The f32 values of a constant (dense or dense_resource).
std::optional<std::vector<float>> readFloats(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  std::optional<RawElements> raw = readRawElements(constant.getValue());
  if (!raw || raw->elementBytes != 4)
    return std::nullopt;
  int64_t count = raw->type.getNumElements();
  std::vector<float> values(count);
  for (int64_t i = 0; i < count; ++i)
    std::memcpy(&values[i], raw->at(i), 4);
  return values;
}

// Symmetric s8 per channel along `axis` of `shape`: scale = max|w| / 127,
// q = round_half_even(w / scale) in [-127, 127] (-128 is never used, so
// that negation and the AVX2 u8 x s8 products stay symmetric).
struct QuantizedWeights {
  std::vector<int8_t> values;
  std::vector<float> scales;
};

QuantizedWeights quantizeWeights(const std::vector<float> &w,
                                 ArrayRef<int64_t> shape, int64_t axis) {
  int64_t channels = shape[axis];
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < static_cast<int64_t>(shape.size()); ++d)
    inner *= shape[d];
  auto channelOf = [&](int64_t i) { return (i / inner) % channels; };
  QuantizedWeights q;
  q.scales.assign(channels, 0.0f);
  for (int64_t i = 0; i < static_cast<int64_t>(w.size()); ++i)
    q.scales[channelOf(i)] = std::max(q.scales[channelOf(i)], std::fabs(w[i]));
  for (float &s : q.scales) {
    s = s / 127.0f;
    if (!(s > 0) || !std::isnormal(s))
      s = 1.0f; // an all-zero channel
  }
  q.values.resize(w.size());
  for (int64_t i = 0; i < static_cast<int64_t>(w.size()); ++i) {
    double r = std::nearbyint(static_cast<double>(w[i]) / q.scales[channelOf(i)]);
    q.values[i] = static_cast<int8_t>(std::min(127.0, std::max(-127.0, r)));
  }
  return q;
}

Value constantOf(OpBuilder &builder, Location loc, RankedTensorType type,
                 DenseElementsAttr value) {
  return ConstantOp::create(builder, loc, cast<ElementsAttr>(value));
}

class QuantizePass : public impl::QuantizeBase<QuantizePass> {
public:
  using QuantizeBase::QuantizeBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    QuantizeSettings settings;
    std::string error;
    std::vector<std::string> denied(deny.begin(), deny.end());
    if (!parseQuantizeSettings(module, denied, settings, error)) {
      module.emitError("kiln-quantize: deny: ") << error;
      return signalPassFailure();
    }

    // Collect first: rewriting inserts ops the walk would otherwise visit.
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (quantizableActivation(op, settings))
        ops.push_back(op);
    });
    bool failedAny = false;
    // One quantize/dequantize pair per (tensor, range): Q/K/V projections
    // reading the same input share it.
    llvm::DenseMap<std::pair<Value, Attribute>, std::pair<Value, float>> shared;
    for (Operation *op : ops) {
      auto range = dyn_cast_or_null<DenseF32ArrayAttr>(op->getAttr(kInputRangeAttr));
      if (!range) {
        op->emitOpError("has no valid '")
            << kInputRangeAttr
            << "' (array<f32: lo, hi>), the range of its activation input; "
               "calibrate the model (kilnc --quantize=int8 --calibration=DIR)";
        failedAny = true;
        continue;
      }
      ArrayRef<float> bounds = range.asArrayRef();
      if (bounds.size() != 2 || !std::isfinite(bounds[0]) ||
          !std::isfinite(bounds[1]) || bounds[0] > bounds[1]) {
        op->emitOpError("'") << kInputRangeAttr
                             << "' must be two finite values lo <= hi, got "
                             << range;
        failedAny = true;
        continue;
      }
      if (failed(quantizeOp(op, bounds[0], bounds[1], range, shared)))
        failedAny = true;
    }
    if (failedAny)
      return signalPassFailure();
    if (fold)
      quant::foldQdq(module);
  }

private:
  LogicalResult
  quantizeOp(Operation *op, float lo, float hi, Attribute rangeKey,
             llvm::DenseMap<std::pair<Value, Attribute>, std::pair<Value, float>> &shared) {
    OpBuilder builder(op);
    Location loc = op->getLoc();
    MLIRContext *context = op->getContext();
    Type f32 = builder.getF32Type();
    Type i8 = builder.getIntegerType(8);
    Type i32 = builder.getIntegerType(32);

    // Activation: dequantize(quantize(x)).
    Value input = op->getOperand(0);
    auto key = std::make_pair(input, rangeKey);
    auto found = shared.find(key);
    float inputScale;
    if (found == shared.end()) {
      OpBuilder::InsertionGuard guard(builder);
      if (Operation *producer = input.getDefiningOp())
        builder.setInsertionPointAfter(producer);
      else
        builder.setInsertionPointToStart(input.getParentBlock());
      ActivationParams params = activationParams(lo, hi);
      auto scalarF32 = RankedTensorType::get({}, f32);
      auto scalarI8 = RankedTensorType::get({}, i8);
      Value scale = constantOf(builder, loc, scalarF32,
                               DenseElementsAttr::get(scalarF32, params.scale));
      Value zero = constantOf(
          builder, loc, scalarI8,
          DenseElementsAttr::get(scalarI8, APInt(8, params.zeroPoint, true)));
      FailureOr<QuantizeOp> q =
          createChecked<QuantizeOp>(builder, loc, {input, scale, zero});
      if (failed(q))
        return failure();
      FailureOr<DequantizeOp> dq =
          createChecked<DequantizeOp>(builder, loc, {q->getResult(), scale, zero});
      if (failed(dq))
        return failure();
      found = shared.insert({key, {dq->getResult(), params.scale}}).first;
    }
    op->setOperand(0, found->second.first);
    inputScale = found->second.second;

    // Weights: symmetric s8 per output channel.
    unsigned weightIndex = 1;
    Value weight = op->getOperand(weightIndex);
    auto weightType = cast<RankedTensorType>(weight.getType());
    int64_t axis = isa<MatmulOp>(op) ? weightType.getRank() - 1 : 0;
    std::optional<std::vector<float>> values = readFloats(weight);
    if (!values)
      return op->emitOpError("weights are not a readable f32 constant");
    QuantizedWeights qw = quantizeWeights(*values, weightType.getShape(), axis);
    int64_t channels = weightType.getDimSize(axis);
    auto qType = weightType.clone(i8);
    auto scaleType = RankedTensorType::get({channels}, f32);
    auto zeroType = RankedTensorType::get({channels}, i8);
    Value qConst = constantOf(builder, loc, qType,
                              DenseElementsAttr::get(qType, ArrayRef<int8_t>(qw.values)));
    Value wScale = constantOf(builder, loc, scaleType,
                              DenseElementsAttr::get(scaleType, ArrayRef<float>(qw.scales)));
    Value wZero = constantOf(builder, loc, zeroType,
                             DenseElementsAttr::get(zeroType, APInt(8, 0)));
    NamedAttribute axisAttr = builder.getNamedAttr("axis", builder.getI64IntegerAttr(axis));
    FailureOr<DequantizeOp> wDq =
        createChecked<DequantizeOp>(builder, loc, {qConst, wScale, wZero}, {axisAttr});
    if (failed(wDq))
      return failure();
    op->setOperand(weightIndex, wDq->getResult());

    // Conv bias: i32 at scale s_x * s_w, so the folded conv adds it to the
    // i32 accumulator.
    if (auto conv = dyn_cast<ConvOp>(op); conv && conv.getBias()) {
      std::optional<std::vector<float>> bias = readFloats(conv.getBias());
      if (!bias || static_cast<int64_t>(bias->size()) != channels)
        return op->emitOpError("bias is not a readable f32 constant");
      std::vector<int32_t> qb(channels);
      std::vector<float> bScale(channels);
      for (int64_t c = 0; c < channels; ++c) {
        bScale[c] = inputScale * qw.scales[c];
        double r = std::nearbyint(static_cast<double>((*bias)[c]) / bScale[c]);
        qb[c] = static_cast<int32_t>(std::min(2147483647.0, std::max(-2147483648.0, r)));
      }
      auto biasType = RankedTensorType::get({channels}, i32);
      Value bConst = constantOf(builder, loc, biasType,
                                DenseElementsAttr::get(biasType, ArrayRef<int32_t>(qb)));
      Value bScaleConst = constantOf(builder, loc, scaleType,
                                     DenseElementsAttr::get(scaleType, ArrayRef<float>(bScale)));
      Value bZero = constantOf(builder, loc, biasType,
                               DenseElementsAttr::get(biasType, APInt(32, 0)));
      FailureOr<DequantizeOp> bDq = createChecked<DequantizeOp>(
          builder, loc, {bConst, bScaleConst, bZero},
          {builder.getNamedAttr("axis", builder.getI64IntegerAttr(0))});
      if (failed(bDq))
        return failure();
      op->setOperand(2, bDq->getResult());
    }
    op->removeAttr(kInputRangeAttr);
    (void)context;
    return success();
  }
};

} // namespace

} // namespace mlir::kiln
