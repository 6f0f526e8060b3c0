//===- FormDispatches.cpp - kiln-form-dispatches --------------------------===//
//
// Turns a lowered graph (linalg/tensor ops on tensors in one function) into
// a host function that only calls dispatch functions, plus those functions.
//
// 1. Elementwise fusion: chains of elementwise generics merge into one loop
//    nest, and elementwise producers merge into reductions (not into
//    contractions, whose mul-add body the code generator recognizes).
//    Reshapes between a producer and an elementwise consumer are folded by
//    collapsing the consumer's loops so the two meet.
// 2. Grouping: walking backwards, each compute op opens a dispatch; an
//    elementwise op pulls in its producer root (a contraction, reduction or
//    other linalg op) when the root has no other user and the elementwise
//    op reads its result element for element, so the code generator can
//    tile the elementwise op and fuse the root into the same tiles
//    (matmul + bias + GELU, conv + bias + ReLU). The tensor.empty and
//    linalg.fill ops that only initialize a dispatch's outputs join it.
// 3. Outlining: each group becomes `func.func private @dispatch_N` taking
//    the tensors it reads and returning those it produces, marked
//    `kiln.dispatch`; scalar constants are cloned in, tensor constants stay
//    on the host (they become constant bindings). Identical dispatch bodies
//    are emitted once.
//
// What remains on the host: constants, reshapes (free views of one
// buffer), calls, external custom calls (kiln.custom_call without a
// lowering) and the return.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/kiln/ConstantFolding.h"
#include "dialects/kiln/KilnDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::kiln {

#define GEN_PASS_DEF_FORMDISPATCHES
#include "passes/Passes.h.inc"

namespace {

} // namespace

bool isContiguousSlice(tensor::ExtractSliceOp slice) {
  auto source = slice.getSourceType();
  if (!source.hasStaticShape() || !slice.getType().hasStaticShape() ||
      !slice.hasUnitStride() ||
      llvm::any_of(slice.getStaticOffsets(), ShapedType::isDynamic) ||
      slice.getSourceType().getRank() != slice.getType().getRank())
    return false;
  // Row-major: leading dims of size 1, then one partial dim, then full dims.
  ArrayRef<int64_t> sizes = slice.getStaticSizes();
  int64_t rank = sizes.size(), d = 0;
  while (d < rank && sizes[d] == 1)
    ++d;
  if (d < rank)
    ++d; // the one dim that may be partial
  for (; d < rank; ++d)
    if (sizes[d] != source.getDimSize(d))
      return false;
  return true;
}

namespace {

bool isView(Operation *op) {
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
    return isContiguousSlice(slice);
  return isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op);
}

bool isElementwise(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic && linalg::isElementwise(generic) &&
         generic.getNumDpsInits() == 1;
}

// A reduction generic (not a contraction) producing one result: the
// statistics of softmax and normalizations.
bool isRowReduction(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  return generic && generic.getNumReductionLoops() > 0 &&
         generic->getNumResults() == 1 &&
         !linalg::isaContractionOpInterface(generic);
}

bool isContraction(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumReductionLoops() > 0 &&
         (linalg::isaContractionOpInterface(linalgOp) ||
          isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op));
}

// Ops that never become dispatches of their own. A kiln.custom_call left
// after lowering is an external kernel (kind b): the host plan turns it
// into a CustomCall step.
bool isHostOnly(Operation *op) {
  if (isa<arith::ConstantOp, func::ReturnOp, tensor::EmptyOp, CustomCallOp>(op) ||
      isView(op))
    return true;
  return false;
}

// Lowerings that rearrange weights (the recurrent layers transpose and
// slice their gate matrices) leave linalg.transpose and tensor.extract_slice
// of constants behind; they become constants here, laid out at compile time
// by copying raw storage (dialects/kiln/ConstantFolding.h), so no weight is
// reformatted on every run.
//
// Both replace `op` by a constant whose element at coordinates c is element
// `offset + sum_d c[d] * strides[d]` of the constant `source`, with offset
// and strides derived from the source's row-major strides by `layout`.
LogicalResult
replaceByMovedConstant(PatternRewriter &rewriter, Operation *op, Value source,
                       function_ref<void(ArrayRef<int64_t> sourceStrides,
                                         int64_t &offset,
                                         SmallVectorImpl<int64_t> &strides)>
                           layout) {
  auto constant = source.getDefiningOp<arith::ConstantOp>();
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!constant || !resultType || !isMovableResult(resultType))
    return failure();
  std::optional<RawElements> elements = readRawElements(constant.getValue());
  if (!elements)
    return failure();
  int64_t offset = 0;
  SmallVector<int64_t> strides;
  layout(rowMajorStrides(elements->type.getShape()), offset, strides);
  rewriter.replaceOpWithNewOp<arith::ConstantOp>(
      op, moveStrided(*elements, resultType, offset, strides));
  return success();
}

