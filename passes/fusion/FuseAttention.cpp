//===- FuseAttention.cpp - kiln-fuse-attention ----------------------------===//
//
// Recognises scaled dot-product attention in an imported graph and replaces
// it by one kiln.attention op:
//
//   P = softmax(scores), O = matmul(P, V), where scores is built from
//   matmul(A, B) by
//     - mul or div by a scalar constant (TorchScript's Div by sqrt(d));
//     - add of a mask (the padding mask, any broadcastable f32 tensor);
//     - select(cond, x, F) with a splat F of -inf or below -1e30 (a causal
//       Where with finfo.min, ONNX Attention's -inf), which is the same as
//       adding select(cond, 0, F), or select(cond, F, x) (masked_fill);
//   and A = Q or mul(Q, c), B = K^T or mul(K^T, c) with scalar constants c
//   (the dynamo exporter scales both operands by d^-1/4).
//
// The scale factors multiply into `scale`; the masks (scaled by the factors
// applied after them) add into one mask reshaped to the scores' rank,
// folded to a constant where its pieces are constants (within the
// folders' size limit). A mask that is a splat constant shifts every score
// alike and is dropped (softmax does not see it). Every intermediate must
// have exactly one user, all tensors f32 with static shapes, and Q, K^T
// and V the same batch dims (no broadcasting of the matmuls): otherwise
// nothing changes, and nothing is built.
//
//===----------------------------------------------------------------------===//

#include "dialects/kiln/KilnDialect.h"
#include "passes/Passes.h"

#include "llvm/ADT/SetVector.h"


namespace mlir::kiln {

#define GEN_PASS_DEF_FUSEATTENTION
#include "passes/Passes.h.inc"

namespace {

// The value of a splat f32 constant (of any shape), if `v` is one.
std::optional<double> splatConstant(Value v) {
  auto constant = v.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto attr = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!attr || !attr.isSplat() || !attr.getElementType().isF32())
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

// A scalar factor: a splat constant whose shape broadcasts into nothing
// (every dim 1), so multiplying by it keeps the other operand's shape.
std::optional<double> scalarFactor(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() != 1)
    return std::nullopt;
  return splatConstant(v);
}

// A rank-0 f32 kiln.constant.
Value scalarConstant(OpBuilder &b, Location loc, double value) {
  return ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()),
                             b.getF32FloatAttr(static_cast<float>(value))));
}

bool isStaticF32(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.hasStaticShape() && type.getElementType().isF32();
}

// One additive term of the mask: `value`, or for a select that fills
// with F, select(c, 0, F) (built only once the chain fuses), and the
// factor applied to it afterwards.
struct MaskTerm {
  Value value;
  SelectOp fill;
  double factor = 1.0;
};

// What the scores were built from.
struct Scores {
  MatmulOp matmul;
  Value query, keyT;
  double scale = 1.0;
  SmallVector<MaskTerm> masks;
  SmallVector<Operation *> ops; // every op of the chain, matmul included
};

// The splat a select fills with, and whether it is the false operand
// (where(c, x, F), a causal Where) or the true one (where(c, F, x),
// masked_fill); nullopt unless F is -inf or below -1e30.
std::optional<std::pair<double, bool>> fillOf(SelectOp select) {
  if (std::optional<double> f = splatConstant(select.getOnFalse()))
    return *f <= -1e30 ? std::optional(std::pair(*f, true)) : std::nullopt;
  if (std::optional<double> f = splatConstant(select.getOnTrue()))
    return *f <= -1e30 ? std::optional(std::pair(*f, false)) : std::nullopt;
  return std::nullopt;
}

