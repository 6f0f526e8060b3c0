//===- GpuKernelEmitter.cpp - Loop nests of a dispatch as one launch ------===//
#include "compiler/targets/cuda/GpuKernelEmitter.h"

#include "compiler/targets/cuda/GpuDataMovement.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <limits>

namespace mlir::kiln::cuda {

namespace {

constexpr int64_t kWarp = 32;
// Without opting in (cuFuncSetAttribute), a launch gets 48 KiB.
constexpr int64_t kMaxSharedBytes = 48 * 1024;
// A row's reduction at least this long is shared by the block's threads;
// shorter ones (pooling windows) run in one thread per output.
constexpr int64_t kMinBlockReduction = 64;
// ... unless it is a contraction with at least this many outputs (see
// emitKernel).
constexpr int64_t kMinFlatContractionOutputs = 1024;

struct Nest {
  mutable linalg::GenericOp op;
  SmallVector<int64_t> ranges;
  // Per output: the scalar of a fill folded into this nest (the initial
  // accumulator instead of a load), or null.
  SmallVector<Value> initValues;
  // Per output: the source of a copy folded into this nest (the initial
  // accumulator is loaded from there, at the output's indices), or null.
  SmallVector<Value> initBuffers;
};

Value rootOf(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

int64_t product(ArrayRef<int64_t> values) {
  int64_t p = 1;
  for (int64_t v : values)
    p *= v;
  return p;
}

int64_t roundUpToWarp(int64_t n) {
  return std::max<int64_t>(kWarp, (n + kWarp - 1) / kWarp * kWarp);
}

// The combining op of a reduction nest (acc' = combine(acc, f(inputs)))
// when the block's threads can share it: one 32-bit output whose
// accumulator is used once, by an associative, commutative arith op.
Operation *blockCombiner(const Nest &nest, int64_t rows) {
  linalg::GenericOp op = nest.op;
  if (op.getNumDpsInits() != 1 || op.getNumLoops() <= rows)
    return nullptr;
  auto iterators = op.getIteratorTypesArray();
  for (int64_t d = 0; d < op.getNumLoops(); ++d)
    if ((d < rows) != (iterators[d] == utils::IteratorType::parallel))
      return nullptr;
  Type element = getElementTypeOrSelf(op.getDpsInitOperand(0)->get());
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() != 32)
    return nullptr;
  Block &body = op.getRegion().front();
  BlockArgument acc = body.getArgument(op.getNumDpsInputs());
  if (!acc.hasOneUse())
    return nullptr;
  Operation *combine = *acc.getUsers().begin();
  if (body.getTerminator()->getOperand(0) != combine->getResult(0) ||
      combine->getNumOperands() != 2)
    return nullptr;
  if (!isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MaxNumFOp,
           arith::MinimumFOp, arith::MinNumFOp, arith::AddIOp, arith::MulIOp,
           arith::AndIOp, arith::OrIOp, arith::XOrIOp, arith::MaxSIOp,
           arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp>(combine))
    return nullptr;
  return combine;
}

TypedAttr identityOf(Operation *combine, Type type) {
  Builder b(combine->getContext());
  if (auto f = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = f.getFloatSemantics();
    if (isa<arith::AddFOp>(combine))
      return b.getFloatAttr(type, 0.0);
    if (isa<arith::MulFOp>(combine))
      return b.getFloatAttr(type, 1.0);
    bool isMax = isa<arith::MaximumFOp, arith::MaxNumFOp>(combine);
    return b.getFloatAttr(type, llvm::APFloat::getInf(sem, isMax));
  }
  unsigned width = type.getIntOrFloatBitWidth();
  llvm::APInt value(width, 0);
  if (isa<arith::MulIOp>(combine))
    value = llvm::APInt(width, 1);
  else if (isa<arith::AndIOp, arith::MinUIOp>(combine))
    value = llvm::APInt::getAllOnes(width);
  else if (isa<arith::MaxSIOp>(combine))
    value = llvm::APInt::getSignedMinValue(width);
  else if (isa<arith::MinSIOp>(combine))
    value = llvm::APInt::getSignedMaxValue(width);
  return b.getIntegerAttr(type, value);
}

SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<int64_t> shape) {
  SmallVector<Value> indices(shape.size());
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    if (d == 0) {
      indices[d] = linear;
      break;
    }
    Value extent = arith::ConstantIndexOp::create(b, loc, shape[d]);
    indices[d] = arith::RemUIOp::create(b, loc, linear, extent);
    linear = arith::DivUIOp::create(b, loc, linear, extent);
  }
  return indices;
}

Value linearize(OpBuilder &b, Location loc, ValueRange indices,
                ArrayRef<int64_t> shape) {
  Value linear = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [index, extent] : llvm::zip(indices, shape)) {
    linear = arith::MulIOp::create(
        b, loc, linear, arith::ConstantIndexOp::create(b, loc, extent));
    linear = arith::AddIOp::create(b, loc, linear, index);
  }
  return linear;
}

SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ArrayRef<Value> ivs) {
  SmallVector<Value> results;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      results.push_back(ivs[dim.getPosition()]);
    else if (auto c = dyn_cast<AffineConstantExpr>(expr))
      results.push_back(arith::ConstantIndexOp::create(b, loc, c.getValue()));
    else
      results.push_back(affine::AffineApplyOp::create(
          b, loc, AffineMap::get(map.getNumDims(), 0, expr), ivs));
  }
  return results;
}

// One row's slice of an intermediate, in dynamic shared memory.
struct LocalSlice {
  Value shared; // 1-D memref in the workgroup address space
  SmallVector<int64_t> shape;
};

class Emitter {
public:
  Emitter(OpBuilder &b, Location loc, int64_t rows)
      : b(b), loc(loc), rows(rows) {}

  OpBuilder &b;
  Location loc;
  int64_t rows;
  IRMapping outer;
  DenseMap<Value, LocalSlice> locals;
  // The block reductions' per-warp partials, by element type.
  DenseMap<Type, Value> scratch;
  // Buffers whose element at the current point is already in a register
  // (an epilogue nest reading its fused reduction's result).
  DenseMap<Value, Value> forwarded;

