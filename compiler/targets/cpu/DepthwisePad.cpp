//===- DepthwisePad.cpp - Depthwise convolutions without pad dispatches ---===//
//
// See DepthwisePad.h. The match is on the IR that ContractionToLinalg.cpp
// and kiln-form-dispatches produce for a depthwise convolution:
//
//   %0 = call @pad(%x)      tensor.pad, constant, spatial dims only
//   %1 = call @conv(%0, %w, ...)   fill + depthwise generic reading %0
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/cpu/DepthwisePad.h"

#include "compiler/targets/cpu/DepthwiseKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

#include <map>
#include <tuple>

namespace mlir::kiln::cpu {

linalg::GenericOp depthwisePadProducer(Value padded) {
  auto generic = padded.getDefiningOp<linalg::GenericOp>();
  return generic && FoldedPad::read(generic, kDepthwisePadAttr) ? generic
                                                                : nullptr;
}

namespace {

// The depthwise generic of `dispatch` whose input is a dispatch argument
// read by nothing else: its argument number.
std::optional<unsigned> depthwiseInput(func::FuncOp dispatch,
                                       linalg::GenericOp &conv) {
  std::optional<unsigned> found;
  for (auto op : dispatch.getBody().front().getOps<linalg::GenericOp>()) {
    FailureOr<DepthwiseLoops> loops = matchDepthwise(op);
    if (failed(loops))
      continue;
    auto arg = dyn_cast<BlockArgument>(
        op.getDpsInputOperand(loops->input)->get());
    if (found || !arg || arg.getOwner() != &dispatch.getBody().front() ||
        !arg.hasOneUse())
      return std::nullopt;
    found = arg.getArgNumber();
    conv = op;
  }
  return found;
}

// Whether the kernel's masked loads are cheap on `target`: f32 data (f32
// planes, and f16 / bf16 ones widened to f32 first) everywhere, 8- and
// 16-bit ones (int8, bf16 read in pairs at stride 2) only with AVX-512BW.
bool boundsPay(Type element, int64_t stride, const TargetChoice &target) {
  bool wide = element.isF32() || element.isF16() ||
              (element.isBF16() && stride == 1);
  return wide || target.vectorBits >= 512;
}

} // namespace

LogicalResult foldDepthwisePads(ModuleOp module, const TargetChoice &target) {
  SymbolTable symbols(module);
  SmallVector<func::CallOp> calls;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func->hasAttr("kiln.dispatch"))
      func.walk([&](func::CallOp call) { calls.push_back(call); });
  // One rewritten dispatch per (depthwise dispatch, pad dispatch).
  std::map<std::tuple<std::string, std::string, const void *>, func::FuncOp>
      rewritten;
  DenseSet<Operation *> erased;
  llvm::SetVector<func::FuncOp> touched;
  for (func::CallOp call : calls) {
    if (erased.contains(call))
      continue;
    auto dispatch = symbols.lookup<func::FuncOp>(call.getCallee());
    if (!dispatch || !dispatch->hasAttr("kiln.dispatch"))
      continue;
    linalg::GenericOp conv;
    std::optional<unsigned> argNo = depthwiseInput(dispatch, conv);
    if (!argNo)
      continue;
    // The conv reads the padded tensor as is or with its channels split
    // into groups ([N, C, H, W] -> [N, G, 1, H, W]): the same split of the
    // unpadded one.
    Value operand = call.getOperand(*argNo);
    auto expand = operand.getDefiningOp<tensor::ExpandShapeOp>();
    if (expand) {
      SmallVector<ReassociationIndices> groups =
          expand.getReassociationIndices();
      if (groups.size() < 2 || groups.back().size() != 1 ||
          groups[groups.size() - 2].size() != 1 ||
          !expand.getResultType().hasStaticShape())
        continue;
      operand = expand.getSrc();
    }
    auto padCall = operand.getDefiningOp<func::CallOp>();
    func::FuncOp padDispatch =
        padCall ? symbols.lookup<func::FuncOp>(padCall.getCallee())
                : func::FuncOp();
    // A constant pad of the plane (the last two dims) only.
    tensor::PadOp pad = nullptr;
    if (padDispatch && padDispatch.getNumArguments() == 1)
      if (auto argType = dyn_cast<RankedTensorType>(
              padDispatch.getArgument(0).getType());
          argType && argType.getRank() >= 3)
        pad = padDispatchOf(padDispatch, argType.getRank() - 2);
    if (!pad)
      continue;
    Value x = padCall.getOperand(0);
    auto sourceType = cast<RankedTensorType>(x.getType());
    if (!sourceType.hasStaticShape())
      continue;
    auto xType = sourceType;
    if (expand) {
      SmallVector<int64_t> shape(expand.getResultType().getShape());
      shape[shape.size() - 2] = sourceType.getDimSize(sourceType.getRank() - 2);
      shape.back() = sourceType.getShape().back();
      xType = RankedTensorType::get(shape, sourceType.getElementType());
    }
    FailureOr<DepthwiseLoops> loops = matchDepthwise(conv);
    // Bounds need row tiles (the flat grid keeps its pad) and cheap masked
    // loads.
    std::optional<DepthwiseTile> tile = chooseDepthwiseTile(conv, target);
    if (!tile || tile->flat ||
        !boundsPay(xType.getElementType(), loops->stride, target))
      continue;
    Attribute value;
    matchPattern(pad.getConstantPaddingValue(), m_Constant(&value));
    auto typedValue = dyn_cast_or_null<TypedAttr>(value);
    if (!typedValue)
      continue;
    int64_t rank = sourceType.getRank();
    FoldedPad padding{*argNo, pad.getStaticLow()[rank - 2],
                      pad.getStaticLow()[rank - 1]};
    auto key = std::make_tuple(dispatch.getName().str(),
                               padDispatch.getName().str(),
                               xType.getAsOpaquePointer());
    func::FuncOp bounded = rewritten[key];
    if (!bounded) {
      FailureOr<func::FuncOp> clone = cloneTakingUnpadded(
          symbols, dispatch, *argNo, xType,
          [&](OpBuilder &b, Location loc, Value unpadded,
              RankedTensorType paddedType) {
            return buildFoldedPad(b, loc, unpadded, paddedType,
                                  paddedType.getRank() - 2, padding,
                                  typedValue, kDepthwisePadAttr);
          });
      if (failed(clone))
        return failure();
      bounded = rewritten[key] = *clone;
    }
    call.setCallee(bounded.getName());
    if (expand) {
      OpBuilder host(call);
      x = tensor::ExpandShapeOp::create(host, expand.getLoc(), xType, x,
                                        expand.getReassociationIndices());
    }
    call->setOperand(*argNo, x);
    if (expand && expand->use_empty())
      expand->erase();
    if (padCall->use_empty()) {
      erased.insert(padCall);
      padCall->erase();
    }
    touched.insert(dispatch);
    touched.insert(padDispatch);
  }
  for (func::FuncOp func : touched)
    if (SymbolTable::symbolKnownUseEmpty(func, module))
      symbols.erase(func);
  return success();
}

} // namespace mlir::kiln::cpu
