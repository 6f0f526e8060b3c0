//===- LoweringConfig.cpp - Choosing how a dispatch becomes a kernel ------===//
#include "compiler/targets/cpu/LoweringConfig.h"

#include "compiler/pipeline/TargetBackend.h"
#include "compiler/targets/cpu/AmxKernel.h"
#include "compiler/targets/cpu/AttentionKernel.h"
#include "compiler/targets/cpu/ContractionKernel.h"
#include "compiler/targets/cpu/DepthwiseKernel.h"
#include "compiler/targets/cpu/ImplicitGemm.h"
#include "compiler/targets/cpu/TransposeKernel.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::kiln::cpu {

llvm::StringRef strategyName(Strategy strategy) {
  switch (strategy) {
  case Strategy::Contraction:
    return "contraction";
  case Strategy::LoopOrder:
    return "loop-order";
  case Strategy::Scalar:
    return "scalar";
  case Strategy::Depthwise:
    return "depthwise";
  case Strategy::Attention:
    return "attention";
  }
  return "";
}

std::optional<ConfigOptions> parseConfigOptions(llvm::StringRef codegen) {
  if (codegen == "auto")
    return ConfigOptions{true, true};
  if (codegen == "loop-order")
    return ConfigOptions{false, true};
  if (codegen == "scalar")
    return ConfigOptions{false, false};
  return std::nullopt;
}

DictionaryAttr LoweringConfig::toAttr(MLIRContext *context) const {
  Builder b(context);
  SmallVector<NamedAttribute> entries = {
      b.getNamedAttr("strategy", b.getStringAttr(strategyName(strategy))),
      b.getNamedAttr("workgroup_tile", b.getDenseI64ArrayAttr(workgroupTile))};
  if (strategy == Strategy::Contraction) {
    entries.push_back(b.getNamedAttr(
        "register_tile", b.getDenseI64ArrayAttr({tileRows, tileLanes})));
    entries.push_back(
        b.getNamedAttr("reduction_tile", b.getI64IntegerAttr(reductionTile)));
    if (operandType && !operandType.isF32()) {
      entries.push_back(
          b.getNamedAttr("operand_type", TypeAttr::get(operandType)));
      entries.push_back(b.getNamedAttr("native", b.getStringAttr(native)));
    }
    if (packPanels || copyLanes)
      entries.push_back(b.getNamedAttr(
          "pack_b", b.getStringAttr(packPanels ? "panels" : "lanes")));
    if (gatherB)
      entries.push_back(b.getNamedAttr(
          "gather_b", b.getStringAttr(gatherRows ? "rows" : "im2col")));
  }
  if (strategy == Strategy::Attention)
    entries.push_back(b.getNamedAttr(
        "register_tile", b.getDenseI64ArrayAttr({tileRows, tileLanes})));
  if (strategy == Strategy::Depthwise) {
    entries.push_back(b.getNamedAttr("native", b.getStringAttr(native)));
    entries.push_back(
        b.getNamedAttr("pixel_tile", b.getI64IntegerAttr(pixelTile)));
    entries.push_back(b.getNamedAttr(
        "plane", b.getStringAttr(flatPlane ? "flat" : "rows")));
    if (pixelRows > 1)
      entries.push_back(
          b.getNamedAttr("tile_rows", b.getI64IntegerAttr(pixelRows)));
  }
  return b.getDictionaryAttr(entries);
}

namespace {

// The depthwise strategy's keys: native, pixel_tile, plane, and
// optionally tile_rows.
LogicalResult readDepthwiseConfig(func::FuncOp dispatch, DictionaryAttr dict,
                                  LoweringConfig &config) {
  auto native = dict.getAs<StringAttr>("native");
  if (!native || !llvm::is_contained({"vnni", "pmaddwd", "fma", "max"},
                                     native.getValue()))
    return dispatch.emitError("the depthwise strategy needs 'native' = "
                              "\"vnni\", \"pmaddwd\", \"fma\" or \"max\"");
  config.native = native.getValue().str();
  auto pixels = dyn_cast_or_null<IntegerAttr>(dict.get("pixel_tile"));
  if (!pixels || pixels.getInt() < 1 || pixels.getInt() > 1024)
    return dispatch.emitError("the depthwise strategy needs 'pixel_tile' "
                              "(an integer in 1..1024)");
  config.pixelTile = pixels.getInt();
  auto plane = dict.getAs<StringAttr>("plane");
  if (!plane || !llvm::is_contained({"rows", "flat"}, plane.getValue()))
    return dispatch.emitError("the depthwise strategy needs 'plane' = "
                              "\"rows\" or \"flat\"");
  config.flatPlane = plane.getValue() == "flat";
  if (Attribute rows = dict.get("tile_rows")) {
    auto value = dyn_cast<IntegerAttr>(rows);
    if (!value || value.getInt() < 1 || value.getInt() > 64)
      return dispatch.emitError("the depthwise strategy's 'tile_rows' must "
                                "be an integer in 1..64");
    if (value.getInt() > 1 && config.flatPlane)
      return dispatch.emitError("the depthwise strategy's 'tile_rows' needs "
                                "plane = \"rows\"");
    config.pixelRows = value.getInt();
  }
  return success();
}

} // namespace