  Value load(Value buffer, ArrayRef<Value> indices) {
    // A fused producer's value at this very point (never in memory).
    if (Value value = forwarded.lookup(buffer))
      return value;
    auto local = locals.find(buffer);
    if (local != locals.end()) {
      Value at =
          linearize(b, loc, indices.drop_front(rows), local->second.shape);
      return memref::LoadOp::create(b, loc, local->second.shared, at);
    }
    return memref::LoadOp::create(b, loc, outer.lookupOrDefault(buffer),
                                  indices);
  }

  void store(Value value, Value buffer, ArrayRef<Value> indices) {
    auto local = locals.find(buffer);
    if (local != locals.end()) {
      Value at =
          linearize(b, loc, indices.drop_front(rows), local->second.shape);
      memref::StoreOp::create(b, loc, value, local->second.shared, at);
      return;
    }
    memref::StoreOp::create(b, loc, value, outer.lookupOrDefault(buffer),
                            indices);
  }

  // The body of `nest` at the point `ivs`; acc[j] (when set) stands for
  // output j's current value. Returns the yielded values.
  SmallVector<Value> point(const Nest &nest, ArrayRef<Value> ivs,
                           ArrayRef<Value> acc) {
    linalg::GenericOp op = nest.op;
    Block &body = op.getRegion().front();
    IRMapping map = outer;
    for (OpOperand *in : op.getDpsInputOperands()) {
      BlockArgument arg = body.getArgument(in->getOperandNumber());
      if (arg.use_empty())
        continue;
      if (!isa<MemRefType>(in->get().getType())) {
        map.map(arg, outer.lookupOrDefault(in->get()));
        continue;
      }
      map.map(arg, load(in->get(),
                        applyMap(b, loc, op.getMatchingIndexingMap(in), ivs)));
    }
    for (OpOperand &out : op.getDpsInitsMutable()) {
      int64_t j = out.getOperandNumber() - op.getNumDpsInputs();
      BlockArgument arg = body.getArgument(out.getOperandNumber());
      if (j < int64_t(acc.size()) && acc[j])
        map.map(arg, acc[j]);
      else if (!arg.use_empty())
        map.map(arg,
                load(out.get(),
                     applyMap(b, loc, op.getMatchingIndexingMap(&out), ivs)));
    }
    for (Operation &o : body.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(o)) {
        map.map(index.getResult(), ivs[index.getDim()]);
        continue;
      }
      b.clone(o, map);
    }
    SmallVector<Value> yields;
    for (Value v : body.getTerminator()->getOperands())
      yields.push_back(map.lookupOrDefault(v));
    return yields;
  }

  // The initial accumulator of output j at `ivs` (reduction dims ignored).
  Value initial(const Nest &nest, int64_t j, ArrayRef<Value> ivs) {
    if (nest.initValues[j])
      return outer.lookupOrDefault(nest.initValues[j]);
    OpOperand *out = nest.op.getDpsInitOperand(j);
    return load(nest.initBuffers[j] ? nest.initBuffers[j] : out->get(),
                applyMap(b, loc, nest.op.getMatchingIndexingMap(out), ivs));
  }

  void storeOutputs(const Nest &nest, ArrayRef<Value> values,
                    ArrayRef<Value> ivs) {
    for (OpOperand &out : nest.op.getDpsInitsMutable()) {
      int64_t j = out.getOperandNumber() - nest.op.getNumDpsInputs();
      store(values[j], out.get(),
            applyMap(b, loc, nest.op.getMatchingIndexingMap(&out), ivs));
    }
  }

  // One point of the nest's parallel dims (`ivs`: parallel dims set,
  // reduction dims ignored) with its reduction loops run in this thread.
  void pointWithReductions(const Nest &nest, SmallVector<Value> ivs) {
    SmallVector<Value> values = reduceAt(nest, ivs);
    for (int64_t d = 0; d < nest.op.getNumLoops(); ++d)
      if (!ivs[d])
        ivs[d] = arith::ConstantIndexOp::create(b, loc, 0);
    storeOutputs(nest, values, ivs);
  }

  // The values of the nest's outputs at one point of its parallel dims,
  // its reduction loops run in this thread (not stored).
  SmallVector<Value> reduceAt(const Nest &nest, SmallVector<Value> ivs) {
    linalg::GenericOp op = nest.op;
    SmallVector<int64_t> reductionDims, reductionRanges;
    for (auto [d, it] : llvm::enumerate(op.getIteratorTypesArray()))
      if (it == utils::IteratorType::reduction) {
        reductionDims.push_back(d);
        reductionRanges.push_back(nest.ranges[d]);
      }
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    for (int64_t d : reductionDims)
      ivs[d] = zero;
    if (reductionDims.empty()) {
      SmallVector<Value> acc(op.getNumDpsInits());
      for (int64_t j = 0; j < int64_t(acc.size()); ++j)
        if (nest.initValues[j])
          acc[j] = outer.lookupOrDefault(nest.initValues[j]);
      return point(nest, ivs, acc);
    }
    SmallVector<Value> init;
    for (int64_t j = 0; j < op.getNumDpsInits(); ++j)
      init.push_back(initial(nest, j, ivs));
    Value count =
        arith::ConstantIndexOp::create(b, loc, product(reductionRanges));
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ForOp::create(
        b, loc, zero, count, one, init,
        [&](OpBuilder &nested, Location, Value q, ValueRange acc) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(nested.getInsertionBlock());
          SmallVector<Value> at = ivs;
          for (auto [d, v] : llvm::zip(reductionDims,
                                       delinearize(b, loc, q, reductionRanges)))
            at[d] = v;
          SmallVector<Value> accs(acc.begin(), acc.end());
          scf::YieldOp::create(b, loc, point(nest, at, accs));
        });
    return SmallVector<Value>(loop.getResults());
  }

  Value combine(Operation *combiner, Value a, Value c) {
    Block *body = combiner->getBlock();
    auto op = cast<linalg::GenericOp>(body->getParentOp());
    BlockArgument acc = body->getArgument(op.getNumDpsInputs());
    IRMapping map;
    for (Value operand : combiner->getOperands())
      map.map(operand, operand == acc ? a : c);
    return b.clone(*combiner, map)->getResult(0);
  }

  // A nest that reduces all of a row's remaining dims into one element:
  // strided partials per thread, shuffles within each warp, one partial
  // per warp through shared memory, the first warp's shuffles, and thread 0
  // folds in the initial value and stores.
  void blockReduce(const Nest &nest, Operation *combiner,
                   SmallVector<Value> ivs, Value tid, int64_t block) {
    Type type = combiner->getResult(0).getType();
    Value identity =
        arith::ConstantOp::create(b, loc, identityOf(combiner, type));
    ArrayRef<int64_t> reductionRanges =
        ArrayRef<int64_t>(nest.ranges).drop_front(rows);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    for (int64_t d = rows; d < int64_t(ivs.size()); ++d)
      ivs[d] = zero;
    auto loop = scf::ForOp::create(
        b, loc, tid,
        arith::ConstantIndexOp::create(b, loc, product(reductionRanges)),
        arith::ConstantIndexOp::create(b, loc, block), ValueRange{identity},
        [&](OpBuilder &nested, Location, Value q, ValueRange acc) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(nested.getInsertionBlock());
          SmallVector<Value> at = ivs;
          for (auto [i, v] :
               llvm::enumerate(delinearize(b, loc, q, reductionRanges)))
            at[rows + i] = v;
          scf::YieldOp::create(b, loc, point(nest, at, {acc.front()}).front());
        });
    Value partial = warpReduce(combiner, loop.getResult(0));
    auto finish = [&](Value total) {
      Value isFirst =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
      auto first = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(first.thenBlock()->getTerminator());
      Value result = combine(combiner, initial(nest, 0, ivs), total);
      storeOutputs(nest, {result}, ivs);
    };
    int64_t warps = block / kWarp;
    if (warps == 1) {
      finish(partial);
      return;
    }
    Value warpSize = arith::ConstantIndexOp::create(b, loc, kWarp);
    Value lane = arith::RemUIOp::create(b, loc, tid, warpSize);
    Value warp = arith::DivUIOp::create(b, loc, tid, warpSize);
    Value shared = scratch.lookup(type);
    {
      Value isLaneZero =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, zero);
      auto write = scf::IfOp::create(b, loc, isLaneZero, /*withElse=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(write.thenBlock()->getTerminator());
      memref::StoreOp::create(b, loc, partial, shared, warp);
    }
    gpu::BarrierOp::create(b, loc);
    Value isFirstWarp =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid, warpSize);
    auto firstWarp = scf::IfOp::create(b, loc, isFirstWarp, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(firstWarp.thenBlock()->getTerminator());
    Value mine = memref::LoadOp::create(b, loc, shared, lane);
    Value live =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane,
                              arith::ConstantIndexOp::create(b, loc, warps));
    mine = arith::SelectOp::create(b, loc, live, mine, identity);
    finish(warpReduce(combiner, mine));
  }

  // An elementwise nest, 4 consecutive elements per thread: 16-byte (for
  // 4-byte elements) vector loads and stores when every buffer is aligned
  // for them, checked here since bindings may be views at any offset;
  // scalar otherwise.
  void vectorPoint(const Nest &nest, Value id, int64_t threads,
                   int64_t launched) {
    linalg::GenericOp op = nest.op;
    Block &body = op.getRegion().front();
    auto scope = [&](auto build) {
      if (launched == threads) {
        build();
        return;
      }
      Value inRange = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ult, id,
          arith::ConstantIndexOp::create(b, loc, threads));
      auto guard = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPoint(guard.thenBlock()->getTerminator());
      build();
    };
    scope([&] {
      Value four = arith::ConstantIndexOp::create(b, loc, 4);
      Value base = arith::MulIOp::create(b, loc, id, four);
      Value aligned;
      SmallVector<Value> flat(op->getNumOperands());
      for (OpOperand &operand : op->getOpOperands()) {
        auto type = dyn_cast<MemRefType>(operand.get().getType());
        if (!type)
          continue;
        Value buffer = outer.lookupOrDefault(operand.get());
        int64_t bytes = 4 * (type.getElementTypeBitWidth() / 8);
        Value pointer =
            memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
        Value ok = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::eq,
            arith::RemUIOp::create(
                b, loc, pointer, arith::ConstantIndexOp::create(b, loc, bytes)),
            arith::ConstantIndexOp::create(b, loc, 0));
        aligned = aligned
                      ? arith::AndIOp::create(b, loc, aligned, ok).getResult()
                      : ok;
        if (type.getRank() == 1) {
          flat[operand.getOperandNumber()] = buffer;
        } else {
          SmallVector<ReassociationIndices> all(1);
          for (int64_t d = 0; d < type.getRank(); ++d)
            all.front().push_back(d);
          flat[operand.getOperandNumber()] =
              memref::CollapseShapeOp::create(b, loc, buffer, all);
        }
      }
      auto branch = scf::IfOp::create(b, loc, aligned, /*withElse=*/true);
      {
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPoint(branch.thenBlock()->getTerminator());
        IRMapping map;
        auto vectorOf = [](Type t) { return VectorType::get({4}, t); };
        auto alignment = [](Value buffer) {
          return llvm::MaybeAlign(
              4 * (cast<MemRefType>(buffer.getType()).getElementTypeBitWidth() /
                   8));
        };
        for (OpOperand &operand : op->getOpOperands()) {
          BlockArgument arg = body.getArgument(operand.getOperandNumber());
          if (arg.use_empty())
            continue;
          Value buffer = flat[operand.getOperandNumber()];
          if (!buffer) {
            map.map(arg, vector::BroadcastOp::create(
                             b, loc, vectorOf(arg.getType()),
                             outer.lookupOrDefault(operand.get())));
            continue;
          }
          map.map(arg, vector::LoadOp::create(b, loc, vectorOf(arg.getType()),
                                              buffer, ValueRange{base},
                                              /*nontemporal=*/false,
                                              alignment(buffer)));
        }
        for (Operation &o : body.without_terminator()) {
          if (auto constant = dyn_cast<arith::ConstantOp>(o)) {
            map.map(constant.getResult(),
                    arith::ConstantOp::create(
                        b, loc,
                        DenseElementsAttr::get(
                            vectorOf(constant.getType()),
                            ArrayRef<Attribute>(constant.getValue()))));
            continue;
          }
          OperationState state(loc, o.getName());
          for (Value v : o.getOperands()) {
            Value mapped = map.lookupOrNull(v);
            if (!mapped)
              mapped = vector::BroadcastOp::create(
                  b, loc, vectorOf(v.getType()), outer.lookupOrDefault(v));
            state.addOperands(mapped);
          }
          for (Type t : o.getResultTypes())
            state.addTypes(vectorOf(t));
          state.addAttributes(o.getAttrs());
          Operation *clone = b.create(state);
          map.map(o.getResults(), clone->getResults());
        }
        for (auto [j, v] :
             llvm::enumerate(body.getTerminator()->getOperands())) {
          Value buffer = flat[op.getNumDpsInputs() + j];
          Value value = map.lookupOrNull(v);
          if (!value)
            value = vector::BroadcastOp::create(b, loc, vectorOf(v.getType()),
                                                outer.lookupOrDefault(v));
          vector::StoreOp::create(b, loc, value, buffer, ValueRange{base},
                                  /*nontemporal=*/false, alignment(buffer));
        }
      }
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPoint(branch.elseBlock()->getTerminator());
      for (int64_t k = 0; k < 4; ++k) {
        Value at = arith::AddIOp::create(
            b, loc, base, arith::ConstantIndexOp::create(b, loc, k));
        pointWithReductions(nest, delinearize(b, loc, at, nest.ranges));
      }
    });
  }

  Value warpReduce(Operation *combiner, Value value) {
    for (int32_t offset = kWarp / 2; offset > 0; offset /= 2) {
      auto shuffle = gpu::ShuffleOp::create(b, loc, value, offset, kWarp,
                                            gpu::ShuffleMode::XOR);
      value = combine(combiner, value, shuffle.getShuffleResult());
    }
    return value;
  }
};

