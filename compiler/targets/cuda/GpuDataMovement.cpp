//===- GpuDataMovement.cpp - Dispatch ops as gather generics --------------===//
#include "compiler/targets/cuda/GpuDataMovement.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kiln::cuda {

namespace {

// Looks through the casts between a value and the block argument it comes
// from (a mixed-precision product reads through extf/truncf).
Value throughCasts(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<arith::ExtFOp, arith::TruncFOp, arith::ExtSIOp, arith::ExtUIOp,
             arith::TruncIOp, arith::SIToFPOp, arith::UIToFPOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

// A body that yields acc + a * b with a and b read from two different
// shaped inputs: the inner product of a contraction or a convolution.
bool accumulatesProduct(linalg::GenericOp generic) {
  if (generic.getNumDpsInits() != 1 || generic.getNumReductionLoops() == 0)
    return false;
  Block &body = generic.getRegion().front();
  Value yielded = body.getTerminator()->getOperand(0);
  Operation *add = yielded.getDefiningOp();
  if (!add || !isa<arith::AddFOp, arith::AddIOp>(add))
    return false;
  BlockArgument acc = body.getArgument(generic.getNumDpsInputs());
  for (int side = 0; side < 2; ++side) {
    if (add->getOperand(side) != acc)
      continue;
    Operation *mul = add->getOperand(1 - side).getDefiningOp();
    if (!mul || !isa<arith::MulFOp, arith::MulIOp>(mul))
      return false;
    auto lhs = dyn_cast<BlockArgument>(throughCasts(mul->getOperand(0)));
    auto rhs = dyn_cast<BlockArgument>(throughCasts(mul->getOperand(1)));
    if (!lhs || !rhs || lhs == rhs || lhs.getOwner() != &body ||
        rhs.getOwner() != &body)
      return false;
    auto shaped = [&](BlockArgument arg) {
      return arg.getArgNumber() < generic.getNumDpsInputs() &&
             isa<ShapedType>(generic.getDpsInputOperand(arg.getArgNumber())
                                 ->get()
                                 .getType());
    };
    return shaped(lhs) && shaped(rhs);
  }
  return false;
}

bool isPooling(Operation *op) {
  return op->getName().getStringRef().starts_with("linalg.pooling_");
}

Value indexConstant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

// The value every element of `dest` has before a slice is inserted, when
// it is known without reading it: a fill's scalar, or (for an uninitialized
// tensor.empty, whose uncovered elements are undefined anyway) zero.
Value knownDestValue(OpBuilder &b, Location loc, Value dest) {
  if (auto fill = dest.getDefiningOp<linalg::FillOp>())
    return fill.getInputs().front();
  if (dest.getDefiningOp<tensor::EmptyOp>()) {
    Type element = cast<ShapedType>(dest.getType()).getElementType();
    return arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  }
  return Value();
}

// result[i] = inside(i) ? source[(i - offset) / stride] : background(i),
// per dimension; shared by pad and insert_slice. `sourceDims[d]` is the
// source dimension that result dimension d maps to (-1: dropped, a unit
// slice dimension of a rank-reducing insert).
struct SliceGather {
  Value source;
  SmallVector<int64_t> offsets, sizes, strides;
  SmallVector<int64_t> sourceDims;
};

Value buildGather(PatternRewriter &rewriter, Location loc,
                  RankedTensorType resultType, const SliceGather &slice,
                  Value background, Value backgroundTensor) {
  int64_t rank = resultType.getRank();
  Value empty = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                        resultType.getElementType());
  MLIRContext *context = rewriter.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  if (backgroundTensor) {
    inputs.push_back(backgroundTensor);
    maps.push_back(identity);
  }
  maps.push_back(identity);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  int64_t sourceRank = cast<RankedTensorType>(slice.source.getType()).getRank();
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{resultType}, inputs, ValueRange{empty}, maps,
      iterators, [&](OpBuilder &b, Location loc, ValueRange args) {
        Value inside;
        SmallVector<Value> indices(sourceRank);
        Value zero = indexConstant(b, loc, 0);
        for (int64_t d = 0; d < rank; ++d) {
          Value i = linalg::IndexOp::create(b, loc, d);
          int64_t offset = slice.offsets[d], size = slice.sizes[d],
                  stride = slice.strides[d];
          bool whole =
              offset == 0 && stride == 1 && size == resultType.getDimSize(d);
          Value s = offset ? arith::SubIOp::create(
                                 b, loc, i, indexConstant(b, loc, offset))
                                 .getResult()
                           : i;
          Value ok;
          if (!whole) {
            // Unsigned: an index before the offset wraps past the extent.
            ok = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::ult, s,
                indexConstant(b, loc, (size - 1) * stride + 1));
            if (stride != 1) {
              Value rem = arith::RemUIOp::create(b, loc, s,
                                                 indexConstant(b, loc, stride));
              ok = arith::AndIOp::create(
                  b, loc, ok,
                  arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem,
                                        zero));
            }
            inside = inside
                         ? arith::AndIOp::create(b, loc, inside, ok).getResult()
                         : ok;
          }
          if (slice.sourceDims[d] < 0)
            continue;
          Value index = s;
          if (stride != 1)
            index = arith::DivUIOp::create(b, loc, s,
                                           indexConstant(b, loc, stride));
          // Clamped, so the read never leaves the source.
          if (ok)
            index = arith::SelectOp::create(b, loc, ok, index, zero);
          indices[slice.sourceDims[d]] = index;
        }
        Value value = tensor::ExtractOp::create(b, loc, slice.source, indices);
        if (inside) {
          Value other = backgroundTensor ? args.front() : background;
          value = arith::SelectOp::create(b, loc, inside, value, other);
        }
        linalg::YieldOp::create(b, loc, value);
      });
  return generic.getResult(0);
}

