//===- FoldedPad.cpp - Pads folded into the kernels that read them --------===//
//
// See FoldedPad.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/cpu/FoldedPad.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

namespace mlir::kiln::cpu {

DictionaryAttr FoldedPad::toAttr(MLIRContext *context) const {
  Builder b(context);
  return b.getDictionaryAttr(
      {b.getNamedAttr("input", b.getI64IntegerAttr(input)),
       b.getNamedAttr("pads", b.getDenseI64ArrayAttr({top, left}))});
}

std::optional<FoldedPad> FoldedPad::read(Operation *op, StringRef attrName) {
  auto dict = op ? op->getAttrOfType<DictionaryAttr>(attrName) : nullptr;
  if (!dict)
    return std::nullopt;
  auto input = dict.getAs<IntegerAttr>("input");
  auto pads = dict.getAs<DenseI64ArrayAttr>("pads");
  if (!input || !pads || pads.size() != 2 || input.getInt() < 0 ||
      pads[0] < 0 || pads[1] < 0)
    return std::nullopt;
  return FoldedPad{input.getInt(), pads[0], pads[1]};
}

std::optional<FoldedPadWriter> foldedPadWriter(Value buffer,
                                               StringRef attrName) {
  auto slice = buffer.getDefiningOp<memref::SubViewOp>();
  Value whole = slice ? slice.getSource() : buffer;
  for (Operation *user : whole.getUsers()) {
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || generic.getNumDpsInits() != 1 ||
        generic.getDpsInits()[0] != whole)
      continue;
    if (std::optional<FoldedPad> pad = FoldedPad::read(generic, attrName))
      return FoldedPadWriter{generic, *pad, slice};
  }
  return std::nullopt;
}

tensor::PadOp padDispatchOf(func::FuncOp dispatch, int64_t heightDim) {
  if (dispatch.getNumArguments() != 1)
    return nullptr;
  tensor::PadOp pad;
  for (Operation &op : dispatch.getBody().front()) {
    if (isa<tensor::EmptyOp, arith::ConstantOp, func::ReturnOp>(op))
      continue;
    if (pad || !isa<tensor::PadOp>(op))
      return nullptr;
    pad = cast<tensor::PadOp>(op);
  }
  if (!pad || pad.getSource() != dispatch.getArgument(0))
    return nullptr;
  auto ret = cast<func::ReturnOp>(dispatch.getBody().front().getTerminator());
  if (ret.getNumOperands() != 1 || ret.getOperand(0) != pad.getResult())
    return nullptr;
  Value value = pad.getConstantPaddingValue();
  if (!value || !matchPattern(value, m_Constant()))
    return nullptr;
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  int64_t rank = pad.getSourceType().getRank();
  if (heightDim < 0 || heightDim + 1 >= rank)
    return nullptr;
  for (int64_t d = 0; d < rank; ++d) {
    if (ShapedType::isDynamic(low[d]) || ShapedType::isDynamic(high[d]) ||
        low[d] < 0 || high[d] < 0)
      return nullptr;
    if (d != heightDim && d != heightDim + 1 && (low[d] || high[d]))
      return nullptr;
  }
  return pad;
}

Value buildFoldedPad(OpBuilder &b, Location loc, Value x, RankedTensorType type,
                     int64_t heightDim, const FoldedPad &pad, TypedAttr value,
                     StringRef attrName) {
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t rank = xType.getRank();
  int64_t height = xType.getDimSize(heightDim);
  int64_t width = xType.getDimSize(heightDim + 1);
  MLIRContext *ctx = b.getContext();
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                        type.getElementType());
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{}, ValueRange{empty},
      ArrayRef<AffineMap>{identity}, parallel,
      [&](OpBuilder &nb, Location l, ValueRange) {
        auto cst = [&](int64_t v) {
          return arith::ConstantIndexOp::create(nb, l, v).getResult();
        };
        SmallVector<Value> at;
        for (int64_t d = 0; d < rank; ++d)
          at.push_back(linalg::IndexOp::create(nb, l, d));
        Value ih = arith::SubIOp::create(nb, l, at[heightDim], cst(pad.top));
        Value iw =
            arith::SubIOp::create(nb, l, at[heightDim + 1], cst(pad.left));
        // Unsigned: a negative position (top or left padding) is huge.
        Value inside = arith::AndIOp::create(
            nb, l,
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, ih,
                                  cst(height)),
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, iw,
                                  cst(width)));
        Value zero = cst(0);
        at[heightDim] = arith::SelectOp::create(nb, l, inside, ih, zero);
        at[heightDim + 1] = arith::SelectOp::create(nb, l, inside, iw, zero);
        Value element = tensor::ExtractOp::create(nb, l, x, at);
        Value padding = arith::ConstantOp::create(nb, l, value);
        linalg::YieldOp::create(
            nb, l,
            arith::SelectOp::create(nb, l, inside, element, padding)
                .getResult());
      });
  generic->setAttr(attrName, pad.toAttr(ctx));
  return generic.getResult(0);
}

FailureOr<func::FuncOp> cloneTakingUnpadded(
    SymbolTable &symbols, func::FuncOp dispatch, unsigned argNo,
    RankedTensorType xType,
    function_ref<Value(OpBuilder &, Location, Value, RankedTensorType)>
        build) {
  OpBuilder builder(dispatch);
  builder.setInsertionPointAfter(dispatch);
  auto bounded = cast<func::FuncOp>(builder.clone(*dispatch));
  bounded.setName(dispatch.getName().str() + "_bounds");
  symbols.insert(bounded); // renamed if the name is taken
  Location loc = bounded.getLoc();
  if (failed(bounded.insertArgument(argNo, xType, {}, loc)))
    return failure();
  Block &entry = bounded.getBody().front();
  auto paddedType =
      cast<RankedTensorType>(entry.getArgument(argNo + 1).getType());
  OpBuilder body = OpBuilder::atBlockBegin(&entry);
  Value padded = build(body, loc, entry.getArgument(argNo), paddedType);
  entry.getArgument(argNo + 1).replaceAllUsesWith(padded);
  if (failed(bounded.eraseArgument(argNo + 1)))
    return failure();
  return bounded;
}

} // namespace mlir::kiln::cpu
