//===- ContractionKernel.cpp - Register-tiled contraction kernels ---------===//
//
// See ContractionKernel.h for the loop nest. The kernel is built by hand
// from vector ops rather than through linalg tiling + vectorization: the
// shapes here are fixed by the configuration, and writing the tile
// directly keeps the accumulators as loop-carried vector values (always in
// registers), gives partial tiles one masked body instead of scalar
// remainder loops, and works on any contraction generic (conv as GEMM,
// broadcast batch dims) through its indexing maps.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/cpu/ContractionKernel.h"

#include "compiler/targets/cpu/ChannelsLastPad.h"
#include "compiler/targets/cpu/ImplicitGemm.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

#include <functional>

namespace mlir::kiln::cpu {

namespace {

// How an operand enters the multiply: as it is, extended (`arith.extf` to
// f32, `arith.extsi` to i32), or, for i8, flipped to unsigned
// (`arith.extui(arith.xori(x, -128))`, the value x + 128).
struct OperandUse {
  Value value;
  bool flipped = false;
  unsigned ops = 0; // body ops on the way
};

OperandUse stripExtension(Value value) {
  if (auto ext = value.getDefiningOp<arith::ExtFOp>())
    return {ext.getIn(), false, 1};
  if (auto ext = value.getDefiningOp<arith::ExtSIOp>())
    return {ext.getIn(), false, 1};
  if (auto ext = value.getDefiningOp<arith::ExtUIOp>()) {
    auto flip = ext.getIn().getDefiningOp<arith::XOrIOp>();
    if (!flip || !ext.getIn().getType().isInteger(8))
      return {value, false, 0};
    for (auto [x, c] : {std::pair(flip.getLhs(), flip.getRhs()),
                        std::pair(flip.getRhs(), flip.getLhs())}) {
      APInt bits;
      if (matchPattern(c, m_ConstantInt(&bits)) && bits.isMinSignedValue()) {
        // The 0x80 constant counts as a body op when it is defined there.
        Operation *def = c.getDefiningOp();
        bool inBody = def && def->getBlock() == flip->getBlock();
        return {x, true, inBody ? 3u : 2u};
      }
    }
  }
  return {value, false, 0};
}

// out += a * b, in any operand order, where a and b may be extended first
// (16-bit floats to f32, i8 to i32, or A's i8 flipped to unsigned): the
// body of every contraction and convolution generic. Sets `flippedA` when
// the operand at `lhsHint` (0 or 1) is flipped; a flipped B is rejected
// later.
struct MultiplyAccumulate {
  bool integer = false;
  int flippedInput = -1; // block argument index of a flipped operand
};

std::optional<MultiplyAccumulate> matchMultiplyAccumulate(linalg::LinalgOp op) {
  Block &body = op->getRegion(0).front();
  if (body.getNumArguments() != 3)
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1)
    return std::nullopt;
  Operation *add = yield.getOperand(0).getDefiningOp();
  if (!isa_and_nonnull<arith::AddFOp, arith::AddIOp>(add))
    return std::nullopt;
  bool integer = isa<arith::AddIOp>(add);
  Value acc = body.getArgument(2);
  Value lhs = add->getOperand(0), rhs = add->getOperand(1);
  if ((lhs == acc) == (rhs == acc))
    return std::nullopt;
  Operation *mul = (lhs == acc ? rhs : lhs).getDefiningOp();
  if (!mul || (integer ? !isa<arith::MulIOp>(mul) : !isa<arith::MulFOp>(mul)))
    return std::nullopt;
  OperandUse x = stripExtension(mul->getOperand(0));
  OperandUse y = stripExtension(mul->getOperand(1));
  // Nothing else in the body: yield, add, mul and the extensions.
  if (body.getOperations().size() != 3 + x.ops + y.ops)
    return std::nullopt;
  Value a = body.getArgument(0), b = body.getArgument(1);
  if (!((x.value == a && y.value == b) || (x.value == b && y.value == a)))
    return std::nullopt;
  // Integer products must be exact: both operands widened to the
  // accumulator (no wrapping i8 multiply).
  if (integer && (!x.ops || !y.ops))
    return std::nullopt;
  if (x.flipped && y.flipped)
    return std::nullopt;
  MultiplyAccumulate result;
  result.integer = integer;
  if (x.flipped)
    result.flippedInput = x.value == a ? 0 : 1;
  if (y.flipped)
    result.flippedInput = y.value == a ? 0 : 1;
  return result;
}

// B's map in the packed layout: (k floordiv g, n, k mod g) with g = 2 or 4
// and k a single dim. Returns g and k.
std::optional<std::pair<int64_t, unsigned>> packedGroupOf(AffineMap map,
                                                          unsigned n) {
  if (map.getNumResults() != 3)
    return std::nullopt;
  auto lanes = dyn_cast<AffineDimExpr>(map.getResult(1));
  auto div = dyn_cast<AffineBinaryOpExpr>(map.getResult(0));
  auto mod = dyn_cast<AffineBinaryOpExpr>(map.getResult(2));
  if (!lanes || lanes.getPosition() != n || !div || !mod ||
      div.getKind() != AffineExprKind::FloorDiv ||
      mod.getKind() != AffineExprKind::Mod)
    return std::nullopt;
  auto k = dyn_cast<AffineDimExpr>(div.getLHS());
  auto k2 = dyn_cast<AffineDimExpr>(mod.getLHS());
  auto g = dyn_cast<AffineConstantExpr>(div.getRHS());
  auto g2 = dyn_cast<AffineConstantExpr>(mod.getRHS());
  if (!k || !k2 || !g || !g2 || k != k2 || g.getValue() != g2.getValue() ||
      (g.getValue() != 2 && g.getValue() != 4))
    return std::nullopt;
  return std::pair(g.getValue(), k.getPosition());
}

// B's map in the AMX tile-panel layout: (n floordiv 16, k floordiv g,
// n mod 16, k mod g) with g = 2 or 4 and k a single dim. Returns g and k.
std::optional<std::pair<int64_t, unsigned>> tilePanelOf(AffineMap map,
                                                        unsigned n) {
  if (map.getNumResults() != 4)
    return std::nullopt;
  auto part = [](AffineExpr e, AffineExprKind kind)
      -> std::optional<std::pair<unsigned, int64_t>> {
    auto bin = dyn_cast<AffineBinaryOpExpr>(e);
    if (!bin || bin.getKind() != kind)
      return std::nullopt;
    auto dim = dyn_cast<AffineDimExpr>(bin.getLHS());
    auto cst = dyn_cast<AffineConstantExpr>(bin.getRHS());
    if (!dim || !cst)
      return std::nullopt;
    return std::pair(dim.getPosition(), cst.getValue());
  };
  auto panel = part(map.getResult(0), AffineExprKind::FloorDiv);
  auto group = part(map.getResult(1), AffineExprKind::FloorDiv);
  auto column = part(map.getResult(2), AffineExprKind::Mod);
  auto inGroup = part(map.getResult(3), AffineExprKind::Mod);
  if (!panel || !group || !column || !inGroup || panel->first != n ||
      column->first != n || panel->second != 16 || column->second != 16 ||
      group->first != inGroup->first || group->first == n ||
      group->second != inGroup->second ||
      (group->second != 2 && group->second != 4))
    return std::nullopt;
  return std::pair(group->second, group->first);
}

// B's map in the lane-panel layout: (n floordiv P, k..., n mod P) with P a
// positive constant and k... one or more dims (a matmul's k; a
// channels-last convolution's kh, kw, c). Returns P and the k dims.
std::optional<std::pair<int64_t, SmallVector<unsigned>>>
lanePanelOf(AffineMap map, unsigned n) {
  if (map.getNumResults() < 3)
    return std::nullopt;
  auto div = dyn_cast<AffineBinaryOpExpr>(map.getResult(0));
  auto mod = dyn_cast<AffineBinaryOpExpr>(map.getResults().back());
  SmallVector<unsigned> ks;
  for (AffineExpr e : map.getResults().drop_front().drop_back()) {
    auto k = dyn_cast<AffineDimExpr>(e);
    if (!k || k.getPosition() == n)
      return std::nullopt;
    ks.push_back(k.getPosition());
  }
  if (!div || !mod || div.getKind() != AffineExprKind::FloorDiv ||
      mod.getKind() != AffineExprKind::Mod)
    return std::nullopt;
  auto lanes = dyn_cast<AffineDimExpr>(div.getLHS());
  auto lanes2 = dyn_cast<AffineDimExpr>(mod.getLHS());
  auto p = dyn_cast<AffineConstantExpr>(div.getRHS());
  auto p2 = dyn_cast<AffineConstantExpr>(mod.getRHS());
  if (!lanes || !lanes2 || lanes.getPosition() != n ||
      lanes2.getPosition() != n || !p || !p2 ||
      p.getValue() != p2.getValue() || p.getValue() < 1)
    return std::nullopt;
  return std::pair(p.getValue(), std::move(ks));
}

// The step `s` when `expr` is `s * d_n + (terms without d_n)` with s = 1
// (consecutive lanes read consecutive elements) or s = 2 (every other one:
// a stride-2 convolution's input columns).
std::optional<int64_t> laneStrideOf(AffineExpr expr, unsigned n,
                                    unsigned numDims) {
  if (!expr.isFunctionOfDim(n))
    return std::nullopt;
  AffineExpr dn = getAffineDimExpr(n, expr.getContext());
  for (int64_t stride : {1, 2}) {
    AffineExpr rest = simplifyAffineExpr(expr - dn * stride, numDims, 0);
    if (!rest.isFunctionOfDim(n))
      return stride;
  }
  return std::nullopt;
}

} // namespace

FailureOr<ContractionLoops> matchContraction(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return failure();
  std::optional<MultiplyAccumulate> mac = matchMultiplyAccumulate(op);
  if (!mac)
    return failure();
  // f32 accumulators with A and B both f32 or both the same 16-bit type;
  // or i32 accumulators with i8 operands.
  Type operandType = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
  Type accumulatorType = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  if (getElementTypeOrSelf(op.getDpsInputs()[1].getType()) != operandType)
    return failure();
  if (mac->integer) {
    if (!accumulatorType.isInteger(32) || !operandType.isInteger(8))
      return failure();
  } else if (!accumulatorType.isF32() ||
             !(operandType.isF32() || operandType.isBF16() ||
               operandType.isF16())) {
    return failure();
  }
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap outMap = maps[2];
  unsigned numLoops = op.getNumLoops();
  if (outMap.getNumResults() < 2 || !outMap.isProjectedPermutation())
    return failure();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  ContractionLoops loops;
  loops.operandType = operandType;
  loops.accumulatorType = accumulatorType;
  loops.n = cast<AffineDimExpr>(outMap.getResults().back()).getPosition();
  // B: the input whose innermost index moves with the lanes, one for one,
  // and no other index does; A must not depend on the lanes at all. A
  // packed B moves with the lanes in its middle index instead.
  auto lanesOperand = [&](AffineMap map) {
    if (map.getNumResults() == 0)
      return false;
    if (auto packed = packedGroupOf(map, loops.n)) {
      loops.kGroup = packed->first;
      return true;
    }
    if (auto panel = lanePanelOf(map, loops.n)) {
      loops.lanePanel = panel->first;
      return true;
    }
    if (auto tiles = tilePanelOf(map, loops.n)) {
      loops.kGroup = tiles->first;
      loops.amxTiles = true;
      return true;
    }
    std::optional<int64_t> stride =
        laneStrideOf(map.getResults().back(), loops.n, numLoops);
    if (!stride || llvm::any_of(map.getResults().drop_back(),
                                [&](AffineExpr e) {
                                  return e.isFunctionOfDim(loops.n);
                                }))
      return false;
    loops.laneStride = *stride;
    return true;
  };
  auto independentOfLanes = [&](AffineMap map) {
    return llvm::none_of(map.getResults(), [&](AffineExpr e) {
      return e.isFunctionOfDim(loops.n);
    });
  };
  if (lanesOperand(maps[1]) && independentOfLanes(maps[0])) {
    loops.lhs = 0;
    loops.rhs = 1;
  } else if (loops.kGroup = 1, loops.laneStride = 1, loops.lanePanel = 0,
             loops.amxTiles = false;
             lanesOperand(maps[0]) && independentOfLanes(maps[1])) {
    loops.lhs = 1;
    loops.rhs = 0;
  } else {
    return failure();
  }
  // Only A may be flipped, and only in front of a packed B (the kernels
  // that read it are the vpdpbusd ones).
  if (mac->flippedInput >= 0) {
    if (mac->flippedInput != static_cast<int>(loops.lhs) ||
        loops.kGroup != 4)
      return failure();
    loops.flippedA = true;
  }
  // Rows: the output's second-innermost dim.
  loops.m = cast<AffineDimExpr>(outMap.getResult(outMap.getNumResults() - 2))
                .getPosition();
  for (unsigned d = 0; d < numLoops; ++d) {
    if (iterators[d] == utils::IteratorType::reduction) {
      loops.reductions.push_back(d);
      continue;
    }
    if (d != loops.m && d != loops.n)
      loops.outer.push_back(d);
  }
  if (loops.reductions.empty())
    return failure();
  auto usesRows = [&](AffineMap map) {
    return llvm::any_of(map.getResults(), [&](AffineExpr e) {
      return e.isFunctionOfDim(loops.m);
    });
  };
  loops.scalarPerRow = usesRows(maps[loops.lhs]);
  loops.vectorPerRow = usesRows(maps[loops.rhs]);
  if (loops.lanePanel > 0) {
    // Lane panels: f32, the reduction dims (the panel's rows, outermost
    // first), B shared by all rows.
    if (!operandType.isF32() || loops.vectorPerRow || !loops.scalarPerRow ||
        lanePanelOf(maps[loops.rhs], loops.n)->second !=
            ArrayRef<unsigned>(loops.reductions))
      return failure();
  }
  if (loops.kGroup > 1) {
    // A packed B: one reduction dim (the grouped k), B shared by all rows,
    // and A's innermost index k itself (a group of A is contiguous).
    AffineMap aMap = maps[loops.lhs];
    AffineDimExpr aLast =
        aMap.getNumResults() ? dyn_cast<AffineDimExpr>(aMap.getResults().back())
                             : nullptr;
    unsigned groupedK = loops.amxTiles
                            ? tilePanelOf(maps[loops.rhs], loops.n)->second
                            : packedGroupOf(maps[loops.rhs], loops.n)->second;
    if (loops.reductions.size() != 1 || loops.vectorPerRow ||
        !loops.scalarPerRow || !aLast ||
        aLast.getPosition() != loops.reductions.front() ||
        groupedK != loops.reductions.front())
      return failure();
    // The packed layouts the kernels know: i8 quads (vpdpbusd with A
    // flipped to unsigned, or pmaddubsw with A signed), i8 pairs
    // (pmaddwd), bf16 pairs (vdpbf16ps).
    bool known = operandType.isInteger(8)
                     ? loops.kGroup == 4 ||
                           (loops.kGroup == 2 && !loops.flippedA)
                     : operandType.isBF16() && loops.kGroup == 2;
    // AMX tile panels: bf16 pairs or i8 quads of a signed A.
    if (loops.amxTiles)
      known = !loops.flippedA &&
              loops.kGroup == (operandType.isInteger(8) ? 4 : 2);
    if (!known)
      return failure();
  }
  return loops;
}