class FoldConstantTranspose : public OpRewritePattern<linalg::TransposeOp> {
public:
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    return replaceByMovedConstant(
        rewriter, op, op.getInput(),
        [&](ArrayRef<int64_t> inputStrides, int64_t &,
            SmallVectorImpl<int64_t> &strides) {
          for (int64_t d : op.getPermutation())
            strides.push_back(inputStrides[d]);
        });
  }
};

class FoldConstantExtractSlice
    : public OpRewritePattern<tensor::ExtractSliceOp> {
public:
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp op,
                                PatternRewriter &rewriter) const override {
    // Contiguous slices are free views on the host; only the others copy.
    if (isContiguousSlice(op) ||
        llvm::any_of(op.getStaticOffsets(), ShapedType::isDynamic) ||
        llvm::any_of(op.getStaticStrides(), ShapedType::isDynamic))
      return failure();
    // Rank-reducing slices drop unit dims: they only add to the offset.
    llvm::SmallBitVector dropped = op.getDroppedDims();
    return replaceByMovedConstant(
        rewriter, op, op.getSource(),
        [&](ArrayRef<int64_t> inputStrides, int64_t &offset,
            SmallVectorImpl<int64_t> &strides) {
          for (auto [d, stride] : llvm::enumerate(inputStrides)) {
            offset += op.getStaticOffsets()[d] * stride;
            if (!dropped.test(d))
              strides.push_back(stride * op.getStaticStrides()[d]);
          }
        });
  }
};

// Elementwise fusion builds one op from a consumer and its producer at only
// one of their locations. Every linalg op a pattern rooted at a linalg op
// inserts gets the root's location and those of the producers it absorbed
// (read by the root, no longer read by the new op), so every ONNX node
// whose op was fused away still names the dispatch that computes it
// (kilnc --dump-dispatches, kiln-compare).
struct KeepFusedLocations : public RewriterBase::Listener {
  void notifyPatternBegin(const Pattern &, Operation *op) override {
    reset();
    if (!isa<linalg::LinalgOp>(op))
      return;
    root = op;
    rootLoc = op->getLoc();
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        if (isa<linalg::LinalgOp>(producer))
          producers.insert(producer);
  }
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint) override {
    if (root && isa<linalg::LinalgOp>(op))
      inserted.insert(op);
  }
  void notifyOperationErased(Operation *op) override {
    inserted.remove(op);
    producers.remove(op);
  }
  void notifyPatternEnd(const Pattern &, LogicalResult status) override {
    if (root && succeeded(status)) {
      for (Operation *op : inserted) {
        SmallVector<Location> locs = {op->getLoc(), *rootLoc};
        llvm::SmallPtrSet<Operation *, 4> stillRead;
        for (Value operand : op->getOperands())
          stillRead.insert(operand.getDefiningOp());
        for (Operation *producer : producers)
          if (!stillRead.contains(producer))
            locs.push_back(producer->getLoc());
        op->setLoc(FusedLoc::get(op->getContext(), locs));
      }
    }
    reset();
  }
  void reset() {
    root = nullptr;
    rootLoc.reset();
    producers.clear();
    inserted.clear();
  }

  Operation *root = nullptr;
  std::optional<Location> rootLoc;
  llvm::SetVector<Operation *> producers, inserted;
};

void runFusion(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  RewritePatternSet patterns(ctx);
  patterns.add<FoldConstantTranspose, FoldConstantExtractSlice>(ctx);
  linalg::ControlFusionFn fuseControl = [](OpOperand *operand) {
    Operation *producer = operand->get().getDefiningOp();
    Operation *consumer = operand->getOwner();
    if (!producer || !producer->hasOneUse())
      return false;
    return !isContraction(consumer);
  };
  linalg::populateElementwiseOpsFusionPatterns(patterns, fuseControl);
  linalg::ControlFusionFn reshapeControl = [](OpOperand *operand) {
    // Collapse an elementwise consumer onto a linalg producer's shape,
    // except the normalizing op of a softmax or normalization: its row
    // statistics are reductions at the expanded shape, and collapsing it
    // alone would put a reshape between them and it, which keeps them out
    // of its dispatch (joinRowReductions). A layer norm after a matmul's
    // residual add (every transformer layer) then ran as three dispatches,
    // each reading the whole activation.
    Operation *reshape = operand->get().getDefiningOp();
    if (!reshape || !isView(reshape))
      return false;
    Operation *source = reshape->getOperand(0).getDefiningOp();
    Operation *consumer = operand->getOwner();
    if (!source || !isa<linalg::LinalgOp>(source) || !isElementwise(consumer))
      return false;
    // A statistic is a row reduction the consumer broadcasts (reads with
    // fewer dims than it has); a conv's GEMM read whole is not one.
    auto generic = cast<linalg::GenericOp>(consumer);
    return llvm::none_of(generic.getDpsInputOperands(), [&](OpOperand *in) {
      Operation *def = in->get().getDefiningOp();
      return def && isRowReduction(def) &&
             !generic.getMatchingIndexingMap(in).isPermutation();
    });
  };
  linalg::populateFoldReshapeOpsByCollapsingPatterns(patterns, reshapeControl);
  tensor::populateFoldTensorEmptyPatterns(patterns);
  KeepFusedLocations locations;
  GreedyRewriteConfig config;
  config.setListener(&locations);
  (void)applyPatternsGreedily(func, std::move(patterns), config);
}

