//===- AmxKernel.cpp - Contractions on AMX tile registers -----------------===//
//
// See AmxKernel.h for the loop nest. The tiles are MLIR's amx dialect ops
// (lowered to LLVM's *.internal AMX intrinsics, whose shapes LLVM's tile
// configuration pass collects into one ldtilecfg per kernel call). All of
// them have one shape, 16 rows of 64 bytes: the edges of the workgroup
// tile are clamped (rows) or go through a stack tile (columns) instead of
// narrower tiles.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/cpu/AmxKernel.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

namespace mlir::kiln::cpu {

namespace {

// A map whose results are all plain loop dims ending in (`second`, `last`).
bool plainDimsEndingIn(AffineMap map, unsigned second, unsigned last) {
  if (map.getNumResults() < 2 ||
      !llvm::all_of(map.getResults(),
                    [](AffineExpr e) { return isa<AffineDimExpr>(e); }))
    return false;
  unsigned n = map.getNumResults();
  return cast<AffineDimExpr>(map.getResult(n - 2)).getPosition() == second &&
         cast<AffineDimExpr>(map.getResult(n - 1)).getPosition() == last;
}

// The init of a contraction on tensors is a fill (possibly sliced by
// workgroup tiling): the clamped edge tiles then recompute and store the
// same values twice, where tiles starting at C would add their overlap
// twice.
bool initIsFill(linalg::LinalgOp op) {
  Value init = op.getDpsInits()[0];
  if (!isa<RankedTensorType>(init.getType()))
    return true;
  if (auto slice = init.getDefiningOp<tensor::ExtractSliceOp>())
    init = slice.getSource();
  return init.getDefiningOp<linalg::FillOp>() != nullptr;
}

} // namespace

int64_t amxGroup(const ContractionLoops &loops) {
  return loops.operandType.isInteger(8) ? 4 : 2;
}

bool amxContractionOk(linalg::LinalgOp op, const ContractionLoops &loops,
                      const TargetChoice &target) {
  if (loops.reductions.size() != 1 || loops.vectorPerRow ||
      !loops.scalarPerRow || loops.laneStride != 1 || loops.lanePanel ||
      loops.flippedA)
    return false;
  bool bf16 = loops.operandType.isBF16() && loops.accumulatorType.isF32() &&
              target.hasAmxBf16;
  bool i8 = loops.operandType.isInteger(8) &&
            loops.accumulatorType.isInteger(32) && target.hasAmxInt8;
  if (!bf16 && !i8)
    return false;
  int64_t group = amxGroup(loops);
  if (loops.kGroup != 1 && !(loops.amxTiles && loops.kGroup == group))
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return false;
  unsigned k = loops.reductions.front();
  int64_t kStep =
      kAmxRowBytes / (loops.operandType.getIntOrFloatBitWidth() / 8);
  if (ranges[loops.m] < kAmxTileRows || ranges[loops.n] < kAmxTileRows ||
      ranges[k] % kStep != 0 || !initIsFill(op))
    return false;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // An unpacked B (before the data tiling, or computed: the kernel packs
  // its panels) is read a row of lanes at a time.
  if (!loops.amxTiles && !plainDimsEndingIn(maps[loops.rhs], k, loops.n))
    return false;
  return plainDimsEndingIn(maps[loops.lhs], loops.m, k) &&
         plainDimsEndingIn(maps.back(), loops.m, loops.n);
}

LogicalResult emitAmxContraction(RewriterBase &rewriter, linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics())
    return op.emitOpError("AMX tiles need bufferized operands");
  FailureOr<ContractionLoops> loops = matchContraction(op);
  if (failed(loops))
    return op.emitOpError("is not a contraction the AMX kernel handles");
  int64_t group = amxGroup(*loops);
  // B packed by the data tiling in tile panels, or (a computed B: the
  // im2col columns of a convolution) unpacked, packed here per column
  // block.
  bool packHere = !loops->amxTiles;
  if (packHere ? loops->kGroup != 1 : loops->kGroup != group)
    return op.emitOpError("the 'amx' path needs B packed in AMX tile panels "
                          "of K groups of ")
           << group << " by the data tiling, or not packed at all";
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  if (llvm::any_of(sizes, ShapedType::isDynamic))
    return op.emitOpError("the 'amx' path needs a static workgroup tile "
                          "(workgroup tiles that divide M and N)");
  unsigned kDim = loops->reductions.front();
  int64_t rowsTotal = sizes[loops->m], colsTotal = sizes[loops->n];
  int64_t kTotal = sizes[kDim];
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap aMap = maps[loops->lhs], bMap = maps[loops->rhs],
            cMap = maps.back();
  Type operand = loops->operandType;
  Type accElem = loops->accumulatorType;
  bool integer = isa<IntegerType>(accElem);
  int64_t kStep = kAmxRowBytes / (operand.getIntOrFloatBitWidth() / 8);
  if (!plainDimsEndingIn(aMap, loops->m, kDim) ||
      !plainDimsEndingIn(cMap, loops->m, loops->n) ||
      (packHere && !plainDimsEndingIn(bMap, kDim, loops->n)))
    return op.emitOpError("the 'amx' path needs A indexed (.., m, k), B "
                          "(.., k, n) or packed, and C (.., m, n)");
  if (rowsTotal < kAmxTileRows || colsTotal < kAmxTileRows ||
      kTotal % kStep != 0)
    return op.emitOpError("the 'amx' path needs a workgroup tile of at "
                          "least 16 x 16 outputs and K a multiple of ")
           << kStep;
  Value a = op.getDpsInputOperand(loops->lhs)->get();
  Value b = op.getDpsInputOperand(loops->rhs)->get();
  Value c = op.getDpsInitOperand(0)->get();
  for (Value v : {a, b, c})
    if (!cast<MemRefType>(v.getType()).isLastDimUnitStride())
      return op.emitOpError("the 'amx' path needs unit-stride rows in A, B "
                            "and C");