struct PadToGather : OpRewritePattern<tensor::PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::PadOp pad,
                                PatternRewriter &rewriter) const override {
    RankedTensorType resultType = pad.getResultType();
    RankedTensorType sourceType = pad.getSourceType();
    Value padValue = pad.getConstantPaddingValue();
    if (!resultType.hasStaticShape() || !sourceType.hasStaticShape() ||
        !padValue || ShapedType::isDynamicShape(pad.getStaticLow()))
      return failure();
    SliceGather slice;
    slice.source = pad.getSource();
    for (int64_t d = 0; d < resultType.getRank(); ++d) {
      slice.offsets.push_back(pad.getStaticLow()[d]);
      slice.sizes.push_back(sourceType.getDimSize(d));
      slice.strides.push_back(1);
      slice.sourceDims.push_back(d);
    }
    rewriter.replaceOp(pad, buildGather(rewriter, pad.getLoc(), resultType,
                                        slice, padValue, Value()));
    return success();
  }
};

struct InsertSliceToGather : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::InsertSliceOp insert,
                                PatternRewriter &rewriter) const override {
    RankedTensorType resultType = insert.getDestType();
    if (!resultType.hasStaticShape() ||
        !insert.getSourceType().hasStaticShape() ||
        ShapedType::isDynamicShape(insert.getStaticOffsets()) ||
        ShapedType::isDynamicShape(insert.getStaticSizes()) ||
        ShapedType::isDynamicShape(insert.getStaticStrides()))
      return failure();
    SliceGather slice;
    slice.source = insert.getSource();
    llvm::append_range(slice.offsets, insert.getStaticOffsets());
    llvm::append_range(slice.sizes, insert.getStaticSizes());
    llvm::append_range(slice.strides, insert.getStaticStrides());
    llvm::SmallBitVector dropped = insert.getDroppedDims();
    int64_t next = 0;
    for (int64_t d = 0; d < resultType.getRank(); ++d)
      slice.sourceDims.push_back(dropped.test(d) ? -1 : next++);
    if (next != insert.getSourceType().getRank())
      return failure();
    Value dest = insert.getDest();
    Value background = knownDestValue(rewriter, insert.getLoc(), dest);
    rewriter.replaceOp(insert,
                       buildGather(rewriter, insert.getLoc(), resultType, slice,
                                   background, background ? Value() : dest));
    return success();
  }
};