// Peels mul/div/add/select off `v` down to the QK^T matmul.
bool peel(Value v, Scores &s) {
  Operation *op = v.getDefiningOp();
  if (!op || !v.hasOneUse())
    return false;
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    s.matmul = matmul;
    s.ops.push_back(op);
    s.query = matmul.getLhs();
    s.keyT = matmul.getRhs();
    // d^-1/4 on both operands (dynamo).
    for (Value *operand : {&s.query, &s.keyT}) {
      auto mul = operand->getDefiningOp<MulOp>();
      if (!mul || !operand->hasOneUse())
        continue;
      for (auto [x, c] : {std::pair(mul.getLhs(), mul.getRhs()),
                          std::pair(mul.getRhs(), mul.getLhs())}) {
        std::optional<double> factor = scalarFactor(c);
        if (!factor || x.getType() != operand->getType())
          continue;
        s.scale *= *factor;
        s.ops.push_back(mul);
        *operand = x;
        break;
      }
    }
    return true;
  }
  // The masks and factors met on the way in are those applied after the
  // ones below: collect them first, then scale them by what lies below.
  if (isa<MulOp, DivOp>(op)) {
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    std::optional<double> factor = scalarFactor(rhs);
    Value x = lhs;
    if (!factor && isa<MulOp>(op)) {
      factor = scalarFactor(lhs);
      x = rhs;
    }
    if (!factor || x.getType() != v.getType() || *factor == 0.0)
      return false;
    s.ops.push_back(op);
    if (!peel(x, s))
      return false;
    // Masks found below were added before this factor.
    for (MaskTerm &mask : s.masks)
      mask.factor *= isa<DivOp>(op) ? 1.0 / *factor : *factor;
    s.scale *= isa<DivOp>(op) ? 1.0 / *factor : *factor;
    return true;
  }
  if (auto add = dyn_cast<AddOp>(op)) {
    for (auto [x, mask] : {std::pair(add.getLhs(), add.getRhs()),
                           std::pair(add.getRhs(), add.getLhs())}) {
      if (x.getType() != v.getType() || !isStaticF32(mask))
        continue;
      Scores inner = s;
      inner.ops.push_back(op);
      if (!peel(x, inner))
        continue;
      inner.masks.push_back({mask, SelectOp(), 1.0});
      s = std::move(inner);
      return true;
    }
    return false;
  }
  if (auto select = dyn_cast<SelectOp>(op)) {
    std::optional<std::pair<double, bool>> fill = fillOf(select);
    if (!fill)
      return false;
    Value x = fill->second ? select.getOnTrue() : select.getOnFalse();
    if (x.getType() != v.getType())
      return false;
    s.ops.push_back(op);
    if (!peel(x, s))
      return false;
    // select(c, x, F) == x + select(c, 0, F).
    s.masks.push_back({Value(), select, 1.0});
    return true;
  }
  return false;
}

// The scores' rank and shape for the attention of q and kT.
bool shapesFit(Value q, Value kT, Value vv, Value scores) {
  if (!isStaticF32(q) || !isStaticF32(kT) || !isStaticF32(vv) ||
      !isStaticF32(scores))
    return false;
  auto qt = cast<RankedTensorType>(q.getType());
  auto kt = cast<RankedTensorType>(kT.getType());
  auto vt = cast<RankedTensorType>(vv.getType());
  int64_t rank = qt.getRank();
  if (rank < 2 || kt.getRank() != rank || vt.getRank() != rank)
    return false;
  for (int64_t d = 0; d < rank - 2; ++d)
    if (kt.getDimSize(d) != qt.getDimSize(d) ||
        vt.getDimSize(d) != qt.getDimSize(d))
      return false;
  return kt.getDimSize(rank - 2) == qt.getDimSize(rank - 1) &&
         vt.getDimSize(rank - 2) == kt.getDimSize(rank - 1);
}

