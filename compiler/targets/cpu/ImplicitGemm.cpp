//===- ImplicitGemm.cpp - Convolutions without im2col buffers -------------===//
//
// See ImplicitGemm.h. The match is on the IR that ContractionToLinalg.cpp
// and kiln-form-dispatches produce for a grouped-once 2-D convolution:
//
//   %0 = call @pad(%x)          tensor.pad, zero, spatial dims only
//   %1 = call @im2col(%0)       (n, c, kh, kw, oh, ow) ->
//                               (n, c, oh * sh + kh * dh, ow * sw + kw * dw)
//   %c = tensor.collapse_shape %1 [[0], [1, 2, 3], [4, 5]]
//   %2 = call @conv(..., %c, ...)   f32 contraction reading %c as B (n, k, p)
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/cpu/ImplicitGemm.h"

#include "compiler/targets/cpu/ContractionKernel.h"
#include "compiler/targets/cpu/FoldedPad.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

#include <map>
#include <tuple>

namespace mlir::kiln::cpu {

DictionaryAttr ConvGather::toAttr(MLIRContext *context) const {
  Builder b(context);
  return b.getDictionaryAttr(
      {b.getNamedAttr("input", b.getI64IntegerAttr(input)),
       b.getNamedAttr("kernel", b.getDenseI64ArrayAttr(kernel)),
       b.getNamedAttr("strides", b.getDenseI64ArrayAttr(strides)),
       b.getNamedAttr("dilations", b.getDenseI64ArrayAttr(dilations)),
       b.getNamedAttr("pads", b.getDenseI64ArrayAttr(pads)),
       b.getNamedAttr("output", b.getDenseI64ArrayAttr(output))});
}

std::optional<ConvGather> ConvGather::read(Operation *op) {
  auto dict = op ? op->getAttrOfType<DictionaryAttr>(kConvGatherAttr)
                 : DictionaryAttr();
  if (!dict)
    return std::nullopt;
  ConvGather g;
  auto input = dict.getAs<IntegerAttr>("input");
  if (!input)
    return std::nullopt;
  g.input = input.getInt();
  for (auto [name, field] :
       {std::pair("kernel", &g.kernel), std::pair("strides", &g.strides),
        std::pair("dilations", &g.dilations), std::pair("pads", &g.pads),
        std::pair("output", &g.output)}) {
    auto array = dict.getAs<DenseI64ArrayAttr>(name);
    if (!array || array.size() != 2)
      return std::nullopt;
    field->assign(array.asArrayRef().begin(), array.asArrayRef().end());
  }
  return g;
}

linalg::GenericOp convGatherProducer(Value columns) {
  if (auto slice = columns.getDefiningOp<tensor::ExtractSliceOp>())
    columns = slice.getSource();
  auto generic = columns.getDefiningOp<linalg::GenericOp>();
  if (!generic || !ConvGather::read(generic))
    return nullptr;
  return generic;
}

namespace {

// The only op of `dispatch` besides tensor.empty / constants and the
// return, when it is of type OpTy and returned.
template <typename OpTy>
OpTy soleOp(func::FuncOp dispatch) {
  OpTy found;
  for (Operation &op : dispatch.getBody().front()) {
    if (isa<tensor::EmptyOp, arith::ConstantOp, func::ReturnOp>(op))
      continue;
    if (found || !isa<OpTy>(op))
      return nullptr;
    found = cast<OpTy>(op);
  }
  if (!found || found->getNumResults() != 1)
    return nullptr;
  auto ret = cast<func::ReturnOp>(dispatch.getBody().front().getTerminator());
  if (ret.getNumOperands() != 1 || ret.getOperand(0) != found->getResult(0))
    return nullptr;
  return found;
}

// Evaluates a (semi-)affine expression at constant dims.
int64_t evaluate(AffineExpr expr, ArrayRef<int64_t> dims) {
  SmallVector<AffineExpr> constants;
  for (int64_t d : dims)
    constants.push_back(getAffineConstantExpr(d, expr.getContext()));
  AffineExpr folded = simplifyAffineExpr(
      expr.replaceDimsAndSymbols(constants, {}), 0, 0);
  auto constant = dyn_cast<AffineConstantExpr>(folded);
  return constant ? constant.getValue() : INT64_MIN;
}

// An im2col dispatch: one all-parallel copy generic over
// (n, c, kh, kw, oh, ow) reading its argument at
// (n, c, oh * sh + kh * dh, ow * sw + kw * dw). Fills kernel, strides,
// dilations and output of `g`.
bool matchIm2col(func::FuncOp dispatch, ConvGather &g) {
  if (dispatch.getNumArguments() != 1)
    return false;
  auto generic = soleOp<linalg::GenericOp>(dispatch);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic.getNumLoops() != 6 ||
      generic.getNumReductionLoops() != 0 ||
      generic.getDpsInputs()[0] != dispatch.getArgument(0) ||
      !generic.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>())
    return false;
  Block &body = generic->getRegion(0).front();
  if (body.getOperations().size() != 1 ||
      cast<linalg::YieldOp>(body.getTerminator()).getOperand(0) !=
          body.getArgument(0))
    return false;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (!maps[1].isIdentity() || maps[0].getNumResults() != 4)
    return false;
  MLIRContext *ctx = dispatch.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  if (maps[0].getResult(0) != d(0) || maps[0].getResult(1) != d(1))
    return false;
  auto type = cast<RankedTensorType>(generic->getResult(0).getType());
  if (!type.hasStaticShape())
    return false;
  g.kernel = {type.getDimSize(2), type.getDimSize(3)};
  g.output = {type.getDimSize(4), type.getDimSize(5)};
  g.strides.clear();
  g.dilations.clear();
  for (unsigned i = 0; i < 2; ++i) {
    AffineExpr expr = maps[0].getResult(2 + i);
    SmallVector<int64_t> at(6, 0);
    at[4 + i] = 1;
    int64_t stride = evaluate(expr, at);
    at[4 + i] = 0;
    at[2 + i] = 1;
    int64_t dilation = evaluate(expr, at);
    if (stride < 1 || dilation < 1)
      return false;
    // Nothing else in the expression.
    AffineExpr rest = simplifyAffineExpr(
        expr - d(4 + i) * stride - d(2 + i) * dilation, 6, 0);
    auto zero = dyn_cast<AffineConstantExpr>(rest);
    if (!zero || zero.getValue() != 0)
      return false;
    g.strides.push_back(stride);
    g.dilations.push_back(dilation);
  }
  return true;
}

// A zero pad of the spatial dims of its NCHW argument; fills `pads` (top,
// left).
bool matchPad(func::FuncOp dispatch, ConvGather &g) {
  tensor::PadOp pad = padDispatchOf(dispatch, /*heightDim=*/2);
  if (!pad || pad.getSourceType().getRank() != 4 ||
      !matchPattern(pad.getConstantPaddingValue(), m_AnyZeroFloat()))
    return false;
  g.pads = {pad.getStaticLow()[2], pad.getStaticLow()[3]};
  return true;
}

// The f32 contraction of `dispatch` whose B is the dispatch argument
// returned, read as (n, k, p) and by nothing else.
std::optional<unsigned> columnsArgument(func::FuncOp dispatch) {
  std::optional<unsigned> found;
  for (auto op : dispatch.getBody().front().getOps<linalg::GenericOp>()) {
    FailureOr<ContractionLoops> loops = matchContraction(op);
    if (failed(loops) || !loops->operandType.isF32() || loops->kGroup != 1 ||
        loops->reductions.size() != 1 || loops->vectorPerRow ||
        !loops->scalarPerRow)
      continue;
    auto arg = dyn_cast<BlockArgument>(op.getDpsInputs()[loops->rhs]);
    if (!arg || arg.getOwner() != &dispatch.getBody().front() ||
        !arg.hasOneUse())
      continue;
    AffineMap map = op.getIndexingMapsArray()[loops->rhs];
    MLIRContext *ctx = op.getContext();
    if (map.getNumResults() != 3 ||
        map.getResult(1) != getAffineDimExpr(loops->reductions.front(), ctx) ||
        map.getResult(2) != getAffineDimExpr(loops->n, ctx) ||
        !isa<AffineDimExpr>(map.getResult(0)))
      continue;
    if (found)
      return std::nullopt; // two candidates: leave the dispatch alone
    found = arg.getArgNumber();
  }
  return found;
}

// B[n, ck, p] gathered from the unpadded input `x` (see ImplicitGemm.h).
Value buildGather(OpBuilder &b, Location loc, Value x, RankedTensorType type,
                  const ConvGather &g) {
  auto xType = cast<RankedTensorType>(x.getType());
  int64_t height = xType.getDimSize(2), width = xType.getDimSize(3);
  MLIRContext *ctx = b.getContext();
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                        type.getElementType());
  AffineMap identity = AffineMap::getMultiDimIdentityMap(3, ctx);
  SmallVector<utils::IteratorType> parallel(3, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{}, ValueRange{empty},
      ArrayRef<AffineMap>{identity}, parallel,
      [&](OpBuilder &nb, Location l, ValueRange) {
        auto cst = [&](int64_t v) {
          return arith::ConstantIndexOp::create(nb, l, v).getResult();
        };
        Value n = linalg::IndexOp::create(nb, l, 0);
        Value ck = linalg::IndexOp::create(nb, l, 1);
        Value p = linalg::IndexOp::create(nb, l, 2);
        Value window = cst(g.kernel[0] * g.kernel[1]);
        Value c = arith::DivUIOp::create(nb, l, ck, window);
        Value r = arith::RemUIOp::create(nb, l, ck, window);
        Value kh = arith::DivUIOp::create(nb, l, r, cst(g.kernel[1]));
        Value kw = arith::RemUIOp::create(nb, l, r, cst(g.kernel[1]));
        Value oh = arith::DivUIOp::create(nb, l, p, cst(g.output[1]));
        Value ow = arith::RemUIOp::create(nb, l, p, cst(g.output[1]));
        auto at = [&](Value o, Value k, int64_t i) {
          Value pos = arith::AddIOp::create(
              nb, l, arith::MulIOp::create(nb, l, o, cst(g.strides[i])),
              arith::MulIOp::create(nb, l, k, cst(g.dilations[i])));
          return arith::SubIOp::create(nb, l, pos, cst(g.pads[i])).getResult();
        };
        Value ih = at(oh, kh, 0), iw = at(ow, kw, 1);
        // Unsigned: a negative position (top or left padding) is huge.
        Value inside = arith::AndIOp::create(
            nb, l,
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, ih,
                                  cst(height)),
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, iw,
                                  cst(width)));
        Value zero = cst(0);
        Value value = tensor::ExtractOp::create(
            nb, l, x,
            ValueRange{n, c, arith::SelectOp::create(nb, l, inside, ih, zero),
                       arith::SelectOp::create(nb, l, inside, iw, zero)});
        Value padding = arith::ConstantOp::create(
            nb, l, nb.getZeroAttr(type.getElementType()));
        linalg::YieldOp::create(
            nb, l,
            arith::SelectOp::create(nb, l, inside, value, padding).getResult());
      });
  generic->setAttr(kConvGatherAttr, g.toAttr(ctx));
  return generic.getResult(0);
}

} // namespace

