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

#include <functional>

namespace mlir::kiln::cpu {

namespace {

// `value` itself, or the f32 extension of it (`arith.extf`): how a 16-bit
// operand enters an f32 multiply-accumulate.
Value stripExtension(Value value) {
  if (auto ext = value.getDefiningOp<arith::ExtFOp>())
    return ext.getIn();
  return value;
}

// out += a * b, in any operand order, where a and b may be extended from
// 16 bits first: the body of every contraction and convolution generic.
bool isMultiplyAccumulate(linalg::LinalgOp op) {
  Block &body = op->getRegion(0).front();
  size_t extensions = llvm::count_if(
      body.getOperations(), [](Operation &o) { return isa<arith::ExtFOp>(o); });
  if (body.getNumArguments() != 3 ||
      body.getOperations().size() != 3 + extensions)
    return false;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value acc = body.getArgument(2);
  Value product = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  if ((add.getLhs() == acc) == (add.getRhs() == acc))
    return false;
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return false;
  Value x = body.getArgument(0), y = body.getArgument(1);
  Value lhs = stripExtension(mul.getLhs()), rhs = stripExtension(mul.getRhs());
  return (lhs == x && rhs == y) || (lhs == y && rhs == x);
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
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !isMultiplyAccumulate(op))
    return failure();
  // f32 accumulators; A and B both f32 or both the same 16-bit type.
  Type operandType = getElementTypeOrSelf(op.getDpsInputs()[0].getType());
  if (!getElementTypeOrSelf(op.getDpsInits()[0].getType()).isF32() ||
      getElementTypeOrSelf(op.getDpsInputs()[1].getType()) != operandType ||
      !(operandType.isF32() || operandType.isBF16() || operandType.isF16()))
    return failure();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap outMap = maps[2];
  unsigned numLoops = op.getNumLoops();
  if (outMap.getNumResults() < 2 || !outMap.isProjectedPermutation())
    return failure();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  ContractionLoops loops;
  loops.operandType = operandType;
  loops.n = cast<AffineDimExpr>(outMap.getResults().back()).getPosition();
  // B: the input whose innermost index moves with the lanes, one for one,
  // and no other index does; A must not depend on the lanes at all.
  auto lanesOperand = [&](AffineMap map) {
    if (map.getNumResults() == 0)
      return false;
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
  } else if (lanesOperand(maps[0]) && independentOfLanes(maps[1])) {
    loops.lhs = 1;
    loops.rhs = 0;
  } else {
    return failure();
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
                          "handles (f32 multiply-add of f32, bf16 or f16 "
                          "operands, output lanes "
                          "contiguous in one operand and absent from the "
                          "other)");
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
  Value kSize = sizes[loops->reductions.front()];
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
  // A and B in 16 bits are loaded as they are stored and extended to f32
  // in registers (half the bytes of an f32 load; the FMAs stay f32).
  Type operandType = loops->operandType;
  auto toF32 = [&](OpBuilder &bb, Location bl, Value v) -> Value {
    if (operandType.isF32())
      return v;
    Type type = f32;
    if (auto vector = dyn_cast<VectorType>(v.getType()))
      type = vector.clone(f32);
    return arith::ExtFOp::create(bb, bl, type, v);
  };
  auto emitTile = [&](OpBuilder &builder, Location l, int64_t width,
                      bool masked) {
    auto vectorType = VectorType::get({width}, f32);
    auto operandVectorType = VectorType::get({width}, operandType);
    Value mask, zeros, operandZeros;
    if (masked) {
      mask = vector::CreateMaskOp::create(
          builder, l, VectorType::get({width}, builder.getI1Type()),
          ValueRange{validLanes});
      zeros = arith::ConstantOp::create(
          builder, l, vectorType,
          DenseElementsAttr::get(vectorType, builder.getF32FloatAttr(0.0f)));
      operandZeros = arith::ConstantOp::create(
          builder, l, operandVectorType,
          DenseElementsAttr::get(operandVectorType,
                                 builder.getFloatAttr(operandType, 0.0)));
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
          DenseElementsAttr::get(wideType,
                                 builder.getFloatAttr(operandType, 0.0)));
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
    // One element of A, extended and broadcast to every lane.
    auto loadA = [&](OpBuilder &bb, Location bl, ArrayRef<Value> point) {
      Value scalar = memref::LoadOp::create(
          bb, bl, a, operandIndices(bb, bl, aMap, point));
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
    // The reduction nest: K blocks split the outermost reduction dim; the
    // accumulators are carried through every level.
    auto fmaStep = [&](OpBuilder &body, Location bl, ArrayRef<Value> at,
                       ValueRange acc) {
      SmallVector<Value> point(at);
      Value sharedB, sharedA;
      if (!loops->vectorPerRow)
        sharedB = loadB(body, bl, operandIndices(body, bl, bMap, point));
      if (!loops->scalarPerRow)
        sharedA = loadA(body, bl, point);
      SmallVector<Value> next;
      for (int64_t i = 0; i < rows; ++i) {
        point[loops->m] = readRows[i];
        Value bVector =
            sharedB ? sharedB
                    : loadB(body, bl, operandIndices(body, bl, bMap, point));
        Value aVector = sharedA ? sharedA : loadA(body, bl, point);
        next.push_back(
            vector::FMAOp::create(body, bl, aVector, bVector, acc[i]));
      }
      return next;
    };
    std::function<SmallVector<Value>(OpBuilder &, Location, size_t,
                                     SmallVector<Value>, ValueRange)>
        nest = [&](OpBuilder &nb, Location nl, size_t level,
                   SmallVector<Value> at, ValueRange acc) {
          unsigned d = loops->reductions[level];
          Value lower = level == 0 ? k0 : zero;
          Value upper = level == 0 ? kEnd : sizes[d];
          auto loop = scf::ForOp::create(
              nb, nl, lower, upper, one, acc,
              [&](OpBuilder &body, Location bl, Value iv, ValueRange inner) {
                SmallVector<Value> point(at);
                point[d] = iv;
                SmallVector<Value> next =
                    level + 1 == loops->reductions.size()
                        ? fmaStep(body, bl, point, inner)
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