FailureOr<LoweringConfig> LoweringConfig::read(func::FuncOp dispatch) {
  auto dict = dispatch->getAttrOfType<DictionaryAttr>(kLoweringConfigAttr);
  if (!dict)
    return dispatch.emitError("has no ") << kLoweringConfigAttr;
  LoweringConfig config;
  auto strategy = dict.getAs<StringAttr>("strategy");
  if (!strategy)
    return dispatch.emitError(kLoweringConfigAttr)
           << " needs a string 'strategy'";
  if (strategy.getValue() == "contraction")
    config.strategy = Strategy::Contraction;
  else if (strategy.getValue() == "loop-order")
    config.strategy = Strategy::LoopOrder;
  else if (strategy.getValue() == "scalar")
    config.strategy = Strategy::Scalar;
  else if (strategy.getValue() == "depthwise")
    config.strategy = Strategy::Depthwise;
  else if (strategy.getValue() == "attention")
    config.strategy = Strategy::Attention;
  else
    return dispatch.emitError("unknown lowering strategy '")
           << strategy.getValue()
           << "' (expected contraction, depthwise, attention, loop-order or "
              "scalar)";
  auto tile = dict.getAs<DenseI64ArrayAttr>("workgroup_tile");
  if (!tile)
    return dispatch.emitError(kLoweringConfigAttr)
           << " needs 'workgroup_tile' (array<i64: ...>)";
  config.workgroupTile.assign(tile.asArrayRef().begin(),
                              tile.asArrayRef().end());
  if (llvm::any_of(config.workgroupTile, [](int64_t t) { return t < 0; }))
    return dispatch.emitError("workgroup tile sizes must be >= 0");
  // Contraction and attention: rows x lanes (keys) per register tile.
  if (config.strategy == Strategy::Contraction ||
      config.strategy == Strategy::Attention) {
    auto reg = dict.getAs<DenseI64ArrayAttr>("register_tile");
    if (!reg || reg.size() != 2)
      return dispatch.emitError("the ")
             << strategy.getValue()
             << " strategy needs 'register_tile' = array<i64: rows, "
             << (config.strategy == Strategy::Attention ? "keys" : "lanes")
             << ">";
    config.tileRows = reg[0];
    config.tileLanes = reg[1];
  }
  if (config.strategy == Strategy::Contraction) {
    if (Attribute k = dict.get("reduction_tile")) {
      auto value = dyn_cast<IntegerAttr>(k);
      if (!value || value.getInt() < 0)
        return dispatch.emitError("'reduction_tile' must be an integer >= 0");
      config.reductionTile = value.getInt();
    }
    if (config.tileRows < 1 || config.tileRows > 32 || config.tileLanes < 1 ||
        config.tileLanes > 256)
      return dispatch.emitError("register tile ")
             << config.tileRows << "x" << config.tileLanes
             << " is out of range (rows 1..32, lanes 1..256)";
    if (Attribute pack = dict.get("pack_b")) {
      auto value = dyn_cast<StringAttr>(pack);
      if (!value || !llvm::is_contained({"panels", "lanes"}, value.getValue()))
        return dispatch.emitError("'pack_b' must be \"panels\" or \"lanes\"");
      auto native = dict.getAs<StringAttr>("native");
      if (value.getValue() == "lanes") {
        if (native)
          return dispatch.emitError("'pack_b' = \"lanes\" copies an f32 B "
                                    "and takes no 'native' path");
        config.copyLanes = true;
      } else {
        if (!native || (kGroupOf(native.getValue()) == 1 &&
                        native.getValue() != "amx"))
          return dispatch.emitError("'pack_b' needs 'native' = \"vnni\", "
                                    "\"pmaddubsw\", \"pmaddwd\", "
                                    "\"dpbf16\" or \"amx\"");
        config.packPanels = true;
        config.native = native.getValue().str();
      }
    }
    // The AMX kernel reads B in the data tiling's tile panels, or packs
    // them itself (with pack_b = "panels", read above).
    if (auto native = dict.getAs<StringAttr>("native");
        native && native.getValue() == "amx")
      config.native = "amx";
    if (Attribute gather = dict.get("gather_b")) {
      auto value = dyn_cast<StringAttr>(gather);
      if (!value || !llvm::is_contained({"im2col", "rows"}, value.getValue()))
        return dispatch.emitError("'gather_b' must be \"im2col\" or "
                                  "\"rows\"");
      config.gatherB = true;
      config.gatherRows = value.getValue() == "rows";
    }
    // LLVM splits other vector widths into odd pieces (a 48-lane tile ran
    // 20x slower than a 32-lane one).
    if (!llvm::isPowerOf2_64(config.tileLanes))
      return dispatch.emitError("register tile lanes must be a power of "
                                "two, got ")
             << config.tileLanes;
  }
  if (config.strategy == Strategy::Depthwise &&
      failed(readDepthwiseConfig(dispatch, dict, config)))
    return failure();
  return config;
}

Operation *workgroupRoot(func::FuncOp dispatch) {
  auto ret = dyn_cast<func::ReturnOp>(dispatch.getBody().front().getTerminator());
  if (!ret || ret.getNumOperands() == 0)
    return nullptr;
  Operation *root = ret.getOperand(0).getDefiningOp();
  if (isa_and_nonnull<linalg::LinalgOp, tensor::PadOp>(root))
    return root;
  return matchConcat(root) ? root : nullptr;
}

std::optional<ConcatChain> matchConcat(Operation *last) {
  auto insert = dyn_cast_or_null<tensor::InsertSliceOp>(last);
  if (!insert)
    return std::nullopt;
  ArrayRef<int64_t> shape = insert.getDestType().getShape();
  if (llvm::any_of(shape, ShapedType::isDynamic))
    return std::nullopt;
  ConcatChain chain;
  Value dest;
  for (;;) {
    if (insert.getSourceType().getRank() != insert.getDestType().getRank() ||
        llvm::any_of(insert.getStaticOffsets(), ShapedType::isDynamic) ||
        llvm::any_of(insert.getStaticSizes(), ShapedType::isDynamic) ||
        llvm::any_of(insert.getStaticStrides(),
                     [](int64_t s) { return s != 1; }))
      return std::nullopt;
    for (auto [d, size] : llvm::enumerate(insert.getStaticSizes())) {
      if (size == shape[d] && insert.getStaticOffsets()[d] == 0)
        continue;
      // A second dim that is not whole: not a concat.
      if (chain.axis != -1 && chain.axis != static_cast<int64_t>(d))
        return std::nullopt;
      chain.axis = d;
    }
    chain.inserts.push_back(insert);
    dest = insert.getDest();
    auto previous = dest.getDefiningOp<tensor::InsertSliceOp>();
    if (!previous)
      break;
    if (!previous->hasOneUse())
      return std::nullopt;
    insert = previous;
  }
  // Built on a fresh tensor: every workgroup writes only its own tile.
  if (!dest.getDefiningOp<tensor::EmptyOp>())
    return std::nullopt;
  std::reverse(chain.inserts.begin(), chain.inserts.end());
  return chain;
}