// Softmax and normalizations: an elementwise op reading row statistics
// (max and sum of exponentials, mean and variance) broadcast along the
// reduced dims pulls the reductions into its dispatch, transitively, when
// nothing outside the dispatch reads them. The code generator then tiles
// the rows (never the reduced dims) and computes each row's statistics
// inside the tile, so the rows are read from cache, not memory.
template <typename JoinFn>
void joinRowReductions(linalg::GenericOp root, int64_t group,
                       DenseMap<Operation *, int64_t> &groupOf, JoinFn join) {
  SmallVector<Operation *> worklist = {root};
  while (!worklist.empty()) {
    Operation *consumer = worklist.pop_back_val();
    for (Value operand : consumer->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (!producer || groupOf.count(producer) || !isRowReduction(producer))
        continue;
      if (llvm::any_of(producer->getUsers(), [&](Operation *user) {
            auto it = groupOf.find(user);
            return it == groupOf.end() || it->second != group;
          }))
        continue;
      join(producer, group);
      worklist.push_back(producer);
    }
  }
}

class FormDispatchesPass
    : public impl::FormDispatchesBase<FormDispatchesPass> {
public:
  using impl::FormDispatchesBase<FormDispatchesPass>::FormDispatchesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> hosts;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func->hasAttr("kiln.dispatch") && !func.isExternal())
        hosts.push_back(func);
    for (func::FuncOp host : hosts) {
      runFusion(host);
      if (failed(formDispatches(module, host)))
        return signalPassFailure();
    }
  }