// A reduction nest and an elementwise nest that alone reads its result,
// at the point it writes it (a generated contraction and its fused bias and
// activation): the epilogue applies in the thread that reduced, on the
// value in a register, so `buffer` (the reduction's result) never exists.
bool fusesAsEpilogue(const Nest &producer, const Nest &consumer, Value buffer,
                     const DenseMap<Operation *,
                                    std::pair<linalg::GenericOp, int64_t>>
                         &foldedFills) {
  linalg::GenericOp p = producer.op, c = consumer.op;
  if (p.getNumReductionLoops() == 0 || p.getNumDpsInits() != 1 ||
      p.getDpsInits()[0] != buffer || c.getNumReductionLoops() != 0)
    return false;
  // The producer writes its parallel dims in order.
  SmallVector<int64_t> parallel;
  for (auto [d, it] : llvm::enumerate(p.getIteratorTypesArray()))
    if (it == utils::IteratorType::parallel)
      parallel.push_back(producer.ranges[d]);
  AffineMap out = p.getMatchingIndexingMap(p.getDpsInitOperand(0));
  int64_t next = 0;
  for (auto [d, it] : llvm::enumerate(p.getIteratorTypesArray())) {
    if (it != utils::IteratorType::parallel)
      continue;
    if (next >= out.getNumResults() ||
        out.getResult(next) != getAffineDimExpr(d, p.getContext()))
      return false;
    ++next;
  }
  if (next != out.getNumResults() ||
      ArrayRef<int64_t>(consumer.ranges) != ArrayRef<int64_t>(parallel))
    return false;
  // The consumer reads it once, at the identity, and nothing else does.
  int reads = 0;
  for (OpOperand &operand : c->getOpOperands())
    if (rootOf(operand.get()) == buffer) {
      if (operand.get() != buffer || !c.isDpsInput(&operand) ||
          !c.getMatchingIndexingMap(&operand).isIdentity())
        return false;
      ++reads;
    }
  bool loads = false;
  c.getRegion().walk([&](memref::LoadOp load) {
    loads |= rootOf(load.getMemRef()) == buffer;
  });
  if (reads != 1 || loads)
    return false;
  for (Operation *user : buffer.getUsers())
    if (user != p && user != c && !foldedFills.count(user))
      return false;
  return true;
}

} // namespace

