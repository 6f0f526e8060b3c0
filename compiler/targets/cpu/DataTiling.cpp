//===- DataTiling.cpp - Constant weights packed for dot products ----------===//
#include "compiler/targets/cpu/DataTiling.h"

#include "compiler/targets/cpu/AmxKernel.h"
#include "compiler/targets/cpu/ContractionKernel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

#include <cstring>

namespace mlir::kiln::cpu {

namespace {

// How B is packed for one contraction.
struct Packing {
  int64_t group = 1;  // k values per column group (2 or 4)
  bool flipA = false; // vpdpbusd: A read as unsigned, correction constant
  int64_t lanePanel = 0; // f32: columns per lane panel (ContractionLoops)
  // AMX tile panels [ceil(N/16)][K/g][16][g] (ContractionLoops::amxTiles).
  bool amxTiles = false;
  // The packed constant's cache key among the layouts of one weight.
  int layoutKey() const { return (flipA ? 1 : 0) | (amxTiles ? 2 : 0); }
};

// f32 B in lane panels of this many columns: one 64-byte line per k, the
// 16 lanes of an AVX2 6 x 16 register tile (wider tiles, AVX-512's 32
// lanes, read several panels per k).
constexpr int64_t kF32LanePanel = 16;

// A contraction whose constant B gets packed.
struct Candidate {
  linalg::LinalgOp op;
  ContractionLoops loops;
  unsigned argIndex; // B's dispatch argument
  Packing packing;
};

std::optional<Packing> choosePacking(linalg::LinalgOp op,
                                     const ContractionLoops &loops,
                                     const TargetChoice &target) {
  // AMX tiles take the dispatch's top-level contraction only (register
  // tiles; a recurrence's step runs in loop order).
  bool amx = isa<func::FuncOp>(op->getParentOp()) &&
             amxContractionOk(op, loops, target);
  if (loops.operandType.isInteger(8)) {
    // AMX multiplies signed by signed bytes (tdpbssd): quads, A as it is.
    // The lowering config then must take the 'amx' path, which it does
    // for every contraction amxContractionOk accepts.
    if (amx)
      return Packing{4, false, 0, true};
    if (target.hasVnni)
      return Packing{4, true};
    // Without VNNI: i8 sign-extended to i16 and pairs summed by pmaddwd,
    // exact (|a * b| <= 2^14, two of them fit in i32). On AVX2 a B with
    // no -128 is packed in quads for pmaddubsw instead (upgraded in
    // packConstantWeights once the constant's bytes are known).
    if (target.vectorBits >= 256)
      return Packing{2, false};
    return std::nullopt;
  }
  // bf16 on the tile unit: pairs in AMX tile panels, so that each B tile
  // is 1 KiB of contiguous bytes rather than 16 rows N * 4 bytes apart
  // (at N = 3072, 12 KiB: every row of a tile in the same L1 set; a
  // 128 x 3072 x 768 tile loop ran 0.77 ms strided, 0.55 ms in panels).
  if (loops.operandType.isBF16() && amx)
    return Packing{2, false, 0, true};
  if (loops.operandType.isBF16() && target.prefersBf16Dot)
    return Packing{2, false};
  // f32 on AVX2: B's rows lie N * 4 bytes apart, so each k of a lane tile
  // is a line on another page (every 4 KiB page when N = 1024) that the
  // prefetchers do not follow, and a 16-lane tile has only 12 FMAs per
  // line to hide it (a 1024^3 matmul ran at ~50% of the FMA peak on Zen
  // 3). Lane panels make each tile's K rows one contiguous run. AVX-512
  // tiles (32 lanes) read two panels per k: on a Sapphire-Rapids-class
  // Xeon, BERT-base (B rows 3 and 12 KiB apart) went 212 -> 152 ms at 1
  // thread; 32-column panels were no better (154-160 ms).
  if (loops.operandType.isF32() && target.vectorBits >= 256 && target.hasFma)
    return Packing{1, false, kF32LanePanel};
  return std::nullopt;
}

std::optional<Candidate> findCandidate(func::FuncOp dispatch,
                                       const TargetChoice &target) {
  std::optional<Candidate> found;
  Block &entry = dispatch.getBody().front();
  dispatch.walk([&](linalg::LinalgOp op) {
    if (found)
      return WalkResult::interrupt();
    FailureOr<ContractionLoops> loops = matchContraction(op);
    if (failed(loops) || loops->kGroup != 1 || loops->laneStride != 1 ||
        loops->vectorPerRow || !loops->scalarPerRow)
      return WalkResult::advance();
    std::optional<Packing> packing = choosePacking(op, *loops, target);
    if (!packing)
      return WalkResult::advance();
    // Several reduction dims (a channels-last convolution's HWIO filter,
    // kiln.conv_nhwc): f32 lane panels only, the filter read as (kh, kw,
    // c, m), which packs like a [KH * KW * C, M] matrix.
    if (loops->reductions.size() != 1 && !packing->lanePanel)
      return WalkResult::advance();
    // Lane panels pay only in register tiles, which take the dispatch's
    // top-level contraction; inside a loop (a recurrence's step, run in
    // loop order) the panel's floordiv / mod indexing ran 2x slower.
    if (packing->lanePanel && op->getParentOp() != dispatch.getOperation())
      return WalkResult::advance();
    OpOperand *bOperand = op.getDpsInputOperand(loops->rhs);
    auto arg = dyn_cast<BlockArgument>(bOperand->get());
    if (!arg || arg.getOwner() != &entry || !arg.hasOneUse())
      return WalkResult::advance();
    auto bType = dyn_cast<RankedTensorType>(arg.getType());
    int64_t reductions = static_cast<int64_t>(loops->reductions.size());
    if (!bType || bType.getRank() != reductions + 1 ||
        !bType.hasStaticShape())
      return WalkResult::advance();
    MLIRContext *ctx = op.getContext();
    AffineMap bMap = op.getMatchingIndexingMap(bOperand);
    for (auto [i, k] : llvm::enumerate(loops->reductions))
      if (bMap.getResult(i) != getAffineDimExpr(k, ctx))
        return WalkResult::advance();
    if (bMap.getResults().back() != getAffineDimExpr(loops->n, ctx))
      return WalkResult::advance();
    // A is read along the innermost reduction (its rows' runs).
    AffineMap aMap = op.getMatchingIndexingMap(op.getDpsInputOperand(loops->lhs));
    if (aMap.getNumResults() == 0 ||
        aMap.getResults().back() !=
            getAffineDimExpr(loops->reductions.back(), ctx))
      return WalkResult::advance();
    found = Candidate{op, *loops, arg.getArgNumber(), *packing};
    return WalkResult::interrupt();
  });
  return found;
}

// The bytes of a constant, row-major.
std::optional<std::vector<uint8_t>> rawBytes(ElementsAttr attr) {
  auto type = cast<RankedTensorType>(attr.getType());
  uint64_t width = type.getElementTypeBitWidth() / 8;
  uint64_t size = width * type.getNumElements();
  std::vector<uint8_t> bytes(size);
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    ArrayRef<char> raw = dense.getRawData();
    if (dense.isSplat()) {
      if (raw.size() < width)
        return std::nullopt;
      for (uint64_t offset = 0; offset < size; offset += width)
        std::memcpy(bytes.data() + offset, raw.data(), width);
    } else {
      if (raw.size() != size)
        return std::nullopt;
      std::memcpy(bytes.data(), raw.data(), size);
    }
    return bytes;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || blob->getData().size() != size)
      return std::nullopt;
    std::memcpy(bytes.data(), blob->getData().data(), size);
    return bytes;
  }
  return std::nullopt;
}

