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

namespace {

// The zero pad of H and W (dims 1 and 2) of an f32 NHWC tensor that
// `dispatch` is, or null.
tensor::PadOp channelsLastPad(func::FuncOp dispatch) {
  tensor::PadOp pad = padDispatchOf(dispatch, /*heightDim=*/1);
  if (!pad || pad.getSourceType().getRank() != 4 ||
      !pad.getSourceType().getElementType().isF32() ||
      !matchPattern(pad.getConstantPaddingValue(), m_AnyZeroFloat()))
    return nullptr;
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
    if (failed(loops) || !isChannelsLastConv(*loops, op))
      continue;
    auto arg = dyn_cast<BlockArgument>(op.getDpsInputs()[loops->lhs]);
    if (!arg || arg.getOwner() != &dispatch.getBody().front() ||
        !arg.hasOneUse() || cast<RankedTensorType>(arg.getType()).getRank() != 4)
      continue;
    found.push_back(arg.getArgNumber());
  }
  return found;
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
        FoldedPad padding{argNo, pad.getStaticLow()[1],
                          pad.getStaticLow()[2]};
        auto key = std::make_tuple(dispatch.getName().str(), argNo,
                                   padDispatch.getName().str(),
                                   xType.getAsOpaquePointer());
        func::FuncOp bounded = rewritten[key];
        if (!bounded) {
          FailureOr<func::FuncOp> clone = cloneTakingUnpadded(
              symbols, dispatch, argNo, xType,
              [&](OpBuilder &b, Location loc, Value unpadded,
                  RankedTensorType paddedType) {
                return buildFoldedPad(
                    b, loc, unpadded, paddedType, /*heightDim=*/1, padding,
                    b.getZeroAttr(paddedType.getElementType()),
                    kChannelsLastPadAttr);
              });
          if (failed(clone))
            return failure();
          bounded = rewritten[key] = *clone;
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