// tensor.extract %t[i...] inside a generic's body, %t the result of an
// all-parallel generic: computes that element in place (the producer's
// body at point i, its inputs read by tensor.extract at their indexing
// maps applied to i). A gather of a gather (a pad of a concat, a slice of
// a transpose) becomes one loop nest, so no intermediate has to be ordered
// between two nests.
struct FuseGatheredProducer : OpRewritePattern<tensor::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractOp extract,
                                PatternRewriter &rewriter) const override {
    if (!extract->getParentOfType<linalg::GenericOp>())
      return failure();
    auto producer = extract.getTensor().getDefiningOp<linalg::GenericOp>();
    if (!producer || producer.getNumResults() != 1 ||
        producer.getNumReductionLoops() != 0 ||
        !producer.hasPureTensorSemantics())
      return failure();
    OpOperand *init = producer.getDpsInitOperand(0);
    Block &body = producer.getRegion().front();
    if (!producer.getMatchingIndexingMap(init).isIdentity() ||
        !body.getArgument(init->getOperandNumber()).use_empty())
      return failure();
    Location loc = extract.getLoc();
    SmallVector<Value> indices(extract.getIndices());
    IRMapping map;
    for (OpOperand *in : producer.getDpsInputOperands()) {
      BlockArgument arg = body.getArgument(in->getOperandNumber());
      if (arg.use_empty())
        continue;
      if (!isa<RankedTensorType>(in->get().getType())) {
        map.map(arg, in->get());
        continue;
      }
      SmallVector<Value> at;
      for (AffineExpr expr : producer.getMatchingIndexingMap(in).getResults())
        at.push_back(affine::AffineApplyOp::create(
            rewriter, loc, AffineMap::get(producer.getNumLoops(), 0, expr),
            indices));
      map.map(arg, tensor::ExtractOp::create(rewriter, loc, in->get(), at));
    }
    for (Operation &op : body.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(op)) {
        map.map(index.getResult(), indices[index.getDim()]);
        continue;
      }
      rewriter.clone(op, map);
    }
    rewriter.replaceOp(
        extract, map.lookupOrDefault(body.getTerminator()->getOperand(0)));
    return success();
  }
};

// A generic reading a gather's result (an all-parallel generic whose body
// extracts from its source: a pad, a slice insertion) through an indexing
// map that is not a projected permutation (a conv's window, an im2col) --
// the one case elementwise fusion leaves -- reads it by tensor.extract at
// the map's indices instead, which FuseGatheredProducer then computes in
// place. A conv's padding becomes a bounds check in the conv's loop.
struct ReadThroughGather : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  static bool isGather(linalg::GenericOp producer) {
    if (producer.getNumResults() != 1 || producer.getNumReductionLoops() != 0 ||
        !producer.hasPureTensorSemantics())
      return false;
    OpOperand *init = producer.getDpsInitOperand(0);
    Block &body = producer.getRegion().front();
    if (!producer.getMatchingIndexingMap(init).isIdentity() ||
        !body.getArgument(init->getOperandNumber()).use_empty())
      return false;
    return !body.getOps<tensor::ExtractOp>().empty();
  }

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    if (!consumer.hasPureTensorSemantics())
      return failure();
    OpOperand *gathered = nullptr;
    for (OpOperand *in : consumer.getDpsInputOperands()) {
      auto producer = in->get().getDefiningOp<linalg::GenericOp>();
      if (producer && isGather(producer) &&
          !consumer.getMatchingIndexingMap(in).isProjectedPermutation()) {
        gathered = in;
        break;
      }
    }
    if (!gathered)
      return failure();
    unsigned index = gathered->getOperandNumber();
    Value source = gathered->get();
    AffineMap readMap = consumer.getMatchingIndexingMap(gathered);
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand &operand : consumer->getOpOperands()) {
      if (&operand == gathered)
        continue;
      if (consumer.isDpsInput(&operand))
        inputs.push_back(operand.get());
      maps.push_back(consumer.getMatchingIndexingMap(&operand));
    }
    Location loc = consumer.getLoc();
    auto replacement = linalg::GenericOp::create(
        rewriter, loc, consumer.getResultTypes(), inputs,
        consumer.getDpsInits(), maps, consumer.getIteratorTypesArray());
    rewriter.inlineRegionBefore(consumer.getRegion(), replacement.getRegion(),
                                replacement.getRegion().end());
    Block &body = replacement.getRegion().front();
    rewriter.setInsertionPointToStart(&body);
    SmallVector<Value> ivs;
    for (unsigned d = 0; d < readMap.getNumDims(); ++d)
      ivs.push_back(linalg::IndexOp::create(rewriter, loc, d));
    SmallVector<Value> at;
    for (AffineExpr expr : readMap.getResults())
      at.push_back(affine::AffineApplyOp::create(
          rewriter, loc, AffineMap::get(readMap.getNumDims(), 0, expr), ivs));
    Value element = tensor::ExtractOp::create(rewriter, loc, source, at);
    rewriter.replaceAllUsesWith(body.getArgument(index), element);
    body.eraseArgument(index);
    rewriter.replaceOp(consumer, replacement.getResults());
    return success();
  }
};