// The packed constant (and, for vpdpbusd, the -128 * colsum(B)
// correction) of one B constant.
struct PackedConstant {
  Value packed;
  Value correction;
};

// The bytes of a weight constant to pack, or an error on it.
FailureOr<std::vector<uint8_t>> weightBytes(arith::ConstantOp constant) {
  std::optional<std::vector<uint8_t>> bytes =
      rawBytes(cast<ElementsAttr>(constant.getValue()));
  if (!bytes)
    return constant.emitOpError("weights cannot be read for packing");
  return std::move(*bytes);
}

FailureOr<PackedConstant> packConstant(arith::ConstantOp constant,
                                       const Packing &packing) {
  auto type = cast<RankedTensorType>(constant.getType());
  FailureOr<std::vector<uint8_t>> bytes = weightBytes(constant);
  if (failed(bytes))
    return failure();
  // [K..., N]: the reduction dims flatten row-major into K.
  int64_t N = type.getShape().back();
  int64_t K = type.getNumElements() / std::max<int64_t>(N, 1);
  uint64_t width = type.getElementTypeBitWidth() / 8;
  OpBuilder builder(constant);
  Location loc = constant.getLoc();
  PackedConstant result;
  if (int64_t p = packing.lanePanel) {
    // packed[q][k][j] = B[k][q * p + j], zero past N.
    int64_t panels = (N + p - 1) / p;
    SmallVector<int64_t> packedShape = {panels};
    packedShape.append(type.getShape().begin(), type.getShape().end() - 1);
    packedShape.push_back(p);
    auto packedType =
        RankedTensorType::get(packedShape, type.getElementType());
    std::vector<char> packed(panels * K * p * width, 0);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n)
        std::memcpy(&packed[((n / p * K + k) * p + n % p) * width],
                    &(*bytes)[(k * N + n) * width], width);
    result.packed = arith::ConstantOp::create(
        builder, loc, DenseElementsAttr::getFromRawBuffer(packedType, packed));
    return result;
  }
  int64_t g = packing.group;
  int64_t groups = (K + g - 1) / g;
  if (packing.amxTiles) {
    // packed[q][r][j][i] = B[r * g + i][q * 16 + j], zero past K and N.
    constexpr int64_t kTileColumns = 16;
    int64_t panels = (N + kTileColumns - 1) / kTileColumns;
    auto packedType = RankedTensorType::get({panels, groups, kTileColumns, g},
                                            type.getElementType());
    std::vector<char> packed(panels * groups * kTileColumns * g * width, 0);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n)
        std::memcpy(&packed[(((n / kTileColumns * groups + k / g) *
                                  kTileColumns +
                              n % kTileColumns) *
                                 g +
                             k % g) *
                            width],
                    &(*bytes)[(k * N + n) * width], width);
    result.packed = arith::ConstantOp::create(
        builder, loc, DenseElementsAttr::getFromRawBuffer(packedType, packed));
    return result;
  }
  auto packedType =
      RankedTensorType::get({groups, N, g}, type.getElementType());
  // packed[q][n][j] = B[q * g + j][n], zero past K.
  std::vector<char> packed(groups * N * g * width, 0);
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n)
      std::memcpy(&packed[((k / g * N + n) * g + k % g) * width],
                  &(*bytes)[(k * N + n) * width], width);
  result.packed = arith::ConstantOp::create(
      builder, loc, DenseElementsAttr::getFromRawBuffer(packedType, packed));
  if (packing.flipA) {
    std::vector<int32_t> correction(N, 0);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n)
        correction[n] -= 128 * static_cast<int8_t>((*bytes)[k * N + n]);
    auto correctionType =
        RankedTensorType::get({N}, builder.getIntegerType(32));
    result.correction = arith::ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(correctionType, ArrayRef<int32_t>(correction)));
  }
  return result;
}