  // The accumulators start at the fill value. Edge tiles overlap their
  // neighbours (below), which only a fill makes exact. Looked up before
  // this kernel adds ops (its stack buffers) in between.
  linalg::FillOp fill = findFoldableFill(op, c);
  if (!fill)
    return op.emitOpError("the 'amx' path needs C filled right before the "
                          "contraction");
  Value packedB = b;
  if (auto slice = b.getDefiningOp<memref::SubViewOp>(); slice && !packHere)
    packedB = slice.getSource();
  auto bType = cast<MemRefType>(packedB.getType());
  if (!packHere &&
      (bType.getRank() != 4 || !bType.hasStaticShape() ||
       bType.getDimSize(2) != kAmxTileRows || bType.getDimSize(3) != group ||
       !bType.getLayout().isIdentity()))
    return op.emitOpError("the 'amx' path needs the packed B [ceil(N/16)][K/")
           << group << "][16][" << group << "] itself";

  Location loc = op.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  Value zero = index(0);

  // B: the whole packed constant [ceil(N/16)][K/g][16][g] from the
  // workgroup's first tile panel (its columns start at a multiple of 16;
  // workgroup tiling slices B through a map whose extents are not the
  // panels'). One B tile is 16 rows of 64 contiguous bytes.
  Value panelBase = zero;
  if (packedB != b)
    panelBase = getValueOrCreateConstantIndexOp(
        rewriter, loc,
        b.getDefiningOp<memref::SubViewOp>().getMixedOffsets()[0]);
  Value bStride = index(kAmxTileRows * group);
  // A computed B: each 32-column block of it is packed, all of K, into
  // the tile-panel rows [K/g][32 * g] (zero past the valid columns), read
  // by every row block of the workgroup; one B tile is then 16 rows of 64
  // bytes, 128 apart. Above the stack budget scratch planning moves it to
  // the arena binding (K = 2304 bf16: 144 KiB).
  Value panelBuffer;
  if (packHere)
    panelBuffer = memref::AllocaOp::create(
        rewriter, loc,
        MemRefType::get({kTotal / group, 2 * kAmxTileRows * group},
                        loops->operandType),
        rewriter.getI64IntegerAttr(64));

  // A zero fill is tilezero; any other value a 16x16 stack tile of it.
  Value fillValue = fill.getDpsInputs()[0];
  bool zeroFill = matchPattern(fillValue, m_Zero()) ||
                  matchPattern(fillValue, m_AnyZeroFloat());
  Value fillTile;
  if (!zeroFill) {
    fillTile = memref::AllocaOp::create(
        rewriter, loc, MemRefType::get({kAmxTileRows, kAmxTileRows}, accElem),
        rewriter.getI64IntegerAttr(64));
    Value row = vector::BroadcastOp::create(
        rewriter, loc, VectorType::get({kAmxTileRows}, accElem), fillValue);
    for (int64_t r = 0; r < kAmxTileRows; ++r)
      vector::StoreOp::create(rewriter, loc, row, fillTile,
                              ValueRange{index(r), zero});
  }

