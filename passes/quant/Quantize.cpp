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
#include <map>
#include <tuple>

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

// Both operands of a matmul of two activations are s8 symmetric instead:
// scale max(|lo|, |hi|) / 127, zero point 0. With a computed B, a zero
// point of A would cost za * colsum(B) and one of B rowsum(A) * zb, each a
// separate reduction dispatch at run time; with zero points of 0 the
// folded matmul is the bare i8 x i8 contraction. VNNI's vpdpbusd (u8 x s8)
// still gets its u8 A: the kernel adds 128 to A and subtracts 128 *
// colsum(B), which it sums while packing B's panels; AVX2's vpmaddwd
// widens both to i16 (docs/design.md "PTQ of activation x activation
// matmuls").
ActivationParams symmetricParams(float lo, float hi) {
  float scale = std::max(std::fabs(lo), std::fabs(hi)) / 127.0f;
  if (!(scale > 0) || !std::isnormal(scale))
    scale = 1.0f;
  return {scale, 0};
}

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
    settings.softmaxOperands = softmaxOperands;

    // Collect first: rewriting inserts ops the walk would otherwise visit.
    SmallVector<std::pair<Operation *, SmallVector<unsigned, 2>>> ops;
    module.walk([&](Operation *op) {
      SmallVector<unsigned, 2> activations =
          quantizableActivations(op, settings);
      if (!activations.empty())
        ops.push_back({op, activations});
    });
    bool failedAny = false;
    // One quantize/dequantize pair per (tensor, parameters): Q/K/V
    // projections reading the same input share it.
    SharedQdq shared;
    for (auto &[op, activations] : ops) {
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
      size_t expected = 2 * activations.size();
      bool valid = bounds.size() == expected;
      for (size_t i = 0; valid && i < expected; i += 2)
        valid = std::isfinite(bounds[i]) && std::isfinite(bounds[i + 1]) &&
                bounds[i] <= bounds[i + 1];
      if (!valid) {
        InFlightDiagnostic diag = op->emitOpError("'") << kInputRangeAttr;
        if (expected == 2)
          diag << "' must be two finite values lo <= hi, got " << range;
        else
          diag << "' must be " << expected
               << " finite values lo <= hi per activation operand (";
        if (expected != 2) {
          for (auto [i, operand] : llvm::enumerate(activations))
            diag << (i ? ", " : "") << "#" << operand;
          diag << "), got " << range;
        }
        failedAny = true;
        continue;
      }
      if (failed(quantizeOp(op, activations, bounds, shared)))
        failedAny = true;
    }
    if (failedAny)
      return signalPassFailure();
    if (fold)
      quant::foldQdq(module);
  }

private:
  // Keyed by the tensor and the bits of its scale and zero point.
  using SharedQdq =
      std::map<std::tuple<void *, uint32_t, int8_t>, std::pair<Value, float>>;

  /// Replaces operand `index` of `op` by dequantize(quantize(x)) with
  /// `params`; returns the scale.
  FailureOr<float> quantizeActivation(Operation *op, unsigned index,
                                      ActivationParams params,
                                      SharedQdq &shared) {
    OpBuilder builder(op);
    Location loc = op->getLoc();
    Value input = op->getOperand(index);
    uint32_t scaleBits;
    std::memcpy(&scaleBits, &params.scale, 4);
    auto key = std::make_tuple(input.getAsOpaquePointer(), scaleBits,
                               params.zeroPoint);
    auto found = shared.find(key);
    if (found == shared.end()) {
      OpBuilder::InsertionGuard guard(builder);
      if (Operation *producer = input.getDefiningOp())
        builder.setInsertionPointAfter(producer);
      else
        builder.setInsertionPointToStart(input.getParentBlock());
      auto scalarF32 = RankedTensorType::get({}, builder.getF32Type());
      auto scalarI8 = RankedTensorType::get({}, builder.getIntegerType(8));
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
    op->setOperand(index, found->second.first);
    return found->second.second;
  }

  LogicalResult quantizeOp(Operation *op, ArrayRef<unsigned> activations,
                           ArrayRef<float> bounds, SharedQdq &shared) {
    OpBuilder builder(op);
    Location loc = op->getLoc();
    Type f32 = builder.getF32Type();
    Type i8 = builder.getIntegerType(8);
    Type i32 = builder.getIntegerType(32);

    // Activations: dequantize(quantize(x)); u8 asymmetric, but both
    // operands of a matmul of two activations are s8 symmetric.
    float inputScale = 1.0f;
    for (auto [i, index] : llvm::enumerate(activations)) {
      float lo = bounds[2 * i], hi = bounds[2 * i + 1];
      bool symmetric = activations.size() == 2;
      FailureOr<float> scale = quantizeActivation(
          op, index,
          symmetric ? symmetricParams(lo, hi) : activationParams(lo, hi),
          shared);
      if (failed(scale))
        return failure();
      if (i == 0)
        inputScale = *scale;
    }
    op->removeAttr(kInputRangeAttr);
    if (activations.size() == 2)
      return success(); // no weight
    // The weight: a conv's filter; a matmul's constant operand, whose
    // output channels are the rhs's columns or the lhs's rows.
    unsigned weightIndex = 1;
    if (isa<MatmulOp>(op) && activations.front() == 1)
      weightIndex = 0;
    // Weights: symmetric s8 per output channel.
    Value weight = op->getOperand(weightIndex);
    auto weightType = cast<RankedTensorType>(weight.getType());
    int64_t axis = !isa<MatmulOp>(op) ? 0
                   : weightIndex == 1 ? weightType.getRank() - 1
                                      : weightType.getRank() - 2;
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
    return success();
  }
};

} // namespace

} // namespace mlir::kiln
