//===- AttentionKernel.cpp - Fused attention as one CPU kernel ------------===//
#include "compiler/targets/cpu/AttentionKernel.h"

#include "dialects/kiln/KilnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <limits>

namespace mlir::kiln::cpu {

namespace {

AttentionOp theAttention(func::FuncOp func) {
  AttentionOp found;
  int64_t count = 0;
  func.walk([&](AttentionOp op) {
    found = op;
    ++count;
  });
  return count == 1 ? found : AttentionOp();
}

int64_t product(ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

// The kernel's static facts.
struct Shape {
  SmallVector<int64_t> batch; // the batch dims
  int64_t heads = 1;          // their product
  int64_t sq = 0, d = 0, sk = 0, dv = 0;
  // The mask, if any: its row-major strides per scores dim, 0 where it
  // broadcasts.
  bool hasMask = false;
  SmallVector<int64_t> maskStrides;
};

Shape shapeOf(AttentionOp op) {
  Shape s;
  auto q = op.getQuery().getType();
  int64_t rank = q.getRank();
  s.batch.assign(q.getShape().begin(), q.getShape().end() - 2);
  s.heads = product(s.batch);
  s.sq = q.getDimSize(rank - 2);
  s.d = q.getDimSize(rank - 1);
  s.sk = op.getKeyT().getType().getDimSize(rank - 1);
  s.dv = op.getValue().getType().getDimSize(rank - 1);
  if (Value mask = op.getMask()) {
    s.hasMask = true;
    ArrayRef<int64_t> m = cast<RankedTensorType>(mask.getType()).getShape();
    s.maskStrides.assign(rank, 0);
    int64_t stride = 1;
    for (int64_t dim = rank - 1; dim >= 0; --dim) {
      s.maskStrides[dim] = m[dim] == 1 ? 0 : stride;
      stride *= m[dim];
    }
  }
  return s;
}

// Builds the kernel body; `b` is inside the workgroup forall.
class Emitter {
public:
  Emitter(ImplicitLocOpBuilder &b, const Shape &shape, int64_t lanes,
          int64_t rows, int64_t keys, float scale, Value q, Value kt, Value v,
          Value mask, Value out)
      : b(b), s(shape), lanes(lanes), rows(rows), keys(keys), scale(scale),
        q(q), kt(kt), v(v), mask(mask), out(out) {
    f32 = b.getF32Type();
    vecType = VectorType::get({lanes}, f32);
  }

  // One workgroup: head `head`, rows [row, row + R).
  void workgroup(Value head, Value row, int64_t rowsPerWorkgroup) {
    qBase = mul(head, s.sq * s.d);
    ktBase = mul(head, s.d * s.sk);
    vBase = mul(head, s.sk * s.dv);
    oBase = mul(head, s.sq * s.dv);
    if (s.hasMask) {
      // The head's coordinates in the batch dims, each scaled by the
      // mask's stride (0 where it broadcasts).
      maskBase = index(0);
      int64_t inner = 1;
      for (int64_t dim = s.batch.size() - 1; dim >= 0; --dim) {
        if (s.maskStrides[dim] != 0 && s.batch[dim] != 1) {
          Value coord = arith::RemUIOp::create(
              b, arith::DivUIOp::create(b, head, index(inner)),
              index(s.batch[dim]));
          maskBase = add(maskBase, mul(coord, s.maskStrides[dim]));
        }
        inner *= s.batch[dim];
      }
    }
    probs = memref::AllocaOp::create(
        b, MemRefType::get({rows * keys}, f32), b.getI64IntegerAttr(64));
    // The online softmax's state of every row of the workgroup: the key
    // blocks are the outer loop, so that one block of K^T and V is read
    // from L1 by all the row tiles.
    rowBase = row;
    maxes = memref::AllocaOp::create(
        b, MemRefType::get({rowsPerWorkgroup}, f32), b.getI64IntegerAttr(64));
    sums = memref::AllocaOp::create(
        b, MemRefType::get({rowsPerWorkgroup}, f32), b.getI64IntegerAttr(64));
    forEachTile(row, rowsPerWorkgroup,
                [&](Value row0, int64_t n) { startTile(row0, n); });
    int64_t fullKeys = s.sk / keys * keys;
    if (fullKeys > 0) {
      auto loop =
          scf::ForOp::create(b, index(0), index(fullKeys), index(keys));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value k0 = loop.getInductionVar();
      forEachTile(row, rowsPerWorkgroup, [&](Value row0, int64_t n) {
        blockTile(row0, n, k0, keys);
      });
    }
    if (int64_t tail = s.sk - fullKeys)
      forEachTile(row, rowsPerWorkgroup, [&](Value row0, int64_t n) {
        blockTile(row0, n, index(fullKeys), tail);
      });
    forEachTile(row, rowsPerWorkgroup,
                [&](Value row0, int64_t n) { finishTile(row0, n); });
  }

private:
  ImplicitLocOpBuilder &b;
  const Shape &s;
  int64_t lanes, rows, keys;
  float scale;
  Value q, kt, v, mask, out;
  Type f32;
  VectorType vecType;
  Value qBase, ktBase, vBase, oBase, maskBase, probs;
  Value rowBase, maxes, sums;

  Value index(int64_t i) { return arith::ConstantIndexOp::create(b, i); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value mul(Value x, int64_t c) {
    return arith::MulIOp::create(b, x, index(c));
  }
  Value f32Const(float x) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(x));
  }
  Value splat(float x) {
    return arith::ConstantOp::create(
        b, DenseElementsAttr::get(vecType, b.getF32FloatAttr(x)));
  }
  Value laneMask(int64_t n) {
    return vector::ConstantMaskOp::create(
        b, VectorType::get({lanes}, b.getI1Type()),
        ArrayRef<int64_t>{n});
  }
  // A vector of `n` <= lanes elements at `at` (the rest zero).
  Value load(Value base, Value at, int64_t n) {
    if (n == lanes)
      return vector::LoadOp::create(b, vecType, base, ValueRange{at});
    return vector::MaskedLoadOp::create(b, vecType, base, ValueRange{at},
                                        laneMask(n), splat(0));
  }
  void store(Value x, Value base, Value at, int64_t n) {
    if (n == lanes)
      vector::StoreOp::create(b, x, base, ValueRange{at});
    else
      vector::MaskedStoreOp::create(b, base, ValueRange{at}, laneMask(n), x);
  }
  Value bcast(Value scalar) {
    return vector::BroadcastOp::create(b, vecType, scalar);
  }

  // x > y ? x : y, which is exactly vmaxps (maximumf and maxnumf, and
  // their vector.reduction, add NaN checks per element and reduce
  // sequentially). A NaN score still reaches the output through its
  // exponential and the row sum.
  Value greater(Value x, Value y) {
    Value gt = arith::CmpFOp::create(b, arith::CmpFPredicate::OGT, x, y);
    return arith::SelectOp::create(b, gt, x, y);
  }
  // The largest lane of `x`, by log2(lanes) rotations.
  Value maxAcross(Value x) {
    for (int64_t w = lanes / 2; w >= 1; w /= 2) {
      SmallVector<int64_t> rotate;
      for (int64_t i = 0; i < lanes; ++i)
        rotate.push_back((i + w) % lanes);
      x = greater(x, vector::ShuffleOp::create(b, x, x, rotate));
    }
    return vector::ExtractOp::create(b, x, ArrayRef<int64_t>{0});
  }

  // scf.for over [0, trips) carrying `init`; `step(i, acc)` updates the
  // accumulators for index i and is emitted 4, 2 or 1 times per iteration,
  // whichever divides `trips` (fewer loop-counter and address instructions
  // per FMA). Returns the final accumulators.
  SmallVector<Value>
  unrolledLoop(int64_t trips, ValueRange init,
               llvm::function_ref<void(Value, SmallVectorImpl<Value> &)> step) {
    int64_t unroll = trips % 4 == 0 ? 4 : trips % 2 == 0 ? 2 : 1;
    auto loop =
        scf::ForOp::create(b, index(0), index(trips), index(unroll), init);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> acc(loop.getRegionIterArgs());
    for (int64_t u = 0; u < unroll; ++u)
      step(add(loop.getInductionVar(), index(u)), acc);
    scf::YieldOp::create(b, acc);
    return SmallVector<Value>(loop.getResults());
  }

  // Vectors of the output row: (offset, lanes) pieces.
  SmallVector<std::pair<int64_t, int64_t>> pieces(int64_t n) {
    SmallVector<std::pair<int64_t, int64_t>> p;
    for (int64_t at = 0; at < n; at += lanes)
      p.push_back({at, std::min(lanes, n - at)});
    return p;
  }

  // `emit(row0, n)` for every register tile of the workgroup's rows
  // [row, row + R): whole tiles of `rows` in a loop, then the last
  // Sq % rows rows in the workgroup that holds them.
  void forEachTile(Value row, int64_t rowsPerWorkgroup,
                   llvm::function_ref<void(Value, int64_t)> emit) {
    int64_t fullRows = s.sq / rows * rows;
    if (fullRows > 0) {
      Value end = arith::MinSIOp::create(b, add(row, index(rowsPerWorkgroup)),
                                         index(fullRows));
      auto loop = scf::ForOp::create(b, row, end, index(rows));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      emit(loop.getInductionVar(), rows);
    }
    if (int64_t tail = s.sq - fullRows) {
      Value last = arith::CmpIOp::create(b, arith::CmpIPredicate::sge,
                                         add(row, index(rowsPerWorkgroup)),
                                         index(s.sq));
      auto branch = scf::IfOp::create(b, last, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&branch.getThenRegion().front());
      emit(index(fullRows), tail);
    }
  }

  SmallVector<Value> rowOffsets(Value row0, int64_t n) {
    SmallVector<Value> rowOut;
    for (int64_t i = 0; i < n; ++i)
      rowOut.push_back(add(oBase, mul(add(row0, index(i)), s.dv)));
    return rowOut;
  }
  // Row i of the tile at row0 in the state arrays.
  Value stateAt(Value row0, int64_t i) {
    return add(arith::SubIOp::create(b, row0, rowBase), index(i));
  }

  // Output rows zero, m = -FLT_MAX, l = 0.
  void startTile(Value row0, int64_t n) {
    SmallVector<Value> rowOut = rowOffsets(row0, n);
    for (int64_t i = 0; i < n; ++i) {
      for (auto [at, width] : pieces(s.dv))
        store(splat(0), out, add(rowOut[i], index(at)), width);
      memref::StoreOp::create(b, f32Const(-std::numeric_limits<float>::max()),
                              maxes, ValueRange{stateAt(row0, i)});
      memref::StoreOp::create(b, f32Const(0), sums,
                              ValueRange{stateAt(row0, i)});
    }
  }

  // One key block for one tile, its state read and written back.
  void blockTile(Value row0, int64_t n, Value k0, int64_t count) {
    SmallVector<Value> state(2 * n);
    for (int64_t i = 0; i < n; ++i) {
      state[i] = memref::LoadOp::create(b, maxes, ValueRange{stateAt(row0, i)});
      state[n + i] =
          memref::LoadOp::create(b, sums, ValueRange{stateAt(row0, i)});
    }
    SmallVector<Value> next =
        keyBlock(row0, n, k0, count, state, rowOffsets(row0, n));
    for (int64_t i = 0; i < n; ++i) {
      memref::StoreOp::create(b, next[i], maxes, ValueRange{stateAt(row0, i)});
      memref::StoreOp::create(b, next[n + i], sums,
                              ValueRange{stateAt(row0, i)});
    }
  }

  // O /= l.
  void finishTile(Value row0, int64_t n) {
    SmallVector<Value> rowOut = rowOffsets(row0, n);
    for (int64_t i = 0; i < n; ++i) {
      Value l = memref::LoadOp::create(b, sums, ValueRange{stateAt(row0, i)});
      Value inverse = bcast(arith::DivFOp::create(b, f32Const(1), l));
      for (auto [at, width] : pieces(s.dv)) {
        Value where = add(rowOut[i], index(at));
        store(arith::MulFOp::create(b, load(out, where, width), inverse), out,
              where, width);
      }
    }
  }

  // Keys [k0, k0 + count) for `n` rows from `row0`; `state` holds m and l
  // per row, the new ones are returned.
  SmallVector<Value> keyBlock(Value row0, int64_t n, Value k0, int64_t count,
                              ValueRange state, ArrayRef<Value> rowOut) {
    auto keyPieces = pieces(count);
    int64_t nv = keyPieces.size();
    // 1. Scores: scf.for over the head size, n x nv accumulators.
    SmallVector<Value> qRow;
    for (int64_t i = 0; i < n; ++i)
      qRow.push_back(add(qBase, mul(add(row0, index(i)), s.d)));
    Value ktAt = add(ktBase, k0);
    SmallVector<Value> init(n * nv, splat(0));
    SmallVector<Value> scores = unrolledLoop(
        s.d, init, [&](Value dd, SmallVectorImpl<Value> &acc) {
          Value keyRow = add(ktAt, mul(dd, s.sk));
          SmallVector<Value> kv;
          for (auto [at, width] : keyPieces)
            kv.push_back(load(kt, add(keyRow, index(at)), width));
          for (int64_t i = 0; i < n; ++i) {
            Value qi = bcast(
                memref::LoadOp::create(b, q, ValueRange{add(qRow[i], dd)}));
            for (int64_t j = 0; j < nv; ++j)
              acc[i * nv + j] =
                  vector::FMAOp::create(b, qi, kv[j], acc[i * nv + j]);
          }
        });
    // 2. Online softmax.
    Value scaleV = splat(scale);
    Value minusInf = splat(-std::numeric_limits<float>::infinity());
    SmallVector<Value> next(2 * n), alpha(n), shifts(n), rowSums(n);
    for (int64_t i = 0; i < n; ++i) {
      SmallVector<Value> sv;
      Value maskRow;
      if (s.hasMask)
        maskRow = add(maskBase, add(mul(add(row0, index(i)),
                                        s.maskStrides[s.maskStrides.size() - 2]),
                                    s.maskStrides.back() ? k0 : index(0)));
      for (int64_t j = 0; j < nv; ++j) {
        auto [at, width] = keyPieces[j];
        Value x = arith::MulFOp::create(b, scores[i * nv + j], scaleV);
        if (s.hasMask) {
          Value m = s.maskStrides.back()
                        ? load(mask, add(maskRow, index(at)), width)
                        : bcast(memref::LoadOp::create(b, mask,
                                                       ValueRange{maskRow}));
          x = arith::AddFOp::create(b, x, m);
        }
        if (width < lanes)
          x = arith::SelectOp::create(b, laneMask(width), x, minusInf);
        sv.push_back(x);
      }
      Value blockMax = sv[0];
      for (int64_t j = 1; j < nv; ++j)
        blockMax = greater(blockMax, sv[j]);
      Value mNew = greater(state[i], maxAcross(blockMax));
      shifts[i] = arith::SubFOp::create(b, state[i], mNew);
      Value mV = bcast(mNew);
      Value sum;
      for (int64_t j = 0; j < nv; ++j) {
        Value p = math::ExpOp::create(b, arith::SubFOp::create(b, sv[j], mV));
        vector::StoreOp::create(b, p, probs,
                                ValueRange{index(i * keys + j * lanes)});
        sum = sum ? arith::AddFOp::create(b, sum, p).getResult() : p;
      }
      // In any order: a tree of shuffles, not 16 dependent scalar adds.
      rowSums[i] = vector::ReductionOp::create(
          b, vector::CombiningKind::ADD, sum, arith::FastMathFlags::reassoc);
      next[i] = mNew;
    }
    // The rows' rescale factors e^(m - m') as one vector exponential.
    Value alphas = math::ExpOp::create(
        b, vector::FromElementsOp::create(
               b, VectorType::get({n}, f32), shifts));
    for (int64_t i = 0; i < n; ++i) {
      alpha[i] = vector::ExtractOp::create(b, alphas, ArrayRef<int64_t>{i});
      next[n + i] = arith::AddFOp::create(
          b, arith::MulFOp::create(b, state[n + i], alpha[i]), rowSums[i]);
    }
    // 3. O = O alpha + P V, a few output vectors per row at a time.
    auto outPieces = pieces(s.dv);
    int64_t chunk = std::max<int64_t>(1, (lanes >= 16 ? 16 : 12) / n);
    Value vAt = add(vBase, mul(k0, s.dv));
    for (size_t c0 = 0; c0 < outPieces.size(); c0 += chunk) {
      ArrayRef<std::pair<int64_t, int64_t>> group =
          ArrayRef(outPieces).slice(c0, std::min<size_t>(chunk, outPieces.size() - c0));
      int64_t nc = group.size();
      SmallVector<Value> acc;
      for (int64_t i = 0; i < n; ++i) {
        Value a = bcast(alpha[i]);
        for (auto [at, width] : group)
          acc.push_back(arith::MulFOp::create(
              b, load(out, add(rowOut[i], index(at)), width), a));
      }
      SmallVector<Value> sums = unrolledLoop(
          count, acc, [&](Value j, SmallVectorImpl<Value> &sum) {
            Value vRow = add(vAt, mul(j, s.dv));
            SmallVector<Value> vv;
            for (auto [at, width] : group)
              vv.push_back(load(v, add(vRow, index(at)), width));
            for (int64_t i = 0; i < n; ++i) {
              Value p = bcast(memref::LoadOp::create(
                  b, probs, ValueRange{add(index(i * keys), j)}));
              for (int64_t c = 0; c < nc; ++c)
                sum[i * nc + c] =
                    vector::FMAOp::create(b, p, vv[c], sum[i * nc + c]);
            }
          });
      for (int64_t i = 0; i < n; ++i)
        for (auto [c, piece] : llvm::enumerate(group))
          store(sums[i * nc + c], out,
                add(rowOut[i], index(piece.first)), piece.second);
    }
    return next;
  }
};

// `buffer` (static, row-major) as one dim. A reinterpret_cast, not a
// collapse_shape: memref alias folding would turn every load of a
// collapse_shape back into a load of the original dims, delinearizing the
// index with divisions (measured: most of the inner loops' instructions).
Value flatView(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t n = type.getNumElements();
  return memref::ReinterpretCastOp::create(
      b, loc, MemRefType::get({n}, type.getElementType()), buffer,
      /*offset=*/0, /*sizes=*/ArrayRef<int64_t>{n},
      /*strides=*/ArrayRef<int64_t>{1});
}

// The buffer behind an operand of the attention: a kernel argument seen
// through bufferization.to_tensor, as one dim.
FailureOr<Value> flatBuffer(OpBuilder &b, Location loc, Value tensor) {
  auto toTensor = tensor.getDefiningOp<bufferization::ToTensorOp>();
  if (!toTensor)
    return failure();
  return flatView(b, loc, toTensor.getBuffer());
}

} // namespace

bool isAttentionDispatch(func::FuncOp dispatch) {
  return static_cast<bool>(theAttention(dispatch));
}

LoweringConfig chooseAttentionConfig(func::FuncOp dispatch,
                                     const TargetChoice &target) {
  Shape s = shapeOf(theAttention(dispatch));
  LoweringConfig config;
  config.strategy = Strategy::Attention;
  int64_t lanes = target.f32Lanes();
  bool wide = target.vectorBits >= 512;
  config.tileRows = std::min<int64_t>(wide ? 4 : 6, s.sq);
  config.tileLanes = wide ? 4 * lanes : 2 * lanes;
  int64_t rowsPer = config.tileRows;
  auto workgroups = [&](int64_t r) { return s.heads * ((s.sq + r - 1) / r); };
  while (rowsPer * 2 <= 64 && rowsPer * 2 <= s.sq &&
         workgroups(rowsPer * 2) >= 16)
    rowsPer *= 2;
  config.workgroupTile = {1, rowsPer};
  return config;
}

LogicalResult emitAttentionKernel(func::FuncOp kernel,
                                  const LoweringConfig &config,
                                  const TargetChoice &target) {
  AttentionOp op = theAttention(kernel);
  if (!op)
    return kernel.emitError("the attention strategy needs a dispatch of one "
                            "kiln.attention");
  Shape s = shapeOf(op);
  int64_t lanes = target.f32Lanes();
  int64_t rows = config.tileRows, keys = config.tileLanes;
  if (config.workgroupTile.size() != 2 || config.workgroupTile[0] != 1 ||
      config.workgroupTile[1] < 1 || rows < 1 || rows > 16 || keys < lanes ||
      keys % lanes != 0 || keys > 16 * lanes ||
      (config.workgroupTile[1] % rows != 0 && config.workgroupTile[1] < s.sq))
    return op.emitOpError("the attention lowering config needs workgroup_tile "
                          "= [1, R] and register_tile = [rows, keys] with "
                          "rows in 1..16, keys a multiple of the ")
           << lanes << " f32 lanes (at most 16 vectors), R a multiple of "
           << "rows; got " << config.toAttr(kernel.getContext());
  int64_t rowsPer = std::min(config.workgroupTile[1], s.sq);
  rows = std::min(rows, s.sq);
  Block &entry = kernel.getBody().front();
  auto materialize =
      llvm::find_if(entry, [&](Operation &o) {
        auto m = dyn_cast<bufferization::MaterializeInDestinationOp>(o);
        return m && m.getSource() == op.getResult();
      });
  if (materialize == entry.end())
    return op.emitOpError("must be the dispatch's result");
  Value outBuffer =
      cast<bufferization::MaterializeInDestinationOp>(*materialize).getDest();
  ImplicitLocOpBuilder b(op.getLoc(), op);
  SmallVector<Value> flat;
  for (Value operand : op->getOperands()) {
    FailureOr<Value> buffer = flatBuffer(b, op.getLoc(), operand);
    if (failed(buffer))
      return op.emitOpError("operands must be dispatch inputs");
    flat.push_back(*buffer);
  }
  Value out = flatView(b, op.getLoc(), outBuffer);
  SmallVector<OpFoldResult> lbs = {b.getIndexAttr(0), b.getIndexAttr(0)};
  SmallVector<OpFoldResult> ubs = {b.getIndexAttr(s.heads),
                                   b.getIndexAttr(s.sq)};
  SmallVector<OpFoldResult> steps = {b.getIndexAttr(1),
                                     b.getIndexAttr(rowsPer)};
  auto forall = scf::ForallOp::create(b, lbs, ubs, steps, ValueRange{},
                                      std::nullopt);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(forall.getBody());
    Emitter emitter(b, s, lanes, rows, keys,
                    op.getScale().convertToFloat(), flat[0], flat[1], flat[2],
                    s.hasMask ? flat[3] : Value(), out);
    emitter.workgroup(forall.getInductionVar(0), forall.getInductionVar(1),
                      rowsPer);
  }
  // Nothing else is left to compute: the op and its tensors go.
  cast<bufferization::MaterializeInDestinationOp>(*materialize).erase();
  op.erase();
  for (Operation &o : llvm::make_early_inc_range(llvm::reverse(entry)))
    if (isa<bufferization::ToTensorOp>(o) && o.use_empty())
      o.erase();
  return success();
}

} // namespace mlir::kiln::cpu