  // Every tile is 16 rows of 64 bytes: LLVM configures each tile register
  // with one shape per function, so a second shape (a narrower edge tile)
  // would need registers of its own, and the 2x2 block takes all eight.
  // Row edges reuse the full shape clamped back inside the workgroup tile:
  // the last row tile starts at rows - 16 and overlaps the one before it,
  // recomputing the shared rows from the same fill. The last column tile
  // of an N that is no multiple of 16 reads B's zero-padded panel and is
  // stored through a stack tile, its valid columns copied with masked
  // stores.
  Type accTile = amx::TileType::get({kAmxTileRows, kAmxTileRows}, accElem);
  Type aTile = amx::TileType::get({kAmxTileRows, kStep}, operand);
  Type bTile =
      amx::TileType::get({kStep / group, kAmxTileRows * group}, operand);
  int64_t rowTiles = rowsTotal > kAmxTileRows ? 2 : 1;
  int64_t fullColumnTiles = colsTotal / kAmxTileRows;
  int64_t partialColumns = colsTotal % kAmxTileRows;
  Value edgeTile;
  if (partialColumns)
    edgeTile = memref::AllocaOp::create(
        rewriter, loc, MemRefType::get({kAmxTileRows, kAmxTileRows}, accElem),
        rewriter.getI64IntegerAttr(64));

  // Row tile starts of a block at `start`: start + 16 i, clamped to
  // rows - 16.
  auto rowStarts = [&](OpBuilder &bb, Location bl, Value start) {
    SmallVector<Value> starts;
    Value last =
        arith::ConstantIndexOp::create(bb, bl, rowsTotal - kAmxTileRows);
    for (int64_t i = 0; i < rowTiles; ++i) {
      Value s = i == 0 ? start
                       : arith::AddIOp::create(bb, bl, start,
                                               arith::ConstantIndexOp::create(
                                                   bb, bl, i * kAmxTileRows));
      starts.push_back(arith::MinSIOp::create(bb, bl, s, last));
    }
    return starts;
  };