// Whether no byte of an i8 constant is -128: the AVX2 pmaddubsw path
// (ContractionKernel.h) applies the sign of the other operand to it, and
// -(-128) does not fit in a byte.
bool holdsNoInt8Min(arith::ConstantOp constant) {
  auto attr = dyn_cast<ElementsAttr>(constant.getValue());
  if (!attr || !cast<ShapedType>(attr.getType()).getElementType().isInteger(8))
    return false;
  std::optional<std::vector<uint8_t>> bytes = rawBytes(attr);
  return bytes && llvm::find(*bytes, uint8_t(0x80)) == bytes->end();
}

// The pmaddubsw quads are AVX2's (vpsignb has no 512-bit form).
bool hasPmaddubsw(const TargetChoice &target) {
  return !target.hasVnni && target.vectorBits == 256;
}

// Every call of `dispatch`, or nothing when it has none or another use.
std::optional<SmallVector<func::CallOp>> callsOf(func::FuncOp dispatch,
                                                 ModuleOp module) {
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(dispatch, module);
  if (!uses || uses->empty())
    return std::nullopt;
  SmallVector<func::CallOp> calls;
  for (const SymbolTable::SymbolUse &use : *uses) {
    auto call = dyn_cast<func::CallOp>(use.getUser());
    if (!call)
      return std::nullopt;
    calls.push_back(call);
  }
  return calls;
}