// A dispatch that holds sequential loops of its own (scf.for over tensors:
// TopK's selection passes, ScatterND's updates in order): one thread runs
// the whole body, its linalg ops as loops, its intermediates on the
// thread's stack. Correct, not fast; these dispatches are small.
static FailureOr<EmittedKernel> emitSerial(func::FuncOp func,
                                           std::string &reason) {
  Block &body = func.getBody().front();
  IRRewriter rewriter(func.getContext());
  SmallVector<memref::CopyOp> copies;
  func.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
  for (memref::CopyOp copy : copies) {
    rewriter.setInsertionPoint(copy);
    linalg::makeMemRefCopyOp(rewriter, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
    rewriter.eraseOp(copy);
  }
  SmallVector<linalg::LinalgOp> linalgOps;
  func.walk([&](linalg::LinalgOp op) { linalgOps.push_back(op); });
  for (linalg::LinalgOp op : linalgOps) {
    rewriter.setInsertionPoint(op);
    if (failed(linalg::linalgOpToLoops(rewriter, op))) {
      reason = "a loop nest that does not lower to loops";
      return failure();
    }
    rewriter.eraseOp(op);
  }
  // Intermediates outside the loops live in the block's dynamic shared
  // memory (the one thread is the whole block) while they fit in 48 KiB,
  // reached through generic pointers; the rest (and buffers allocated
  // inside a loop) on the thread's stack, up to 16 KiB.
  int64_t stackBytes = 0, sharedBytes = 0;
  SmallVector<memref::AllocOp> allocs;
  SmallVector<std::pair<memref::AllocOp, int64_t>> shared;
  SmallVector<memref::DeallocOp> deallocs;
  func.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
  func.walk([&](memref::DeallocOp dealloc) { deallocs.push_back(dealloc); });
  for (memref::AllocOp alloc : allocs) {
    MemRefType type = alloc.getType();
    if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat() ||
        !type.getLayout().isIdentity()) {
      reason = "a dynamic shape";
      return failure();
    }
    int64_t bytes =
        type.getNumElements() * std::max(1u, type.getElementTypeBitWidth() / 8);
    int64_t offset = (sharedBytes + 15) / 16 * 16;
    if (alloc->getBlock() == &body && offset + bytes <= kMaxSharedBytes) {
      shared.push_back({alloc, offset});
      sharedBytes = offset + bytes;
      continue;
    }
    stackBytes += bytes;
    rewriter.setInsertionPoint(alloc);
    rewriter.replaceOpWithNewOp<memref::AllocaOp>(alloc, type);
  }
  for (memref::DeallocOp dealloc : deallocs)
    rewriter.eraseOp(dealloc);
  if (stackBytes > 16 * 1024) {
    reason = "sequential loops with " + std::to_string(stackBytes) +
             " bytes of intermediates on the stack (more than the 16 KiB a "
             "thread may keep) besides " +
             std::to_string(sharedBytes) + " in shared memory";
    return failure();
  }
  Operation *terminator = body.getTerminator();
  OpBuilder b(terminator);
  Location loc = func.getLoc();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value dynamicShared =
      sharedBytes
          ? arith::ConstantIntOp::create(b, loc, sharedBytes, 32).getResult()
          : Value();
  auto launch = gpu::LaunchOp::create(b, loc, one, one, one, one, one, one,
                                      dynamicShared);
  Block &launchBody = launch.getBody().front();
  b.setInsertionPointToStart(&launchBody);
  Operation *launchTerminator = gpu::TerminatorOp::create(b, loc);
  launchBody.getOperations().splice(launchTerminator->getIterator(),
                                    body.getOperations(), body.begin(),
                                    one.getDefiningOp()->getIterator());
  if (sharedBytes) {
    auto workgroup = gpu::AddressSpaceAttr::get(func.getContext(),
                                                gpu::AddressSpace::Workgroup);
    b.setInsertionPointToStart(&launchBody);
    Value base = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                        workgroup));
    for (auto [alloc, offset] : shared) {
      MemRefType type = alloc.getType();
      b.setInsertionPoint(alloc);
      Value view = memref::ViewOp::create(
          b, loc,
          MemRefType::get(type.getShape(), type.getElementType(), AffineMap(),
                          workgroup),
          base, arith::ConstantIndexOp::create(b, loc, offset), ValueRange{});
      Value generic = memref::MemorySpaceCastOp::create(b, loc, type, view);
      alloc.replaceAllUsesWith(generic);
      alloc.erase();
    }
  }
  EmittedKernel kernel;
  kernel.grid = 1;
  kernel.block = 1;
  kernel.sharedMemoryBytes = static_cast<uint32_t>(sharedBytes);
  kernel.shape = "serial";
  return kernel;
}