namespace {

// Workgroup counts and the cores. The pool hands workgroups out
// dynamically, so a large count balances whatever its parity, but a small
// odd one does not: 3 workgroups on 2 threads take 2/3 of the 1-thread
// time, not 1/2, and a single workgroup leaves every other core idle.
// Small counts are therefore made even where the split dim allows; the
// artifact does not know its thread count, and even counts also divide
// among 4 threads better than odd ones.
constexpr int64_t kSmallWorkgroupCount = 8;

// A tile of `size` on a dim of `bound` after `groups` workgroups from
// the dims before it: one piece more when that turns a small odd count
// into an even one (16 channels in tiles of 6 -> 3 groups; in tiles of 4
// -> 4 groups).
int64_t evenSplitTile(int64_t bound, int64_t size, int64_t groups) {
  int64_t pieces = llvm::divideCeil(bound, size);
  if ((groups * pieces) % 2 == 0 || groups * pieces >= kSmallWorkgroupCount ||
      pieces >= bound)
    return size;
  int64_t smaller = llvm::divideCeil(bound, pieces + 1);
  return (groups * llvm::divideCeil(bound, smaller)) % 2 == 0 ? smaller : size;
}

// Splits the outer parallel dims of a non-contraction root until there
// are enough workgroups for every core, keeping ~4K elements of work per
// group (at most three tiled dims: the workgroup grid is 3-D).
SmallVector<int64_t> elementwiseTile(ArrayRef<int64_t> bounds,
                                     ArrayRef<utils::IteratorType> iterators) {
  int64_t loops = bounds.size();
  SmallVector<int64_t> tiles(loops, 0);
  int64_t total = 1;
  for (int64_t b : bounds)
    total *= std::max<int64_t>(b, 1);
  int64_t target = std::clamp<int64_t>(total / 4096, 1, 256);
  int64_t groups = 1, tiledDims = 0;
  for (int64_t i = 0; i < loops; ++i) {
    if (iterators[i] != utils::IteratorType::parallel || bounds[i] <= 1 ||
        ShapedType::isDynamic(bounds[i]))
      continue;
    if (groups >= target || tiledDims == 3)
      break;
    int64_t want = (target + groups - 1) / groups;
    if (bounds[i] <= want) {
      tiles[i] = 1;
      groups *= bounds[i];
    } else {
      int64_t size = (bounds[i] + want - 1) / want;
      // Vector-friendly tile sizes on the innermost dim.
      if (i == loops - 1 && size > 16)
        size = (size + 15) / 16 * 16;
      size = evenSplitTile(bounds[i], size, groups);
      tiles[i] = size;
      groups *= (bounds[i] + size - 1) / size;
    }
    ++tiledDims;
  }
  return tiles;
}

// A contraction the register-tiled kernel can run, with its loops and the
// map that gives, for each of its result dims, the root dim it lands on.
struct RegisterTileCandidate {
  linalg::LinalgOp op;
  ContractionLoops loops;
  AffineMap resultToRoot;
};

// Bytes between B's rows of consecutive k (the reduction dim), when B is
// a static identity-layout tensor whose map reads k as one of its
// indices.
std::optional<int64_t> reductionStrideBytes(RegisterTileCandidate &c) {
  OpOperand *b = c.op.getDpsInputOperand(c.loops.rhs);
  auto type = dyn_cast<RankedTensorType>(b->get().getType());
  if (!type || !type.hasStaticShape() || c.loops.reductions.size() != 1)
    return std::nullopt;
  AffineMap map = c.op.getMatchingIndexingMap(b);
  for (auto [pos, expr] : llvm::enumerate(map.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(expr);
        dim && dim.getPosition() == c.loops.reductions.front()) {
      int64_t elements = 1;
      for (int64_t d = pos + 1; d < type.getRank(); ++d)
        elements *= type.getDimSize(d);
      return elements * type.getElementTypeBitWidth() / 8;
    }
  return std::nullopt;
}

// A max pool has no contraction loops (the depthwise kernel's own match
// finds its planes): empty ones where the op is one.
FailureOr<ContractionLoops> maxPoolLoops(linalg::LinalgOp op) {
  if (failed(matchDepthwiseMaxPool(op)))
    return failure();
  return ContractionLoops{};
}

// The first op of the dispatch that `match` takes (by default a
// contraction): the root itself, or one whose result the root reads
// element for element (through a permutation map), so that its rows and
// lanes map onto the root's tiled dims.
std::optional<RegisterTileCandidate> registerTileCandidate(
    func::FuncOp dispatch, Operation *root,
    function_ref<FailureOr<ContractionLoops>(linalg::LinalgOp)> match =
        matchContraction) {
  std::optional<RegisterTileCandidate> found;
  dispatch.walk([&](linalg::LinalgOp op) {
    if (found)
      return;
    if (FailureOr<ContractionLoops> loops = match(op); succeeded(loops))
      found = RegisterTileCandidate{op, *loops, AffineMap()};
  });
  if (!found)
    return std::nullopt;
  if (found->op.getOperation() == root) {
    found->resultToRoot = found->op.getIndexingMapsArray().back();
    return found;
  }
  auto rootOp = cast<linalg::LinalgOp>(root);
  for (OpOperand *input : rootOp.getDpsInputOperands()) {
    AffineMap map = rootOp.getMatchingIndexingMap(input);
    if (input->get().getDefiningOp() == found->op.getOperation() &&
        map.isPermutation()) {
      found->resultToRoot = map;
      return found;
    }
  }
  return std::nullopt;
}

// Workgroups of a depthwise convolution: one channel plane each (the
// kernel needs whole planes), i.e. tiles of 1 on the root dims the
// convolution's outer parallel dims land on, at most three of them.
std::optional<SmallVector<int64_t>>
depthwiseWorkgroupTile(RegisterTileCandidate candidate,
                       linalg::LinalgOp rootOp, ArrayRef<int64_t> bounds) {
  FailureOr<DepthwiseLoops> dw = matchDepthwise(candidate.op);
  if (failed(dw))
    return std::nullopt;
  AffineMap out = candidate.op.getIndexingMapsArray().back();
  SmallVector<int64_t> ranges = candidate.op.getStaticLoopRanges();
  int64_t plane = ranges[dw->oh] * ranges[dw->ow];
  SmallVector<int64_t> tiles(bounds.size(), 0);
  int64_t tiled = 0, last = -1;
  for (auto [pos, expr] : llvm::enumerate(out.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    auto rootDim = dyn_cast<AffineDimExpr>(candidate.resultToRoot.getResult(pos));
    if (!dim || !rootDim)
      return std::nullopt;
    unsigned d = dim.getPosition(), r = rootDim.getPosition();
    if (d == dw->oh || d == dw->ow || bounds[r] <= 1)
      continue;
    if (rootOp.getIteratorTypesArray()[r] != utils::IteratorType::parallel)
      return std::nullopt;
    if (tiled++ < 3) {
      tiles[r] = 1;
      last = r;
    }
  }
  // Small planes (7x7, 14x14) take several channels per workgroup, about
  // 1024 outputs: the requantizing epilogue then runs long loops and the
  // workgroups are fewer. The count divides the channels, so every
  // workgroup's planes have static shapes.
  if (last >= 0 && plane < 1024) {
    int64_t want = std::min<int64_t>(bounds[last], (1024 + plane - 1) / plane);
    while (bounds[last] % want != 0)
      --want;
    tiles[last] = want;
  }
  return tiles;
}

// Vector registers' worth of FMAs per row to cover `total` lanes with
// tiles of `lanes`: whole tiles, then the right edge as a half-width tile
// when at most half of it is valid (ContractionKernel's edge), else a
// full one.
double laneCost(int64_t total, int64_t lanes, int64_t width) {
  double perTile = static_cast<double>(lanes) / width;
  int64_t edge = total % lanes;
  double cost = static_cast<double>(total / lanes) * perTile;
  if (edge > 0)
    cost += edge <= lanes / 2 ? perTile / 2 : perTile;
  return cost;
}

// Few output pixels (a 7x7 conv output, 49 lanes): 32-lane tiles cost a
// 32-lane edge for 17 pixels (4 zmm per row for 49 lanes), while 16-lane
// tiles end in an 8-lane half tile (3.5 zmm). On AVX-512 the half tile is
// a ymm FMA, which Zen 4 issues at twice the zmm rate, so the narrower
// tile pays there when it saves at least a tenth of the FMAs; the rows
// double so that as many accumulators stay in flight (16 x 16 instead of
// 8 x 32). On AVX2 a half tile is an xmm FMA at the ymm rate: no gain.
// The 16 rows broadcast from 16 rows of A: when A's rows lie a multiple
// of 4 KiB apart (K = 1024, 2048 in f32) they all fall in one set of the
// 8-way L1 and evict each other every step (measured 2x slower), so
// those keep 8 rows, as does an A in row panels (below). Returns the
// taller tile's rows, or nullopt to keep `rows` x `lanes`.
std::optional<int64_t> fewPixelRows(const TargetChoice &target,
                                    const RegisterTileCandidate &candidate,
                                    int64_t rowsTotal, int64_t lanesTotal,
                                    int64_t rows, int64_t lanes) {
  int64_t width = target.f32Lanes();
  if (target.vectorBits < 512 || lanes != 2 * width ||
      rowsTotal < 2 * rows || !candidate.loops.operandType.isF32())
    return std::nullopt;
  // A's row stride: the elements after the dim that m indexes.
  linalg::LinalgOp op = candidate.op;
  OpOperand *aOperand = op.getDpsInputOperand(candidate.loops.lhs);
  auto aType = dyn_cast<ShapedType>(aOperand->get().getType());
  AffineMap aMap = op.getMatchingIndexingMap(aOperand);
  std::optional<unsigned> mPos =
      aMap.getResultPosition(getAffineDimExpr(candidate.loops.m,
                                              aMap.getContext()));
  // An A in row panels (DataTiling.cpp: (m floordiv 8, k, m mod 8), a
  // constant filter) has no plain row index and keeps 8 x 32: with the
  // panels, 16 x 16 tiles made ResNet-50 1.02x and MobileNetV2-style 1.06x
  // slower (Sapphire Rapids, paired), whose ymm FMAs issue at the zmm
  // rate.
  if (!aType || !aType.hasStaticShape() || !mPos)
    return std::nullopt;
  int64_t rowStride = 1;
  for (int64_t d = *mPos + 1; d < aType.getRank(); ++d)
    rowStride *= aType.getDimSize(d);
  if (rowStride * 4 % 4096 == 0)
    return std::nullopt;
  if (laneCost(lanesTotal, width, width) * 10 >
      laneCost(lanesTotal, lanes, width) * 9)
    return std::nullopt;
  return 2 * rows;
}

// Multiply-accumulates in one run of `op` (the product of its loop ranges).
int64_t multiplyAccumulates(linalg::LinalgOp op) {
  int64_t macs = 1;
  for (int64_t range : op.getStaticLoopRanges())
    macs *= std::max<int64_t>(range, 1);
  return macs;
}

// A contraction's ~64x64 workgroup tiles leave the small late layers of a
// CNN few workgroups, and uneven ones: 64 channels x 7x7 pixels are one
// workgroup, which runs on one core however many the pool has; 144 x 49
// are 3 of 64, 64 and 16 rows. Where the work pays for more hand-offs
// (kMinSplitMacs in all, a few microseconds), such a dispatch takes one
// more piece of whole register tiles along its lanes (or, for a single
// workgroup, its rows) while that balances 2 threads better and fewer than
// kSmallWorkgroupCount workgroups exist. Kernels that pack or gather their
// B panels per workgroup (pack_b, gather_b) split only their lanes: more
// row pieces would pack or gather the same panels again. Tiles stay
// multiples of the register tile, so the kernels are unchanged; only the
// grid grows.
constexpr int64_t kMinSplitMacs = int64_t(1) << 18;

// The time 2 threads that take workgroups in grid order, each the next
// one as soon as it is free, need for `costs`, as a share of the total.
double twoThreadShare(ArrayRef<double> costs) {
  double busy[2] = {0, 0}, total = 0;
  for (double cost : costs) {
    busy[busy[1] < busy[0]] += cost;
    total += cost;
  }
  return total > 0 ? std::max(busy[0], busy[1]) / total : 1.0;
}

// Register-tile costs of the pieces of a dim of `bound` cut into `tile`s
// of `unit` (rows or lanes): a partial row tile costs a whole one (its
// missing rows are computed and dropped), a lane tail of at most half the
// lanes half of one (half-width masked tiles).
SmallVector<double> pieceCosts(int64_t bound, int64_t tile, int64_t unit,
                               bool lanesDim) {
  SmallVector<double> costs;
  for (int64_t start = 0; start < bound; start += tile) {
    int64_t size = std::min(tile, bound - start);
    int64_t rem = size % unit;
    double cost = size / unit;
    if (rem)
      cost += lanesDim && rem * 2 <= unit ? 0.5 : 1.0;
    costs.push_back(cost);
  }
  return costs;
}

void balanceContractionSplit(MutableArrayRef<int64_t> tiles,
                             ArrayRef<int64_t> bounds, unsigned rootM,
                             unsigned rootN, int64_t rows, int64_t lanes,
                             int64_t macs, bool splitRows) {
  if (macs < kMinSplitMacs)
    return;
  // The workgroups' costs in grid order (rows, then lanes, then the outer
  // dims' pieces, each of cost 1).
  auto evaluate = [&](int64_t rowTile, int64_t laneTile,
                      int64_t &count) -> double {
    SmallVector<double> rowCosts = pieceCosts(bounds[rootM], rowTile, rows, false);
    SmallVector<double> laneCosts = pieceCosts(bounds[rootN], laneTile, lanes, true);
    int64_t outer = 1;
    for (unsigned d = 0; d < bounds.size(); ++d)
      if (d != rootM && d != rootN && tiles[d] > 0)
        outer *= llvm::divideCeil(bounds[d], tiles[d]);
    SmallVector<double> costs;
    for (int64_t o = 0; o < outer; ++o)
      for (double l : laneCosts)
        for (double r : rowCosts)
          costs.push_back(r * l);
    count = static_cast<int64_t>(costs.size());
    return twoThreadShare(costs);
  };
  // One more piece of whole units along a dim, or the same tile if none.
  auto onePieceMore = [](int64_t bound, int64_t tile, int64_t unit) {
    int64_t units = llvm::divideCeil(bound, unit);
    int64_t pieces = llvm::divideCeil(bound, tile);
    return units > pieces ? llvm::divideCeil(units, pieces + 1) * unit : tile;
  };
  int64_t count = 0;
  double share = evaluate(tiles[rootM], tiles[rootN], count);
  while (count < kSmallWorkgroupCount && share > 0.55) {
    int64_t rowTile = onePieceMore(bounds[rootM], tiles[rootM], rows);
    int64_t laneTile = onePieceMore(bounds[rootN], tiles[rootN], lanes);
    int64_t rowCount = 0, laneCount = 0;
    double byRows = splitRows && rowTile != tiles[rootM]
                        ? evaluate(rowTile, tiles[rootN], rowCount) : 2.0;
    double byLanes = laneTile != tiles[rootN]
                         ? evaluate(tiles[rootM], laneTile, laneCount) : 2.0;
    // Lanes first: every row piece reads all of B's lanes, which the
    // step before (an im2col) has just written, half of it on the other
    // core; a lane piece reads only its own. Rows only for a single
    // workgroup whose lanes do not split (measured under SCHED_FIFO on 2
    // cores: 1 -> 2 row pieces 1.3-1.5x faster at 2 threads, 4 lane
    // pieces -> 8 with rows split too 25% slower).
    if (byLanes < share - 0.01) {
      tiles[rootN] = laneTile;
      share = byLanes;
      count = laneCount;
    } else if (count == 1 && byRows < share - 0.01) {
      tiles[rootM] = rowTile;
      share = byRows;
      count = rowCount;
    } else {
      return;
    }
  }
}

} // namespace

namespace {

// The workgroup extent of a dim for the AMX kernel: a divisor of `bound`
// (every workgroup's tile, edges included, is then static) of at least 16
// and at most `cap`, preferring multiples of 32 and then of 16 (fewer
// edge tiles); the smallest divisor above `cap` when none is in range.
// Columns (`panels`) take multiples of 16 or all of `bound`: every
// workgroup then starts at a tile panel of B.
int64_t amxExtent(int64_t bound, int64_t cap, bool panels) {
  if (panels && bound % kAmxTileRows != 0)
    return bound;
  int64_t best = 0, bestScore = -1;
  for (int64_t t = std::min(bound, cap); t >= kAmxTileRows; --t) {
    if (bound % t != 0 || (panels && t % kAmxTileRows != 0))
      continue;
    int64_t score = t % 32 == 0 ? 2 : t % 16 == 0 ? 1 : 0;
    if (score > bestScore) {
      best = t;
      bestScore = score;
    }
  }
  if (best)
    return best;
  for (int64_t t = cap + 1;; ++t)
    if (bound % t == 0 && (!panels || t % kAmxTileRows == 0))
      return t;
}

// A contraction on AMX tiles (AmxKernel.h): whole K per workgroup, and
// workgroup tiles that divide M and N, up to 128 x 128 outputs (a 128 x
// 768 bf16 A and a 768 x 128 B take 384 KiB of the 2 MiB L2), halved
// while fewer than 4 workgroups would share the cores.
LoweringConfig amxConfig(LoweringConfig config,
                         const RegisterTileCandidate &candidate,
                         linalg::LinalgOp rootOp, ArrayRef<int64_t> bounds,
                         unsigned rootM, unsigned rootN) {
  config.strategy = Strategy::Contraction;
  config.operandType = candidate.loops.operandType;
  config.native = "amx";
  config.tileRows = 2 * kAmxTileRows;
  config.tileLanes = 2 * kAmxTileRows;
  config.reductionTile = 0;
  int64_t outer = 1;
  SmallVector<int64_t> tiles(bounds.size(), 0);
  int64_t tiled = 2;
  for (auto [i, it] : llvm::enumerate(rootOp.getIteratorTypesArray())) {
    if (i == rootM || i == rootN || it != utils::IteratorType::parallel ||
        bounds[i] <= 1)
      continue;
    if (tiled < 3) {
      tiles[i] = 1;
      outer *= bounds[i];
      ++tiled;
    }
  }
  int64_t rowCap = 128, colCap = 128;
  for (;;) {
    tiles[rootM] = amxExtent(bounds[rootM], rowCap, /*panels=*/false);
    tiles[rootN] = amxExtent(bounds[rootN], colCap, /*panels=*/true);
    int64_t groups = outer * (bounds[rootM] / tiles[rootM]) *
                     (bounds[rootN] / tiles[rootN]);
    if (groups >= 4 || (rowCap <= 32 && colCap <= 32))
      break;
    if (colCap >= rowCap && colCap > 32)
      colCap /= 2;
    else
      rowCap /= 2;
  }
  config.workgroupTile = tiles;
  return config;
}

} // namespace

namespace {

// kiln.conv_nhwc's generic (ContractionToLinalg.cpp): loops (n, oh, ow, m,
// kh, kw, c), rows = the output pixels of one row (ow), lanes = the output
// channels (m), B = the HWIO filter in lane panels (DataTiling.h). The
// workgroup's oh loop runs outside the K loop, so its B panels (K x lanes,
// 1.2 MiB for a 3x3 of 512 channels) are re-read per output row: from L2
// once the first row brought them in.
struct ChannelsLastConv {
  int64_t rows, lanes;
};
std::optional<ChannelsLastConv>
channelsLastConv(RegisterTileCandidate candidate, const TargetChoice &target,
                 int64_t rowsTotal) {
  if (!isChannelsLastConv(candidate.loops, candidate.op))
    return std::nullopt;
  int64_t width = std::max<int64_t>(target.f32Lanes(), 4);
  ChannelsLastConv c;
  if (target.vectorRegisters >= 32) {
    // A whole output row per tile where it fits (7 or 14 pixels of
    // ResNet-50's late stages), as many vectors of lanes as leave ~28
    // accumulators: 7 x 64 (28) or 14 x 32 (28). Measured on a Sapphire
    // Rapids-class Xeon, 3x3 convs at 1 thread: 7x7x512 1.26 ms as 7 x 64
    // (1.29 as 7 x 32; 1.80 channels first), 14x14x256 1.01 ms as 14 x 32
    // (1.33 channels first).
    c.rows = rowsTotal <= 14 ? rowsTotal : target.f32TileRows();
    // Longer rows: the largest divisor up to 14 (28 -> 14, 56 -> 14), so
    // no tile clamps its rows.
    for (int64_t r = 14; rowsTotal > 14 && r > c.rows; --r)
      if (rowsTotal % r == 0) {
        c.rows = r;
        break;
      }
    c.lanes = width * llvm::bit_floor(static_cast<uint64_t>(
                          std::clamp<int64_t>(28 / c.rows, 1, 4)));
    return c;
  }
  // 16 registers: two vectors of lanes and the row count up to 6 that
  // wastes the fewest rows of the output row (7 -> 4 + 4, 14 -> 5 x 3).
  c.lanes = 2 * width;
  c.rows = std::min<int64_t>(rowsTotal, 6);
  for (int64_t r = c.rows; r >= 4; --r)
    if (llvm::divideCeil(rowsTotal, r) * r <
        llvm::divideCeil(rowsTotal, c.rows) * c.rows)
      c.rows = r;
  return c;
}

} // namespace

LoweringConfig chooseLoweringConfig(func::FuncOp dispatch,
                                    const TargetChoice &target,
                                    const ConfigOptions &options) {
  // kiln.attention has no loop form: it always takes its kernel (kilnc
  // keeps it only with --codegen=auto).
  if (isAttentionDispatch(dispatch))
    return chooseAttentionConfig(dispatch, target);
  LoweringConfig config;
  config.strategy = options.loopOrder ? Strategy::LoopOrder : Strategy::Scalar;
  Operation *root = workgroupRoot(dispatch);
  if (!root)
    return config;
  if (auto pad = dyn_cast<tensor::PadOp>(root)) {
    // A pad's loops are its result's dims. Only dims without padding
    // (batch, channels) are split: every workgroup then pads whole planes
    // by static amounts, in place in the output; tiles across the border
    // would get dynamic pad amounts and a scratch copy each.
    ArrayRef<int64_t> shape = pad.getResultType().getShape();
    if (llvm::any_of(shape, ShapedType::isDynamic))
      return config;
    SmallVector<utils::IteratorType> splittable;
    for (auto [low, high] : llvm::zip(pad.getStaticLow(), pad.getStaticHigh()))
      splittable.push_back(low == 0 && high == 0
                               ? utils::IteratorType::parallel
                               : utils::IteratorType::reduction);
    config.workgroupTile = elementwiseTile(shape, splittable);
    // A channels-last pad (kiln.conv_nhwc's input, left as a dispatch
    // where the register tiles do not fold it: loop order, CUDA) splits
    // only its innermost dim: runs of at least 64 channels keep each copy
    // a vector loop (tiles of 5 of 256 channels ran at 2 GB/s).
    int64_t &last = config.workgroupTile.back();
    if (last > 0 && last < 64)
      last = std::min<int64_t>(shape.back(), 64);
    return config;
  }
  if (std::optional<ConcatChain> concat = matchConcat(root)) {
    // A concat's loops are its result's dims; each workgroup copies its
    // tile of every piece, so any dim but the concat axis splits. Tiles
    // divide their dims: the pieces' slices keep static sizes.
    ArrayRef<int64_t> shape =
        concat->inserts.back().getDestType().getShape();
    SmallVector<utils::IteratorType> splittable(shape.size(),
                                                utils::IteratorType::parallel);
    if (concat->axis >= 0)
      splittable[concat->axis] = utils::IteratorType::reduction;
    // Whole innermost rows keep each copy a long contiguous run, unless
    // the innermost dim is the only one to split.
    int64_t last = static_cast<int64_t>(shape.size()) - 1;
    for (int64_t d = 0; d < last; ++d)
      if (splittable[d] == utils::IteratorType::parallel && shape[d] > 1) {
        splittable[last] = utils::IteratorType::reduction;
        break;
      }
    config.workgroupTile = elementwiseTile(shape, splittable);
    for (auto [tile, bound] : llvm::zip(config.workgroupTile, shape))
      while (tile > 0 && bound % tile != 0)
        ++tile;
    return config;
  }
  auto rootOp = cast<linalg::LinalgOp>(root);
  SmallVector<int64_t> bounds = rootOp.getStaticLoopRanges();
  if (llvm::any_of(bounds, ShapedType::isDynamic))
    return config;
  // Dims the root reads a fused reduction's result broadcast along (a
  // softmax or normalization row) stay whole: each workgroup computes the
  // statistics of its own rows.
  SmallVector<utils::IteratorType> splittable = rootOp.getIteratorTypesArray();
  for (OpOperand *input : rootOp.getDpsInputOperands()) {
    auto producer = input->get().getDefiningOp<linalg::LinalgOp>();
    if (!producer || producer.getNumReductionLoops() == 0)
      continue;
    AffineMap map = rootOp.getMatchingIndexingMap(input);
    for (unsigned d = 0; d < splittable.size(); ++d)
      if (!map.isFunctionOfDim(d))
        splittable[d] = utils::IteratorType::reduction;
  }
  config.workgroupTile = elementwiseTile(bounds, splittable);
  // A transpose that moves the innermost dim runs as register blocks
  // (TransposeKernel.h), whose workgroup tiles are whole blocks.
  if (auto transpose = dyn_cast<linalg::TransposeOp>(root))
    alignTransposeTiles(transpose.getPermutation(), bounds,
                        config.workgroupTile);

  // The depthwise kernel's configuration for `op` (DepthwiseKernel.h),
  // whole channel planes per workgroup, where it takes it.
  auto depthwise = [&](const RegisterTileCandidate &op) -> bool {
    std::optional<DepthwiseTile> dw = chooseDepthwiseTile(op.op, target);
    if (!dw)
      return false;
    std::optional<SmallVector<int64_t>> tiles =
        depthwiseWorkgroupTile(op, rootOp, bounds);
    if (!tiles)
      return false;
    config.strategy = Strategy::Depthwise;
    config.workgroupTile = *tiles;
    config.native = dw->native;
    config.pixelTile = dw->pixels;
    config.flatPlane = dw->flat;
    config.pixelRows = dw->rows;
    return true;
  };
  // Max pools: the depthwise kernel's plane walk with a max for the FMA.
  if (options.registerTiles)
    if (std::optional<RegisterTileCandidate> pool =
            registerTileCandidate(dispatch, root, maxPoolLoops);
        pool && depthwise(*pool))
      return config;
  std::optional<RegisterTileCandidate> candidate =
      registerTileCandidate(dispatch, root);
  if (!candidate || !options.registerTiles) {
    // Contractions the register tiles don't take (other element types,
    // transposed lanes) keep 64x64 output tiles on their two innermost
    // parallel dims, the rest one by one.
    bool hasContraction = false;
    dispatch.walk([&](linalg::LinalgOp op) {
      if (op.getNumReductionLoops() > 0 && op.getNumDpsInputs() == 2 &&
          linalg::isaContractionOpInterface(op))
        hasContraction = true;
    });
    SmallVector<unsigned> parallel;
    for (auto [i, it] : llvm::enumerate(rootOp.getIteratorTypesArray()))
      if (it == utils::IteratorType::parallel && bounds[i] > 1)
        parallel.push_back(i);
    if (!hasContraction || parallel.size() < 2)
      return config;
    SmallVector<int64_t> tiles(bounds.size(), 0);
    unsigned m = parallel[parallel.size() - 2], n = parallel.back();
    tiles[m] = std::min<int64_t>(bounds[m], 64);
    tiles[n] = std::min<int64_t>(bounds[n], 64);
    if (parallel.size() >= 3)
      tiles[parallel[parallel.size() - 3]] = 1;
    config.workgroupTile = tiles;
    return config;
  }

  // Depthwise convolutions: the flat-plane kernel where it pays
  // (DepthwiseKernel.h), one workgroup per channel plane.
  if (candidate->loops.vectorPerRow && !candidate->loops.scalarPerRow &&
      depthwise(*candidate))
    return config;

  const ContractionLoops *loops = &candidate->loops;
  SmallVector<int64_t> ranges = candidate->op.getStaticLoopRanges();
  int64_t rowsTotal = ranges[loops->m], lanesTotal = ranges[loops->n];
  // Accumulators: rows x (lanes / vector width) registers, leaving room
  // for the B vectors and one broadcast: 8x32 (16 of 32 zmm) on AVX-512,
  // 6x16 (12 of 16 ymm) on AVX2.
  int64_t width = std::max<int64_t>(target.f32Lanes(), 4);
  int64_t rows = target.f32TileRows();
  int64_t vectorsPerRow = 2;
  if (rowsTotal < rows) {
    // Few rows (a batch-1 linear layer): wider rows keep as many
    // independent FMA chains in flight.
    rows = rowsTotal;
    int64_t budget = target.vectorRegisters >= 32 ? 16 : 12;
    // A power of two: LLVM splits other widths into odd pieces.
    vectorsPerRow = llvm::bit_floor(
        static_cast<uint64_t>(std::clamp<int64_t>(budget / rows, 2, 8)));
  }
  int64_t lanes = width * vectorsPerRow;
  // Narrow outputs waste masked lanes: use fewer vectors per row.
  while (lanes > width && lanes / 2 >= lanesTotal)
    lanes /= 2;
  if (std::optional<int64_t> taller =
          fewPixelRows(target, *candidate, rowsTotal, lanesTotal, rows,
                       lanes)) {
    rows = *taller;
    lanes = width;
  }
  config.strategy = Strategy::Contraction;
  config.operandType = loops->operandType;
  config.native = nativePath(*loops).str();
  // A computed i8 or bf16 B (a convolution's im2col columns, [C*K, P]) is
  // packed by the kernel, per K block and register-tile column panel,
  // when the target has the native instruction: each panel is packed once
  // and read by every row tile (a conv's output channels), which pays for
  // the copy many times over. Rather than packing the columns in memory
  // ahead of the contraction (an im2col writing K groups, target-specific
  // in a target-independent lowering, or swapping A and B so that the
  // filter is the packed constant, which needs channels-last columns and
  // a transposed result), the panel is packed in L1 right where it is
  // used. Few rows would not repay it.
  if (config.native == "convert" && rowsTotal >= 4 &&
      canPackPanels(*loops, candidate->op)) {
    StringRef panelPath;
    // AVX2 takes quads through pmaddubsw when the data tiling found the
    // filter (A) free of -128, which keeps that path exact; pairs through
    // pmaddwd otherwise.
    bool narrowLhs = candidate->op->hasAttr(kNarrowLhsAttr);
    // On the AMX tile unit where the contraction fits it (AmxKernel.h),
    // the kernel packing B's tile panels itself.
    if (amxContractionOk(candidate->op, *loops, target))
      panelPath = "amx";
    else if (loops->operandType.isInteger(8))
      panelPath = target.hasVnni ? "vnni"
                  : target.vectorBits == 256 && narrowLhs ? "pmaddubsw"
                  : target.vectorBits >= 256              ? "pmaddwd"
                                                          : "";
    else if (target.prefersBf16Dot)
      panelPath = "dpbf16";
    if (!panelPath.empty()) {
      config.native = panelPath.str();
      config.packPanels = true;
    }
  }
  // B gathered from a convolution's input by the kernel (implicit GEMM):
  // f32 for now; the native paths keep their im2col dispatch and panels.
  std::optional<ConvGather> rowGather;
  if (!config.packPanels && loops->operandType.isF32())
    if (linalg::GenericOp gather =
            convGatherProducer(candidate->op.getDpsInputs()[loops->rhs])) {
      config.gatherB = true;
      // Narrow convs gather lane tiles inside one output row (no segment
      // table), at the lanes that choice was made for.
      std::optional<ConvGather> g = ConvGather::read(gather);
      if (g && !worthGathering(rowsTotal, g->output[1], target) &&
          worthGatheringRows(rowsTotal, *g, target)) {
        config.gatherRows = true;
        rowGather = g;
        lanes = rowGatherLanes(target);
        rows = std::min<int64_t>(rowsTotal,
                                 target.f32TileRows());
      }
    }
  // f32 B computed at run time, on AVX2: copied once per K block and lane
  // tile for all row tiles (ContractionKernel.h, copiesLanePanel) where
  // its rows are costly to re-read in every row tile: a new page per k
  // (4 KiB apart or more; the 1024^3 matmul with a computed B went 44.6
  // -> 38.9 ms on Zen 3; where N is whole 16-column panels and M >= 64
  // such a B now arrives packed by a dispatch of its own, DataTiling.cpp)
  // or rows not on 64-byte lines (14x14 and 7x7 conv
  // inputs, 784 and 196 bytes: each 16-lane row straddles two lines, and
  // the copy made such 1x1 convs of ResNet-50 13-20% faster), and with
  // enough rows and K to repay the copy: at 28x28 (aligned 3136-byte
  // rows) it was neutral, and with fewer than 8 row tiles or K < 32
  // (mobilenets' narrow pointwise convs) 3-20% slower. AVX-512 tiles,
  // with twice the FMAs per line, ran 2-4% slower with a copy (Zen 4).
  if (target.vectorBits == 256 && !config.packPanels && !config.gatherB &&
      copiesLanePanel(*loops) && rowsTotal >= 8 * rows &&
      ranges[loops->reductions.front()] >= 32 &&
      !candidate->op.getDpsInputs()[loops->rhs]
           .getDefiningOp<arith::ConstantOp>())
    if (std::optional<int64_t> stride = reductionStrideBytes(*candidate))
      config.copyLanes = *stride >= 4096 || *stride % 64 != 0;
  // pmaddubsw keeps |x|, the signed operand and vpmaddwd's ones in
  // registers besides B and the broadcast: 8 accumulators fit in 16 ymm
  // where 12 spilled (a 6x16 tile ran slower than 4x16).
  if (config.native == "pmaddubsw")
    while (rows > 1 && rows * (lanes / width) > 8)
      --rows;
  config.tileRows = rows;
  config.tileLanes = lanes;
  // K blocks whose B sub-panel (kc x lanes elements) takes about half of a
  // 32 KiB L1, leaving room for the A rows; one block when K is not much
  // longer than that.
  int64_t kTotal = ranges[loops->reductions.front()];
  int64_t operandBytes = loops->operandType.getIntOrFloatBitWidth() / 8;
  // The convert path widens 16-bit float panels of B to f32 in L1
  // (ContractionKernel.cpp, widensLanePanel): size K blocks by f32 bytes.
  bool widenedB = config.native == "convert" && !config.packPanels &&
                  widensLanePanel(*loops);
  if (widenedB)
    operandBytes = 4;
  int64_t kc = std::max<int64_t>(64, 16384 / (lanes * operandBytes));
  // A large f32 GEMM over B in lane panels (constant, or packed at run
  // time) takes wider workgroups, 256 lanes, with K blocks of 256: each
  // workgroup's A block then serves 8 lane tiles rather than 2. The
  // 1024^3 matmul (Sapphire-Rapids-class Xeon, 1 thread) ran 12.2 ms
  // with 64 x 64 workgroups and K blocks of 128, 10.9 with 64 x 256 and
  // 256 (11.1 with 64 x 128 and 384; 2 threads 6.06 -> 5.63).
  bool wideGemm = loops->operandType.isF32() && loops->lanePanel > 0 &&
                  loops->reductions.size() == 1 && rowsTotal >= 256 &&
                  lanesTotal >= 512 &&
                  ranges[loops->reductions.front()] >= 512 &&
                  !config.gatherB && !config.copyLanes;
  if (wideGemm)
    kc = 256;
  // A single row reads each B element once: nothing to keep in L1.
  config.reductionTile = rows > 1 && kTotal > kc + kc / 2 ? kc : 0;
  // A gathered B lives in a stack panel of one K block: always blocked.
  if (config.gatherB && kTotal > kc + kc / 2)
    config.reductionTile = kc;
  // Row gathers unroll whole windows (kh, kw) per channel: blocks of whole
  // windows.
  if (rowGather && config.reductionTile > 0) {
    int64_t window = rowGather->kernel[0] * rowGather->kernel[1];
    config.reductionTile =
        std::max<int64_t>(window, config.reductionTile / window * window);
  }

  // Workgroup tiles: ~64x64 outputs, whole register tiles, on the root
  // dims that m and n map to; outer dims one at a time.
  AffineMap contractionOut = candidate->op.getIndexingMapsArray().back();
  auto rootDimOf = [&](unsigned contractionDim) -> std::optional<unsigned> {
    for (auto [pos, expr] : llvm::enumerate(contractionOut.getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(expr);
          dim && dim.getPosition() == contractionDim)
        if (auto rootDim = dyn_cast<AffineDimExpr>(
                candidate->resultToRoot.getResult(pos)))
          return rootDim.getPosition();
    return std::nullopt;
  };
  std::optional<unsigned> rootM = rootDimOf(loops->m);
  std::optional<unsigned> rootN = rootDimOf(loops->n);
  if (!rootM || !rootN)
    return chooseLoweringConfig(dispatch, target,
                                ConfigOptions{false, options.loopOrder});
  if (std::optional<ChannelsLastConv> cl =
          channelsLastConv(*candidate, target, rowsTotal)) {
    // Whole K per tile (the filter's kh, kw, c), and one lane tile of
    // output channels per workgroup with every pixel: the workgroup walks
    // its output rows over the same B panels.
    config.tileRows = cl->rows;
    config.tileLanes = cl->lanes;
    config.reductionTile = 0;
    SmallVector<int64_t> tiles(bounds.size(), 0);
    tiles[*rootN] = std::min(bounds[*rootN], cl->lanes);
    // Fewer than 4 lane tiles of channels (64 channels: one): the output
    // rows split too, so that every core gets work.
    int64_t laneGroups = llvm::divideCeil(bounds[*rootN], tiles[*rootN]);
    std::optional<unsigned> rootOh = rootDimOf(1);
    if (laneGroups < 4 && rootOh && bounds[*rootOh] > 1) {
      int64_t pieces = std::min<int64_t>(bounds[*rootOh],
                                         llvm::divideCeil(4, laneGroups));
      tiles[*rootOh] = llvm::divideCeil(bounds[*rootOh], pieces);
    }
    config.workgroupTile = tiles;
    return config;
  }
  if ((loops->amxTiles || config.native == "amx") &&
      amxContractionOk(candidate->op, *loops, target))
    return amxConfig(config, *candidate, rootOp, bounds, *rootM, *rootN);
  SmallVector<int64_t> tiles(bounds.size(), 0);
  int64_t rowTile = std::max<int64_t>(rows, 64 / rows * rows);
  int64_t laneTile = std::max<int64_t>(lanes, 64 / lanes * lanes);
  if (wideGemm)
    laneTile = std::max<int64_t>(lanes, 256 / lanes * lanes);
  if (config.gatherB || widenedB || config.copyLanes) {
    // Every workgroup gathers (or widens, or copies) its own B panels, once
    // per K block and lane tile, for all of its rows: taller tiles (up to
    // 256 output channels) spread a gather over more FMAs, as long as at
    // least 4 workgroups remain for the cores. (f32 copies, Zen 3: 60-row
    // workgroups -> 258 made the 1024^3 matmul 37.4 -> 35.6 ms and
    // ResNet-50 171 -> 162 ms at 1 thread, unchanged at 2.)
    int64_t outer = 1;
    for (auto [i, it] : llvm::enumerate(rootOp.getIteratorTypesArray()))
      if (i != *rootM && i != *rootN && it == utils::IteratorType::parallel)
        outer *= bounds[i];
    auto groups = [&](int64_t rowsPerGroup) {
      return outer * llvm::divideCeil(bounds[*rootM], rowsPerGroup) *
             llvm::divideCeil(bounds[*rootN], laneTile);
    };
    int64_t tall = (int64_t)llvm::divideCeil(std::min<int64_t>(bounds[*rootM], 256),
                                    rows) * rows;
    while (tall > rowTile && groups(tall) < 4)
      tall = std::max<int64_t>(rowTile, llvm::divideCeil(tall / 2, rows) * rows);
    rowTile = std::max(rowTile, tall);
  }
  // Row gathers: workgroups of whole output rows (about 64 pixels), so
  // lane tiles never stop at a workgroup's edge mid-row; fewer rows per
  // workgroup where that makes a small odd workgroup count even (14x14:
  // 4 x 4 rows rather than 3 x 5), and no lane split below, which would
  // cut rows.
  if (rowGather) {
    int64_t ow = rowGather->output[1], oh = rowGather->output[0];
    int64_t rowsPer = std::max<int64_t>(1, (64 + ow / 2) / ow);
    for (int64_t r = rowsPer; r >= 1; --r) {
      int64_t count = llvm::divideCeil(oh, r);
      if (count >= 8 || count % 2 == 0) {
        rowsPer = r;
        break;
      }
    }
    laneTile = ow * rowsPer;
  }
  tiles[*rootM] = std::min(bounds[*rootM], rowTile);
  tiles[*rootN] = std::min(bounds[*rootN], laneTile);
  int64_t tiled = 2;
  for (auto [i, it] : llvm::enumerate(rootOp.getIteratorTypesArray())) {
    if (i == *rootM || i == *rootN || it != utils::IteratorType::parallel ||
        bounds[i] <= 1)
      continue;
    if (tiled < 3) {
      tiles[i] = 1;
      ++tiled;
    }
  }
  if (!loops->vectorPerRow && !rowGather)
    balanceContractionSplit(tiles, bounds, *rootM, *rootN, rows, lanes,
                            multiplyAccumulates(candidate->op),
                            /*splitRows=*/!config.packPanels && !config.gatherB);
  config.workgroupTile = tiles;
  return config;
}

void configureDispatches(ModuleOp module, const TargetChoice &target,
                         const ConfigOptions &options) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func->hasAttr("kiln.dispatch") || func->hasAttr(kLoweringConfigAttr))
      continue;
    func->setAttr(kLoweringConfigAttr,
                  chooseLoweringConfig(func, target, options)
                      .toAttr(module.getContext()));
  }
}

} // namespace mlir::kiln::cpu