// The constants every call of `dispatch` passes as argument `index`, or
// nothing when some call passes a computed value.
std::optional<SmallVector<std::pair<func::CallOp, arith::ConstantOp>>>
constantArguments(func::FuncOp dispatch, ModuleOp module, unsigned index) {
  std::optional<SmallVector<func::CallOp>> all = callsOf(dispatch, module);
  if (!all)
    return std::nullopt;
  SmallVector<std::pair<func::CallOp, arith::ConstantOp>> calls;
  for (func::CallOp call : *all) {
    auto constant = call.getOperand(index).getDefiningOp<arith::ConstantOp>();
    if (!constant || !isa<ElementsAttr>(constant.getValue()))
      return std::nullopt;
    calls.push_back({call, constant});
  }
  return calls;
}

// Marks (kNarrowLhsAttr) the i8 contraction of `dispatch` whose B the
// kernel packs in panels when its A is a dispatch argument that every
// call passes a constant without -128 for (a convolution's filter).
void markNarrowLhs(func::FuncOp dispatch, ModuleOp module) {
  Block &entry = dispatch.getBody().front();
  dispatch.walk([&](linalg::LinalgOp op) {
    FailureOr<ContractionLoops> loops = matchContraction(op);
    if (failed(loops) || !loops->operandType.isInteger(8) ||
        !canPackPanels(*loops, op))
      return;
    auto arg = dyn_cast<BlockArgument>(op.getDpsInputs()[loops->lhs]);
    if (!arg || arg.getOwner() != &entry)
      return;
    auto calls = constantArguments(dispatch, module, arg.getArgNumber());
    if (calls && llvm::all_of(*calls, [](auto &call) {
          return holdsNoInt8Min(call.second);
        }))
      op->setAttr(kNarrowLhsAttr, UnitAttr::get(op->getContext()));
  });
}

bool isZeroFill(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  return fill && matchPattern(fill.getDpsInputs()[0], m_Zero());
}

// B's map in lane panels of `p` columns: (n floordiv p, k..., n mod p)
// over the contraction's reduction dims, outermost first.
AffineMap lanePanelMap(linalg::LinalgOp op, const ContractionLoops &loops,
                       int64_t p) {
  MLIRContext *ctx = op.getContext();
  AffineExpr n = getAffineDimExpr(loops.n, ctx);
  SmallVector<AffineExpr> results = {n.floorDiv(p)};
  for (unsigned k : loops.reductions)
    results.push_back(getAffineDimExpr(k, ctx));
  results.push_back(n % p);
  return AffineMap::get(op.getNumLoops(), 0, results, ctx);
}