struct DecomposeConcat : OpRewritePattern<tensor::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ConcatOp concat,
                                PatternRewriter &rewriter) const override {
    FailureOr<SmallVector<Value>> decomposed =
        concat.decomposeOperation(rewriter);
    if (failed(decomposed))
      return failure();
    rewriter.replaceOp(concat, *decomposed);
    return success();
  }
};

} // namespace

bool isContractionLike(linalg::LinalgOp op) {
  if (isPooling(op))
    return false;
  if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
    return accumulatesProduct(generic);
  return linalg::isaContractionOpInterface(op) ||
         isa<linalg::ConvolutionOpInterface>(op.getOperation());
}

void rewriteDataMovement(func::FuncOp func) {
  IRRewriter rewriter(func.getContext());
  bool generateContractions = func->hasAttr(kGeneratedContractionAttr);
  SmallVector<linalg::LinalgOp> named;
  func.walk([&](linalg::LinalgOp op) {
    if (!isa<linalg::GenericOp, linalg::FillOp>(op.getOperation()) &&
        (generateContractions || !isContractionLike(op)))
      named.push_back(op);
  });
  for (linalg::LinalgOp op : named) {
    rewriter.setInsertionPoint(op);
    (void)linalg::generalizeNamedOp(rewriter, op);
  }
  RewritePatternSet patterns(func.getContext());
  patterns.add<PadToGather, InsertSliceToGather, DecomposeConcat,
               FuseGatheredProducer, ReadThroughGather>(func.getContext());
  // Fills whose only use was a rewritten insert_slice's destination die.
  linalg::FillOp::getCanonicalizationPatterns(patterns, func.getContext());
  (void)applyPatternsGreedily(func, std::move(patterns));
}

void separateFills(func::FuncOp func) {
  OpBuilder builder(func.getContext());
  SmallVector<linalg::FillOp> fills(func.getBody().getOps<linalg::FillOp>());
  for (linalg::FillOp fill : fills) {
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : fill->getResult(0).getUses())
      uses.push_back(&use);
    for (OpOperand *use : ArrayRef<OpOperand *>(uses).drop_front()) {
      builder.setInsertionPoint(use->getOwner());
      Operation *empty = fill.getOutputs().front().getDefiningOp();
      IRMapping map;
      if (empty && isa<tensor::EmptyOp>(empty))
        map.map(empty->getResult(0), builder.clone(*empty)->getResult(0));
      use->set(builder.clone(*fill, map)->getResult(0));
    }
  }
}

} // namespace mlir::kiln::cuda
