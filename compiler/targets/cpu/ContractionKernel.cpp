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

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::kiln::cpu {

FailureOr<ContractionLoops> matchContraction(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !linalg::isaContractionOpInterface(op))
    return failure();
  for (OpOperand &operand : op->getOpOperands())
    if (!getElementTypeOrSelf(operand.get().getType()).isF32())
      return failure();
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->k.size() != 1 || dims->m.empty() ||
      dims->n.empty())
    return failure();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap outMap = maps[2];
  if (outMap.getNumResults() == 0 || !outMap.isProjectedPermutation())
    return failure();
  auto lastDim = [](AffineMap map) -> std::optional<unsigned> {
    if (map.getNumResults() == 0)
      return std::nullopt;
    if (auto dim = dyn_cast<AffineDimExpr>(map.getResults().back()))
      return dim.getPosition();
    return std::nullopt;
  };
  std::optional<unsigned> n = lastDim(outMap);
  if (!n || !llvm::is_contained(dims->n, *n))
    return failure();
  ContractionLoops loops;
  loops.n = *n;
  loops.k = dims->k.front();
  // B is the input holding n; it must be innermost there too, so that one
  // vector load reads nr lanes.
  if (lastDim(maps[1]) == n) {
    loops.lhs = 0;
    loops.rhs = 1;
  } else if (lastDim(maps[0]) == n) {
    loops.lhs = 1;
    loops.rhs = 0;
  } else {
    return failure();
  }
  // The row dim: the output's second-innermost dim when it is an m dim.
  loops.m = dims->m.back();
  if (outMap.getNumResults() >= 2)
    if (auto dim = dyn_cast<AffineDimExpr>(
            outMap.getResult(outMap.getNumResults() - 2)))
      if (llvm::is_contained(dims->m, dim.getPosition()))
        loops.m = dim.getPosition();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned d = 0; d < op.getNumLoops(); ++d) {
    if (d == loops.m || d == loops.n || d == loops.k)
      continue;
    if (iterators[d] != utils::IteratorType::parallel)
      return failure();
    loops.outer.push_back(d);
  }
  return loops;
}

namespace {

// The fill of `out` that `op` accumulates onto, when nothing between them
// touches memory (the subviews of the operands may sit in between).
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

} // namespace