// Rewrites the dispatch: B's argument takes the packed type, the
// contraction becomes a generic over it (A flipped for vpdpbusd, whose
// accumulators then start at the correction, the new last argument).
void rewriteDispatch(func::FuncOp dispatch, const Candidate &candidate,
                     RankedTensorType packedType) {
  linalg::LinalgOp op = candidate.op;
  const ContractionLoops &loops = candidate.loops;
  const Packing &packing = candidate.packing;
  MLIRContext *ctx = dispatch.getContext();
  Block &entry = dispatch.getBody().front();
  Location loc = op.getLoc();
  entry.getArgument(candidate.argIndex).setType(packedType);
  Value correction;
  if (packing.flipA)
    correction = entry.addArgument(
        RankedTensorType::get({packedType.getDimSize(1)},
                              IntegerType::get(ctx, 32)),
        dispatch.getLoc());
  dispatch.setFunctionType(FunctionType::get(
      ctx, entry.getArgumentTypes(), dispatch.getResultTypes()));

  OpBuilder builder(op);
  Value init = op.getDpsInits()[0];
  auto initType = cast<RankedTensorType>(init.getType());
  if (correction) {
    // Accumulators start at -128 * colsum(B), broadcast along the rows.
    int64_t rank = initType.getRank();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap lanes = AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, ctx));
    SmallVector<utils::IteratorType> parallel(rank,
                                              utils::IteratorType::parallel);
    bool fresh = isZeroFill(init);
    Value dest = fresh ? init.getDefiningOp<linalg::FillOp>().getDpsInits()[0]
                       : init;
    init = linalg::GenericOp::create(
               builder, loc, initType, ValueRange{correction}, ValueRange{dest},
               ArrayRef<AffineMap>{lanes, identity}, parallel,
               [&](OpBuilder &b, Location l, ValueRange args) {
                 Value start = fresh ? args[0]
                                     : arith::AddIOp::create(b, l, args[1],
                                                             args[0])
                                           .getResult();
                 linalg::YieldOp::create(b, l, start);
               })
               .getResult(0);
  }
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineExpr k = getAffineDimExpr(loops.reductions.front(), ctx);
  AffineExpr n = getAffineDimExpr(loops.n, ctx);
  maps[loops.rhs] =
      packing.amxTiles
          ? AffineMap::get(op.getNumLoops(), 0,
                           {n.floorDiv(16), k.floorDiv(packing.group), n % 16,
                            k % packing.group},
                           ctx)
      : packing.lanePanel ? lanePanelMap(op, loops, packing.lanePanel)
          : AffineMap::get(op.getNumLoops(), 0,
                           {k.floorDiv(packing.group), n, k % packing.group},
                           ctx);
  SmallVector<Value> inputs(op.getDpsInputs());
  Type accType = initType.getElementType();
  auto generic = linalg::GenericOp::create(
      builder, loc, initType, inputs, ValueRange{init}, maps,
      op.getIteratorTypesArray(),
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value x = args[loops.lhs], y = args[loops.rhs], acc = args[2];
        Value sum;
        if (isa<FloatType>(accType)) {
          if (x.getType() != accType)
            x = arith::ExtFOp::create(b, l, accType, x);
          if (y.getType() != accType)
            y = arith::ExtFOp::create(b, l, accType, y);
          sum = arith::AddFOp::create(b, l, acc,
                                      arith::MulFOp::create(b, l, x, y));
        } else {
          if (packing.flipA) {
            Value bias = arith::ConstantOp::create(
                b, l, b.getIntegerAttr(b.getI8Type(), -128));
            x = arith::ExtUIOp::create(b, l, accType,
                                       arith::XOrIOp::create(b, l, x, bias));
          } else {
            x = arith::ExtSIOp::create(b, l, accType, x);
          }
          y = arith::ExtSIOp::create(b, l, accType, y);
          sum = arith::AddIOp::create(b, l, acc,
                                      arith::MulIOp::create(b, l, x, y));
        }
        linalg::YieldOp::create(b, l, sum);
      });
  auto oldFill = op.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  op->getResult(0).replaceAllUsesWith(generic.getResult(0));
  op->erase();
  // The zero fill the correction replaced.
  if (oldFill && oldFill->use_empty())
    oldFill->erase();
}

// Computed B operands worth packing into lane panels at run time: f32,
// [K, N] with N a whole number of panels, rows a page or more apart (each k
// of a lane tile on another 4 KiB page, which the prefetchers do not
// follow: the 1024^3 matmul with a computed B ran at 50% of the FMA peak
// against 75% for the same kernel over a packed constant B, Sapphire
// Rapids), and enough rows (M) that every panel is read by many row
// tiles: the copy moves K x N elements for M x K x N multiply-adds.
bool packsAtRunTime(const Candidate &candidate) {
  if (!candidate.packing.lanePanel)
    return false;
  linalg::LinalgOp op = candidate.op;
  auto type = dyn_cast<RankedTensorType>(
      op.getDpsInputOperand(candidate.loops.rhs)->get().getType());
  if (!type || !type.getElementType().isF32() || type.getRank() != 2)
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t K = type.getDimSize(0), N = type.getDimSize(1);
  int64_t M = ranges[candidate.loops.m];
  return N % candidate.packing.lanePanel == 0 && N * 4 >= 4096 && K >= 32 &&
         !ShapedType::isDynamic(M) && M >= 64;
}