LogicalResult fuse(SoftmaxOp softmax) {
  auto scoresType = cast<RankedTensorType>(softmax.getInput().getType());
  int64_t rank = scoresType.getRank();
  auto axis = static_cast<int64_t>(softmax.getAxis());
  if (rank < 2 || (axis != -1 && axis != rank - 1) ||
      !softmax->hasOneUse())
    return failure();
  auto pv = dyn_cast<MatmulOp>(*softmax->user_begin());
  if (!pv || pv.getLhs() != softmax.getResult())
    return failure();
  Scores s;
  if (!peel(softmax.getInput(), s))
    return failure();
  Value value = pv.getRhs();
  if (!shapesFit(s.query, s.keyT, value, softmax.getInput()) ||
      s.matmul.getType() != scoresType || !isStaticF32(pv.getResult()))
    return failure();
  // Every term broadcasts into the scores (the adds and selects gave the
  // scores' type), so the sum does once reshaped to their rank.
  OpBuilder b(pv);
  Location loc = pv.getLoc();
  // Constants a fold left unread go at once.
  auto dropIfUnused = [](Value v) {
    if (v.use_empty() && v.getDefiningOp<ConstantOp>())
      v.getDefiningOp()->erase();
  };
  Value mask;
  for (MaskTerm &term : s.masks) {
    Value addend = term.value;
    if (term.fill) {
      // Folded where the condition is a constant (GPT-2's causal mask): a
      // constant mask instead of a dispatch that rebuilds it every run.
      auto [fill, onFalse] = *fillOf(term.fill);
      Value zero = scalarConstant(b, loc, 0);
      Value filler = scalarConstant(b, loc, fill);
      addend = b.createOrFold<SelectOp>(loc, term.fill.getCondition(),
                                        onFalse ? zero : filler,
                                        onFalse ? filler : zero);
      dropIfUnused(zero);
      dropIfUnused(filler);
    }
    if (splatConstant(addend)) {
      dropIfUnused(addend);
      continue; // the same shift for every score
    }
    if (term.factor != 1.0) {
      Value factor = scalarConstant(b, loc, term.factor);
      addend = b.createOrFold<MulOp>(loc, addend, factor);
      dropIfUnused(factor);
    }
    mask = mask ? b.createOrFold<AddOp>(loc, mask, addend) : addend;
  }
  if (mask) {
    auto maskType = cast<RankedTensorType>(mask.getType());
    if (maskType.getRank() != rank) {
      SmallVector<int64_t> shape(rank - maskType.getRank(), 1);
      llvm::append_range(shape, maskType.getShape());
      mask = b.createOrFold<ReshapeOp>(
          loc, RankedTensorType::get(shape, maskType.getElementType()), mask,
          b.getDenseI64ArrayAttr(shape));
    }
  }
  // Locations of every fused node, so the dispatch still names them.
  SmallVector<Location> locs = {s.matmul.getLoc(), softmax.getLoc(), loc};
  for (Operation *op : s.ops)
    locs.push_back(op->getLoc());
  auto attention = AttentionOp::create(
      b, b.getFusedLoc(locs), pv.getType(), s.query, s.keyT, value, mask,
      b.getF32FloatAttr(static_cast<float>(s.scale)));
  pv.getResult().replaceAllUsesWith(attention.getResult());
  pv.erase();
  softmax.erase();
  // The chain, users first, and the constants only it read (its scales and
  // fills).
  llvm::SetVector<Operation *> constants;
  for (bool erased = true; erased;) {
    erased = false;
    for (Operation *&op : s.ops)
      if (op && op->use_empty()) {
        for (Value operand : op->getOperands())
          if (auto constant = operand.getDefiningOp<ConstantOp>())
            constants.insert(constant);
        op->erase();
        op = nullptr;
        erased = true;
      }
  }
  for (Operation *constant : constants)
    if (constant->use_empty())
      constant->erase();
  return success();
}

class FuseAttentionPass : public impl::FuseAttentionBase<FuseAttentionPass> {
public:
  using impl::FuseAttentionBase<FuseAttentionPass>::FuseAttentionBase;

  void runOnOperation() override {
    SmallVector<SoftmaxOp> softmaxes;
    getOperation()->walk([&](SoftmaxOp op) { softmaxes.push_back(op); });
    // Nothing is built until a chain is known to fuse.
    for (SoftmaxOp op : softmaxes)
      (void)fuse(op);
  }
};

} // namespace
} // namespace mlir::kiln