bool isChannelsLastConv(const ContractionLoops &loops, linalg::LinalgOp op) {
  return loops.operandType.isF32() && loops.reductions.size() == 3 &&
         op.getNumLoops() == 7 && loops.m == 2 && loops.n == 3 &&
         loops.scalarPerRow && !loops.vectorPerRow;
}

llvm::StringRef nativePath(const ContractionLoops &loops) {
  if (loops.amxTiles)
    return "amx";
  if (loops.kGroup == 4)
    return loops.flippedA ? "vnni" : "pmaddubsw";
  if (loops.kGroup == 2)
    return loops.operandType.isInteger(8) ? "pmaddwd" : "dpbf16";
  return loops.operandType.isF32() ? "" : "convert";
}

int64_t kGroupOf(llvm::StringRef path) {
  if (path == "vnni" || path == "pmaddubsw")
    return 4;
  if (path == "pmaddwd" || path == "dpbf16")
    return 2;
  return 1;
}

bool canPackPanels(const ContractionLoops &loops, linalg::LinalgOp op) {
  if (loops.kGroup != 1 || loops.lanePanel || loops.flippedA ||
      loops.laneStride != 1 || loops.reductions.size() != 1 ||
      loops.vectorPerRow ||
      !loops.scalarPerRow ||
      !(loops.operandType.isInteger(8) || loops.operandType.isBF16()))
    return false;
  AffineMap aMap = op.getIndexingMapsArray()[loops.lhs];
  auto aLast = aMap.getNumResults()
                   ? dyn_cast<AffineDimExpr>(aMap.getResults().back())
                   : nullptr;
  return aLast && aLast.getPosition() == loops.reductions.front();
}

bool copiesLanePanel(const ContractionLoops &loops) {
  return loops.operandType.isF32() && loops.accumulatorType.isF32() &&
         loops.kGroup == 1 && loops.lanePanel == 0 && loops.laneStride == 1 &&
         !loops.vectorPerRow && loops.scalarPerRow &&
         loops.reductions.size() == 1;
}

bool widensLanePanel(const ContractionLoops &loops) {
  return (loops.operandType.isF16() || loops.operandType.isBF16()) &&
         loops.accumulatorType.isF32() && loops.kGroup == 1 &&
         loops.laneStride == 1 && !loops.vectorPerRow &&
         loops.reductions.size() == 1;
}

Value interleaveVectors(OpBuilder &b, Location loc, Value v0, Value v1,
                        int64_t n, int64_t width) {
  SmallVector<int64_t> order;
  for (int64_t i = 0; i < n / width; ++i)
    for (int64_t j = 0; j < 2; ++j)
      for (int64_t w = 0; w < width; ++w)
        order.push_back(j * n + i * width + w);
  return vector::ShuffleOp::create(b, loc, v0, v1, order).getResult();
}

linalg::FillOp findFoldableFill(linalg::LinalgOp op, Value out) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev)) {
      if (fill.hasPureBufferSemantics() && fill.getDpsInits()[0] == out)
        return fill;
      return nullptr;
    }
    if (!isPure(prev))
      return nullptr;
  }
  return nullptr;
}

// Indices of an operand for the loop values `dims`.
SmallVector<Value> operandIndices(OpBuilder &b, Location loc, AffineMap map,
                                  ArrayRef<Value> dims) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      indices.push_back(dims[dim.getPosition()]);
    } else if (auto cst = dyn_cast<AffineConstantExpr>(expr)) {
      indices.push_back(arith::ConstantIndexOp::create(b, loc, cst.getValue()));
    } else {
      indices.push_back(affine::AffineApplyOp::create(
          b, loc, AffineMap::get(map.getNumDims(), 0, expr), dims));
    }
  }
  return indices;
}

namespace {

// The accumulators' start values: a splat of the fill value in the first K
// block when C was just filled (the fill is folded away), else C as
// `loadC` reads it.
SmallVector<Value>
startAccumulators(OpBuilder &builder, Location loc, linalg::FillOp fill,
                  Value firstBlock, VectorType accType, int64_t count,
                  function_ref<SmallVector<Value>(OpBuilder &, Location)> loadC) {
  if (!fill)
    return loadC(builder, loc);
  auto start = scf::IfOp::create(
      builder, loc, firstBlock,
      [&](OpBuilder &bb, Location bl) {
        Value splat = vector::BroadcastOp::create(bb, bl, accType,
                                                  fill.getDpsInputs()[0]);
        scf::YieldOp::create(bb, bl, SmallVector<Value>(count, splat));
      },
      [&](OpBuilder &bb, Location bl) {
        scf::YieldOp::create(bb, bl, loadC(bb, bl));
      });
  return SmallVector<Value>(start.getResults());
}


// The "convert" path's A (16-bit floats, one scalar per row, contiguous
// along its single reduction dim k): whether its rows can be widened to
// f32 once per row tile and K block (`widenRowPanel`) instead of once per
// FMA. Without it every k of every row costs a 16-bit scalar load, a
// scalar conversion and a broadcast next to the two FMAs it feeds, which
// made f16 and bf16 contractions slower than f32 ones on CPUs without
// native 16-bit arithmetic; with it the inner loop is the f32 one
// (broadcast loads of f32 A, folded into the FMAs).
bool widensRowPanel(const ContractionLoops &loops, AffineMap aMap,
                    Value a) {
  if (!(loops.operandType.isF16() || loops.operandType.isBF16()) ||
      !loops.accumulatorType.isF32() || loops.kGroup != 1 ||
      !loops.scalarPerRow || loops.reductions.size() != 1 ||
      !cast<MemRefType>(a.getType()).isLastDimUnitStride())
    return false;
  auto last = aMap.getNumResults()
                  ? dyn_cast<AffineDimExpr>(aMap.getResults().back())
                  : nullptr;
  return last && last.getPosition() == loops.reductions.front();
}

// Copies rows `readRows` of A, k in [k0, kEnd), into the f32 `panel`
// [rows][>= kEnd - k0 rounded up to `chunk`] (row i of the panel, or row
// `panelRows[i]` when given), extending `chunk` elements per instruction
// (vcvtph2ps for f16); the last partial chunk of a row goes element by
// element (no masked 16-bit loads, which LLVM may scalarize anyway).
void widenRowPanel(OpBuilder &b, Location loc, Value a, AffineMap aMap,
                   ArrayRef<Value> dims, const ContractionLoops &loops,
                   ArrayRef<Value> readRows, Value k0, Value kEnd,
                   Value panel, int64_t chunk,
                   ArrayRef<Value> panelRows = {}) {
  Type f32 = b.getF32Type();
  Type half = loops.operandType;
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value zero = index(0), one = index(1), step = index(chunk);
  Value length = arith::SubIOp::create(b, loc, kEnd, k0);
  // Whole chunks end at `length - length mod chunk`.
  Value wholeEnd = arith::SubIOp::create(
      b, loc, length, arith::RemUIOp::create(b, loc, length, step));
  auto halfType = VectorType::get({chunk}, half);
  auto wideType = VectorType::get({chunk}, f32);
  unsigned k = loops.reductions.front();
  for (auto [i, row] : llvm::enumerate(readRows)) {
    Value rowIndex =
        panelRows.empty() ? index(static_cast<int64_t>(i)) : panelRows[i];
    auto at = [&](OpBuilder &bb, Location bl, Value kk) {
      SmallVector<Value> point(dims);
      point[loops.m] = row;
      point[k] = arith::AddIOp::create(bb, bl, k0, kk);
      return operandIndices(bb, bl, aMap, point);
    };
    scf::ForOp::create(
        b, loc, zero, wholeEnd, step, ValueRange{},
        [&](OpBuilder &bb, Location bl, Value kk, ValueRange) {
          Value narrow =
              vector::LoadOp::create(bb, bl, halfType, a, at(bb, bl, kk));
          Value wide = arith::ExtFOp::create(bb, bl, wideType, narrow);
          vector::StoreOp::create(bb, bl, wide, panel,
                                  ValueRange{rowIndex, kk});
          scf::YieldOp::create(bb, bl);
        });
    scf::ForOp::create(
        b, loc, wholeEnd, length, one, ValueRange{},
        [&](OpBuilder &bb, Location bl, Value kk, ValueRange) {
          Value narrow = memref::LoadOp::create(bb, bl, a, at(bb, bl, kk));
          Value wide = arith::ExtFOp::create(bb, bl, f32, narrow);
          memref::StoreOp::create(bb, bl, wide, panel,
                                  ValueRange{rowIndex, kk});
          scf::YieldOp::create(bb, bl);
        });
  }
}

// Copies B[k, n0 : n0 + lanes] for k in [k0, kEnd) into the f32 `panel`
// [>= kEnd - k0][lanes], extended in registers when B is 16-bit; lanes
// past `validLanes` are zero (masked loads, only on the edge tile).
void widenLanePanel(OpBuilder &b, Location loc, Value bOperand, AffineMap bMap,
                    ArrayRef<Value> dims, const ContractionLoops &loops,
                    Value k0, Value kEnd, Value validLanes, Value whole,
                    Value panel, int64_t lanes) {
  Type half = loops.operandType;
  auto halfType = VectorType::get({lanes}, half);
  auto wideType = VectorType::get({lanes}, b.getF32Type());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  unsigned k = loops.reductions.front();
  auto fill = [&](OpBuilder &fb, Location fl, bool masked) {
    Value mask, zeros;
    if (masked) {
      mask = vector::CreateMaskOp::create(
          fb, fl, VectorType::get({lanes}, fb.getI1Type()),
          ValueRange{validLanes});
      zeros = arith::ConstantOp::create(
          fb, fl, halfType,
          DenseElementsAttr::get(halfType, fb.getFloatAttr(half, 0.0)));
    }
    scf::ForOp::create(
        fb, fl, k0, kEnd, one, ValueRange{},
        [&](OpBuilder &bb, Location bl, Value kk, ValueRange) {
          SmallVector<Value> point(dims);
          point[k] = kk;
          SmallVector<Value> at = operandIndices(bb, bl, bMap, point);
          Value narrow =
              masked ? vector::MaskedLoadOp::create(bb, bl, halfType,
                                                    bOperand, at, mask, zeros)
                           .getResult()
                     : vector::LoadOp::create(bb, bl, halfType, bOperand, at)
                           .getResult();
          Value wide = half.isF32() ? narrow
                                    : arith::ExtFOp::create(bb, bl, wideType,
                                                            narrow)
                                          .getResult();
          vector::StoreOp::create(
              bb, bl, wide, panel,
              ValueRange{arith::SubIOp::create(bb, bl, kk, k0), zero});
          scf::YieldOp::create(bb, bl);
        });
  };
  scf::IfOp::create(
      b, loc, whole,
      [&](OpBuilder &bb, Location bl) {
        fill(bb, bl, false);
        scf::YieldOp::create(bb, bl);
      },
      [&](OpBuilder &bb, Location bl) {
        fill(bb, bl, true);
        scf::YieldOp::create(bb, bl);
      });
}
// The panel of a row gather (`gather_b = "rows"`): `panel`[q][j] =
// X[n, c, ih, iw] for im2col column kFirst + q = (c, kh, kw) and output
// pixel (oh, ow0 + j), zero in the padding. The tile lies inside output row
// `oh`, so every panel row reads one run of the input row ih = oh * sh -
// pad_top + kh * dh from column iw0 = ow0 * sw - pad_left + kw * dw: one
// masked load of lanes * sw elements (the even ones taken at sw = 2), the
// mask the columns inside [0, W) and empty when ih is outside the plane.
// (c, kh, kw) advance by carries, without divisions; addresses stay
// integers until the load, since a masked-off run may start before the
// input (top-left padding). Lanes past the tile's valid ones load real
// input or zeros and are never stored.
void fillRowGatherPanel(OpBuilder &b, Location loc, const ConvGather &geo,
                        Value address, int64_t channels, int64_t height,
                        int64_t width, Value batch, Value kFirst,
                        Value rowCount, Value oh, Value ow0, int64_t lanes,
                        Value panel) {
  int64_t sw = geo.strides[1], kernelH = geo.kernel[0],
          kernelW = geo.kernel[1];
  int64_t window = kernelH * kernelW, runLanes = lanes * sw;
  Type i32 = b.getI32Type(), i64 = b.getI64Type(), f32 = b.getF32Type();
  auto cst = [&](OpBuilder &bb, Location bl, int64_t v) {
    return arith::ConstantIndexOp::create(bb, bl, v).getResult();
  };
  auto cst64 = [&](OpBuilder &bb, Location bl, int64_t v) {
    return arith::ConstantOp::create(bb, bl, bb.getI64IntegerAttr(v))
        .getResult();
  };
  Value zero = cst(b, loc, 0), one = cst(b, loc, 1);
  Value channel0 = arith::DivUIOp::create(b, loc, kFirst, cst(b, loc, window));
  Value r0 = arith::RemUIOp::create(b, loc, kFirst, cst(b, loc, window));
  Value kh0 = arith::DivUIOp::create(b, loc, r0, cst(b, loc, kernelW));
  Value kw0 = arith::RemUIOp::create(b, loc, r0, cst(b, loc, kernelW));
  Value plane0 = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, batch,
                            cst(b, loc, channels * height * width)),
      arith::MulIOp::create(b, loc, channel0, cst(b, loc, height * width)));
  Value planeBytes0 = arith::AddIOp::create(
      b, loc, address,
      arith::MulIOp::create(b, loc, arith::IndexCastOp::create(b, loc, i64, plane0),
                            cst64(b, loc, 4)));
  Value ihBase = arith::SubIOp::create(
      b, loc, arith::MulIOp::create(b, loc, oh, cst(b, loc, geo.strides[0])),
      cst(b, loc, geo.pads[0]));
  Value iwBase = arith::SubIOp::create(
      b, loc, arith::MulIOp::create(b, loc, ow0, cst(b, loc, sw)),
      cst(b, loc, geo.pads[1]));
  auto runType = VectorType::get({runLanes}, i32);
  auto maskType = VectorType::get({runLanes}, b.getI1Type());
  auto loadType = VectorType::get({runLanes}, f32);
  SmallVector<int32_t> iotaValues;
  for (int64_t j = 0; j < runLanes; ++j)
    iotaValues.push_back(j);
  Value iota = arith::ConstantOp::create(
      b, loc, runType,
      DenseElementsAttr::get(runType, ArrayRef<int32_t>(iotaValues)));
  Value widthV = arith::ConstantOp::create(
      b, loc, runType,
      DenseElementsAttr::get(runType, b.getI32IntegerAttr(width)));
  Value noLanes = arith::ConstantOp::create(
      b, loc, maskType, DenseElementsAttr::get(maskType, b.getBoolAttr(false)));
  Value zeros = arith::ConstantOp::create(
      b, loc, loadType, DenseElementsAttr::get(loadType, b.getF32FloatAttr(0)));
  SmallVector<int64_t> evens;
  for (int64_t j = 0; j < lanes; ++j)
    evens.push_back(j * sw);
  scf::ForOp::create(
      b, loc, zero, rowCount, one, ValueRange{planeBytes0, kh0, kw0},
      [&](OpBuilder &bb, Location bl, Value q, ValueRange carried) {
        Value planeBytes = carried[0], kh = carried[1], kw = carried[2];
        Value ih = arith::AddIOp::create(
            bb, bl, ihBase,
            arith::MulIOp::create(bb, bl, kh, cst(bb, bl, geo.dilations[0])));
        Value iw0 = arith::AddIOp::create(
            bb, bl, iwBase,
            arith::MulIOp::create(bb, bl, kw, cst(bb, bl, geo.dilations[1])));
        // Negative positions compare as huge unsigned values.
        Value rowInside = arith::CmpIOp::create(
            bb, bl, arith::CmpIPredicate::ult, ih, cst(bb, bl, height));
        Value columns = arith::AddIOp::create(
            bb, bl,
            vector::BroadcastOp::create(
                bb, bl, runType, arith::IndexCastOp::create(bb, bl, i32, iw0)),
            iota);
        Value mask = arith::SelectOp::create(
            bb, bl, rowInside,
            arith::CmpIOp::create(bb, bl, arith::CmpIPredicate::ult, columns,
                                  widthV),
            noLanes);
        Value element = arith::AddIOp::create(
            bb, bl, arith::MulIOp::create(bb, bl, ih, cst(bb, bl, width)), iw0);
        Value ptr = LLVM::IntToPtrOp::create(
            bb, bl, LLVM::LLVMPointerType::get(bb.getContext()),
            arith::AddIOp::create(
                bb, bl, planeBytes,
                arith::MulIOp::create(
                    bb, bl, arith::IndexCastOp::create(bb, bl, i64, element),
                    cst64(bb, bl, 4)))
                .getResult());
        Value run = LLVM::MaskedLoadOp::create(bb, bl, loadType, ptr, mask,
                                               zeros, bb.getI32IntegerAttr(4));
        if (sw != 1)
          run = vector::ShuffleOp::create(bb, bl, run, run, evens);
        vector::StoreOp::create(bb, bl, run, panel, ValueRange{q, zero});
        // The next column: (c, kh, kw + 1), carried into kh and the next
        // channel's plane.
        Value nextW = arith::AddIOp::create(bb, bl, kw, one);
        Value wrapW = arith::CmpIOp::create(bb, bl, arith::CmpIPredicate::eq,
                                            nextW, cst(bb, bl, kernelW));
        Value nextH = arith::SelectOp::create(
            bb, bl, wrapW, arith::AddIOp::create(bb, bl, kh, one), kh);
        Value wrapH = arith::CmpIOp::create(bb, bl, arith::CmpIPredicate::eq,
                                            nextH, cst(bb, bl, kernelH));
        scf::YieldOp::create(
            bb, bl,
            ValueRange{
                arith::SelectOp::create(
                    bb, bl, wrapH,
                    arith::AddIOp::create(bb, bl, planeBytes,
                                          cst64(bb, bl, 4 * height * width)),
                    planeBytes),
                arith::SelectOp::create(bb, bl, wrapH, zero, nextH),
                arith::SelectOp::create(bb, bl, wrapW, zero, nextW)});
      });
}
// fillRowGatherPanel for a K block of whole windows (every block starts at
// a channel's first column and holds whole channels): what depends only on
// the tile is computed once per tile, outside the channel loop: per kh
// whether the input row is inside the plane and its byte offset, per kw
// the run's column mask. A channel is then KH x KW unrolled panel rows of
// one masked load each (at stride 2 plus the even-element shuffle) at a
// constant offset from the row's address, or zeros for a row outside the
// plane; no per-row arithmetic but the address add.
void fillRowGatherPanelWindows(OpBuilder &b, Location loc,
                               const ConvGather &geo, Value address,
                               int64_t channels, int64_t height,
                               int64_t width, Value batch, Value kFirst,
                               Value rowCount, Value oh, Value ow0,
                               int64_t lanes, Value panel) {
  int64_t sw = geo.strides[1], kernelH = geo.kernel[0],
          kernelW = geo.kernel[1];
  int64_t window = kernelH * kernelW, runLanes = lanes * sw;
  Type i32 = b.getI32Type(), i64 = b.getI64Type(), f32 = b.getF32Type();
  auto cst = [&](OpBuilder &bb, Location bl, int64_t v) {
    return arith::ConstantIndexOp::create(bb, bl, v).getResult();
  };
  auto cst64 = [&](OpBuilder &bb, Location bl, int64_t v) {
    return arith::ConstantOp::create(bb, bl, bb.getI64IntegerAttr(v))
        .getResult();
  };
  auto toI64 = [&](OpBuilder &bb, Location bl, Value v) {
    return arith::IndexCastOp::create(bb, bl, i64, v).getResult();
  };
  Value zero = cst(b, loc, 0), one = cst(b, loc, 1);
  Value channel0 = arith::DivUIOp::create(b, loc, kFirst, cst(b, loc, window));
  Value blockChannels =
      arith::DivUIOp::create(b, loc, rowCount, cst(b, loc, window));
  Value plane0 = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, batch,
                            cst(b, loc, channels * height * width)),
      arith::MulIOp::create(b, loc, channel0, cst(b, loc, height * width)));
  Value planeBytes0 = arith::AddIOp::create(
      b, loc, address,
      arith::MulIOp::create(b, loc, toI64(b, loc, plane0), cst64(b, loc, 4)));
  Value ihBase = arith::SubIOp::create(
      b, loc, arith::MulIOp::create(b, loc, oh, cst(b, loc, geo.strides[0])),
      cst(b, loc, geo.pads[0]));
  Value iwBase = arith::SubIOp::create(
      b, loc, arith::MulIOp::create(b, loc, ow0, cst(b, loc, sw)),
      cst(b, loc, geo.pads[1]));
  auto runType = VectorType::get({runLanes}, i32);
  auto loadType = VectorType::get({runLanes}, f32);
  auto rowType = VectorType::get({lanes}, f32);
  SmallVector<int32_t> iotaValues;
  for (int64_t j = 0; j < runLanes; ++j)
    iotaValues.push_back(j);
  Value iota = arith::ConstantOp::create(
      b, loc, runType,
      DenseElementsAttr::get(runType, ArrayRef<int32_t>(iotaValues)));
  Value widthV = arith::ConstantOp::create(
      b, loc, runType,
      DenseElementsAttr::get(runType, b.getI32IntegerAttr(width)));
  Value loadZeros = arith::ConstantOp::create(
      b, loc, loadType, DenseElementsAttr::get(loadType, b.getF32FloatAttr(0)));
  Value rowZeros = arith::ConstantOp::create(
      b, loc, rowType, DenseElementsAttr::get(rowType, b.getF32FloatAttr(0)));
  SmallVector<int64_t> evens;
  for (int64_t j = 0; j < lanes; ++j)
    evens.push_back(j * sw);
  // Per kh: the row inside the plane (negative rows compare as huge
  // unsigned values) and the byte offset of its run at kw = 0.
  SmallVector<Value> rowInside, rowBytes;
  for (int64_t kh = 0; kh < kernelH; ++kh) {
    Value ih = arith::AddIOp::create(b, loc, ihBase,
                                     cst(b, loc, kh * geo.dilations[0]));
    rowInside.push_back(arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ult, ih, cst(b, loc, height)));
    rowBytes.push_back(arith::MulIOp::create(
        b, loc,
        toI64(b, loc,
              arith::AddIOp::create(
                  b, loc, arith::MulIOp::create(b, loc, ih, cst(b, loc, width)),
                  iwBase)),
        cst64(b, loc, 4)));
  }
  // Per kw: the run's columns iw0 + j inside [0, W).
  SmallVector<Value> columnMasks;
  for (int64_t kw = 0; kw < kernelW; ++kw) {
    Value iw0 = arith::AddIOp::create(b, loc, iwBase,
                                      cst(b, loc, kw * geo.dilations[1]));
    Value columns = arith::AddIOp::create(
        b, loc,
        vector::BroadcastOp::create(b, loc, runType,
                                    arith::IndexCastOp::create(b, loc, i32, iw0)),
        iota);
    columnMasks.push_back(arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ult, columns, widthV));
  }
  scf::ForOp::create(
      b, loc, zero, blockChannels, one, ValueRange{planeBytes0},
      [&](OpBuilder &bb, Location bl, Value c, ValueRange carried) {
        Value planeBytes = carried[0];
        Value first = arith::MulIOp::create(bb, bl, c, cst(bb, bl, window));
        for (int64_t kh = 0; kh < kernelH; ++kh) {
          auto storeRow = [&](OpBuilder &sb, Location sl, int64_t kw,
                              Value row) {
            Value q = arith::AddIOp::create(sb, sl, first,
                                            cst(sb, sl, kh * kernelW + kw));
            vector::StoreOp::create(sb, sl, row, panel,
                                    ValueRange{q, cst(sb, sl, 0)});
          };
          scf::IfOp::create(
              bb, bl, rowInside[kh],
              [&](OpBuilder &tb, Location tl) {
                Value rowAddress =
                    arith::AddIOp::create(tb, tl, planeBytes, rowBytes[kh]);
                for (int64_t kw = 0; kw < kernelW; ++kw) {
                  Value ptr = LLVM::IntToPtrOp::create(
                      tb, tl, LLVM::LLVMPointerType::get(tb.getContext()),
                      arith::AddIOp::create(
                          tb, tl, rowAddress,
                          cst64(tb, tl, 4 * kw * geo.dilations[1]))
                          .getResult());
                  Value run = LLVM::MaskedLoadOp::create(
                      tb, tl, loadType, ptr, columnMasks[kw], loadZeros,
                      tb.getI32IntegerAttr(4));
                  if (sw != 1)
                    run = vector::ShuffleOp::create(tb, tl, run, run, evens);
                  storeRow(tb, tl, kw, run);
                }
                scf::YieldOp::create(tb, tl);
              },
              [&](OpBuilder &eb, Location el) {
                for (int64_t kw = 0; kw < kernelW; ++kw)
                  storeRow(eb, el, kw, rowZeros);
                scf::YieldOp::create(eb, el);
              });
        }
        scf::YieldOp::create(
            bb, bl,
            ValueRange{arith::AddIOp::create(
                bb, bl, planeBytes, cst64(bb, bl, 4 * height * width))});
      });
}
} // namespace