// The dispatch that packs a computed B [K, N] into lane panels
// [N / p][K][p] (packed[q][k][j] = B[k][q * p + j]): a copy whose inner
// dim is contiguous on both sides, run like any other data movement
// dispatch (loop order, parallel over panels). One per B type.
func::FuncOp lanePanelPackDispatch(ModuleOp module, SymbolTable &symbols,
                                   RankedTensorType bType, int64_t p) {
  MLIRContext *ctx = module.getContext();
  int64_t K = bType.getDimSize(0), N = bType.getDimSize(1);
  std::string name = ("pack_lanes_" + llvm::Twine(K) + "x" + llvm::Twine(N))
                         .str();
  if (auto existing = symbols.lookup<func::FuncOp>(name))
    return existing;
  auto packedType =
      RankedTensorType::get({N / p, K, p}, bType.getElementType());
  Location loc = module.getLoc();
  auto func = func::FuncOp::create(
      loc, name, FunctionType::get(ctx, {bType}, {packedType}));
  symbols.insert(func); // at the end of the module
  func.setPrivate();
  func->setAttr("kiln.dispatch", UnitAttr::get(ctx));
  Block *entry = func.addEntryBlock();
  auto builder = OpBuilder::atBlockBegin(entry);
  AffineExpr q = getAffineDimExpr(0, ctx), k = getAffineDimExpr(1, ctx),
             j = getAffineDimExpr(2, ctx);
  Value empty = tensor::EmptyOp::create(builder, loc, packedType.getShape(),
                                        packedType.getElementType());
  auto copy = linalg::GenericOp::create(
      builder, loc, packedType, ValueRange{entry->getArgument(0)},
      ValueRange{empty},
      ArrayRef<AffineMap>{AffineMap::get(3, 0, {k, q * p + j}, ctx),
                          AffineMap::getMultiDimIdentityMap(3, ctx)},
      SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel),
      [](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, args[0]);
      });
  func::ReturnOp::create(builder, loc, copy.getResult(0));
  return func;
}

// A constant f32 A (the broadcast operand: a convolution's filter, or a
// matmul's constant left side) in row panels [ceil(M/R)][K][R], zero past
// M, read through (m floordiv R, k, m mod R): a register tile of R rows
// then broadcasts its R values of each k from one contiguous run instead of
// R rows K * 4 bytes apart. Those strided rows were cheap while the weights
// sat in L2, but a model streams its weights from memory on every run, and
// there the prefetchers did not follow them: in a chain of sixteen 3x3
// convs of 256 channels at 14x14 (2.4 MiB of filter each, Sapphire Rapids)
// each conv took 2.12 ms against 1.50 ms alone, while onnxruntime's packed
// filters took 1.17 against 1.06.
struct RowPacking {
  linalg::GenericOp op;
  unsigned argIndex; // A's dispatch argument
  unsigned lhs;      // A's operand of `op`
  unsigned m, k;     // A's row and reduction dims
};

std::optional<RowPacking> findRowCandidate(func::FuncOp dispatch) {
  std::optional<RowPacking> found;
  Block &entry = dispatch.getBody().front();
  for (Operation &nested : entry) {
    auto op = dyn_cast<linalg::GenericOp>(&nested);
    if (!op)
      continue;
    FailureOr<ContractionLoops> loops = matchContraction(op);
    if (failed(loops) || !loops->operandType.isF32() ||
        loops->reductions.size() != 1 || loops->vectorPerRow ||
        !loops->scalarPerRow || loops->kGroup != 1 || loops->amxTiles)
      continue;
    OpOperand *aOperand = op.getDpsInputOperand(loops->lhs);
    auto arg = dyn_cast<BlockArgument>(aOperand->get());
    if (!arg || arg.getOwner() != &entry || !arg.hasOneUse())
      continue;
    auto aType = dyn_cast<RankedTensorType>(arg.getType());
    if (!aType || aType.getRank() != 2 || !aType.hasStaticShape())
      continue;
    MLIRContext *ctx = op.getContext();
    unsigned k = loops->reductions.front();
    AffineMap aMap = op.getMatchingIndexingMap(aOperand);
    if (aMap.getResult(0) != getAffineDimExpr(loops->m, ctx) ||
        aMap.getResult(1) != getAffineDimExpr(k, ctx))
      continue;
    found = RowPacking{op, arg.getArgNumber(), loops->lhs, loops->m, k};
    break;
  }
  return found;
}