  // One block of rowTiles x columns.size() accumulators at (m0, n0), all
  // of K; columns[j] is the valid width of column tile j (16, or the
  // partial last one).
  auto emitBlock = [&](OpBuilder &bb, Location bl, SmallVector<Value> dims,
                       Value m0, Value n0, ArrayRef<int64_t> columns) {
    int64_t colTiles = columns.size();
    SmallVector<Value> rowStart = rowStarts(bb, bl, m0);
    // Column tile j's first column, and where its B tile lies: in the
    // packed constant, tile panel panelBase + column / 16; in the panel
    // this kernel packed, columns 16 j of the block.
    SmallVector<Value> colStart, panel;
    Value tileWidth = arith::ConstantIndexOp::create(bb, bl, kAmxTileRows);
    for (int64_t j = 0; j < colTiles; ++j) {
      Value col = j == 0 ? n0
                         : arith::AddIOp::create(bb, bl, n0,
                                                 arith::ConstantIndexOp::create(
                                                     bb, bl, j * kAmxTileRows));
      colStart.push_back(col);
      panel.push_back(
          packHere
              ? arith::ConstantIndexOp::create(bb, bl, j * kAmxTileRows * group)
                    .getResult()
              : arith::AddIOp::create(
                    bb, bl, panelBase,
                    arith::DivUIOp::create(bb, bl, col, tileWidth))
                    .getResult());
    }
    SmallVector<Value> accs;
    for (int64_t t = 0; t < rowTiles * colTiles; ++t) {
      if (zeroFill) {
        accs.push_back(amx::TileZeroOp::create(bb, bl, accTile));
      } else {
        Value c0 = arith::ConstantIndexOp::create(bb, bl, 0);
        accs.push_back(amx::TileLoadOp::create(bb, bl, accTile, fillTile,
                                               ValueRange{c0, c0}));
      }
    }
    Value groupSize = arith::ConstantIndexOp::create(bb, bl, group);
    auto kLoop = scf::ForOp::create(
        bb, bl, arith::ConstantIndexOp::create(bb, bl, 0),
        arith::ConstantIndexOp::create(bb, bl, kTotal),
        arith::ConstantIndexOp::create(bb, bl, kStep), accs,
        [&](OpBuilder &lb, Location ll, Value k0, ValueRange in) {
          SmallVector<Value> d = dims;
          d[kDim] = k0;
          SmallVector<Value> as, bs;
          for (Value row : rowStart) {
            d[loops->m] = row;
            as.push_back(amx::TileLoadOp::create(
                lb, ll, aTile, a, operandIndices(lb, ll, aMap, d)));
          }
          Value kRow = arith::DivUIOp::create(lb, ll, k0, groupSize);
          Value c0 = arith::ConstantIndexOp::create(lb, ll, 0);
          for (Value p : panel)
            bs.push_back(
                packHere ? amx::TileLoadOp::create(lb, ll, bTile, panelBuffer,
                                                   ValueRange{kRow, p})
                         : amx::TileLoadOp::create(lb, ll, bTile, packedB,
                                                   ValueRange{p, kRow, c0, c0},
                                                   bStride));
          SmallVector<Value> out;
          for (int64_t i = 0; i < rowTiles; ++i)
            for (int64_t j = 0; j < colTiles; ++j) {
              Value acc = in[i * colTiles + j];
              if (integer)
                out.push_back(amx::TileMulIOp::create(lb, ll, accTile, as[i],
                                                      bs[j], acc));
              else
                out.push_back(amx::TileMulFOp::create(lb, ll, accTile, as[i],
                                                      bs[j], acc));
            }
          scf::YieldOp::create(lb, ll, out);
        });
    auto rowType = VectorType::get({kAmxTileRows}, accElem);
    for (int64_t i = 0; i < rowTiles; ++i)
      for (int64_t j = 0; j < colTiles; ++j) {
        Value acc = kLoop.getResult(i * colTiles + j);
        dims[loops->m] = rowStart[i];
        dims[loops->n] = colStart[j];
        if (columns[j] == kAmxTileRows) {
          amx::TileStoreOp::create(bb, bl, c,
                                   operandIndices(bb, bl, cMap, dims), acc);
          continue;
        }
        Value c0 = arith::ConstantIndexOp::create(bb, bl, 0);
        amx::TileStoreOp::create(bb, bl, edgeTile, ValueRange{c0, c0}, acc);
        Value mask = vector::ConstantMaskOp::create(
            bb, bl, VectorType::get({kAmxTileRows}, bb.getI1Type()),
            ArrayRef<int64_t>{columns[j]});
        for (int64_t r = 0; r < kAmxTileRows; ++r) {
          Value rowIndex = arith::ConstantIndexOp::create(bb, bl, r);
          Value row = vector::LoadOp::create(bb, bl, rowType, edgeTile,
                                             ValueRange{rowIndex, c0});
          SmallVector<Value> at = dims;
          at[loops->m] = arith::AddIOp::create(bb, bl, rowStart[i], rowIndex);
          vector::MaskedStoreOp::create(
              bb, bl, c, operandIndices(bb, bl, cMap, at), mask, row);
        }
      }
  };