LogicalResult emitContractionKernel(RewriterBase &rewriter, linalg::LinalgOp op,
                                    int64_t rows, int64_t lanes, int64_t kTile,
                                    int64_t vectorBits, StringRef panelPath,
                                    bool gatherB, bool gatherRows,
                                    bool copyLanes) {
  if (!op.hasPureBufferSemantics())
    return op.emitOpError("register tiles need bufferized operands");
  FailureOr<ContractionLoops> loops = matchContraction(op);
  if (failed(loops))
    return op.emitOpError("is not a contraction the register-tiled kernel "
                          "handles (f32 multiply-add of f32, bf16 or f16 "
                          "operands or i32 multiply-add of i8 operands, "
                          "output lanes "
                          "contiguous in one operand and absent from the "
                          "other)");
  if (loops->amxTiles)
    return op.emitOpError("reads B packed in AMX tile panels, which only "
                          "the 'amx' path (AmxKernel.h) reads");
  Value a = op.getDpsInputOperand(loops->lhs)->get();
  Value b = op.getDpsInputOperand(loops->rhs)->get();
  Value c = op.getDpsInitOperand(0)->get();
  for (Value lanesOperand : {b, c})
    if (!cast<MemRefType>(lanesOperand.getType()).isLastDimUnitStride())
      return op.emitOpError("needs unit-stride lanes for register tiles");
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap aMap = maps[loops->lhs], bMap = maps[loops->rhs], cMap = maps[2];

  Location loc = op.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  linalg::FillOp fill = findFoldableFill(op, c);

  // The accumulators' element type: f32, or i32 for integer contractions.
  Type f32 = loops->accumulatorType;
  bool integer = isa<IntegerType>(f32);
  auto zeroOf = [&](Type type) -> TypedAttr {
    if (integer || isa<IntegerType>(type))
      return rewriter.getIntegerAttr(type, 0);
    return rewriter.getFloatAttr(type, 0.0);
  };
  // A packed B needs whole groups per K block and whole registers per tile.
  // B is packed by the data tiling (constant B, kGroup > 1) or, with a
  // panel path, here, one panel at a time.
  bool panels = !panelPath.empty();
  if (panels) {
    if (kGroupOf(panelPath) == 1 || !canPackPanels(*loops, op))
      return op.emitOpError("cannot pack B panels for the '")
             << panelPath
             << "' path (needs i8 or bf16 operands matching the path, an "
                "unpacked B with contiguous lanes shared by all rows, one "
                "reduction dim and A contiguous along it)";
    bool matches = loops->operandType.isInteger(8) ? panelPath != "dpbf16"
                                                   : panelPath == "dpbf16";
    if (!matches)
      return op.emitOpError("the '")
             << panelPath << "' path does not take "
             << loops->operandType << " operands";
    // A * sign(B) wraps for an A byte of -128, and the kernel cannot see
    // A's bytes: only kiln-cpu-pack-weights, which reads the constant
    // filter, may vouch for them. A hand-set config must not give a silent
    // wrong answer.
    if (panelPath == "pmaddubsw" && !op->hasAttr(kNarrowLhsAttr))
      return op.emitOpError("the 'pmaddubsw' path needs an A known to hold "
                            "no -128 (the kiln.narrow_lhs mark that "
                            "kiln-cpu-pack-weights sets after reading a "
                            "constant A)");
  }
  int64_t group = panels ? kGroupOf(panelPath) : loops->kGroup;
  StringRef path = panels ? panelPath : nativePath(*loops);
  // vpdpbusd multiplies unsigned by signed bytes: A is read as a + 128.
  bool flipA = loops->flippedA || (panels && path == "vnni");
  int64_t chunk = std::max<int64_t>(vectorBits / 32, 4);
  if (group > 1) {
    if (kTile % group != 0)
      return op.emitOpError("K blocks of a packed B must hold whole groups of ")
             << group << ", got reduction_tile " << kTile;
    if (lanes % chunk != 0)
      return op.emitOpError("register tile lanes (")
             << lanes << ") must be a multiple of the " << chunk
             << " lanes of one vector register for the native path";
    if (!cast<MemRefType>(a.getType()).isLastDimUnitStride())
      return op.emitOpError("needs a unit-stride A along k for packed B");
    // vpsignb has no 512-bit form: the path is AVX2's.
    if (path == "pmaddubsw" && chunk != 8)
      return op.emitOpError("the 'pmaddubsw' path needs 256-bit vectors, "
                            "got ")
             << vectorBits;
  }
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  Value zero = index(0), one = index(1);
  SmallVector<Value> sizes;
  for (Range range : op.createLoopRanges(rewriter, loc))
    sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, range.size));
  SmallVector<Value> dims(op.getNumLoops(), zero);

  // A packed B tile [K/g][cols][g] read as rows of cols * g contiguous
  // elements: one vector load per k group covers every lane of the tile.
  Value bFlat;
  std::optional<int64_t> staticK =
      getConstantIntValue(sizes[loops->reductions.front()]);
  if ((group > 1 || gatherB) && !staticK)
    return op.emitOpError("needs a static K for packed or gathered B");
  // A gathered B: the columns' gather generic (left unfused by workgroup
  // tiling), the conv input it reads as one flat run, and where this
  // tile's slice of the columns starts.
  struct ColumnGather {
    ConvGather geometry;
    Value input; // memref<N*C*H*W x f32>
    Value address; // its first element's address, i64
    int64_t channels, height, width;
    SmallVector<Value> offsets; // into [N, C*KH*KW, OH*OW]
  };
  std::optional<ColumnGather> gather;
  if (gatherB) {
    auto slice = b.getDefiningOp<memref::SubViewOp>();
    Value columns = slice ? slice.getSource() : b;
    std::optional<ConvGather> geometry;
    for (Operation *user : columns.getUsers()) {
      auto generic = dyn_cast<linalg::GenericOp>(user);
      if (generic && generic.getNumDpsInits() == 1 &&
          generic.getDpsInits()[0] == columns)
        geometry = ConvGather::read(generic);
    }
    auto func = op->getParentOfType<func::FuncOp>();
    if (!geometry || !func ||
        geometry->input >= static_cast<int64_t>(func.getNumArguments()))
      return op.emitOpError("gather_b: B is not a slice of im2col columns "
                            "written by a kiln.conv_gather generic");
    Value input = func.getArgument(geometry->input);
    auto inputType = dyn_cast<MemRefType>(input.getType());
    auto columnsType = cast<MemRefType>(columns.getType());
    if (!inputType || inputType.getRank() != 4 ||
        !inputType.getLayout().isIdentity() || !inputType.hasStaticShape() ||
        inputType.getElementType() != loops->operandType ||
        columnsType.getRank() != 3 ||
        (slice && !llvm::all_of(slice.getStaticStrides(),
                                [](int64_t s) { return s == 1; })))
      return op.emitOpError("gather_b: needs an f32 [N, C, H, W] input and "
                            "[N, C*K, P] columns");
    ColumnGather g{*geometry, Value(), Value(), inputType.getDimSize(1),
                   inputType.getDimSize(2), inputType.getDimSize(3), {}};
    g.input = memref::CollapseShapeOp::create(
        rewriter, loc, input, ArrayRef<ReassociationIndices>{{0, 1, 2, 3}});
    g.address = arith::IndexCastOp::create(
        rewriter, loc, rewriter.getI64Type(),
        memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc, input));
    if (slice)
      for (OpFoldResult offset : slice.getMixedOffsets())
        g.offsets.push_back(
            getValueOrCreateConstantIndexOp(rewriter, loc, offset));
    else
      g.offsets.assign(3, arith::ConstantIndexOp::create(rewriter, loc, 0));
    gather = std::move(g);
    if (gatherRows && geometry->strides[1] != 1 && geometry->strides[1] != 2)
      return op.emitOpError("gather_b = \"rows\" reads each lane tile as "
                            "one run of the input and needs a column stride "
                            "of 1 or 2, got ")
             << geometry->strides[1];
  } else if (gatherRows) {
    return op.emitOpError("gather_b = \"rows\" needs a gathered B");
  }
  // A read through a channels-last convolution's folded pad
  // (ChannelsLastPad.h): the padded tensor is never written. The kernel
  // reads the unpadded input X; each output row's kh loop covers only the
  // filter rows inside the plane, and the tile rows whose pixels can reach
  // past the left or right edge (known from the shapes: a 3x3 conv's first
  // and last pixel of a row) read zero there.
  struct PaddedA {
    Value input;                // X: memref<N x H x W x C>
    SmallVector<Value> offsets; // the tile's slice of the padded tensor
    int64_t top = 0, left = 0, height = 0, width = 0;
    int64_t hDilation = 1;      // kh's coefficient in A's row index
    SmallVector<bool> edgeRows; // tile rows that can fall in the padding
  };
  std::optional<PaddedA> paddedA;
  if (std::optional<FoldedPadWriter> writer =
          foldedPadWriter(a, kChannelsLastPadAttr)) {
    memref::SubViewOp slice = writer->slice;
    const FoldedPad *pad = &writer->pad;
    auto func = op->getParentOfType<func::FuncOp>();
    MLIRContext *ctx = op.getContext();
    unsigned numLoops = op.getNumLoops();
    // (c1, c2) when `e` is c1 * d_i + c2 * d_j with c1, c2 >= 1 and no
    // other term.
    auto linearIn = [&](AffineExpr e, unsigned i, unsigned j)
        -> std::optional<std::pair<int64_t, int64_t>> {
      auto at = [&](unsigned dim) {
        SmallVector<AffineExpr> values;
        for (unsigned d = 0; d < numLoops; ++d)
          values.push_back(getAffineConstantExpr(d == dim ? 1 : 0, ctx));
        auto folded = dyn_cast<AffineConstantExpr>(simplifyAffineExpr(
            e.replaceDimsAndSymbols(values, {}), 0, 0));
        return folded ? folded.getValue() : INT64_MIN;
      };
      int64_t ci = at(i), cj = at(j);
      if (ci < 1 || cj < 1)
        return std::nullopt;
      AffineExpr rest = simplifyAffineExpr(
          e - getAffineDimExpr(i, ctx) * ci - getAffineDimExpr(j, ctx) * cj,
          numLoops, 0);
      auto zero = dyn_cast<AffineConstantExpr>(rest);
      if (!zero || zero.getValue() != 0)
        return std::nullopt;
      return std::pair(ci, cj);
    };
    auto input =
        func && pad->input < static_cast<int64_t>(func.getNumArguments())
            ? func.getArgument(pad->input)
            : Value();
    auto inputType = input ? dyn_cast<MemRefType>(input.getType()) : nullptr;
    std::optional<std::pair<int64_t, int64_t>> hIndex, wIndex;
    if (aMap.getNumResults() == 4 && isChannelsLastConv(*loops, op)) {
      hIndex = linearIn(aMap.getResult(1), 1, loops->reductions[0]);
      wIndex = linearIn(aMap.getResult(2), loops->m, loops->reductions[1]);
    }
    std::optional<int64_t> staticRows = getConstantIntValue(sizes[loops->m]);
    std::optional<int64_t> staticKw =
        getConstantIntValue(sizes[loops->reductions[1]]);
    if (!inputType || inputType.getRank() != 4 ||
        !inputType.hasStaticShape() || !inputType.getLayout().isIdentity() ||
        panels || gatherB || !hIndex ||
        !wIndex || !staticRows || !staticKw ||
        (slice && !llvm::all_of(slice.getStaticStrides(),
                                [](int64_t s) { return s == 1; })))
      return op.emitOpError("reads A through a kiln.channels_last_pad "
                            "generic but is not the f32 channels-last "
                            "convolution the kernel reads unpadded "
                            "(loops (n, oh, ow, m, kh, kw, c), A at (n, "
                            "oh * s + kh * d, ow * s + kw * d, c))");
    PaddedA p;
    p.input = input;
    p.top = pad->top;
    p.left = pad->left;
    p.height = inputType.getDimSize(1);
    p.width = inputType.getDimSize(2);
    p.hDilation = hIndex->second;
    if (slice)
      for (OpFoldResult offset : slice.getMixedOffsets())
        p.offsets.push_back(
            getValueOrCreateConstantIndexOp(rewriter, loc, offset));
    else
      p.offsets.assign(4, arith::ConstantIndexOp::create(rewriter, loc, 0));
    // Rows whose pixel can lie left of the plane (ow * s < left) or
    // right of it for some kw (ow * s + (KW - 1) * d - left >= W), for
    // every row tile start m0 (multiples of `rows`) and a workgroup
    // whose columns start at 0; any other start: every row.
    std::optional<int64_t> columnOffset = getConstantIntValue(
        slice ? slice.getMixedOffsets()[2] : OpFoldResult(rewriter.getIndexAttr(0)));
    int64_t ws = wIndex->first, wd = wIndex->second;
    int64_t lastStart = (*staticRows - 1) / rows * rows;
    for (int64_t i = 0; i < rows; ++i) {
      int64_t firstOw = i, lastOw = std::min(lastStart + i, *staticRows - 1);
      bool edge = !columnOffset || *columnOffset != 0 ||
                  firstOw * ws < p.left ||
                  lastOw * ws + (*staticKw - 1) * wd - p.left >= p.width;
      p.edgeRows.push_back(edge);
    }
    paddedA = std::move(p);
  }
  // A panel of B packed by the kernel: [kc / g][lanes * g], plus (vnni)
  // 128 * its column sums, one i32 per lane. Both are stack scratch that
  // dies within the kernel (hoisted to the entry block by scratch
  // planning).
  Value panel, panelSums;
  int64_t panelGroups = 0;
  if (panels) {
    int64_t blockK = kTile > 0 ? std::min(kTile, *staticK) : *staticK;
    panelGroups = (blockK + group - 1) / group;
    panel = memref::AllocaOp::create(
        rewriter, loc,
        MemRefType::get({panelGroups, lanes * group}, loops->operandType),
        /*alignment=*/rewriter.getI64IntegerAttr(64));
    if (flipA)
      panelSums = memref::AllocaOp::create(
          rewriter, loc, MemRefType::get({lanes}, rewriter.getI32Type()),
          rewriter.getI64IntegerAttr(64));
    bFlat = panel;
  } else if (gatherB) {
    if (!loops->operandType.isF32() || loops->laneStride != 1 ||
        loops->reductions.size() != 1 || loops->vectorPerRow)
      return op.emitOpError("gathers B from a convolution's input only for "
                            "f32 contractions with one reduction dim and "
                            "contiguous lanes shared by all rows");
    int64_t blockK = kTile > 0 ? std::min(kTile, *staticK) : *staticK;
    panel = memref::AllocaOp::create(
        rewriter, loc, MemRefType::get({blockK, lanes}, loops->operandType),
        /*alignment=*/rewriter.getI64IntegerAttr(64));
  } else if (group > 1) {
    // Workgroup tiling sizes B's slice through its map, which gets the
    // extent of `k mod g` wrong when K is not a multiple of g (it
    // evaluates the expression at K - 1); the tile needs whole groups, so
    // it is cut again from the whole packed B at the same column offset.
    Value packedB = b;
    if (auto slice = b.getDefiningOp<memref::SubViewOp>()) {
      auto source = cast<MemRefType>(slice.getSource().getType());
      SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
      SmallVector<OpFoldResult> tileSizes = slice.getMixedSizes();
      if (source.getRank() != 3 || tileSizes.size() != 3 ||
          source.isDynamicDim(0) || source.isDynamicDim(2))
        return op.emitOpError("needs a packed B of rank 3");
      offsets[0] = rewriter.getIndexAttr(0);
      offsets[2] = rewriter.getIndexAttr(0);
      tileSizes[0] = rewriter.getIndexAttr(source.getDimSize(0));
      tileSizes[2] = rewriter.getIndexAttr(source.getDimSize(2));
      packedB = memref::SubViewOp::create(
          rewriter, loc, slice.getSource(), offsets, tileSizes,
          SmallVector<OpFoldResult>(3, rewriter.getIndexAttr(1)));
    }
    if (cast<MemRefType>(packedB.getType()).getDimSize(2) != group)
      return op.emitOpError("needs packed B groups of ") << group;
    bFlat = memref::CollapseShapeOp::create(
        rewriter, loc, packedB, ArrayRef<ReassociationIndices>{{0}, {1, 2}});
  }
  // B in lane panels (DataTiling.h): workgroup tiling sliced it through
  // (n floordiv P, k, n mod P), which drops the workgroup's first column
  // mod P, so the tile reads the whole packed B instead, at global columns
  // `laneBase` (that first column, recovered from the slice's panel
  // offset) + n. Vectors of up to P lanes start at multiples of their
  // size there (lanes are a power of two times the vector width, and so
  // are the workgroup's columns), so none straddles two panels.
  Value laneBase;
  if (int64_t p = loops->lanePanel) {
    if (panels || gatherB)
      return op.emitOpError("B is packed in lane panels already and cannot "
                            "be packed or gathered by the kernel");
    if (lanes % p != 0 && p % lanes != 0)
      return op.emitOpError("register tile lanes (")
             << lanes << ") must divide or be a multiple of B's lane panels ("
             << p << ")";
    laneBase = zero;
    if (auto slice = b.getDefiningOp<memref::SubViewOp>()) {
      auto source = cast<MemRefType>(slice.getSource().getType());
      if (source.getRank() != 2 + static_cast<int64_t>(
                                      loops->reductions.size()) ||
          !source.hasStaticShape())
        return op.emitOpError("needs a lane-panel B of rank ")
               << 2 + loops->reductions.size();
      OpFoldResult offset = slice.getMixedOffsets()[0];
      std::optional<int64_t> constant = getConstantIntValue(offset);
      if (constant && *constant == 0) {
        laneBase = zero;
      } else {
        // The slice's panel offset is `column floordiv P`, column >= 0.
        auto apply = dyn_cast_if_present<affine::AffineApplyOp>(
            dyn_cast_if_present<Value>(offset)
                ? cast<Value>(offset).getDefiningOp()
                : nullptr);
        AffineMap map = apply ? apply.getAffineMap() : AffineMap();
        auto div = map && map.getNumResults() == 1
                       ? dyn_cast<AffineBinaryOpExpr>(map.getResult(0))
                       : nullptr;
        auto divisor =
            div ? dyn_cast<AffineConstantExpr>(div.getRHS()) : nullptr;
        std::optional<unsigned> position;
        if (auto dim = div ? dyn_cast<AffineDimExpr>(div.getLHS()) : nullptr)
          position = dim.getPosition();
        if (auto sym = div ? dyn_cast<AffineSymbolExpr>(div.getLHS()) : nullptr)
          position = map.getNumDims() + sym.getPosition();
        if (!div || div.getKind() != AffineExprKind::FloorDiv || !divisor ||
            divisor.getValue() != p || !position)
          return op.emitOpError("cannot find the first column of the "
                                "workgroup's slice of lane-panel B");
        laneBase = apply.getMapOperands()[*position];
      }
      b = slice.getSource();
    }
  }
  // A widened to f32 once per row tile and K block (widensRowPanel), when
  // its panel fits in 32 KiB of stack. Where the workgroup has several
  // lane tiles, every one of them would widen the same rows again: the
  // whole workgroup's rows are widened once per K block instead, before
  // the lane tiles, when that panel fits in 64 KiB (`groupPanel`; bf16
  // FFN matmuls of bert_encoder, 128 or 66 rows x 4 lane tiles, widened
  // each row 4 times).
  Value aPanel;
  bool groupPanel = false;
  std::optional<int64_t> staticM = getConstantIntValue(sizes[loops->m]);
  std::optional<int64_t> staticN = getConstantIntValue(sizes[loops->n]);
  int64_t blockK =
      staticK ? (kTile > 0 ? std::min(kTile, *staticK) : *staticK) : 0;
  if (!panels && !gather && staticK &&
      widensRowPanel(*loops, aMap, a)) {
    int64_t rowBytes = llvm::alignTo(blockK, chunk) * 4;
    groupPanel = staticM && staticN && *staticN > lanes && *staticM > rows &&
                 *staticM * rowBytes <= 64 * 1024;
    if (groupPanel || rows * rowBytes <= 32 * 1024)
      aPanel = memref::AllocaOp::create(
          rewriter, loc,
          MemRefType::get({groupPanel ? *staticM : rows, rowBytes / 4},
                          rewriter.getF32Type()),
          /*alignment=*/rewriter.getI64IntegerAttr(64));
  }
  // B widened to f32 once per K block and n tile (widensLanePanel) when
  // the workgroup has several row tiles to share it and the panel fits in
  // 32 KiB of stack; or, f32, copied as it is (`pack_b = "lanes"`).
  Value bPanel;
  if (copyLanes) {
    if (panels || gatherB || !staticK || !copiesLanePanel(*loops))
      return op.emitOpError("pack_b = \"lanes\" copies a computed f32 B "
                            "with contiguous lanes shared by all rows, one "
                            "reduction dim and a static K, not packed or "
                            "gathered otherwise");
    if (blockK * lanes * 4 > 32 * 1024)
      return op.emitOpError("pack_b = \"lanes\": a K block of ")
             << blockK << " x " << lanes
             << " lanes exceeds the 32 KiB panel (set a smaller "
                "reduction_tile)";
  }
  if (copyLanes || (!panels && !gather && staticK && staticM &&
                    *staticM > rows && widensLanePanel(*loops) &&
                    blockK * lanes * 4 <= 32 * 1024))
    bPanel = memref::AllocaOp::create(
        rewriter, loc, MemRefType::get({blockK, lanes}, rewriter.getF32Type()),
        /*alignment=*/rewriter.getI64IntegerAttr(64));
  for (unsigned d : loops->outer) {
    auto loop = scf::ForOp::create(rewriter, loc, zero, sizes[d], one);
    rewriter.setInsertionPointToStart(loop.getBody());
    dims[d] = loop.getInductionVar();
  }
  // K blocks outermost: the B sub-panel of one block (kTile x lanes) stays
  // in L1 while every row tile of the workgroup passes over it.
  Value kSize = sizes[loops->reductions.front()];
  Value kStep = kTile > 0 ? index(kTile) : kSize;
  auto kBlocks = scf::ForOp::create(rewriter, loc, zero, kSize, kStep);
  rewriter.setInsertionPointToStart(kBlocks.getBody());
  Value k0 = kBlocks.getInductionVar();
  Value kEnd = arith::MinSIOp::create(
      rewriter, loc, kSize, arith::AddIOp::create(rewriter, loc, k0, kStep));
  Value firstBlock = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::eq, k0, zero);
  if (aPanel && groupPanel)
    scf::ForOp::create(
        rewriter, loc, zero, sizes[loops->m], one, ValueRange{},
        [&](OpBuilder &bb, Location bl, Value m, ValueRange) {
          SmallVector<Value, 1> row = {m};
          widenRowPanel(bb, bl, a, aMap, dims, *loops, row, k0, kEnd, aPanel,
                        chunk, row);
          scf::YieldOp::create(bb, bl);
        });
  Value n0, validLanes, rowOfTile, rowStart;
  if (gatherRows) {
    // Lane tiles stop at the end of each output row: a tile covers
    // min(lanes, what is left of its row, of the workgroup) pixels.
    int64_t ow = gather->geometry.output[1];
    Type indexType = rewriter.getIndexType();
    auto walk = scf::WhileOp::create(
        rewriter, loc, TypeRange{indexType}, ValueRange{zero},
        [&](OpBuilder &bb, Location bl, ValueRange args) {
          scf::ConditionOp::create(
              bb, bl,
              arith::CmpIOp::create(bb, bl, arith::CmpIPredicate::slt,
                                    args[0], sizes[loops->n]),
              args);
        },
        [&](OpBuilder &bb, Location bl, ValueRange args) {
          n0 = args[0];
          dims[loops->n] = n0;
          SmallVector<Value> at = operandIndices(bb, bl, bMap, dims);
          Value pixel = arith::AddIOp::create(bb, bl, at[2],
                                              gather->offsets[2]);
          Value owIndex = arith::ConstantIndexOp::create(bb, bl, ow);
          rowOfTile = arith::DivUIOp::create(bb, bl, pixel, owIndex);
          rowStart = arith::RemUIOp::create(bb, bl, pixel, owIndex);
          validLanes = arith::MinSIOp::create(
              bb, bl,
              arith::MinSIOp::create(
                  bb, bl, arith::ConstantIndexOp::create(bb, bl, lanes),
                  arith::SubIOp::create(bb, bl, owIndex, rowStart)),
              arith::SubIOp::create(bb, bl, sizes[loops->n], n0));
          scf::YieldOp::create(
              bb, bl, ValueRange{arith::AddIOp::create(bb, bl, n0, validLanes)
                                     .getResult()});
        });
    rewriter.setInsertionPoint(walk.getAfterBody()->getTerminator());
  } else {
    auto nLoop = scf::ForOp::create(rewriter, loc, zero, sizes[loops->n],
                                    index(lanes));
    rewriter.setInsertionPointToStart(nLoop.getBody());
    n0 = nLoop.getInductionVar();
    dims[loops->n] = n0;
    validLanes = arith::MinSIOp::create(
        rewriter, loc, index(lanes),
        arith::SubIOp::create(rewriter, loc, sizes[loops->n], n0));
  }
  Value whole = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                      validLanes, index(lanes));
  if (gather && gatherRows) {
    SmallVector<Value> at = operandIndices(rewriter, loc, bMap, dims);
    // K blocks of whole windows (the lowering config's choice for row
    // gathers; K itself is channels x window) let the window unroll.
    int64_t window =
        gather->geometry.kernel[0] * gather->geometry.kernel[1];
    bool wholeWindows = (kTile <= 0 || kTile % window == 0) &&
                        *staticK % window == 0 && window <= 64;
    (wholeWindows ? fillRowGatherPanelWindows : fillRowGatherPanel)(
        rewriter, loc, gather->geometry, gather->address, gather->channels,
        gather->height, gather->width,
        arith::AddIOp::create(rewriter, loc, at[0], gather->offsets[0]),
        arith::AddIOp::create(
            rewriter, loc, k0,
            arith::AddIOp::create(rewriter, loc, at[1], gather->offsets[1])),
        arith::SubIOp::create(rewriter, loc, kEnd, k0), rowOfTile, rowStart,
        lanes, panel);
  } else if (gather) {
    // Gather this K block's panel of B from the conv input once for every
    // row tile below: panel[q][j] = X[n, c, ih, iw] for column k0 + q =
    // (c, kh, kw) and output pixel p0 + j = (oh, ow), with ih = oh * sh -
    // pad_top + kh * dh and iw likewise; zero in the padding (unsigned
    // compares: negative positions are huge) and past the valid lanes.
    // Per lane the pixel's (oh * sh - pad_top, ow * sw - pad_left) is
    // computed once per tile; per k row only two vector adds, the bounds
    // compares and one masked gather remain.
    const ConvGather &geo = gather->geometry;
    Type i32 = rewriter.getI32Type();
    auto laneType = VectorType::get({lanes}, i32);
    auto splat = [&](OpBuilder &bb, Location bl, Value v) {
      if (v.getType().isIndex())
        v = arith::IndexCastOp::create(bb, bl, i32, v);
      return vector::BroadcastOp::create(bb, bl, laneType, v).getResult();
    };
    auto splatConst = [&](OpBuilder &bb, Location bl, int64_t v) {
      return arith::ConstantOp::create(
                 bb, bl, laneType,
                 DenseElementsAttr::get(laneType, bb.getI32IntegerAttr(v)))
          .getResult();
    };
    SmallVector<Value> at = operandIndices(rewriter, loc, bMap, dims);
    Value batch = arith::AddIOp::create(rewriter, loc, at[0],
                                        gather->offsets[0]);
    Value pixel0 = arith::AddIOp::create(rewriter, loc, at[2],
                                         gather->offsets[2]);
    SmallVector<int32_t> iotaValues;
    for (int64_t j = 0; j < lanes; ++j)
      iotaValues.push_back(j);
    Value iota = arith::ConstantOp::create(
        rewriter, loc, laneType,
        DenseElementsAttr::get(laneType, ArrayRef<int32_t>(iotaValues)));
    Value pixels =
        arith::AddIOp::create(rewriter, loc, splat(rewriter, loc, pixel0), iota);
    Value oh = arith::DivUIOp::create(rewriter, loc, pixels,
                                      splatConst(rewriter, loc, geo.output[1]));
    Value ow = arith::RemUIOp::create(rewriter, loc, pixels,
                                      splatConst(rewriter, loc, geo.output[1]));
    Value rowBase = arith::SubIOp::create(
        rewriter, loc,
        arith::MulIOp::create(rewriter, loc, oh,
                              splatConst(rewriter, loc, geo.strides[0])),
        splatConst(rewriter, loc, geo.pads[0]));
    Value colBase = arith::SubIOp::create(
        rewriter, loc,
        arith::MulIOp::create(rewriter, loc, ow,
                              splatConst(rewriter, loc, geo.strides[1])),
        splatConst(rewriter, loc, geo.pads[1]));
    Value laneMask = vector::CreateMaskOp::create(
        rewriter, loc, VectorType::get({lanes}, rewriter.getI1Type()),
        ValueRange{validLanes});
    Value heightV = splatConst(rewriter, loc, gather->height);
    Value widthV = splatConst(rewriter, loc, gather->width);
    auto rowType = VectorType::get({lanes}, loops->operandType);
    Value rowZeros = arith::ConstantOp::create(
        rewriter, loc, rowType,
        DenseElementsAttr::get(rowType, zeroOf(loops->operandType)));
    // First plane of this batch entry in the flat input.
    Value planeSize = index(gather->height * gather->width);
    Value batchBase = arith::MulIOp::create(
        rewriter, loc, batch, index(gather->channels * gather->height *
                                    gather->width));
    int64_t window = geo.kernel[0] * geo.kernel[1];
    // Unit and 2x column strides read each output row's run of the tile
    // with one masked load; other strides gather lane by lane.
    bool segmented = geo.strides[1] == 1 || geo.strides[1] == 2;
    struct Segment {
      Value begin, end;      // lanes of the tile in this output row
      Value rowBase, colBase; // oh * sh - pad_top, ow_begin * sw - pad_left
    };
    SmallVector<Segment> segments;
    Value noLanes, wideZeros;
    VectorType wideRowType;
    SmallVector<int64_t> interleaved, evens;
    if (segmented) {
      int64_t ow = geo.output[1];
      Value oh0 = arith::DivUIOp::create(rewriter, loc, pixel0, index(ow));
      Value ow0 = arith::RemUIOp::create(rewriter, loc, pixel0, index(ow));
      Value firstRun = arith::SubIOp::create(rewriter, loc, index(ow), ow0);
      int64_t count = 1 + llvm::divideCeil(lanes - 1, ow);
      for (int64_t i = 0; i < count; ++i) {
        Segment seg;
        auto laneOf = [&](int64_t rows) -> Value {
          if (rows < 0)
            return zero;
          return arith::MinSIOp::create(
              rewriter, loc, validLanes,
              arith::AddIOp::create(rewriter, loc, firstRun,
                                    index(rows * ow)));
        };
        seg.begin = laneOf(i - 1);
        seg.end = laneOf(i);
        Value oh = arith::AddIOp::create(rewriter, loc, oh0, index(i));
        seg.rowBase = arith::SubIOp::create(
            rewriter, loc,
            arith::MulIOp::create(rewriter, loc, oh, index(geo.strides[0])),
            index(geo.pads[0]));
        Value owBegin = i == 0 ? ow0 : zero;
        seg.colBase = arith::SubIOp::create(
            rewriter, loc,
            arith::MulIOp::create(rewriter, loc, owBegin,
                                  index(geo.strides[1])),
            index(geo.pads[1]));
        segments.push_back(seg);
      }
      if (geo.strides[1] == 2) {
        auto maskType = VectorType::get({lanes}, rewriter.getI1Type());
        noLanes = arith::ConstantOp::create(
            rewriter, loc, maskType,
            DenseElementsAttr::get(maskType, rewriter.getBoolAttr(false)));
        wideRowType = VectorType::get({2 * lanes}, loops->operandType);
        wideZeros = arith::ConstantOp::create(
            rewriter, loc, wideRowType,
            DenseElementsAttr::get(wideRowType, zeroOf(loops->operandType)));
        for (int64_t j = 0; j < lanes; ++j) {
          interleaved.push_back(j);
          interleaved.push_back(lanes + j);
          evens.push_back(2 * j);
        }
      }
    }
    if (segmented) {
      // Per (kh, kw) and segment, once per tile: the lanes [lo, hi) that
      // fall inside the input and the element offset of lane 0 within a
      // channel's plane. Per k row only (c, r = kh * KW + kw) advance; each
      // segment is then two table loads, the lane-range mask and one masked
      // load (sw = 1) or a double-width one and the even elements (sw = 2).
      // Addresses stay integers until the load, so masked-off lanes before
      // the input's start (top-left padding) form no out-of-bounds pointer
      // arithmetic.
      int64_t sw = geo.strides[1];
      int64_t count = static_cast<int64_t>(segments.size());
      int64_t entries = window * count;
      Type i64 = rewriter.getI64Type();
      Value laneRanges = memref::AllocaOp::create(
          rewriter, loc, MemRefType::get({entries, 2}, i32),
          rewriter.getI64IntegerAttr(64));
      Value firstElements = memref::AllocaOp::create(
          rewriter, loc, MemRefType::get({entries}, i64),
          rewriter.getI64IntegerAttr(64));
      scf::ForOp::create(
          rewriter, loc, zero, index(window), one, ValueRange{},
          [&](OpBuilder &bb, Location bl, Value r, ValueRange) {
            auto cst = [&](int64_t v) {
              return arith::ConstantIndexOp::create(bb, bl, v).getResult();
            };
            Value kh = arith::DivUIOp::create(bb, bl, r, cst(geo.kernel[1]));
            Value kw = arith::RemUIOp::create(bb, bl, r, cst(geo.kernel[1]));
            for (auto [i, seg] : llvm::enumerate(segments)) {
              Value ih = arith::AddIOp::create(
                  bb, bl, seg.rowBase,
                  arith::MulIOp::create(bb, bl, kh, cst(geo.dilations[0])));
              Value rowOk = arith::CmpIOp::create(
                  bb, bl, arith::CmpIPredicate::ult, ih, cst(gather->height));
              Value iwStart = arith::AddIOp::create(
                  bb, bl, seg.colBase,
                  arith::MulIOp::create(bb, bl, kw, cst(geo.dilations[1])));
              Value skip = arith::MaxSIOp::create(
                  bb, bl, zero,
                  arith::CeilDivSIOp::create(
                      bb, bl, arith::SubIOp::create(bb, bl, zero, iwStart),
                      cst(sw)));
              Value inRow = arith::MaxSIOp::create(
                  bb, bl, zero,
                  arith::CeilDivSIOp::create(
                      bb, bl,
                      arith::SubIOp::create(bb, bl, cst(gather->width),
                                            iwStart),
                      cst(sw)));
              Value lo = arith::AddIOp::create(bb, bl, seg.begin, skip);
              Value hi = arith::MinSIOp::create(
                  bb, bl, seg.end,
                  arith::AddIOp::create(bb, bl, seg.begin, inRow));
              hi = arith::SelectOp::create(bb, bl, rowOk, hi, lo);
              // Lane 0's element: ih * W + iwStart - begin * sw.
              Value first = arith::SubIOp::create(
                  bb, bl,
                  arith::AddIOp::create(
                      bb, bl,
                      arith::MulIOp::create(bb, bl, ih, cst(gather->width)),
                      iwStart),
                  arith::MulIOp::create(bb, bl, seg.begin, cst(sw)));
              Value entry = arith::AddIOp::create(
                  bb, bl, arith::MulIOp::create(bb, bl, r, cst(count)),
                  cst(i));
              memref::StoreOp::create(
                  bb, bl, arith::IndexCastOp::create(bb, bl, i32, lo),
                  laneRanges, ValueRange{entry, zero});
              memref::StoreOp::create(
                  bb, bl, arith::IndexCastOp::create(bb, bl, i32, hi),
                  laneRanges, ValueRange{entry, one});
              memref::StoreOp::create(
                  bb, bl, arith::IndexCastOp::create(bb, bl, i64, first),
                  firstElements, ValueRange{entry});
            }
            scf::YieldOp::create(bb, bl);
          });
      Value kFirst = arith::AddIOp::create(
          rewriter, loc, k0,
          arith::AddIOp::create(rewriter, loc, at[1], gather->offsets[1]));
      Value channel0 = arith::DivUIOp::create(rewriter, loc, kFirst,
                                              index(window));
      Value r0 = arith::RemUIOp::create(rewriter, loc, kFirst, index(window));
      Value plane0 = arith::AddIOp::create(
          rewriter, loc, batchBase,
          arith::MulIOp::create(rewriter, loc, channel0, planeSize));
      Value planeBytes0 = arith::AddIOp::create(
          rewriter, loc, gather->address,
          arith::MulIOp::create(
              rewriter, loc, arith::IndexCastOp::create(rewriter, loc, i64, plane0),
              arith::ConstantOp::create(rewriter, loc,
                                        rewriter.getI64IntegerAttr(4))));
      Value four = arith::ConstantOp::create(rewriter, loc,
                                             rewriter.getI64IntegerAttr(4));
      Value planeStep = arith::ConstantOp::create(
          rewriter, loc,
          rewriter.getI64IntegerAttr(4 * gather->height * gather->width));
      scf::ForOp::create(
          rewriter, loc, zero, arith::SubIOp::create(rewriter, loc, kEnd, k0),
          one, ValueRange{planeBytes0, r0},
          [&](OpBuilder &bb, Location bl, Value q, ValueRange carried) {
            Value planeAddress = carried[0], r = carried[1];
            Value row = rowZeros;
            Value base = arith::MulIOp::create(
                bb, bl, r, arith::ConstantIndexOp::create(bb, bl, count));
            for (int64_t i = 0; i < count; ++i) {
              Value entry = arith::AddIOp::create(
                  bb, bl, base, arith::ConstantIndexOp::create(bb, bl, i));
              Value lo = memref::LoadOp::create(bb, bl, laneRanges,
                                                ValueRange{entry, zero});
              Value hi = memref::LoadOp::create(bb, bl, laneRanges,
                                                ValueRange{entry, one});
              Value mask = arith::AndIOp::create(
                  bb, bl,
                  arith::CmpIOp::create(bb, bl, arith::CmpIPredicate::sge,
                                        iota, splat(bb, bl, lo)),
                  arith::CmpIOp::create(bb, bl, arith::CmpIPredicate::slt,
                                        iota, splat(bb, bl, hi)));
              Value first = memref::LoadOp::create(bb, bl, firstElements,
                                                   ValueRange{entry});
              Value ptr = LLVM::IntToPtrOp::create(
                  bb, bl, LLVM::LLVMPointerType::get(bb.getContext()),
                  arith::AddIOp::create(
                      bb, bl, planeAddress,
                      arith::MulIOp::create(bb, bl, first, four))
                      .getResult());
              if (sw == 1) {
                row = LLVM::MaskedLoadOp::create(bb, bl, rowType, ptr, mask,
                                                 row, bb.getI32IntegerAttr(4));
              } else {
                Value wideMask = vector::ShuffleOp::create(bb, bl, mask,
                                                           noLanes, interleaved);
                Value wide = LLVM::MaskedLoadOp::create(
                    bb, bl, wideRowType, ptr, wideMask, wideZeros,
                    bb.getI32IntegerAttr(4));
                Value even =
                    vector::ShuffleOp::create(bb, bl, wide, wide, evens);
                row = arith::SelectOp::create(bb, bl, mask, even, row);
              }
            }
            vector::StoreOp::create(bb, bl, row, panel, ValueRange{q, zero});
            // The next column: (c, r + 1), or the next channel's plane.
            Value next = arith::AddIOp::create(bb, bl, r, one);
            Value wrap = arith::CmpIOp::create(
                bb, bl, arith::CmpIPredicate::eq, next,
                arith::ConstantIndexOp::create(bb, bl, window));
            Value nextPlane = arith::SelectOp::create(
                bb, bl, wrap,
                arith::AddIOp::create(bb, bl, planeAddress, planeStep),
                planeAddress);
            Value nextR = arith::SelectOp::create(bb, bl, wrap, zero, next);
            scf::YieldOp::create(bb, bl, ValueRange{nextPlane, nextR});
          });
    } else {
    scf::ForOp::create(
        rewriter, loc, zero, arith::SubIOp::create(rewriter, loc, kEnd, k0),
        one, ValueRange{},
        [&](OpBuilder &bb, Location bl, Value q, ValueRange) {
          Value k = arith::AddIOp::create(
              bb, bl, arith::AddIOp::create(bb, bl, k0, q),
              arith::AddIOp::create(bb, bl, at[1], gather->offsets[1]));
          auto cst = [&](int64_t v) {
            return arith::ConstantIndexOp::create(bb, bl, v).getResult();
          };
          Value c = arith::DivUIOp::create(bb, bl, k, cst(window));
          Value r = arith::RemUIOp::create(bb, bl, k, cst(window));
          Value kh = arith::DivUIOp::create(bb, bl, r, cst(geo.kernel[1]));
          Value kw = arith::RemUIOp::create(bb, bl, r, cst(geo.kernel[1]));
          Value plane = arith::AddIOp::create(
              bb, bl, batchBase, arith::MulIOp::create(bb, bl, c, planeSize));
          Value row;
          {
          Value ih = arith::AddIOp::create(
              bb, bl, rowBase,
              splat(bb, bl,
                    arith::MulIOp::create(bb, bl, kh, cst(geo.dilations[0]))));
          Value iw = arith::AddIOp::create(
              bb, bl, colBase,
              splat(bb, bl,
                    arith::MulIOp::create(bb, bl, kw, cst(geo.dilations[1]))));
          Value inside = arith::AndIOp::create(
              bb, bl,
              arith::AndIOp::create(
                  bb, bl,
                  arith::CmpIOp::create(bb, bl, arith::CmpIPredicate::ult, ih,
                                        heightV),
                  arith::CmpIOp::create(bb, bl, arith::CmpIPredicate::ult, iw,
                                        widthV)),
              laneMask);
          Value offsets = arith::AddIOp::create(
              bb, bl, arith::MulIOp::create(bb, bl, ih, widthV), iw);
          row = vector::GatherOp::create(
              bb, bl, rowType, gather->input, ValueRange{plane}, offsets,
              inside, rowZeros);
          }
          vector::StoreOp::create(bb, bl, row, panel, ValueRange{q, zero});
          scf::YieldOp::create(bb, bl);
        });
    }
  }
  if (panels) {
    // Pack this K block's panel of B once for every row tile below:
    // panel[q][n * g + j] = B[k0 + q * g + j][n0 + n], zero past K and
    // past the valid lanes (so no garbage, NaN in bf16, meets A's zeroed
    // tail). For vnni, also 128 * the column sums of the panel (one
    // vpdpbusd of 0x80 bytes per register), which the row tiles subtract.
    Type operand = loops->operandType;
    unsigned kDim = loops->reductions.front();
    bool byteRowsUnmasked = operand.isInteger(8) && chunk == 8;
    auto rowType = VectorType::get({lanes}, operand);
    auto rowMaskType = VectorType::get({lanes}, rewriter.getI1Type());
    Value rowZeros = arith::ConstantOp::create(
        rewriter, loc, rowType, DenseElementsAttr::get(rowType, zeroOf(operand)));
    Value blockGroups = arith::DivUIOp::create(
        rewriter, loc,
        arith::AddIOp::create(rewriter, loc,
                              arith::SubIOp::create(rewriter, loc, kEnd, k0),
                              index(group - 1)),
        index(group));
    auto sumType = VectorType::get({chunk}, rewriter.getI32Type());
    auto byteType = VectorType::get({chunk * 4}, rewriter.getI8Type());
    int64_t sumChunks = lanes / chunk;
    SmallVector<Value> sumsInit;
    Value ones128;
    if (panelSums) {
      Value zeroSum = arith::ConstantOp::create(
          rewriter, loc, sumType,
          DenseElementsAttr::get(sumType, rewriter.getI32IntegerAttr(0)));
      sumsInit.assign(sumChunks, zeroSum);
      ones128 = arith::ConstantOp::create(
          rewriter, loc, byteType,
          DenseElementsAttr::get(byteType, rewriter.getI8IntegerAttr(-128)));
    }
    auto interleave = interleaveVectors;
    auto pack = scf::ForOp::create(
        rewriter, loc, zero, blockGroups, one, sumsInit,
        [&](OpBuilder &bb, Location bl, Value q, ValueRange sums) {
          Value kq = arith::AddIOp::create(
              bb, bl, k0, arith::MulIOp::create(bb, bl, q, index(group)));
          SmallVector<Value> groupRows;
          for (int64_t j = 0; j < group; ++j) {
            Value k = arith::AddIOp::create(bb, bl, kq, index(j));
            Value inside = arith::CmpIOp::create(
                bb, bl, arith::CmpIPredicate::slt, k, kEnd);
            SmallVector<Value> point(dims);
            point[kDim] = arith::SelectOp::create(bb, bl, inside, k, k0);
            Value count =
                arith::SelectOp::create(bb, bl, inside, validLanes, zero);
            SmallVector<Value> at = operandIndices(bb, bl, bMap, point);
            auto maskedRow = [&](OpBuilder &mb, Location ml) {
              return vector::MaskedLoadOp::create(
                         mb, ml, rowType, b, at,
                         vector::CreateMaskOp::create(mb, ml, rowMaskType,
                                                      ValueRange{count}),
                         rowZeros)
                  .getResult();
            };
            if (!byteRowsUnmasked) {
              groupRows.push_back(maskedRow(bb, bl));
              continue;
            }
            // AVX2 has no byte-masked load (LLVM tests and inserts every
            // byte): a whole row is one plain load.
            Value whole = arith::CmpIOp::create(
                bb, bl, arith::CmpIPredicate::eq, count, index(lanes));
            groupRows.push_back(
                scf::IfOp::create(
                    bb, bl, whole,
                    [&](OpBuilder &tb, Location tl) {
                      scf::YieldOp::create(
                          tb, tl,
                          vector::LoadOp::create(tb, tl, rowType, b, at)
                              .getResult());
                    },
                    [&](OpBuilder &eb, Location el) {
                      scf::YieldOp::create(eb, el, maskedRow(eb, el));
                    })
                    .getResult(0));
          }
          Value packed =
              interleave(bb, bl, groupRows[0], groupRows[1], lanes, 1);
          if (group == 4)
            packed = interleave(
                bb, bl, packed,
                interleave(bb, bl, groupRows[2], groupRows[3], lanes, 1),
                2 * lanes, 2);
          vector::StoreOp::create(bb, bl, packed, panel,
                                  ValueRange{q, zero});
          SmallVector<Value> next;
          for (int64_t c = 0; c < static_cast<int64_t>(sums.size()); ++c) {
            Value piece = vector::ExtractStridedSliceOp::create(
                bb, bl, packed, ArrayRef<int64_t>{c * chunk * 4},
                ArrayRef<int64_t>{chunk * 4}, ArrayRef<int64_t>{1});
            next.push_back(
                LLVM::CallIntrinsicOp::create(
                    bb, bl, sumType,
                    bb.getStringAttr(chunk == 16
                                         ? "llvm.x86.avx512.vpdpbusd.512"
                                         : "llvm.x86.avx512.vpdpbusd.256"),
                    ValueRange{sums[c], ones128, piece})
                    .getResult(0));
          }
          scf::YieldOp::create(bb, bl, next);
        });
    for (int64_t c = 0; c < static_cast<int64_t>(sumsInit.size()); ++c)
      vector::StoreOp::create(rewriter, loc, pack.getResult(c), panelSums,
                              ValueRange{index(c * chunk)});
  }
  if (bPanel)
    widenLanePanel(rewriter, loc, b, bMap, dims, *loops, k0, kEnd,
                   validLanes, whole, bPanel, lanes);
  auto mLoop = scf::ForOp::create(rewriter, loc, zero, sizes[loops->m],
                                  index(rows));
  rewriter.setInsertionPointToStart(mLoop.getBody());
  Value m0 = mLoop.getInductionVar();
  Value validRows = arith::MinSIOp::create(
      rewriter, loc, index(rows),
      arith::SubIOp::create(rewriter, loc, sizes[loops->m], m0));
  // Rows past the edge read the last valid row again (in bounds, results
  // discarded), so the inner loop has no per-row conditions. Where M is a
  // static multiple of the row tile every tile is whole and rows are read
  // at m0 + i: constant offsets from one address, which LLVM folds into
  // the broadcasts' displacements, where clamped rows each held a pointer
  // register (8 on AVX-512, with the loop bound and a row pointer then
  // reloaded from the stack at every k step of the 1024^3 matmul).
  bool allRowsWhole = staticM && *staticM % rows == 0;
  Value lastRow = arith::SubIOp::create(rewriter, loc, validRows, one);
  SmallVector<Value> readRows;
  for (int64_t i = 0; i < rows; ++i)
    readRows.push_back(arith::AddIOp::create(
        rewriter, loc, m0,
        i == 0 || allRowsWhole
            ? index(i)
            : arith::MinSIOp::create(rewriter, loc, index(i), lastRow)
                  .getResult()));
  SmallVector<Value> rowIndex;
  for (int64_t i = 0; i < rows; ++i)
    rowIndex.push_back(index(i));

  // One register tile of `width` lanes: start the accumulators, run the k
  // loop of this K block, store the valid rows. Masked tiles load and
  // store only the valid lanes.
  // A and B in 16 bits are loaded as they are stored and extended to f32
  // in registers (half the bytes of an f32 load; the FMAs stay f32).
  Type operandType = loops->operandType;
  // i8 operands are sign-extended to the i32 accumulators likewise.
  auto toF32 = [&](OpBuilder &bb, Location bl, Value v) -> Value {
    if (operandType == f32)
      return v;
    Type type = f32;
    if (auto vector = dyn_cast<VectorType>(v.getType()))
      type = vector.clone(f32);
    if (integer)
      return arith::ExtSIOp::create(bb, bl, type, v);
    return arith::ExtFOp::create(bb, bl, type, v);
  };
  auto multiplyAdd = [&](OpBuilder &bb, Location bl, Value x, Value y,
                         Value acc) -> Value {
    if (!integer)
      return vector::FMAOp::create(bb, bl, x, y, acc);
    return arith::AddIOp::create(bb, bl, acc,
                                 arith::MulIOp::create(bb, bl, x, y));
  };

  // pmaddubsw (AVX2 without VNNI, K quads): vpmaddubsw multiplies
  // unsigned by signed bytes and adds adjacent products into i16 with
  // saturation, so it is given |x| and y * sign(x) (vpsignb), whose
  // products are x * y. With y never -128 (the data tiling and the
  // lowering config only choose this path for an operand checked to hold
  // no -128), |x| <= 128 and |y| <= 127 bound a pair's sum by
  // 2 * 128 * 127 = 32512 < 32767: it never saturates, and the sums are
  // exact. vpmaddwd against ones then adds the two pairs of each quad
  // into i32.
  // `value` * sign(`of`) per byte (vpsignb; signBytes(x, x) = |x|, read
  // as unsigned: |-128| is the byte 0x80 = 128).
  auto signBytes = [&](OpBuilder &bb, Location bl, Value value,
                       Value of) -> Value {
    return LLVM::CallIntrinsicOp::create(
               bb, bl, value.getType(), bb.getStringAttr("llvm.x86.avx2.psign.b"),
               ValueRange{value, of})
        .getResult(0);
  };
  auto signedQuadSums = [&](OpBuilder &bb, Location bl, Value unsignedBytes,
                            Value signedBytes) -> Value {
    auto i16Type = VectorType::get({16}, bb.getI16Type());
    Value pairs = LLVM::CallIntrinsicOp::create(
                      bb, bl, i16Type,
                      bb.getStringAttr("llvm.x86.avx2.pmadd.ub.sw"),
                      ValueRange{unsignedBytes, signedBytes})
                      .getResult(0);
    Value ones = arith::ConstantOp::create(
        bb, bl, i16Type,
        DenseElementsAttr::get(i16Type, bb.getI16IntegerAttr(1)));
    return LLVM::CallIntrinsicOp::create(
               bb, bl, VectorType::get({8}, bb.getI32Type()),
               bb.getStringAttr("llvm.x86.avx2.pmadd.wd"),
               ValueRange{pairs, ones})
        .getResult(0);
  };

  // Packed B (DataTiling.h), the native paths: per k group, one load of
  // the tile's columns x g packed elements, one g-element load of A per
  // row broadcast as a 32-bit pattern, and per row and vector register
  // one dot-product instruction (vpdpbusd, vdpbf16ps, or pmaddwd + add).
  // Accumulators are one vector register each (rows x width / chunk).
  // `wholeRows`: every row of the tile is valid, so rows are read at
  // m0 + i (constant offsets from one address) rather than clamped.
  auto emitPackedTile = [&](OpBuilder &builder, Location l, int64_t width,
                            bool masked, bool wholeRows) {
    SmallVector<Value> aRows(readRows);
    if (wholeRows)
      for (int64_t i = 0; i < rows; ++i)
        aRows[i] = arith::AddIOp::create(builder, l, m0, rowIndex[i]);
    auto flipType = VectorType::get({chunk}, builder.getI32Type());
    Value flipBits = arith::ConstantOp::create(
        builder, l, flipType,
        DenseElementsAttr::get(
            flipType, builder.getI32IntegerAttr(int32_t(0x80808080u))));
    int64_t chunks = width / chunk;
    Type i32 = builder.getI32Type(), i16 = builder.getI16Type();
    auto accType = VectorType::get({chunk}, f32);
    auto i1Vector = [&](int64_t n) {
      return VectorType::get({n}, builder.getI1Type());
    };
    // Lanes of chunk c that are valid (create_mask clamps to [0, chunk]).
    SmallVector<Value> masks;
    Value accZeros, bMask, bZeros;
    auto bType = VectorType::get({width * group}, operandType);
    if (masked) {
      for (int64_t c = 0; c < chunks; ++c)
        masks.push_back(vector::CreateMaskOp::create(
            builder, l, i1Vector(chunk),
            ValueRange{arith::SubIOp::create(builder, l, validLanes,
                                             index(c * chunk))}));
      accZeros = arith::ConstantOp::create(
          builder, l, accType, DenseElementsAttr::get(accType, zeroOf(f32)));
      bMask = vector::CreateMaskOp::create(
          builder, l, i1Vector(width * group),
          ValueRange{arith::MulIOp::create(builder, l, validLanes,
                                           index(group))});
      bZeros = arith::ConstantOp::create(
          builder, l, bType, DenseElementsAttr::get(bType, zeroOf(operandType)));
    }
    auto aGroupType = VectorType::get({group}, operandType);
    Value aGroupZeros = arith::ConstantOp::create(
        builder, l, aGroupType,
        DenseElementsAttr::get(aGroupType, zeroOf(operandType)));
    auto cIndices = [&](OpBuilder &bb, Location bl, Value row, int64_t c) {
      SmallVector<Value> at(dims);
      at[loops->m] = row;
      at[loops->n] = arith::AddIOp::create(bb, bl, dims[loops->n],
                                           index(c * chunk));
      return operandIndices(bb, bl, cMap, at);
    };
    auto loadC = [&](OpBuilder &bb, Location bl) {
      SmallVector<Value> loaded;
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t cc = 0; cc < chunks; ++cc) {
          SmallVector<Value> at = cIndices(bb, bl, aRows[i], cc);
          loaded.push_back(
              masked ? vector::MaskedLoadOp::create(bb, bl, accType, c, at,
                                                    masks[cc], accZeros)
                           .getResult()
                     : vector::LoadOp::create(bb, bl, accType, c, at)
                           .getResult());
        }
      return loaded;
    };
    SmallVector<Value> init = startAccumulators(
        builder, l, fill, firstBlock, accType, rows * chunks, loadC);
    // A flipped by the kernel: this K block's sum is 128 * colsum(panel)
    // too high.
    if (panelSums)
      for (int64_t cc = 0; cc < chunks; ++cc) {
        Value sums = vector::LoadOp::create(builder, l, accType, panelSums,
                                            ValueRange{index(cc * chunk)});
        for (int64_t i = 0; i < rows; ++i)
          init[i * chunks + cc] = arith::SubIOp::create(
              builder, l, init[i * chunks + cc], sums);
      }
    // One k group: `tail` (when set) is how many of its g elements exist
    // (the last group of a K that is not a multiple of g; B's padding is
    // zero, and A's missing elements load as zero so that no garbage,
    // NaN in bf16, meets it).
    auto groupStep = [&](OpBuilder &bb, Location bl, Value kq, ValueRange acc,
                         Value tail) {
      // A panel starts at this K block's first group and the tile's
      // first lane.
      Value bRow = panels ? arith::SubIOp::create(
                                bb, bl, kq,
                                arith::DivUIOp::create(bb, bl, k0, index(group)))
                                .getResult()
                          : kq;
      Value bCol =
          panels ? zero
                 : arith::MulIOp::create(bb, bl, dims[loops->n], index(group))
                       .getResult();
      // A panel is zero past the valid lanes and as wide as the tile:
      // read whole (AVX2 has no byte-masked load; LLVM would test and
      // insert every byte).
      Value bAll =
          masked && !panels
                 ? vector::MaskedLoadOp::create(bb, bl, bType, bFlat,
                                                ValueRange{bRow, bCol}, bMask,
                                                bZeros)
                       .getResult()
                 : vector::LoadOp::create(bb, bl, bType, bFlat,
                                          ValueRange{bRow, bCol})
                       .getResult();
      SmallVector<Value> bChunks;
      for (int64_t c = 0; c < chunks; ++c) {
        Value piece = vector::ExtractStridedSliceOp::create(
            bb, bl, bAll, ArrayRef<int64_t>{c * chunk * group},
            ArrayRef<int64_t>{chunk * group}, ArrayRef<int64_t>{1});
        if (path == "pmaddwd")
          piece = arith::ExtSIOp::create(
              bb, bl, VectorType::get({chunk * group}, i16), piece);
        bChunks.push_back(piece);
      }
      // pmaddubsw: |A| (or, for panels, |B|) as the unsigned operand.
      SmallVector<Value> bMagnitudes;
      if (path == "pmaddubsw" && panels)
        for (Value piece : bChunks)
          bMagnitudes.push_back(signBytes(bb, bl, piece, piece));
      Value k = arith::MulIOp::create(bb, bl, kq, index(group));
      SmallVector<Value> next;
      for (int64_t i = 0; i < rows; ++i) {
        SmallVector<Value> point(dims);
        point[loops->m] = aRows[i];
        point[loops->reductions.front()] = k;
        SmallVector<Value> at = operandIndices(bb, bl, aMap, point);
        Value aGroup =
            tail ? vector::MaskedLoadOp::create(
                       bb, bl, aGroupType, a, at,
                       vector::CreateMaskOp::create(bb, bl, i1Vector(group),
                                                    ValueRange{tail}),
                       aGroupZeros)
                       .getResult()
                 : vector::LoadOp::create(bb, bl, aGroupType, a, at)
                       .getResult();
        // The group as one 32-bit pattern, broadcast to every lane.
        if (path == "pmaddwd")
          aGroup = arith::ExtSIOp::create(
              bb, bl, VectorType::get({group}, i16), aGroup);
        // Broadcast in the vector unit (a broadcast load), then flip s8
        // to u8 in every byte (x + 128) with one vector xor.
        Value word = vector::BitCastOp::create(
            bb, bl, VectorType::get({1}, i32), aGroup);
        Value splat = vector::BroadcastOp::create(
            bb, bl, VectorType::get({chunk}, i32), word);
        if (flipA)
          splat = arith::XOrIOp::create(bb, bl, splat, flipBits);
        Value aVector = vector::BitCastOp::create(
            bb, bl, cast<VectorType>(bChunks.front().getType()), splat);
        Value aMagnitude;
        if (path == "pmaddubsw" && !panels)
          aMagnitude = signBytes(bb, bl, aVector, aVector);
        for (int64_t c = 0; c < chunks; ++c) {
          Value sum = acc[i * chunks + c];
          if (path == "pmaddubsw") {
            sum = arith::AddIOp::create(
                bb, bl, sum,
                signedQuadSums(bb, bl,
                               panels ? bMagnitudes[c] : aMagnitude,
                               panels ? signBytes(bb, bl, aVector, bChunks[c])
                                      : signBytes(bb, bl, bChunks[c], aVector)));
          } else if (path == "vnni") {
            sum = LLVM::CallIntrinsicOp::create(
                      bb, bl, accType,
                      bb.getStringAttr(chunk == 16
                                           ? "llvm.x86.avx512.vpdpbusd.512"
                                           : "llvm.x86.avx512.vpdpbusd.256"),
                      ValueRange{sum, aVector, bChunks[c]})
                      .getResult(0);
          } else if (path == "dpbf16") {
            sum = LLVM::CallIntrinsicOp::create(
                      bb, bl, accType,
                      bb.getStringAttr(chunk == 16
                                           ? "llvm.x86.avx512bf16.dpbf16ps.512"
                                           : "llvm.x86.avx512bf16.dpbf16ps.256"),
                      ValueRange{sum, aVector, bChunks[c]})
                      .getResult(0);
          } else {
            Value pairs =
                LLVM::CallIntrinsicOp::create(
                    bb, bl, accType,
                    bb.getStringAttr(chunk == 16 ? "llvm.x86.avx512.pmaddw.d.512"
                                                 : "llvm.x86.avx2.pmadd.wd"),
                    ValueRange{aVector, bChunks[c]})
                    .getResult(0);
            sum = arith::AddIOp::create(bb, bl, sum, pairs);
          }
          next.push_back(sum);
        }
      }
      return next;
    };
    // Whole groups of this K block, then the partial last group of K.
    Value groupBegin = arith::DivUIOp::create(builder, l, k0, index(group));
    Value groupEnd = arith::DivUIOp::create(builder, l, kEnd, index(group));
    auto kLoop = scf::ForOp::create(
        builder, l, groupBegin, groupEnd, one, init,
        [&](OpBuilder &body, Location bl, Value kq, ValueRange acc) {
          scf::YieldOp::create(body, bl, groupStep(body, bl, kq, acc, Value()));
        });
    SmallVector<Value> results(kLoop.getResults());
    if (*staticK % group != 0) {
      Value tail = arith::SubIOp::create(
          builder, l, kEnd, arith::MulIOp::create(builder, l, groupEnd,
                                                  index(group)));
      Value hasTail = arith::CmpIOp::create(
          builder, l, arith::CmpIPredicate::sgt, tail, zero);
      auto last = scf::IfOp::create(
          builder, l, hasTail,
          [&](OpBuilder &bb, Location bl) {
            scf::YieldOp::create(bb, bl,
                                 groupStep(bb, bl, groupEnd, results, tail));
          },
          [&](OpBuilder &bb, Location bl) {
            scf::YieldOp::create(bb, bl, results);
          });
      results.assign(last.getResults().begin(), last.getResults().end());
    }
    for (int64_t i = 0; i < rows; ++i) {
      auto store = [&, i](OpBuilder &bb, Location bl) {
        Value row = arith::AddIOp::create(bb, bl, m0, rowIndex[i]);
        for (int64_t cc = 0; cc < chunks; ++cc) {
          SmallVector<Value> at = cIndices(bb, bl, row, cc);
          if (masked)
            vector::MaskedStoreOp::create(bb, bl, c, at, masks[cc],
                                          results[i * chunks + cc]);
          else
            vector::StoreOp::create(bb, bl, results[i * chunks + cc], c, at);
        }
      };
      if (i == 0) {
        store(builder, l);
        continue;
      }
      Value valid = arith::CmpIOp::create(
          builder, l, arith::CmpIPredicate::slt, rowIndex[i], validRows);
      scf::IfOp::create(builder, l, valid, [&](OpBuilder &bb, Location bl) {
        store(bb, bl);
        scf::YieldOp::create(bb, bl);
      });
    }
  };
  auto emitTile = [&](OpBuilder &builder, Location l, int64_t width,
                      bool masked) {
    if (group > 1) {
      if (rows == 1) {
        emitPackedTile(builder, l, width, masked, true);
        return;
      }
      Value wholeRows = arith::CmpIOp::create(
          builder, l, arith::CmpIPredicate::eq, validRows, index(rows));
      scf::IfOp::create(
          builder, l, wholeRows,
          [&](OpBuilder &bb, Location bl) {
            emitPackedTile(bb, bl, width, masked, true);
            scf::YieldOp::create(bb, bl);
          },
          [&](OpBuilder &bb, Location bl) {
            emitPackedTile(bb, bl, width, masked, false);
            scf::YieldOp::create(bb, bl);
          });
      return;
    }
    auto vectorType = VectorType::get({width}, f32);
    auto operandVectorType = VectorType::get({width}, operandType);
    Value mask, zeros, operandZeros;
    if (masked) {
      mask = vector::CreateMaskOp::create(
          builder, l, VectorType::get({width}, builder.getI1Type()),
          ValueRange{validLanes});
      zeros = arith::ConstantOp::create(
          builder, l, vectorType,
          DenseElementsAttr::get(vectorType, zeroOf(f32)));
      operandZeros = arith::ConstantOp::create(
          builder, l, operandVectorType,
          DenseElementsAttr::get(operandVectorType, zeroOf(operandType)));
    }
    // Loads of C (f32) and of B (its operand type).
    auto loadAs = [&](OpBuilder &bb, Location bl, Value base,
                      ValueRange indices, VectorType type,
                      Value passThrough) -> Value {
      if (masked)
        return vector::MaskedLoadOp::create(bb, bl, type, base, indices, mask,
                                            passThrough);
      return vector::LoadOp::create(bb, bl, type, base, indices);
    };
    auto load = [&](OpBuilder &bb, Location bl, Value base,
                    ValueRange indices) -> Value {
      return loadAs(bb, bl, base, indices, vectorType, zeros);
    };
    // B's lanes: contiguous, or every other element of a 2x wider load
    // (masked to the 2 * lanes - 1 elements that are needed, so the last
    // tile never reads past the row) and a shuffle of the even ones.
    auto wideType = VectorType::get({width * 2}, operandType);
    Value wideMask, wideZeros;
    SmallVector<int64_t> evens;
    if (loops->laneStride == 2) {
      wideMask = vector::CreateMaskOp::create(
          builder, l, VectorType::get({width * 2}, builder.getI1Type()),
          ValueRange{arith::SubIOp::create(
              builder, l,
              arith::MulIOp::create(builder, l, validLanes, index(2)),
              one)});
      wideZeros = arith::ConstantOp::create(
          builder, l, wideType,
          DenseElementsAttr::get(wideType, zeroOf(operandType)));
      for (int64_t i = 0; i < width; ++i)
        evens.push_back(2 * i);
    }
    auto loadB = [&](OpBuilder &bb, Location bl, ValueRange indices) -> Value {
      if (loops->laneStride == 1)
        return toF32(bb, bl,
                     loadAs(bb, bl, b, indices, operandVectorType,
                            operandZeros));
      Value wide = vector::MaskedLoadOp::create(bb, bl, wideType, b, indices,
                                                wideMask, wideZeros);
      return toF32(bb, bl,
                   vector::ShuffleOp::create(bb, bl, wide, wide, evens));
    };
    // B in lane panels: the tile's lanes n0 .. n0 + width are whole panels
    // (or the first part of one), each vector one panel row's slice;
    // masked tiles mask each panel's lanes, so no load reaches past the
    // last panel. Each piece's panel and first lane are computed here,
    // once per tile (n0 >= 0: unsigned division, a shift), so the k loop
    // only indexes the panel row.
    int64_t piece = loops->lanePanel ? std::min(width, loops->lanePanel) : 0;
    SmallVector<std::pair<Value, Value>> pieceAt;
    for (int64_t p = 0; piece && p < width; p += piece) {
      Value lane = arith::AddIOp::create(
          builder, l, laneBase,
          arith::AddIOp::create(builder, l, dims[loops->n], index(p)));
      pieceAt.push_back(
          {arith::DivUIOp::create(builder, l, lane, index(loops->lanePanel)),
           arith::RemUIOp::create(builder, l, lane, index(loops->lanePanel))});
    }
    auto loadPanelB = [&](OpBuilder &bb, Location bl,
                          ArrayRef<Value> at) -> Value {
      auto pieceType = VectorType::get({piece}, f32);
      auto i1Pieces = VectorType::get({piece}, bb.getI1Type());
      Value pieceZeros;
      if (masked)
        pieceZeros = arith::ConstantOp::create(
            bb, bl, pieceType, DenseElementsAttr::get(pieceType, zeroOf(f32)));
      Value whole;
      for (int64_t p = 0; p < width; p += piece) {
        auto [panelIndex, firstLane] = pieceAt[p / piece];
        SmallVector<Value> indices = {panelIndex};
        for (unsigned r : loops->reductions)
          indices.push_back(at[r]);
        indices.push_back(firstLane);
        Value part;
        if (masked) {
          Value pieceMask = vector::CreateMaskOp::create(
              bb, bl, i1Pieces,
              ValueRange{arith::SubIOp::create(
                  bb, bl, validLanes,
                  arith::ConstantIndexOp::create(bb, bl, p))});
          part = vector::MaskedLoadOp::create(bb, bl, pieceType, b, indices,
                                              pieceMask, pieceZeros);
        } else {
          part = vector::LoadOp::create(bb, bl, pieceType, b, indices);
        }
        if (piece == width)
          return part;
        if (!whole)
          whole = arith::ConstantOp::create(
              bb, bl, vectorType, DenseElementsAttr::get(vectorType, zeroOf(f32)));
        whole = vector::InsertStridedSliceOp::create(
            bb, bl, part, whole, ArrayRef<int64_t>{p}, ArrayRef<int64_t>{1});
      }
      return whole;
    };
    // One element of A, extended and broadcast to every lane. Through a
    // folded pad (`paddedA`), the unpadded input's element; with
    // `columnCheck` (a row that can fall in the left or right padding and
    // was not tested by the caller) zero there (the kh loop keeps every
    // row inside the plane vertically).
    auto loadA = [&](OpBuilder &bb, Location bl, ArrayRef<Value> point,
                     bool columnCheck) {
      Value scalar;
      if (paddedA) {
        SmallVector<Value> at = operandIndices(bb, bl, aMap, point);
        for (auto [d, offset] : llvm::enumerate(paddedA->offsets))
          if (!isConstantIntValue(offset, 0))
            at[d] = arith::AddIOp::create(bb, bl, at[d], offset);
        auto cst = [&](int64_t v) {
          return arith::ConstantIndexOp::create(bb, bl, v).getResult();
        };
        at[1] = arith::SubIOp::create(bb, bl, at[1], cst(paddedA->top));
        at[2] = arith::SubIOp::create(bb, bl, at[2], cst(paddedA->left));
        Value inside;
        if (columnCheck) {
          // Unsigned: a column left of the plane is huge.
          inside = arith::CmpIOp::create(bb, bl, arith::CmpIPredicate::ult,
                                         at[2], cst(paddedA->width));
          at[2] = arith::SelectOp::create(bb, bl, inside, at[2], cst(0));
        }
        scalar = memref::LoadOp::create(bb, bl, paddedA->input, at);
        if (inside)
          scalar = arith::SelectOp::create(
              bb, bl, inside, scalar,
              arith::ConstantOp::create(bb, bl, bb.getZeroAttr(operandType)));
      } else {
        scalar = memref::LoadOp::create(
            bb, bl, a, operandIndices(bb, bl, aMap, point));
      }
      return vector::BroadcastOp::create(bb, bl, vectorType,
                                         toF32(bb, bl, scalar))
          .getResult();
    };
    // The accumulators start from C, or from the fill value in the first
    // K block when C was just filled.
    auto loadC = [&](OpBuilder &bb, Location bl) {
      SmallVector<Value> loaded;
      SmallVector<Value> at(dims);
      for (int64_t i = 0; i < rows; ++i) {
        at[loops->m] = readRows[i];
        loaded.push_back(load(bb, bl, c, operandIndices(bb, bl, cMap, at)));
      }
      return loaded;
    };
    SmallVector<Value> init = startAccumulators(
        builder, l, fill, firstBlock, vectorType, rows, loadC);
    if (aPanel && !groupPanel)
      widenRowPanel(builder, l, a, aMap, dims, *loops, readRows, k0, kEnd,
                    aPanel, chunk);
    // The reduction nest: K blocks split the outermost reduction dim; the
    // accumulators are carried through every level.
    // `skip`: tile rows whose pixel lies in the left or right padding for
    // this kw (a folded pad, `paddedA`): their accumulators pass through;
    // the other rows' loads need no bounds then (`checked`).
    auto fmaStep = [&](OpBuilder &body, Location bl, ArrayRef<Value> at,
                       ValueRange acc, ArrayRef<bool> skip = {},
                       bool checked = false) {
      SmallVector<Value> point(at);
      Value sharedB, sharedA;
      if (gather)
        sharedB = loadAs(body, bl, panel,
                         ValueRange{arith::SubIOp::create(
                                        body, bl,
                                        point[loops->reductions.front()], k0),
                                    zero},
                         operandVectorType, operandZeros);
      else if (bPanel)
        // Zeros past the valid lanes: no mask needed.
        sharedB = vector::LoadOp::create(
            body, bl, vectorType, bPanel,
            ValueRange{arith::SubIOp::create(
                           body, bl, point[loops->reductions.front()], k0),
                       zero});
      else if (loops->lanePanel)
        sharedB = loadPanelB(body, bl, point);
      else if (!loops->vectorPerRow)
        sharedB = loadB(body, bl, operandIndices(body, bl, bMap, point));
      if (!loops->scalarPerRow)
        sharedA = loadA(body, bl, point, /*columnCheck=*/true);
      SmallVector<Value> next;
      for (int64_t i = 0; i < rows; ++i) {
        if (!skip.empty() && skip[i]) {
          next.push_back(acc[i]);
          continue;
        }
        point[loops->m] = readRows[i];
        Value bVector =
            sharedB ? sharedB
                    : loadB(body, bl, operandIndices(body, bl, bMap, point));
        Value aVector;
        if (sharedA) {
          aVector = sharedA;
        } else if (aPanel) {
          Value kk = arith::SubIOp::create(
              body, bl, point[loops->reductions.front()], k0);
          aVector = vector::BroadcastOp::create(
              body, bl, vectorType,
              memref::LoadOp::create(
                  body, bl, aPanel,
                  ValueRange{groupPanel ? readRows[i] : rowIndex[i], kk}));
        } else {
          aVector = loadA(body, bl, point,
                          paddedA && !checked && paddedA->edgeRows[i]);
        }
        next.push_back(multiplyAdd(body, bl, aVector, bVector, acc[i]));
      }
      return next;
    };
    // A folded pad's edge rows (at most 3, which can reach past the left
    // or right edge of the plane) are tested once per kw, not per k: the
    // innermost loop is emitted once per combination of valid edge rows,
    // leaving the invalid rows' FMAs out.
    SmallVector<int64_t> edgeRows;
    if (paddedA)
      for (int64_t i = 0; i < rows; ++i)
        if (paddedA->edgeRows[i])
          edgeRows.push_back(i);
    bool splitEdges = paddedA && !edgeRows.empty() && edgeRows.size() <= 3;
    std::function<SmallVector<Value>(OpBuilder &, Location, size_t,
                                     SmallVector<Value>, ValueRange)>
        nest;
    // The innermost reduction loop for the kw `point`, per edge-row case.
    auto innermost = [&](OpBuilder &nb, Location nl, SmallVector<Value> at,
                         ValueRange acc) -> SmallVector<Value> {
      unsigned d = loops->reductions.back();
      SmallVector<Value> valid;
      for (int64_t i : edgeRows) {
        SmallVector<Value> point(at);
        point[loops->m] = readRows[i];
        point[d] = zero;
        Value w = operandIndices(nb, nl, aMap, point)[2];
        w = arith::AddIOp::create(nb, nl, w, paddedA->offsets[2]);
        w = arith::SubIOp::create(
            nb, nl, w, arith::ConstantIndexOp::create(nb, nl, paddedA->left));
        valid.push_back(arith::CmpIOp::create(
            nb, nl, arith::CmpIPredicate::ult, w,
            arith::ConstantIndexOp::create(nb, nl, paddedA->width)));
      }
      std::function<SmallVector<Value>(OpBuilder &, Location, size_t,
                                       SmallVector<bool>, ValueRange)>
          choose = [&](OpBuilder &cb, Location cl, size_t e,
                       SmallVector<bool> skip,
                       ValueRange values) -> SmallVector<Value> {
        if (e == edgeRows.size()) {
          auto loop = scf::ForOp::create(
              cb, cl, zero, sizes[d], one, values,
              [&](OpBuilder &body, Location bl, Value iv, ValueRange inner) {
                SmallVector<Value> point(at);
                point[d] = iv;
                scf::YieldOp::create(
                    body, bl, fmaStep(body, bl, point, inner, skip, true));
              });
          return SmallVector<Value>(loop.getResults());
        }
        auto branch = scf::IfOp::create(
            cb, cl, valid[e],
            [&](OpBuilder &tb, Location tl) {
              scf::YieldOp::create(tb, tl, choose(tb, tl, e + 1, skip, values));
            },
            [&](OpBuilder &eb, Location el) {
              SmallVector<bool> skipped(skip);
              skipped[edgeRows[e]] = true;
              scf::YieldOp::create(eb, el,
                                   choose(eb, el, e + 1, skipped, values));
            });
        return SmallVector<Value>(branch.getResults());
      };
      return choose(nb, nl, 0, SmallVector<bool>(rows, false), acc);
    };
    nest = [&](OpBuilder &nb, Location nl, size_t level,
                   SmallVector<Value> at, ValueRange acc) {
          unsigned d = loops->reductions[level];
          Value lower = level == 0 ? k0 : zero;
          Value upper = level == 0 ? kEnd : sizes[d];
          if (paddedA && level == 0) {
            // The filter rows kh whose input row ih = h0 + kh * d - top
            // lies in [0, H), h0 the padded row at kh = 0.
            SmallVector<Value> first(at);
            first[d] = zero;
            Value h0 = arith::AddIOp::create(
                nb, nl, operandIndices(nb, nl, aMap, first)[1],
                paddedA->offsets[1]);
            auto cst = [&](int64_t v) {
              return arith::ConstantIndexOp::create(nb, nl, v).getResult();
            };
            Value dilation = cst(paddedA->hDilation);
            Value below = arith::CeilDivSIOp::create(
                nb, nl, arith::SubIOp::create(nb, nl, cst(paddedA->top), h0),
                dilation);
            Value above = arith::CeilDivSIOp::create(
                nb, nl,
                arith::SubIOp::create(
                    nb, nl, cst(paddedA->height + paddedA->top), h0),
                dilation);
            lower = arith::MaxSIOp::create(nb, nl, lower, below);
            upper = arith::MinSIOp::create(nb, nl, upper, above);
          }
          auto loop = scf::ForOp::create(
              nb, nl, lower, upper, one, acc,
              [&](OpBuilder &body, Location bl, Value iv, ValueRange inner) {
                SmallVector<Value> point(at);
                point[d] = iv;
                SmallVector<Value> next =
                    level + 1 == loops->reductions.size()
                        ? fmaStep(body, bl, point, inner)
                    : splitEdges && level + 2 == loops->reductions.size()
                        ? innermost(body, bl, point, inner)
                        : nest(body, bl, level + 1, point, inner);
                scf::YieldOp::create(body, bl, next);
              });
          return SmallVector<Value>(loop.getResults());
        };
    SmallVector<Value> results = nest(builder, l, 0, dims, init);
    for (int64_t i = 0; i < rows; ++i) {
      auto store = [&, i](OpBuilder &bb, Location bl) {
        SmallVector<Value> at(dims);
        at[loops->m] = arith::AddIOp::create(bb, bl, m0, rowIndex[i]);
        SmallVector<Value> indices = operandIndices(bb, bl, cMap, at);
        if (masked)
          vector::MaskedStoreOp::create(bb, bl, c, indices, mask,
                                        results[i]);
        else
          vector::StoreOp::create(bb, bl, results[i], c, indices);
      };
      if (i == 0) {
        store(builder, l);
        continue;
      }
      Value valid = arith::CmpIOp::create(
          builder, l, arith::CmpIPredicate::slt, rowIndex[i], validRows);
      scf::IfOp::create(builder, l, valid, [&](OpBuilder &bb, Location bl) {
        store(bb, bl);
        scf::YieldOp::create(bb, bl);
      });
    }
  };
  // Whole tiles run unmasked; an edge with at most half the lanes valid
  // runs a half-width tile (a 4-lane edge of a 196-wide output costs a
  // 16-lane tile instead of a 32-lane one).
  auto edge = [&](OpBuilder &builder, Location l) {
    if (lanes % 2 != 0 || lanes / 2 < 4 ||
        (group > 1 && (lanes / 2) % chunk != 0)) {
      emitTile(builder, l, lanes, true);
      return;
    }
    Value narrow = arith::CmpIOp::create(builder, l, arith::CmpIPredicate::sle,
                                         validLanes, index(lanes / 2));
    scf::IfOp::create(
        builder, l, narrow,
        [&](OpBuilder &bb, Location bl) {
          emitTile(bb, bl, lanes / 2, true);
          scf::YieldOp::create(bb, bl);
        },
        [&](OpBuilder &bb, Location bl) {
          emitTile(bb, bl, lanes, true);
          scf::YieldOp::create(bb, bl);
        });
  };
  scf::IfOp::create(
      rewriter, loc, whole,
      [&](OpBuilder &builder, Location l) {
        emitTile(builder, l, lanes, false);
        scf::YieldOp::create(builder, l);
      },
      [&](OpBuilder &builder, Location l) {
        edge(builder, l);
        scf::YieldOp::create(builder, l);
      });
  rewriter.eraseOp(op);
  if (fill)
    rewriter.eraseOp(fill);
  return success();
}

} // namespace mlir::kiln::cpu