FailureOr<EmittedKernel> emitKernel(func::FuncOp func, int64_t blockSize,
                                    std::string &reason) {
  MLIRContext *context = func.getContext();
  if (llvm::any_of(func.getBody().front(),
                   [](Operation &op) { return isa<scf::ForOp>(op); }))
    return emitSerial(func, reason);
  Block &body = func.getBody().front();
  Location loc = func.getLoc();
  IRRewriter rewriter(context);

  // Copies become generics (semantics kept).
  for (auto copy : llvm::make_early_inc_range(body.getOps<memref::CopyOp>())) {
    rewriter.setInsertionPoint(copy);
    linalg::makeMemRefCopyOp(rewriter, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
    rewriter.eraseOp(copy);
  }

  // A fill whose buffer the next nest reduces into is that nest's initial
  // accumulator (a register, not a pass over memory); so is a whole-buffer
  // copy into it (a contraction accumulating onto an input, as a
  // recurrence's does): the nest's accumulator starts from the copy's
  // source.
  DenseMap<Operation *, std::pair<linalg::GenericOp, int64_t>> foldedFills;
  auto copySource = [](linalg::LinalgOp op) -> Value {
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic || generic.getNumDpsInputs() != 1 ||
        generic.getNumDpsInits() != 1 || generic.getNumReductionLoops() != 0 ||
        !llvm::all_of(generic.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isIdentity(); }))
      return Value();
    Block &block = generic.getRegion().front();
    Value input = generic.getDpsInputs().front();
    if (block.getTerminator()->getOperand(0) != block.getArgument(0) ||
        !isa<MemRefType>(input.getType()) ||
        input.getType() != generic.getDpsInits().front().getType() ||
        rootOf(input) == rootOf(generic.getDpsInits().front()))
      return Value();
    return input;
  };
  {
    SmallVector<linalg::LinalgOp> linalgOps(body.getOps<linalg::LinalgOp>());
    for (auto [i, op] : llvm::enumerate(linalgOps)) {
      auto fill = dyn_cast<linalg::FillOp>(op.getOperation());
      Value copied = fill ? Value() : copySource(op);
      if ((!fill && !copied) || i + 1 == linalgOps.size())
        continue;
      auto next = dyn_cast<linalg::GenericOp>(linalgOps[i + 1].getOperation());
      Value buffer = op.getDpsInits().front();
      if (!next ||
          (fill && fill.getInputs().front().getType() !=
                       getElementTypeOrSelf(buffer.getType())) ||
          (copied && (next.getNumReductionLoops() == 0 ||
                      llvm::is_contained(next->getOperands(), copied))))
        continue;
      for (OpOperand &out : next.getDpsInitsMutable()) {
        AffineMap map = next.getMatchingIndexingMap(&out);
        if (out.get() != buffer || !map.isProjectedPermutation() ||
            map.getNumResults() != cast<MemRefType>(buffer.getType()).getRank())
          continue;
        bool readElsewhere =
            llvm::any_of(next->getOpOperands(), [&](OpOperand &o) {
              return &o != &out && rootOf(o.get()) == rootOf(buffer);
            });
        if (!readElsewhere)
          foldedFills[op] = {next,
                             out.getOperandNumber() - next.getNumDpsInputs()};
      }
    }
  }
  for (auto fill : llvm::make_early_inc_range(body.getOps<linalg::FillOp>())) {
    if (foldedFills.count(fill.getOperation()))
      continue;
    rewriter.setInsertionPoint(fill);
    (void)linalg::generalizeNamedOp(rewriter, fill);
  }

  // The nests, and what else the body holds.
  SmallVector<Nest> nests;
  DenseSet<Value> written;
  for (Operation &op : body.without_terminator()) {
    if (foldedFills.count(&op))
      continue;
    if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
      if (!generic.hasPureBufferSemantics()) {
        reason = "linalg.generic on tensors after bufferization";
        return failure();
      }
      Nest nest;
      nest.op = generic;
      nest.ranges = generic.getStaticLoopRanges();
      if (ShapedType::isDynamicShape(nest.ranges)) {
        reason = "a dynamic shape";
        return failure();
      }
      nest.initValues.resize(generic.getNumDpsInits());
      nest.initBuffers.resize(generic.getNumDpsInits());
      for (Value out : generic.getDpsInits())
        written.insert(rootOf(out));
      nests.push_back(std::move(nest));
      continue;
    }
    if (isa<linalg::LinalgOp>(op)) {
      reason = "root " + op.getName().getStringRef().str();
      return failure();
    }
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (!alloc.getType().hasStaticShape()) {
        reason = "a dynamic shape";
        return failure();
      }
      continue;
    }
    if (isa<ViewLikeOpInterface, memref::GetGlobalOp>(op))
      continue;
    bool scalar = llvm::all_of(op.getResultTypes(),
                               [](Type t) { return !isa<ShapedType>(t); });
    if (scalar && op.getNumRegions() == 0 &&
        (isa<arith::ArithDialect, math::MathDialect>(op.getDialect()) ||
         isa<memref::LoadOp>(op)))
      continue;
    reason = "root " + op.getName().getStringRef().str();
    return failure();
  }
  for (auto [init, target] : foldedFills)
    for (Nest &nest : nests)
      if (nest.op == target.first) {
        if (auto fill = dyn_cast<linalg::FillOp>(init))
          nest.initValues[target.second] = fill.getInputs().front();
        else
          nest.initBuffers[target.second] =
              cast<linalg::GenericOp>(init).getDpsInputs().front();
      }
  if (nests.empty()) {
    reason = "no loop nest";
    return failure();
  }

  // Intermediates (buffers a nest writes; an unwritten one is a window
  // shape that pooling reads nothing from) are read and written only by
  // the nests, directly.
  SmallVector<memref::AllocOp> allocs;
  for (memref::AllocOp alloc : body.getOps<memref::AllocOp>())
    if (written.count(alloc.getResult()))
      allocs.push_back(alloc);
  for (memref::AllocOp alloc : allocs)
    for (Operation *user : alloc->getUsers())
      if (!isa<linalg::GenericOp>(user) ||
          llvm::none_of(nests, [&](const Nest &n) { return n.op == user; })) {
        if (foldedFills.count(user))
          continue;
        reason = "an intermediate that is reshaped or read outside a loop "
                 "nest";
        return failure();
      }

  // A generated contraction's epilogue: both nests in one thread.
  const Nest *fusedProducer = nullptr;
  Value fusedBuffer;
  if (nests.size() == 2 && allocs.size() == 1 &&
      fusesAsEpilogue(nests[0], nests[1], allocs.front(), foldedFills)) {
    fusedProducer = &nests[0];
    fusedBuffer = allocs.front();
    allocs.clear();
  }

  // Row dimensions: the leading parallel dims every nest shares, indexed
  // as such by every access to a buffer that a nest writes.
  int64_t rows = std::numeric_limits<int64_t>::max();
  for (const Nest &nest : nests) {
    int64_t leading = 0;
    for (utils::IteratorType it : nest.op.getIteratorTypesArray()) {
      if (it != utils::IteratorType::parallel)
        break;
      ++leading;
    }
    rows = std::min(rows, leading);
  }
  for (const Nest &nest : nests) {
    for (int64_t d = 0; d < rows; ++d)
      if (nest.ranges[d] != nests.front().ranges[d])
        rows = d;
    for (OpOperand &operand : nest.op->getOpOperands()) {
      if (!isa<MemRefType>(operand.get().getType()))
        continue;
      Value root = rootOf(operand.get());
      if (!written.count(root))
        continue;
      if (root != operand.get())
        rows = 0;
      AffineMap map = nest.op.getMatchingIndexingMap(&operand);
      for (int64_t d = 0; d < rows; ++d)
        if (d >= map.getNumResults() ||
            map.getResult(d) != getAffineDimExpr(d, context))
          rows = d;
    }
    // A body reading a written buffer (a gather from an intermediate) may
    // read any row.
    nest.op.getRegion().walk([&](memref::LoadOp load) {
      if (written.count(rootOf(load.getMemRef())))
        rows = 0;
    });
  }
  if (rows == std::numeric_limits<int64_t>::max())
    rows = 0;

  // Nests that neither read nor write what another nest writes.
  bool independent = allocs.empty();
  for (auto [k, nest] : llvm::enumerate(nests)) {
    if (!independent)
      break;
    for (const Nest &earlier : ArrayRef<Nest>(nests).take_front(k))
      for (Value out : earlier.op.getDpsInits()) {
        Value root = rootOf(out);
        for (Value operand : nest.op->getOperands())
          if (rootOf(operand) == root)
            independent = false;
        nest.op.getRegion().walk([&](memref::LoadOp load) {
          if (rootOf(load.getMemRef()) == root)
            independent = false;
        });
      }
  }

  enum class Shape { Flat, Rows } shape;
  if (fusedProducer) {
    shape = Shape::Flat;
  } else if (nests.size() == 1 && allocs.empty()) {
    Operation *combiner = blockCombiner(nests.front(), rows);
    int64_t reduction = product(
        ArrayRef<int64_t>(nests.front().ranges)
            .drop_front(std::min<int64_t>(rows, nests.front().ranges.size())));
    // A generated contraction with enough outputs to occupy the GPU keeps
    // its k loop in one thread per output (neighbouring threads read
    // neighbouring elements of the operand that varies with the output's
    // last dim); a block per output would idle most of each warp on
    // shuffles.
    bool manyOutputs =
        isContractionLike(nests.front().op) &&
        product(ArrayRef<int64_t>(nests.front().ranges)
                    .take_front(std::min<int64_t>(
                        rows, nests.front().ranges.size()))) >=
            kMinFlatContractionOutputs;
    shape = combiner && reduction >= kMinBlockReduction && !manyOutputs
                ? Shape::Rows
                : Shape::Flat;
  } else if (independent) {
    shape = Shape::Flat;
  } else {
    shape = Shape::Rows;
  }
  if (shape == Shape::Flat)
    rows = 0;

  // Vector loads: one elementwise nest over whole contiguous buffers.
  auto vectorizable = [&]() -> int64_t {
    if (nests.size() != 1)
      return 0;
    const Nest &nest = nests.front();
    linalg::GenericOp op = nest.op;
    if (op.getNumReductionLoops() != 0 || product(nest.ranges) % 4 != 0 ||
        product(nest.ranges) == 0)
      return 0;
    int64_t bytes = 0;
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type)
        continue;
      if (!type.getLayout().isIdentity() ||
          type.getShape() != ArrayRef<int64_t>(nest.ranges) ||
          !op.getMatchingIndexingMap(&operand).isIdentity())
        return 0;
      unsigned width = type.getElementTypeBitWidth();
      if (width % 8 != 0 || width > 32)
        return 0;
      bytes = std::max<int64_t>(bytes, width / 8);
    }
    for (Value init : nest.initValues)
      if (init)
        return 0;
    for (Operation &o : op.getRegion().front().without_terminator())
      if (!isa<arith::ArithDialect, math::MathDialect>(o.getDialect()) ||
          o.getNumRegions() != 0 ||
          llvm::any_of(o.getOperandTypes(),
                       [](Type t) { return !t.isIntOrIndexOrFloat(); }) ||
          llvm::any_of(o.getResultTypes(),
                       [](Type t) { return !t.isIntOrIndexOrFloat(); }) ||
          llvm::any_of(o.getOperandTypes(), [](Type t) { return t.isIndex(); }))
        return 0;
    return bytes;
  };

  // Sizes.
  EmittedKernel kernel;
  SmallVector<int64_t> rowShape;
  int64_t vectorBytes = shape == Shape::Flat ? vectorizable() : 0;
  if (shape == Shape::Flat) {
    int64_t points = 1;
    for (const Nest &nest : nests) {
      int64_t p = 1;
      for (auto [d, it] : llvm::enumerate(nest.op.getIteratorTypesArray()))
        if (it == utils::IteratorType::parallel)
          p *= nest.ranges[d];
      points = std::max(points, p);
    }
    if (vectorBytes)
      points /= 4;
    kernel.block = std::min(blockSize, roundUpToWarp(points));
    kernel.grid = (points + kernel.block - 1) / kernel.block;
    kernel.shape = vectorBytes ? "flat-vector4" : "flat";
  } else {
    rowShape.assign(nests.front().ranges.begin(),
                    nests.front().ranges.begin() + rows);
    int64_t work = 1;
    for (const Nest &nest : nests) {
      int64_t p = 1;
      for (int64_t d = rows; d < int64_t(nest.ranges.size()); ++d)
        if (blockCombiner(nest, rows) ||
            nest.op.getIteratorTypesArray()[d] == utils::IteratorType::parallel)
          p *= nest.ranges[d];
      work = std::max(work, p);
    }
    kernel.block = std::min(blockSize, roundUpToWarp(work));
    kernel.grid = product(rowShape);
    kernel.shape = rows ? "rows" : "one-block";
  }
  if (kernel.grid > std::numeric_limits<int32_t>::max()) {
    reason = "a grid of " + std::to_string(kernel.grid) + " blocks";
    return failure();
  }

  // Shared memory: each intermediate's row slice, then one 32-entry
  // scratch per element type the block reductions combine.
  struct SharedBuffer {
    int64_t offset;
    MemRefType type;
  };
  auto workgroup =
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup);
  int64_t sharedBytes = 0;
  auto reserve = [&](int64_t elements, Type element) {
    int64_t offset = (sharedBytes + 15) / 16 * 16;
    unsigned width = std::max(8u, element.getIntOrFloatBitWidth());
    sharedBytes = offset + elements * (width / 8);
    return SharedBuffer{
        offset, MemRefType::get({elements}, element, AffineMap(), workgroup)};
  };
  DenseMap<Value, std::pair<SharedBuffer, SmallVector<int64_t>>> localSlices;
  for (memref::AllocOp alloc : allocs) {
    ArrayRef<int64_t> full = alloc.getType().getShape();
    SmallVector<int64_t> slice(
        full.begin() + std::min<int64_t>(rows, full.size()), full.end());
    Type element = alloc.getType().getElementType();
    if (!element.isIntOrFloat()) {
      reason = "an intermediate of element type other than int or float";
      return failure();
    }
    localSlices[alloc] = {
        reserve(std::max<int64_t>(1, product(slice)), element), slice};
  }
  DenseMap<Type, SharedBuffer> scratch;
  SmallVector<Type> scratchOrder;
  if (shape == Shape::Rows)
    for (const Nest &nest : nests)
      if (Operation *combiner = blockCombiner(nest, rows)) {
        Type t = combiner->getResult(0).getType();
        if (!scratch.count(t)) {
          scratch[t] = reserve(kWarp, t);
          scratchOrder.push_back(t);
        }
      }
  if (sharedBytes > kMaxSharedBytes) {
    reason = "intermediates of " + std::to_string(sharedBytes) +
             " bytes per thread block (more than 48 KiB of shared memory)";
    return failure();
  }
  kernel.sharedMemoryBytes = static_cast<uint32_t>(sharedBytes);

  // The launch.
  SmallVector<Operation *> original;
  for (Operation &op : body.without_terminator())
    original.push_back(&op);
  OpBuilder b = OpBuilder::atBlockTerminator(&body);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value gridX = arith::ConstantIndexOp::create(b, loc, kernel.grid);
  Value blockX = arith::ConstantIndexOp::create(b, loc, kernel.block);
  Value dynamicShared =
      sharedBytes
          ? arith::ConstantIntOp::create(b, loc, sharedBytes, 32).getResult()
          : Value();
  auto launch = gpu::LaunchOp::create(b, loc, gridX, one, one, blockX, one, one,
                                      dynamicShared);
  Block &launchBody = launch.getBody().front();
  b.setInsertionPointToStart(&launchBody);
  auto terminator = gpu::TerminatorOp::create(b, loc);
  b.setInsertionPoint(terminator);

  Emitter e(b, loc, rows);
  Value tid = launch.getThreadIds().x;
  Value bid = launch.getBlockIds().x;
  if (sharedBytes) {
    Value base = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(), AffineMap(),
                        workgroup));
    auto view = [&](const SharedBuffer &buffer) -> Value {
      return memref::ViewOp::create(
          b, loc, buffer.type, base,
          arith::ConstantIndexOp::create(b, loc, buffer.offset), ValueRange{});
    };
    // In a fixed order (the IR must not depend on pointer hashes).
    for (memref::AllocOp alloc : allocs) {
      auto &slice = localSlices[alloc];
      e.locals[alloc] = LocalSlice{view(slice.first), slice.second};
    }
    for (Type type : scratchOrder)
      e.scratch[type] = view(scratch[type]);
  }

  // The body's other ops (views, constants, scalar reads), then the nests,
  // in program order.
  SmallVector<Value> rowIvs;
  if (shape == Shape::Rows)
    rowIvs = delinearize(b, loc, bid, rowShape);
  Value blockDim = arith::ConstantIndexOp::create(b, loc, kernel.block);
  Value globalId = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, bid, blockDim), tid);
  bool firstNest = true;
  for (Operation *opPtr : original) {
    Operation &op = *opPtr;
    if (foldedFills.count(&op) || isa<memref::AllocOp>(op))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic) {
      b.clone(op, e.outer);
      continue;
    }
    if (fusedProducer && generic == fusedProducer->op)
      continue; // computed where its epilogue reads it
    const Nest &nest =
        *llvm::find_if(nests, [&](const Nest &n) { return n.op == generic; });
    SmallVector<int64_t> parallelDims, parallelRanges;
    for (auto [d, it] : llvm::enumerate(generic.getIteratorTypesArray()))
      if (it == utils::IteratorType::parallel &&
          (shape == Shape::Flat || int64_t(d) >= rows)) {
        parallelDims.push_back(d);
        parallelRanges.push_back(nest.ranges[d]);
      }
    int64_t points = product(parallelRanges);
    SmallVector<Value> ivs(generic.getNumLoops());
    for (int64_t d = 0; d < int64_t(rowIvs.size()); ++d)
      ivs[d] = rowIvs[d];

    if (shape == Shape::Flat) {
      if (vectorBytes) {
        e.vectorPoint(nest, globalId, points / 4, kernel.grid * kernel.block);
        continue;
      }
      Value inRange =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, globalId,
                                arith::ConstantIndexOp::create(b, loc, points));
      auto guard = scf::IfOp::create(b, loc, inRange, /*withElse=*/false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPoint(guard.thenBlock()->getTerminator());
      for (auto [d, v] : llvm::zip(
               parallelDims, delinearize(b, loc, globalId, parallelRanges)))
        ivs[d] = v;
      if (fusedProducer) {
        // The consumer's dims are the producer's parallel dims, in order.
        SmallVector<Value> at(fusedProducer->op.getNumLoops());
        int64_t next = 0;
        for (auto [d, it] :
             llvm::enumerate(fusedProducer->op.getIteratorTypesArray()))
          if (it == utils::IteratorType::parallel)
            at[d] = ivs[next++];
        e.forwarded[fusedBuffer] = e.reduceAt(*fusedProducer, at).front();
      }
      e.pointWithReductions(nest, ivs);
      e.forwarded.clear();
      continue;
    }

    // Rows: nests in order, a barrier between them.
    if (!firstNest)
      gpu::BarrierOp::create(b, loc);
    firstNest = false;
    if (Operation *combiner = blockCombiner(nest, rows)) {
      e.blockReduce(nest, combiner, ivs, tid, kernel.block);
      continue;
    }
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    auto loop = scf::ForOp::create(
        b, loc, tid, arith::ConstantIndexOp::create(b, loc, points), blockDim,
        ValueRange{}, [&](OpBuilder &nested, Location, Value p, ValueRange) {
          OpBuilder::InsertionGuard g(b);
          b.setInsertionPointToStart(nested.getInsertionBlock());
          SmallVector<Value> at = ivs;
          for (auto [d, v] :
               llvm::zip(parallelDims, delinearize(b, loc, p, parallelRanges)))
            at[d] = v;
          e.pointWithReductions(nest, at);
          scf::YieldOp::create(b, loc);
        });
    (void)loop;
    (void)zero;
  }

  // Everything the launch did not take from the body goes.
  SmallVector<Operation *> dead = original;
  bool captured = false;
  DenseSet<Operation *> deadSet(dead.begin(), dead.end());
  launch.getBody().walk([&](Operation *inner) {
    for (Value operand : inner->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (deadSet.count(def))
          captured = true;
  });
  if (captured) {
    launch.erase();
    reason = "a value the kernel could not take into the launch";
    return failure();
  }
  for (Operation *op : llvm::reverse(dead)) {
    op->dropAllUses();
    op->erase();
  }
  return kernel;
}

} // namespace mlir::kiln::cuda
