//===- ChannelsLastPad.cpp - Channels-last convs without pad dispatches ---===//
//
// See ChannelsLastPad.h. The match is on the IR that ContractionToLinalg.cpp
// (ConvNhwcPattern) and kiln-form-dispatches produce:
//
//   %0 = call @pad(%x)            tensor.pad, zero, dims 1 and 2 only
//   %1 = call @conv(%0, %w, ...)  fill + contraction generic reading %0 as
//                                 A through (n, oh*s + kh*d, ow*s + kw*d, c)
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/cpu/ChannelsLastPad.h"

#include "compiler/targets/cpu/ContractionKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

#include <map>
#include <tuple>

namespace mlir::kiln::cpu {

DictionaryAttr ChannelsLastPad::toAttr(MLIRContext *context) const {
  Builder b(context);
  return b.getDictionaryAttr(
      {b.getNamedAttr("input", b.getI64IntegerAttr(input)),
       b.getNamedAttr("pads", b.getDenseI64ArrayAttr({top, left}))});
}

std::optional<ChannelsLastPad> ChannelsLastPad::read(Operation *op) {
  auto dict =
      op ? op->getAttrOfType<DictionaryAttr>(kChannelsLastPadAttr) : nullptr;
  if (!dict)
    return std::nullopt;
  auto input = dict.getAs<IntegerAttr>("input");
  auto pads = dict.getAs<DenseI64ArrayAttr>("pads");
  if (!input || !pads || pads.size() != 2 || input.getInt() < 0 ||
      pads[0] < 0 || pads[1] < 0)
    return std::nullopt;
  return ChannelsLastPad{input.getInt(), pads[0], pads[1]};
}

namespace {

// A dispatch whose only op (besides tensor.empty and constants) is a zero
// pad of dims 1 and 2 of its single rank-4 argument; returns the pad.
tensor::PadOp channelsLastPad(func::FuncOp dispatch) {
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
  if (!pad || pad.getSource() != dispatch.getArgument(0) ||
      pad.getSourceType().getRank() != 4 ||
      !pad.getSourceType().getElementType().isF32())
    return nullptr;
  auto ret = cast<func::ReturnOp>(dispatch.getBody().front().getTerminator());
  if (ret.getNumOperands() != 1 || ret.getOperand(0) != pad.getResult())
    return nullptr;
  Value value = pad.getConstantPaddingValue();
  if (!value || !matchPattern(value, m_AnyZeroFloat()))
    return nullptr;
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  for (int64_t d = 0; d < 4; ++d) {
    if (ShapedType::isDynamic(low[d]) || ShapedType::isDynamic(high[d]) ||
        low[d] < 0 || high[d] < 0)
      return nullptr;
    if ((d == 0 || d == 3) && (low[d] || high[d]))
      return nullptr;
  }
  return pad;
}

// The channels-last conv generics of `dispatch` (7 loops, A read as (n,
// h, w, c) with h and w affine in the loops) whose A is a dispatch
// argument read by nothing else: those argument numbers (a residual add
// can join two convs in one dispatch).
SmallVector<unsigned> channelsLastInputs(func::FuncOp dispatch) {
  SmallVector<unsigned> found;
  for (auto op : dispatch.getBody().front().getOps<linalg::GenericOp>()) {
    FailureOr<ContractionLoops> loops = matchContraction(op);
    if (failed(loops) || !loops->operandType.isF32() ||
        loops->reductions.size() != 3 || op.getNumLoops() != 7 ||
        loops->m != 2 || loops->n != 3)
      continue;
    auto arg = dyn_cast<BlockArgument>(op.getDpsInputs()[loops->lhs]);
    if (!arg || arg.getOwner() != &dispatch.getBody().front() ||
        !arg.hasOneUse() || cast<RankedTensorType>(arg.getType()).getRank() != 4)
      continue;
    found.push_back(arg.getArgNumber());
  }
  return found;
}

// P[n, h, w, c] = inside ? X[n, h - top, w - left, c] : 0.
Value buildPad(OpBuilder &b, Location loc, Value x, RankedTensorType type,
               const ChannelsLastPad &pad) {
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t height = xType.getDimSize(1), width = xType.getDimSize(2);
  MLIRContext *ctx = b.getContext();
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                        type.getElementType());
  AffineMap identity = AffineMap::getMultiDimIdentityMap(4, ctx);
  SmallVector<utils::IteratorType> parallel(4, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{}, ValueRange{empty},
      ArrayRef<AffineMap>{identity}, parallel,
      [&](OpBuilder &nb, Location l, ValueRange) {
        auto cst = [&](int64_t v) {
          return arith::ConstantIndexOp::create(nb, l, v).getResult();
        };
        SmallVector<Value> at;
        for (int64_t d = 0; d < 4; ++d)
          at.push_back(linalg::IndexOp::create(nb, l, d));
        Value ih = arith::SubIOp::create(nb, l, at[1], cst(pad.top));
        Value iw = arith::SubIOp::create(nb, l, at[2], cst(pad.left));
        // Unsigned: a negative position (top or left padding) is huge.
        Value inside = arith::AndIOp::create(
            nb, l,
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, ih,
                                  cst(height)),
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, iw,
                                  cst(width)));
        Value zero = cst(0);
        at[1] = arith::SelectOp::create(nb, l, inside, ih, zero);
        at[2] = arith::SelectOp::create(nb, l, inside, iw, zero);
        Value element = tensor::ExtractOp::create(nb, l, x, at);
        Value padding =
            arith::ConstantOp::create(nb, l, nb.getZeroAttr(type.getElementType()));
        linalg::YieldOp::create(
            nb, l,
            arith::SelectOp::create(nb, l, inside, element, padding)
                .getResult());
      });
  generic->setAttr(kChannelsLastPadAttr, pad.toAttr(ctx));
  return generic.getResult(0);
}

} // namespace