FailureOr<Value> packRows(arith::ConstantOp constant, int64_t r) {
  auto type = cast<RankedTensorType>(constant.getType());
  FailureOr<std::vector<uint8_t>> bytes = weightBytes(constant);
  if (failed(bytes))
    return failure();
  int64_t M = type.getDimSize(0), K = type.getDimSize(1);
  int64_t panels = (M + r - 1) / r;
  auto packedType = RankedTensorType::get({panels, K, r}, type.getElementType());
  std::vector<char> packed(panels * K * r * 4, 0);
  // packed[q][k][i] = A[q * r + i][k], zero past M.
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k)
      std::memcpy(&packed[((m / r * K + k) * r + m % r) * 4],
                  &(*bytes)[(m * K + k) * 4], 4);
  OpBuilder builder(constant);
  return arith::ConstantOp::create(
             builder, constant.getLoc(),
             DenseElementsAttr::getFromRawBuffer(packedType, packed))
      .getResult();
}

// Rewrites every call of `dispatch` to pass its B through the lane-panel
// pack dispatch, and the dispatch to read the panels. Every call must pass
// a computed B; one that another call already packed, earlier in the same
// block, reuses that pack (`packed`: B -> its panels).
void packAtRunTime(ModuleOp module, SymbolTable &symbols,
                   func::FuncOp dispatch, const Candidate &candidate,
                   DenseMap<Value, Value> &packed) {
  std::optional<SmallVector<func::CallOp>> calls = callsOf(dispatch, module);
  unsigned index = candidate.argIndex;
  if (!calls || llvm::any_of(*calls, [&](func::CallOp call) {
        return call.getOperand(index).getDefiningOp<arith::ConstantOp>();
      }))
    return;
  auto bType = cast<RankedTensorType>(dispatch.getArgument(index).getType());
  func::FuncOp pack =
      lanePanelPackDispatch(module, symbols, bType, candidate.packing.lanePanel);
  for (func::CallOp call : *calls) {
    Value b = call.getOperand(index);
    Value &panels = packed[b];
    Operation *earlier = panels ? panels.getDefiningOp() : nullptr;
    if (!earlier || earlier->getBlock() != call->getBlock() ||
        !earlier->isBeforeInBlock(call)) {
      OpBuilder builder(call);
      panels = func::CallOp::create(builder, call.getLoc(), pack, ValueRange{b})
                   .getResult(0);
    }
    call->setOperand(index, panels);
  }
  rewriteDispatch(dispatch, candidate,
                  cast<RankedTensorType>(pack.getResultTypes()[0]));
}

// Stores the constant f32 A operands of `dispatches` in row panels
// (findRowCandidate) where the register tiles' rows are many: at least 4
// tiles' rows, so that a panel is not mostly padding. Packed constants
// join `originals`, erased once nothing reads them.
LogicalResult packRowPanels(ModuleOp module, ArrayRef<func::FuncOp> dispatches,
                            const TargetChoice &target,
                            SmallVector<arith::ConstantOp> &originals) {
  if (target.vectorBits < 256 || !target.hasFma)
    return success();
  int64_t r = target.f32TileRows();
  DenseMap<Operation *, Value> rowsOf;
  for (func::FuncOp dispatch : dispatches) {
    std::optional<RowPacking> candidate = findRowCandidate(dispatch);
    if (!candidate)
      continue;
    Block &entry = dispatch.getBody().front();
    BlockArgument arg = entry.getArgument(candidate->argIndex);
    if (cast<RankedTensorType>(arg.getType()).getDimSize(0) < 4 * r)
      continue;
    auto constants = constantArguments(dispatch, module, candidate->argIndex);
    if (!constants)
      continue;
    for (auto [call, constant] : *constants) {
      auto it = rowsOf.find(constant);
      if (it == rowsOf.end()) {
        FailureOr<Value> packed = packRows(constant, r);
        if (failed(packed))
          return failure();
        it = rowsOf.try_emplace(constant, *packed).first;
        if (!llvm::is_contained(originals, constant))
          originals.push_back(constant);
      }
      call->setOperand(candidate->argIndex, it->second);
      arg.setType(it->second.getType());
    }
    dispatch.setFunctionType(FunctionType::get(dispatch.getContext(),
                                               entry.getArgumentTypes(),
                                               dispatch.getResultTypes()));
    linalg::GenericOp op = candidate->op;
    MLIRContext *ctx = op.getContext();
    AffineExpr m = getAffineDimExpr(candidate->m, ctx);
    AffineExpr k = getAffineDimExpr(candidate->k, ctx);
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    maps[candidate->lhs] =
        AffineMap::get(op.getNumLoops(), 0, {m.floorDiv(r), k, m % r}, ctx);
    op.setIndexingMapsAttr(OpBuilder(ctx).getAffineMapArrayAttr(maps));
  }
  return success();
}

} // namespace