bool worthGathering(int64_t rows, int64_t outputWidth,
                    const TargetChoice &target) {
  int64_t lanes = 2 * std::max<int64_t>(target.f32Lanes(), 4);
  int64_t loadsPerRow = 1 + llvm::divideCeil(lanes - 1, outputWidth);
  return rows >= 64 && loadsPerRow * 16 <= std::min<int64_t>(rows, 256);
}

int64_t rowGatherLanes(const TargetChoice &target) {
  return 2 * std::max<int64_t>(target.f32Lanes(), 4);
}

bool worthGatheringRows(int64_t rows, const ConvGather &g,
                        const TargetChoice &target) {
  if (rows >= 64 || g.strides.size() != 2 || g.output.size() != 2 ||
      (g.strides[1] != 1 && g.strides[1] != 2))
    return false;
  // On 256-bit targets a stride-1 narrow conv with short output rows ran
  // slower gathered (AVX2 code on Zen 4, resnet18_style's 3x3 convs, 1
  // thread: 14x14x32 0.055 ms against 0.044 with pad + im2col, 28x28x16
  // even, 56x56x8 0.109 against 0.140): 16-lane tiles of 6 rows leave the
  // panel fill a larger share there. Its stride-2 convs gain (the 7x7
  // stem: 0.50 against 0.71 + 0.59 ms of GEMM and im2col).
  if (target.vectorBits < 512 && g.strides[1] == 1 && g.output[1] < 28)
    return false;
  // Lanes the row's tiles occupy: whole tiles, then an edge of at most
  // half the lanes runs as a half-width tile (ContractionKernel.cpp).
  int64_t lanes = rowGatherLanes(target), ow = g.output[1];
  int64_t rest = ow % lanes;
  int64_t occupied = ow / lanes * lanes +
                     (rest == 0 ? 0 : rest <= lanes / 2 ? lanes / 2 : lanes);
  return 4 * ow >= 3 * occupied;
}