LogicalResult emitContractionKernel(RewriterBase &rewriter, linalg::LinalgOp op,
                                    int64_t rows, int64_t lanes,
                                    int64_t kTile) {
  if (!op.hasPureBufferSemantics())
    return op.emitOpError("register tiles need bufferized operands");
  FailureOr<ContractionLoops> loops = matchContraction(op);
  if (failed(loops))
    return op.emitOpError("is not a contraction the register-tiled kernel "
                          "handles (f32 multiply-add, one reduction dim, "
                          "output lanes contiguous in one operand)");
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

  Type f32 = rewriter.getF32Type();
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  Value zero = index(0), one = index(1);
  SmallVector<Value> sizes;
  for (Range range : op.createLoopRanges(rewriter, loc))
    sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, range.size));
  SmallVector<Value> dims(op.getNumLoops(), zero);

  for (unsigned d : loops->outer) {
    auto loop = scf::ForOp::create(rewriter, loc, zero, sizes[d], one);
    rewriter.setInsertionPointToStart(loop.getBody());
    dims[d] = loop.getInductionVar();
  }
  // K blocks outermost: the B sub-panel of one block (kTile x lanes) stays
  // in L1 while every row tile of the workgroup passes over it.
  Value kSize = sizes[loops->k];
  Value kStep = kTile > 0 ? index(kTile) : kSize;
  auto kBlocks = scf::ForOp::create(rewriter, loc, zero, kSize, kStep);
  rewriter.setInsertionPointToStart(kBlocks.getBody());
  Value k0 = kBlocks.getInductionVar();
  Value kEnd = arith::MinSIOp::create(
      rewriter, loc, kSize, arith::AddIOp::create(rewriter, loc, k0, kStep));
  Value firstBlock = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::eq, k0, zero);
  auto nLoop = scf::ForOp::create(rewriter, loc, zero, sizes[loops->n],
                                  index(lanes));
  rewriter.setInsertionPointToStart(nLoop.getBody());
  Value n0 = nLoop.getInductionVar();
  dims[loops->n] = n0;
  Value validLanes = arith::MinSIOp::create(
      rewriter, loc, index(lanes),
      arith::SubIOp::create(rewriter, loc, sizes[loops->n], n0));
  Value whole = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                      validLanes, index(lanes));
  auto mLoop = scf::ForOp::create(rewriter, loc, zero, sizes[loops->m],
                                  index(rows));
  rewriter.setInsertionPointToStart(mLoop.getBody());
  Value m0 = mLoop.getInductionVar();
  Value validRows = arith::MinSIOp::create(
      rewriter, loc, index(rows),
      arith::SubIOp::create(rewriter, loc, sizes[loops->m], m0));
  // Rows past the edge read the last valid row again (in bounds, results
  // discarded), so the inner loop has no per-row conditions.
  Value lastRow = arith::SubIOp::create(rewriter, loc, validRows, one);
  SmallVector<Value> readRows;
  for (int64_t i = 0; i < rows; ++i)
    readRows.push_back(arith::AddIOp::create(
        rewriter, loc, m0,
        i == 0 ? zero
               : arith::MinSIOp::create(rewriter, loc, index(i), lastRow)
                     .getResult()));
  SmallVector<Value> rowIndex;
  for (int64_t i = 0; i < rows; ++i)
    rowIndex.push_back(index(i));

  // One register tile of `width` lanes: start the accumulators, run the k
  // loop of this K block, store the valid rows. Masked tiles load and
  // store only the valid lanes.
  auto emitTile = [&](OpBuilder &builder, Location l, int64_t width,
                      bool masked) {
    auto vectorType = VectorType::get({width}, f32);
    Value mask, zeros;
    if (masked) {
      mask = vector::CreateMaskOp::create(
          builder, l, VectorType::get({width}, builder.getI1Type()),
          ValueRange{validLanes});
      zeros = arith::ConstantOp::create(
          builder, l, vectorType,
          DenseElementsAttr::get(vectorType, builder.getF32FloatAttr(0.0f)));
    }
    auto load = [&](OpBuilder &bb, Location bl, Value base,
                    ValueRange indices) -> Value {
      if (masked)
        return vector::MaskedLoadOp::create(bb, bl, vectorType, base, indices,
                                            mask, zeros);
      return vector::LoadOp::create(bb, bl, vectorType, base, indices);
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
    SmallVector<Value> init;
    if (fill) {
      auto start = scf::IfOp::create(
          builder, l, firstBlock,
          [&](OpBuilder &bb, Location bl) {
            Value splat = vector::BroadcastOp::create(bb, bl, vectorType,
                                                      fill.getDpsInputs()[0]);
            scf::YieldOp::create(bb, bl, SmallVector<Value>(rows, splat));
          },
          [&](OpBuilder &bb, Location bl) {
            scf::YieldOp::create(bb, bl, loadC(bb, bl));
          });
      init.assign(start.getResults().begin(), start.getResults().end());
    } else {
      init = loadC(builder, l);
    }
    auto kLoop = scf::ForOp::create(
        builder, l, k0, kEnd, one, init,
        [&](OpBuilder &body, Location bl, Value k, ValueRange acc) {
          SmallVector<Value> at(dims);
          at[loops->k] = k;
          Value bVector = load(body, bl, b, operandIndices(body, bl, bMap, at));
          SmallVector<Value> next;
          for (int64_t i = 0; i < rows; ++i) {
            at[loops->m] = readRows[i];
            Value scalar = memref::LoadOp::create(
                body, bl, a, operandIndices(body, bl, aMap, at));
            Value broadcast =
                vector::BroadcastOp::create(body, bl, vectorType, scalar);
            next.push_back(
                vector::FMAOp::create(body, bl, broadcast, bVector, acc[i]));
          }
          scf::YieldOp::create(body, bl, next);
        });
    for (int64_t i = 0; i < rows; ++i) {
      auto store = [&, i](OpBuilder &bb, Location bl) {
        SmallVector<Value> at(dims);
        at[loops->m] = arith::AddIOp::create(bb, bl, m0, rowIndex[i]);
        SmallVector<Value> indices = operandIndices(bb, bl, cMap, at);
        if (masked)
          vector::MaskedStoreOp::create(bb, bl, c, indices, mask,
                                        kLoop.getResult(i));
        else
          vector::StoreOp::create(bb, bl, kLoop.getResult(i), c, indices);
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
    if (lanes % 2 != 0 || lanes / 2 < 4) {
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