LogicalResult foldChannelsLastPads(ModuleOp module) {
  SymbolTable symbols(module);
  SmallVector<func::CallOp> calls;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func->hasAttr("kiln.dispatch"))
      func.walk([&](func::CallOp call) { calls.push_back(call); });
  // One rewritten dispatch per (conv dispatch, argument, pad dispatch,
  // input type).
  std::map<std::tuple<std::string, unsigned, std::string, const void *>,
           func::FuncOp>
      rewritten;
  DenseSet<Operation *> erased;
  llvm::SetVector<func::FuncOp> touched;
  for (func::CallOp call : calls) {
    if (erased.contains(call))
      continue;
    // Each padded input in turn: the call moves to the rewritten dispatch,
    // which the next input's rewrite starts from.
    for (bool changed = true; changed;) {
      changed = false;
      auto dispatch = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!dispatch || !dispatch->hasAttr("kiln.dispatch"))
        break;
      for (unsigned argNo : channelsLastInputs(dispatch)) {
        auto padCall = call.getOperand(argNo).getDefiningOp<func::CallOp>();
        func::FuncOp padDispatch =
            padCall ? symbols.lookup<func::FuncOp>(padCall.getCallee())
                    : func::FuncOp();
        tensor::PadOp pad =
            padDispatch ? channelsLastPad(padDispatch) : nullptr;
        if (!pad)
          continue;
        Value x = padCall.getOperand(0);
        auto xType = cast<RankedTensorType>(x.getType());
        // The kernel addresses X with 32-bit offsets.
        if (!xType.hasStaticShape() ||
            xType.getNumElements() >= (int64_t(1) << 31))
          continue;
        ChannelsLastPad padding{argNo, pad.getStaticLow()[1],
                                pad.getStaticLow()[2]};
        auto key = std::make_tuple(dispatch.getName().str(), argNo,
                                   padDispatch.getName().str(),
                                   xType.getAsOpaquePointer());
        func::FuncOp bounded = rewritten[key];
        if (!bounded) {
          OpBuilder builder(dispatch);
          builder.setInsertionPointAfter(dispatch);
          bounded = cast<func::FuncOp>(builder.clone(*dispatch));
          bounded.setName(dispatch.getName().str() + "_bounds");
          symbols.insert(bounded); // renamed if the name is taken
          Location loc = bounded.getLoc();
          if (failed(bounded.insertArgument(argNo, xType, {}, loc)))
            return failure();
          Block &entry = bounded.getBody().front();
          auto paddedType =
              cast<RankedTensorType>(entry.getArgument(argNo + 1).getType());
          OpBuilder body = OpBuilder::atBlockBegin(&entry);
          Value padded = buildPad(body, loc, entry.getArgument(argNo),
                                  paddedType, padding);
          entry.getArgument(argNo + 1).replaceAllUsesWith(padded);
          if (failed(bounded.eraseArgument(argNo + 1)))
            return failure();
          rewritten[key] = bounded;
        }
        call.setCallee(bounded.getName());
        call->setOperand(argNo, x);
        if (padCall->use_empty()) {
          erased.insert(padCall);
          padCall->erase();
        }
        touched.insert(dispatch);
        touched.insert(padDispatch);
        changed = true;
        break;
      }
    }
  }
  for (func::FuncOp func : touched)
    if (SymbolTable::symbolKnownUseEmpty(func, module))
      symbols.erase(func);
  return success();
}

} // namespace mlir::kiln::cpu