LogicalResult formImplicitGemms(ModuleOp module, const TargetChoice &target) {
  SymbolTable symbols(module);
  SmallVector<func::CallOp> calls;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func->hasAttr("kiln.dispatch"))
      func.walk([&](func::CallOp call) { calls.push_back(call); });
  // One rewritten dispatch per (contraction, im2col, pad, input type).
  std::map<std::tuple<std::string, std::string, std::string, const void *>,
           func::FuncOp>
      rewritten;
  DenseSet<Operation *> erased;
  llvm::SetVector<func::FuncOp> touched;
  for (func::CallOp call : calls) {
    if (erased.contains(call))
      continue;
    auto dispatch = symbols.lookup<func::FuncOp>(call.getCallee());
    if (!dispatch || !dispatch->hasAttr("kiln.dispatch"))
      continue;
    std::optional<unsigned> argNo = columnsArgument(dispatch);
    if (!argNo)
      continue;
    auto collapse =
        call.getOperand(*argNo).getDefiningOp<tensor::CollapseShapeOp>();
    if (!collapse || collapse.getSrcType().getRank() != 6 ||
        collapse.getReassociationIndices() !=
            SmallVector<ReassociationIndices>{{0}, {1, 2, 3}, {4, 5}})
      continue;
    auto im2colCall = collapse.getSrc().getDefiningOp<func::CallOp>();
    auto im2col = im2colCall
                      ? symbols.lookup<func::FuncOp>(im2colCall.getCallee())
                      : func::FuncOp();
    ConvGather g;
    if (!im2col || !matchIm2col(im2col, g))
      continue;
    Value x = im2colCall.getOperand(0);
    g.pads = {0, 0};
    auto padCall = x.getDefiningOp<func::CallOp>();
    func::FuncOp pad =
        padCall ? symbols.lookup<func::FuncOp>(padCall.getCallee())
                : func::FuncOp();
    if (pad && matchPad(pad, g))
      x = padCall.getOperand(0);
    else
      pad = nullptr;
    auto xType = cast<RankedTensorType>(x.getType());
    auto colsType = collapse.getResultType();
    // The gather indexes X with 32-bit offsets in the kernel.
    if (xType.getRank() != 4 || !xType.hasStaticShape() ||
        !xType.getElementType().isF32() ||
        xType.getDimSize(1) * g.kernel[0] * g.kernel[1] !=
            colsType.getDimSize(1) ||
        xType.getNumElements() >= (int64_t(1) << 31))
      continue;
    auto resultType = cast<RankedTensorType>(call.getResult(0).getType());
    if (call.getNumResults() != 1 || resultType.getRank() != 3 ||
        (!worthGathering(resultType.getDimSize(1), g.output[1], target) &&
         !worthGatheringRows(resultType.getDimSize(1), g, target)))
      continue;
    auto key = std::make_tuple(dispatch.getName().str(),
                               im2col.getName().str(),
                               pad ? pad.getName().str() : std::string(),
                               xType.getAsOpaquePointer());
    func::FuncOp gathered = rewritten[key];
    if (!gathered) {
      OpBuilder builder(dispatch);
      builder.setInsertionPointAfter(dispatch);
      gathered = cast<func::FuncOp>(builder.clone(*dispatch));
      gathered.setName(dispatch.getName().str() + "_im2col");
      symbols.insert(gathered); // renamed if the name is taken
      Location loc = gathered.getLoc();
      if (failed(gathered.insertArgument(*argNo, xType, {}, loc)))
        return failure();
      Block &entry = gathered.getBody().front();
      g.input = *argNo;
      OpBuilder body = OpBuilder::atBlockBegin(&entry);
      Value columns = buildGather(body, loc, entry.getArgument(*argNo),
                                  colsType, g);
      entry.getArgument(*argNo + 1).replaceAllUsesWith(columns);
      if (failed(gathered.eraseArgument(*argNo + 1)))
        return failure();
      rewritten[key] = gathered;
    }
    call.setCallee(gathered.getName());
    call->setOperand(*argNo, x);
    if (collapse->use_empty())
      collapse->erase();
    if (im2colCall->use_empty()) {
      erased.insert(im2colCall);
      im2colCall->erase();
    }
    if (padCall && pad && padCall->use_empty()) {
      erased.insert(padCall);
      padCall->erase();
    }
    touched.insert(dispatch);
    touched.insert(im2col);
    if (pad)
      touched.insert(pad);
  }
  for (func::FuncOp func : touched)
    if (SymbolTable::symbolKnownUseEmpty(func, module))
      symbols.erase(func);
  return success();
}

} // namespace mlir::kiln::cpu