LogicalResult packConstantWeights(ModuleOp module, const TargetChoice &target) {
  SmallVector<func::FuncOp> dispatches;
  for (auto func : module.getOps<func::FuncOp>())
    if (func->hasAttr("kiln.dispatch"))
      dispatches.push_back(func);
  SymbolTable symbols(module);
  // A computed B that several calls pass is packed once.
  DenseMap<Value, Value> packedAtRunTime;
  // A constant read by several packed dispatches is packed once per
  // layout (AMX and vpdpbusd dispatches of one weight differ in the
  // layout and in whether vpdpbusd's correction comes with it).
  DenseMap<std::pair<Operation *, int>, PackedConstant> packedOf;
  SmallVector<arith::ConstantOp> originals;
  for (func::FuncOp dispatch : dispatches) {
    if (hasPmaddubsw(target))
      markNarrowLhs(dispatch, module);
    std::optional<Candidate> candidate = findCandidate(dispatch, target);
    if (!candidate)
      continue;
    // Every call must pass a constant B.
    auto constants =
        constantArguments(dispatch, module, candidate->argIndex);
    if (!constants) {
      // A computed f32 B whose rows are costly to stream: packed by a
      // dispatch of its own at every call.
      if (packsAtRunTime(*candidate))
        packAtRunTime(module, symbols, dispatch, *candidate, packedAtRunTime);
      continue;
    }
    SmallVector<std::pair<func::CallOp, arith::ConstantOp>> &calls =
        *constants;
    // AVX2: quads for pmaddubsw when no B holds -128 (a constant read by
    // several dispatches gets the same answer in each, so it is packed
    // once either way).
    if (hasPmaddubsw(target) && candidate->loops.operandType.isInteger(8) &&
        llvm::all_of(calls, [](auto &call) {
          return holdsNoInt8Min(call.second);
        }))
      candidate->packing = Packing{4, false};
    for (auto [call, constant] : calls) {
      std::pair<Operation *, int> key(constant, candidate->packing.layoutKey());
      auto it = packedOf.find(key);
      if (it == packedOf.end()) {
        FailureOr<PackedConstant> packed =
            packConstant(constant, candidate->packing);
        if (failed(packed))
          return failure();
        it = packedOf.try_emplace(key, *packed).first;
        if (!llvm::is_contained(originals, constant))
          originals.push_back(constant);
      }
      call->setOperand(candidate->argIndex, it->second.packed);
      if (it->second.correction)
        call->insertOperands(call->getNumOperands(),
                             ValueRange{it->second.correction});
    }
    rewriteDispatch(dispatch, *candidate,
                    cast<RankedTensorType>(
                        packedOf
                            .find({calls.front().second,
                                   candidate->packing.layoutKey()})
                            ->second.packed
                            .getType()));
  }
  if (failed(packRowPanels(module, dispatches, target, originals)))
    return failure();
  // The unpacked weights are gone unless something else reads them.
  for (arith::ConstantOp constant : originals)
    if (constant->use_empty())
      constant->erase();
  return success();
}

} // namespace mlir::kiln::cpu