private:
  int64_t counter = 0;
  llvm::StringMap<func::FuncOp> bodies;

  LogicalResult formDispatches(ModuleOp module, func::FuncOp host) {
    Block &body = host.getBody().front();
    DenseMap<Operation *, int64_t> groupOf;
    SmallVector<SmallVector<Operation *>> groups;
    SmallVector<Operation *> ops;
    for (Operation &op : body)
      ops.push_back(&op);
    auto join = [&](Operation *op, int64_t group) {
      groupOf[op] = group;
      groups[group].push_back(op);
    };
    for (Operation *op : llvm::reverse(ops)) {
      if (groupOf.count(op) || isHostOnly(op))
        continue;
      if (auto fill = dyn_cast<linalg::FillOp>(op);
          fill && op->hasOneUse() && groupOf.count(*op->user_begin())) {
        join(op, groupOf[*op->user_begin()]);
        continue;
      }
      int64_t group = groups.size();
      groups.emplace_back();
      join(op, group);
      // A concat is a chain of insert_slices into one destination: one
      // dispatch writes every piece in place.
      for (Operation *chain = op; auto insert = dyn_cast<tensor::InsertSliceOp>(chain);) {
        Operation *dest = insert.getDest().getDefiningOp();
        if (!dest || groupOf.count(dest) || !dest->hasOneUse() ||
            !isa<tensor::InsertSliceOp, linalg::FillOp>(dest))
          break;
        join(dest, group);
        chain = dest;
      }
      if (isElementwise(op)) {
        auto generic = cast<linalg::GenericOp>(op);
        for (OpOperand *input : generic.getDpsInputOperands()) {
          Operation *producer = input->get().getDefiningOp();
          if (!producer || groupOf.count(producer) ||
              !isa<linalg::LinalgOp>(producer) || isElementwise(producer) ||
              producer->getNumResults() != 1 || !producer->hasOneUse() ||
              !generic.getMatchingIndexingMap(input).isPermutation())
            continue;
          join(producer, group);
          break;
        }
        joinRowReductions(generic, group, groupOf, join);
      }
    }
    // Inits of grouped ops join their group.
    for (auto [index, group] : llvm::enumerate(groups)) {
      for (size_t i = 0; i < group.size(); ++i) {
        for (Value operand : group[i]->getOperands()) {
          Operation *def = operand.getDefiningOp();
          if (!def || groupOf.count(def) || !def->hasOneUse())
            continue;
          if (isa<tensor::EmptyOp>(def) ||
              (isa<linalg::FillOp>(def))) {
            join(def, index);
          }
        }
      }
    }
    for (auto &group : groups) {
      llvm::sort(group, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
    }
    // Outline in program order of each group's first op.
    llvm::sort(groups, [](const auto &a, const auto &b) {
      return a.front()->isBeforeInBlock(b.front());
    });
    for (auto &group : groups)
      if (failed(outline(module, host, group)))
        return failure();
    // Empty tensors were recreated inside the dispatches that use them.
    for (Operation &op : llvm::make_early_inc_range(body))
      if (isa<tensor::EmptyOp>(op) && op.use_empty())
        op.erase();
    return success();
  }

  LogicalResult outline(ModuleOp module, func::FuncOp host,
                        ArrayRef<Operation *> group) {
    llvm::SmallPtrSet<Operation *, 8> members(group.begin(), group.end());
    llvm::SetVector<Value> inputs;
    llvm::SetVector<Operation *> recreated;
    auto consider = [&](Value value) {
      Operation *def = value.getDefiningOp();
      if (def && members.count(def))
        return;
      // Scalars and empty tensors are cheaper to recreate than to pass.
      if (def && ((isa<arith::ConstantOp>(def) &&
                   !isa<ShapedType>(value.getType())) ||
                  isa<tensor::EmptyOp>(def))) {
        recreated.insert(def);
        return;
      }
      inputs.insert(value);
    };
    for (Operation *op : group) {
      for (Value operand : op->getOperands())
        consider(operand);
      llvm::SetVector<Value> captured;
      getUsedValuesDefinedAbove(op->getRegions(), captured);
      for (Value value : captured)
        consider(value);
    }
    SmallVector<Value> outputs;
    for (Operation *op : group)
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              return !members.count(user);
            }))
          outputs.push_back(result);
    if (outputs.empty()) {
      // Dead group: nothing reads it.
      for (Operation *op : llvm::reverse(group))
        op->erase();
      return success();
    }

    OpBuilder builder(module.getContext());
    SmallVector<Type> inputTypes, outputTypes;
    for (Value v : inputs)
      inputTypes.push_back(v.getType());
    for (Value v : outputs)
      outputTypes.push_back(v.getType());
    auto type = builder.getFunctionType(inputTypes, outputTypes);
    std::string name = "dispatch_" + std::to_string(counter);
    auto func = func::FuncOp::create(builder, group.front()->getLoc(), name, type);
    func.setPrivate();
    func->setAttr("kiln.dispatch", builder.getUnitAttr());
    Block *entry = func.addEntryBlock();
    builder.setInsertionPointToStart(entry);
    IRMapping mapping;
    for (auto [value, arg] : llvm::zip(inputs, entry->getArguments()))
      mapping.map(value, arg);
    for (Operation *constant : recreated)
      builder.clone(*constant, mapping);
    for (Operation *op : group)
      builder.clone(*op, mapping);
    SmallVector<Value> returned;
    for (Value v : outputs)
      returned.push_back(mapping.lookup(v));
    func::ReturnOp::create(builder, func.getLoc(), returned);

    // Deduplicate by the printed body (argument and result types included).
    std::string key;
    {
      llvm::raw_string_ostream os(key);
      func.setName("dispatch");
      func.print(os, OpPrintingFlags().printGenericOpForm());
      func.setName(name);
    }
    auto existing = bodies.find(key);
    if (existing != bodies.end()) {
      func.erase();
      func = existing->second;
    } else {
      ++counter;
      bodies[key] = func;
      SymbolTable(module).insert(func);
    }
    // Replace the group by a call placed where its last op was, located
    // at all of the group's ops: a deduplicated body keeps only its first
    // group's locations, the call says which nodes this call computes.
    builder.setInsertionPointAfter(group.back());
    SmallVector<Location> groupLocs;
    for (Operation *op : group)
      groupLocs.push_back(op->getLoc());
    auto call = func::CallOp::create(builder, builder.getFusedLoc(groupLocs), func,
                                     SmallVector<Value>(inputs.begin(), inputs.end()));
    for (auto [value, result] : llvm::zip(outputs, call.getResults()))
      value.replaceAllUsesWith(result);
    for (Operation *op : llvm::reverse(group))
      op->erase();
    return success();
  }
};

} // namespace
} // namespace mlir::kiln