  // Blocks of 32 x 32 outputs (16 rows where the tile has no more),
  // columns outermost: a block's two B tiles stream K x 32 of B, its A
  // tiles K x 32 of A, both from L2 after the first pass. Outer dims
  // (batch) as loops around them.
  auto loopOver = [&](OpBuilder &ob, Location ol, int64_t extent, int64_t step,
                      function_ref<void(OpBuilder &, Location, Value)> body) {
    scf::ForOp::create(ob, ol, arith::ConstantIndexOp::create(ob, ol, 0),
                       arith::ConstantIndexOp::create(ob, ol, extent),
                       arith::ConstantIndexOp::create(ob, ol, step),
                       ValueRange{},
                       [&](OpBuilder &lb, Location ll, Value iv, ValueRange) {
                         body(lb, ll, iv);
                         scf::YieldOp::create(lb, ll);
                       });
  };
  int64_t columnPairs = fullColumnTiles / 2;
  SmallVector<int64_t> restColumns;
  if (fullColumnTiles % 2)
    restColumns.push_back(kAmxTileRows);
  if (partialColumns)
    restColumns.push_back(partialColumns);
  int64_t rowStep = rowTiles * kAmxTileRows;
  // Packs B[.., 0 : K, n0 : n0 + width] into panelBuffer: row q holds
  // the g k-values of each of 32 columns side by side (zero past width).
  auto packColumns = [&](OpBuilder &pb, Location pl, SmallVector<Value> dims,
                         Value n0, int64_t width) {
    int64_t lanes = 2 * kAmxTileRows;
    auto rowType = VectorType::get({lanes}, operand);
    Value zeros = arith::ConstantOp::create(
        pb, pl, rowType,
        DenseElementsAttr::get(
            rowType, integer ? Attribute(pb.getIntegerAttr(operand, 0))
                             : Attribute(pb.getFloatAttr(operand, 0.0))));
    Value mask;
    if (width < lanes)
      mask = vector::ConstantMaskOp::create(
          pb, pl, VectorType::get({lanes}, pb.getI1Type()),
          ArrayRef<int64_t>{width});
    auto interleave = interleaveVectors;
    scf::ForOp::create(
        pb, pl, arith::ConstantIndexOp::create(pb, pl, 0),
        arith::ConstantIndexOp::create(pb, pl, kTotal / group),
        arith::ConstantIndexOp::create(pb, pl, 1), ValueRange{},
        [&](OpBuilder &lb, Location ll, Value q, ValueRange) {
          SmallVector<Value> rows;
          Value k0 = arith::MulIOp::create(
              lb, ll, q, arith::ConstantIndexOp::create(lb, ll, group));
          for (int64_t j = 0; j < group; ++j) {
            SmallVector<Value> d = dims;
            d[kDim] = j == 0 ? k0
                             : arith::AddIOp::create(
                                   lb, ll, k0,
                                   arith::ConstantIndexOp::create(lb, ll, j));
            d[loops->n] = n0;
            SmallVector<Value> at = operandIndices(lb, ll, bMap, d);
            rows.push_back(mask ? vector::MaskedLoadOp::create(
                                      lb, ll, rowType, b, at, mask, zeros)
                                      .getResult()
                                : vector::LoadOp::create(lb, ll, rowType, b, at)
                                      .getResult());
          }
          Value packed =
              group == 2
                  ? interleave(lb, ll, rows[0], rows[1], lanes, 1)
                  : interleave(lb, ll,
                               interleave(lb, ll, rows[0], rows[1], lanes, 1),
                               interleave(lb, ll, rows[2], rows[3], lanes, 1),
                               2 * lanes, 2);
          vector::StoreOp::create(
              lb, ll, packed, panelBuffer,
              ValueRange{q, arith::ConstantIndexOp::create(lb, ll, 0)});
          scf::YieldOp::create(lb, ll);
        });
  };
  auto emitRows = [&](OpBuilder &nb, Location nl, SmallVector<Value> dims,
                      Value n0, ArrayRef<int64_t> columns) {
    if (packHere) {
      int64_t width = 0;
      for (int64_t w : columns)
        width += w;
      packColumns(nb, nl, dims, n0, width);
    }
    loopOver(nb, nl, rowsTotal, rowStep,
             [&](OpBuilder &mb, Location ml, Value m0) {
               emitBlock(mb, ml, dims, m0, n0, columns);
             });
  };
  std::function<void(OpBuilder &, Location, SmallVector<Value>, size_t)>
      emitOuter = [&](OpBuilder &ob, Location ol, SmallVector<Value> dims,
                      size_t level) {
        if (level == loops->outer.size()) {
          if (columnPairs > 0)
            loopOver(ob, ol, columnPairs * 2 * kAmxTileRows, 2 * kAmxTileRows,
                     [&](OpBuilder &nb, Location nl, Value n0) {
                       emitRows(nb, nl, dims, n0, {kAmxTileRows, kAmxTileRows});
                     });
          if (!restColumns.empty())
            emitRows(ob, ol, dims,
                     arith::ConstantIndexOp::create(
                         ob, ol, columnPairs * 2 * kAmxTileRows),
                     restColumns);
          return;
        }
        unsigned d = loops->outer[level];
        if (sizes[d] == 1) {
          emitOuter(ob, ol, dims, level + 1);
          return;
        }
        loopOver(ob, ol, sizes[d], 1,
                 [&](OpBuilder &lb, Location ll, Value iv) {
                   SmallVector<Value> inner = dims;
                   inner[d] = iv;
                   emitOuter(lb, ll, inner, level + 1);
                 });
      };
  emitOuter(rewriter, loc, SmallVector<Value>(op.getNumLoops(), zero), 0);
  rewriter.eraseOp(op);
  rewriter.eraseOp(fill);
  return success();
}

} // namespace mlir::kiln::cpu
