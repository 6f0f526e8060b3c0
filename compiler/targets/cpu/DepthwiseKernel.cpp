//===- DepthwiseKernel.cpp - Depthwise convolution kernels ----------------===//
//
// See DepthwiseKernel.h for the flat-grid formulation and the tap groups.
// Like the contraction kernel, the tile is written directly from vector
// ops on the bufferized operands.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/cpu/DepthwiseKernel.h"

#include "compiler/targets/cpu/ContractionKernel.h"
#include "compiler/targets/cpu/DepthwisePad.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::kiln::cpu {

namespace {

// `expr` - stride * d_`dim`, when that is a single dim other than `dim`.
std::optional<unsigned> offsetDim(AffineExpr expr, unsigned dim,
                                  int64_t stride, unsigned numDims) {
  AffineExpr rest = simplifyAffineExpr(
      expr - getAffineDimExpr(dim, expr.getContext()) * stride, numDims, 0);
  auto d = dyn_cast<AffineDimExpr>(rest);
  if (!d || d.getPosition() == dim)
    return std::nullopt;
  return d.getPosition();
}

} // namespace

namespace {

// A max pool: `out = max(out, x)` (maximumf or maxnumf, either operand
// order) over a float x, with a second input (the window) the body does
// not read, and the output of x's type: its loops up to kh and kw (which
// matchDepthwise finds from the input map, as for convolutions).
FailureOr<DepthwiseLoops> matchMaxPool(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || generic.getNumDpsInputs() != 2 ||
      generic.getNumDpsInits() != 1)
    return failure();
  Block &body = generic.getRegion().front();
  Value in = body.getArgument(0), window = body.getArgument(1),
        out = body.getArgument(2);
  // The tap may be x rounded to the output's 16-bit type first (a conv's
  // rounding epilogue fused into the pool): rounding is monotone, so the
  // max of the rounded taps is the rounding of the f32 max, which the
  // kernel computes and rounds where it stores it.
  Value tap = in;
  Operation *max = &body.front();
  if (auto round = dyn_cast<arith::TruncFOp>(max)) {
    if (round.getIn() != in || !in.getType().isF32())
      return failure();
    tap = round.getResult();
    max = max->getNextNode();
  }
  if (!isa<arith::MaximumFOp, arith::MaxNumFOp>(max) ||
      max->getNextNode() != body.getTerminator())
    return failure();
  if (!window.use_empty() ||
      !((max->getOperand(0) == out && max->getOperand(1) == tap) ||
        (max->getOperand(0) == tap && max->getOperand(1) == out)) ||
      body.getTerminator()->getOperand(0) != max->getResult(0) ||
      !tap.hasOneUse())
    return failure();
  Type elt = in.getType();
  if (!(elt.isF32() || elt.isBF16() || elt.isF16()) ||
      out.getType() != tap.getType())
    return failure();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap c = maps[2];
  if (c.getNumResults() < 2)
    return failure();
  auto oh = dyn_cast<AffineDimExpr>(c.getResult(c.getNumResults() - 2));
  auto ow = dyn_cast<AffineDimExpr>(c.getResult(c.getNumResults() - 1));
  AffineMap x = maps[0];
  if (!oh || !ow || x.getNumResults() < 2)
    return failure();
  DepthwiseLoops loops;
  loops.oh = oh.getPosition();
  loops.ow = ow.getPosition();
  loops.input = 0;
  loops.filter = 1;
  // The stride: the one that leaves a plain window dim beside ow.
  loops.stride = 0;
  for (int64_t s : {1, 2})
    if (offsetDim(x.getResults().back(), loops.ow, s, op.getNumLoops()))
      loops.stride = s;
  if (loops.stride == 0)
    return failure();
  loops.operandType = elt;
  loops.accumulatorType = out.getType();
  loops.poolMax = max->getName().getStringRef();
  return loops;
}

// A depthwise convolution's multiply-add: its loops up to kh and kw.
FailureOr<DepthwiseLoops> matchDepthwiseConv(linalg::LinalgOp op) {
  FailureOr<ContractionLoops> c = matchContraction(op);
  // The weight (A) is shared by every row and lane; the input (B) moves
  // with both.
  if (failed(c) || c->kGroup != 1 || c->flippedA || !c->vectorPerRow ||
      c->scalarPerRow)
    return failure();
  bool floats = c->operandType.isF32() || c->operandType.isBF16() ||
                c->operandType.isF16();
  if (!((floats && c->accumulatorType.isF32()) ||
        (c->operandType.isInteger(8) && c->accumulatorType.isInteger(32))))
    return failure();
  DepthwiseLoops loops;
  loops.oh = c->m;
  loops.ow = c->n;
  loops.input = c->rhs;
  loops.filter = c->lhs;
  loops.stride = c->laneStride;
  loops.operandType = c->operandType;
  loops.accumulatorType = c->accumulatorType;
  return loops;
}

// The rest of matchDepthwise for either kind: the window dims kh and kw
// from the input map (s * oh + kh, s * ow + kw), the filter or window map
// (kh, kw), and the other dims.
FailureOr<DepthwiseLoops> completeDepthwise(linalg::LinalgOp op,
                                            FailureOr<DepthwiseLoops> found) {
  if (failed(found))
    return failure();
  DepthwiseLoops loops = *found;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap x = maps[loops.input], w = maps[loops.filter];
  unsigned numDims = op.getNumLoops();
  if (x.getNumResults() < 2 || w.getNumResults() < 2)
    return failure();
  unsigned xr = x.getNumResults(), wr = w.getNumResults();
  std::optional<unsigned> kh =
      offsetDim(x.getResult(xr - 2), loops.oh, loops.stride, numDims);
  std::optional<unsigned> kw =
      offsetDim(x.getResult(xr - 1), loops.ow, loops.stride, numDims);
  if (!kh || !kw || *kh == *kw)
    return failure();
  loops.kh = *kh;
  loops.kw = *kw;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (iterators[loops.kh] != utils::IteratorType::reduction ||
      iterators[loops.kw] != utils::IteratorType::reduction)
    return failure();
  auto isDim = [](AffineExpr e, unsigned d) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    return dim && dim.getPosition() == d;
  };
  if (!isDim(w.getResult(wr - 2), loops.kh) ||
      !isDim(w.getResult(wr - 1), loops.kw))
    return failure();
  // Everything else indexes with other plain dims or constants.
  auto special = [&](unsigned d) {
    return d == loops.oh || d == loops.ow || d == loops.kh || d == loops.kw;
  };
  for (auto [map, keep] : {std::pair(x, xr - 2), std::pair(w, wr - 2)})
    for (AffineExpr e : map.getResults().take_front(keep)) {
      if (isa<AffineConstantExpr>(e))
        continue;
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (!dim || special(dim.getPosition()))
        return failure();
    }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (unsigned d = 0; d < numDims; ++d) {
    if (special(d))
      continue;
    if (iterators[d] == utils::IteratorType::reduction) {
      if (ranges[d] != 1)
        return failure();
      loops.unitReductions.push_back(d);
    } else {
      loops.outer.push_back(d);
    }
  }
  return loops;
}

} // namespace

FailureOr<DepthwiseLoops> matchDepthwise(linalg::LinalgOp op) {
  FailureOr<DepthwiseLoops> pool = matchMaxPool(op);
  return completeDepthwise(op, succeeded(pool) ? pool
                                               : matchDepthwiseConv(op));
}

FailureOr<DepthwiseLoops> matchDepthwiseMaxPool(linalg::LinalgOp op) {
  return completeDepthwise(op, matchMaxPool(op));
}

bool floatTaps(StringRef native) { return native == "fma" || native == "max"; }

int64_t depthwiseGroup(StringRef native) {
  if (native == "vnni")
    return 4;
  if (native == "pmaddwd")
    return 2;
  return 1;
}

int64_t depthwisePhases(StringRef native, int64_t stride) {
  // fma reads every other element of a double-width load at stride 2 and
  // keeps its lanes in pixel order: one phase at either stride.
  if (floatTaps(native))
    return stride == 1 || stride == 2 ? 1 : 0;
  return depthwiseGroup(native) / stride;
}

std::optional<DepthwiseTile> chooseDepthwiseTile(linalg::LinalgOp op,
                                                 const TargetChoice &target) {
  FailureOr<DepthwiseLoops> loops = matchDepthwise(op);
  if (failed(loops) || !op.hasPureTensorSemantics() ||
      !op.getDpsInits()[0].getDefiningOp<linalg::FillOp>())
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto xType = dyn_cast<RankedTensorType>(
      op.getDpsInputOperand(loops->input)->get().getType());
  if (!xType || !xType.hasStaticShape() ||
      llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  int64_t oh = ranges[loops->oh], ow = ranges[loops->ow];
  int64_t pitch = xType.getShape().back();
  // A folded pad (DepthwisePad.h): the kernel reads the unpadded plane
  // with bounds, on row tiles only.
  bool bounded = false;
  if (linalg::GenericOp pad = depthwisePadProducer(
          op.getDpsInputOperand(loops->input)->get())) {
    auto extracts = pad.getBody()->getOps<tensor::ExtractOp>();
    if (extracts.empty())
      return std::nullopt;
    auto source = cast<RankedTensorType>(
        (*extracts.begin()).getTensor().getType());
    if (!source.hasStaticShape())
      return std::nullopt;
    pitch = source.getShape().back();
    bounded = true;
  }
  int64_t s = loops->stride;
  int64_t chunk = target.vectorBits / 32;
  if (target.vectorBits < 256)
    return std::nullopt;
  DepthwiseTile tile;
  int64_t maxBlocks = 2;
  if (loops->operandType.isInteger(8)) {
    tile.native = target.hasVnni ? "vnni" : "pmaddwd";
  } else {
    // f32: one FMA per tap and vector. Against the contraction kernel's
    // row tiles (which ran f32 depthwise convs before) this takes several
    // small planes per workgroup, runs the bias/activation epilogue over
    // whole planes and, on small planes, tiles the flat grid: paired, 1
    // thread, Conv+Clip, Zen 4: 96x28x28 0.35x, 384x14x14 0.29x, 960x7x7
    // 0.49x the time of the row tiles (docs/design.md).
    tile.native = loops->poolMax.empty() ? "fma" : "max";
  }
  int64_t unit = depthwisePhases(tile.native, s) * chunk;
  if (unit == 0)
    return std::nullopt;
  auto tileFor = [&](int64_t count) {
    return std::clamp<int64_t>((count + unit - 1) / unit, 1, maxBlocks) * unit;
  };
  auto ceilTo = [](int64_t v, int64_t m) { return (v + m - 1) / m * m; };
  // Lanes doing useful work, per mode. The flat grid computes the
  // (pitch - OW) columns between rows too and copies its result out once
  // more (about 15%, counted against it).
  int64_t rowsTile = tileFor(ow);
  double rowsUse = double(ow) / double(ceilTo(ow, rowsTile));
  int64_t grid = (oh - 1) * pitch + ow;
  int64_t flatTile = tileFor(grid);
  double flatUse =
      0.85 * double(oh * ow) / double(ceilTo(grid, flatTile));
  // The grid is stack scratch: keep it small (a 56x56 plane's is 13 KiB).
  bool flatFits = ceilTo(grid, flatTile) * 4 <= 64 * 1024;
  tile.flat = !bounded && flatFits && flatUse > rowsUse;
  tile.pixels = tile.flat ? flatTile : rowsTile;
  if (floatTaps(tile.native)) {
    // One FMA chain per accumulator, 4 cycles each: about 8 chains keep
    // both FMA pipes busy (4 with 16 vector registers, which also hold
    // the weights). Flat tiles take up to that many vectors, as long as
    // the grid rounds up no further; row tiles take several output rows,
    // the last group moved back to end at OH as the last column tile is.
    int64_t chains = target.vectorRegisters >= 32 ? 8 : 4;
    if (tile.flat) {
      int64_t rounded = ceilTo(grid, flatTile);
      for (int64_t blocks = 2; blocks <= chains; ++blocks)
        if (ceilTo(grid, blocks * unit) <= rounded)
          tile.pixels = blocks * unit;
    } else {
      // A group of r rows x b blocks costs about max(chains, r b) FMA
      // latencies per tap (fewer accumulators than chains leave the pipes
      // idle); the fewest in all, then the fewest rows computed.
      int64_t blocks = tile.pixels / unit;
      auto cost = [&](int64_t r) {
        return std::pair((oh + r - 1) / r * std::max(chains, r * blocks),
                         ceilTo(oh, r));
      };
      int64_t best = 1;
      for (int64_t r = 2; r <= std::min(oh, std::max<int64_t>(
                                                 1, chains / blocks));
           ++r)
        if (cost(r) <= cost(best))
          best = r;
      tile.rows = best;
    }
  }
  return tile;
}

namespace {

// Indices of an operand for the loop values `dims`.
SmallVector<Value> indicesAt(OpBuilder &b, Location loc, AffineMap map,
                             ArrayRef<Value> dims) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      indices.push_back(dims[dim.getPosition()]);
    else
      indices.push_back(affine::AffineApplyOp::create(
          b, loc, AffineMap::get(map.getNumDims(), 0, expr), dims));
  }
  return indices;
}

// Interleaves two vectors of n elements: out[2 i + j] = vj[i].
Value interleave(OpBuilder &b, Location loc, Value v0, Value v1) {
  int64_t n = cast<VectorType>(v0.getType()).getNumElements();
  SmallVector<int64_t> mask;
  for (int64_t i = 0; i < n; ++i) {
    mask.push_back(i);
    mask.push_back(n + i);
  }
  return vector::ShuffleOp::create(b, loc, v0, v1, mask).getResult();
}

// A folded pad, seen from the bufferized kernel: the unpadded input
// (the workgroup's planes of the dispatch argument), the top and left
// pads and the pad value.
struct PadBounds {
  Value input;
  int64_t top = 0, left = 0;
  TypedAttr value;
};

// Finds the kiln.depthwise_pad generic that writes the buffer `x` is a
// slice of, and builds the matching slice of its unpadded input (at the
// depthwise op). Leaves `bounds` empty when x is not padded that way.
LogicalResult findPadBounds(RewriterBase &rewriter, linalg::LinalgOp op,
                            Value x, std::optional<PadBounds> &bounds) {
  auto slice = x.getDefiningOp<memref::SubViewOp>();
  Value buffer = slice ? slice.getSource() : x;
  linalg::GenericOp pad;
  for (Operation *user : buffer.getUsers()) {
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (generic && generic.getNumDpsInits() == 1 &&
        generic.getDpsInits()[0] == buffer &&
        generic->hasAttr(kDepthwisePadAttr))
      pad = generic;
  }
  if (!pad)
    return success();
  std::optional<FoldedPad> geometry = FoldedPad::read(pad, kDepthwisePadAttr);
  auto func = op->getParentOfType<func::FuncOp>();
  // The pad value: the constant the generic yields outside the plane.
  TypedAttr value;
  auto yield = cast<linalg::YieldOp>(pad.getBody()->getTerminator());
  if (auto select = yield.getOperand(0).getDefiningOp<arith::SelectOp>())
    if (auto constant =
            select.getFalseValue().getDefiningOp<arith::ConstantOp>())
      value = constant.getValue();
  if (!geometry || !func || !value ||
      geometry->input >= static_cast<int64_t>(func.getNumArguments()))
    return pad.emitOpError("is not a depthwise pad the kernel can fold "
                           "(kiln.depthwise_pad with an argument number, "
                           "[top, left] pads and a constant pad value)");
  Value input = func.getArgument(geometry->input);
  auto inputType = dyn_cast<MemRefType>(input.getType());
  auto bufferType = cast<MemRefType>(buffer.getType());
  int64_t rank = bufferType.getRank();
  if (!inputType || inputType.getRank() != rank ||
      !inputType.hasStaticShape() || !inputType.getLayout().isIdentity() ||
      (slice && !llvm::all_of(slice.getStaticStrides(),
                              [](int64_t v) { return v == 1; })))
    return pad.emitOpError("folds a pad of an input the depthwise kernel "
                           "cannot read (static, contiguous, same rank)");
  SmallVector<OpFoldResult> offsets, sizes, strides;
  for (int64_t d = 0; d < rank; ++d) {
    OpFoldResult offset = rewriter.getIndexAttr(0);
    OpFoldResult size = rewriter.getIndexAttr(inputType.getDimSize(d));
    if (slice && d < rank - 2) {
      offset = slice.getMixedOffsets()[d];
      size = slice.getMixedSizes()[d];
    } else if (slice) {
      // Workgroups keep whole planes (a slice may leave out padded rows
      // and columns past the last the conv reads).
      std::optional<int64_t> o = getConstantIntValue(slice.getMixedOffsets()[d]);
      if (!o || *o != 0)
        return op.emitOpError("depthwise tiles need whole padded planes");
    }
    offsets.push_back(offset);
    sizes.push_back(size);
    strides.push_back(rewriter.getIndexAttr(1));
  }
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  Value view = memref::SubViewOp::create(rewriter, op.getLoc(), input,
                                         offsets, sizes, strides);
  bounds = PadBounds{view, geometry->top, geometry->left, value};
  return success();
}

} // namespace

LogicalResult emitDepthwiseKernel(RewriterBase &rewriter, linalg::LinalgOp op,
                                  const DepthwiseTile &tile,
                                  int64_t vectorBits) {
  if (!op.hasPureBufferSemantics())
    return op.emitOpError("depthwise tiles need bufferized operands");
  FailureOr<DepthwiseLoops> loops = matchDepthwise(op);
  if (failed(loops))
    return op.emitOpError(
        "is not a depthwise convolution the depthwise kernel handles (f32 or "
        "i8 -> i32 multiply-add, input read at (s oh + kh, s ow + kw) with "
        "s = 1 or 2, filter at (kh, kw), other reductions of extent 1)");
  StringRef native = tile.native;
  int64_t group = depthwiseGroup(native);
  int64_t s = loops->stride;
  bool integer = loops->operandType.isInteger(8);
  bool pool = !loops->poolMax.empty();
  if (!(native == "vnni" || native == "pmaddwd" || floatTaps(native)) ||
      integer != !floatTaps(native))
    return op.emitOpError("the depthwise path '")
           << native << "' does not take " << loops->operandType
           << " operands (vnni and pmaddwd take i8, fma and max f32, bf16 "
              "or f16)";
  if (pool != (native == "max"))
    return op.emitOpError("the depthwise path '")
           << native << "' does not run "
           << (pool ? "a max pool (its path is 'max')"
                    : "a convolution ('max' is max pooling's path)");
  int64_t phases = depthwisePhases(native, s);
  if (phases == 0 || (!floatTaps(native) && group % s != 0))
    return op.emitOpError("the depthwise path '")
           << native << "' cannot run stride " << s;
  int64_t chunk = std::max<int64_t>(vectorBits / 32, 4);
  int64_t unit = phases * chunk;
  if (tile.pixels < unit || tile.pixels % unit != 0)
    return op.emitOpError("depthwise pixel tile ")
           << tile.pixels << " must be a multiple of " << unit
           << " (phases x vector lanes)";
  int64_t blocks = tile.pixels / unit;
  // Output rows per tile (rows mode): their blocks are `pitch` pixels
  // apart on the flat grid.
  int64_t rowBlocks = tile.rows;
  if (rowBlocks < 1 || (tile.flat && rowBlocks != 1))
    return op.emitOpError("depthwise tile rows ")
           << rowBlocks << " must be 1 on the flat grid and at least 1";

  Value x = op.getDpsInputOperand(loops->input)->get();
  Value w = op.getDpsInputOperand(loops->filter)->get();
  Value c = op.getDpsInitOperand(0)->get();
  // A folded pad (DepthwisePad.h): x is (a workgroup's slice of) the
  // buffer a kiln.depthwise_pad generic fills from a dispatch argument;
  // the kernel reads that argument instead, with the padding as bounds.
  std::optional<PadBounds> bounds;
  if (failed(findPadBounds(rewriter, op, x, bounds)))
    return failure();
  if (bounds) {
    if (tile.flat)
      return op.emitOpError("flat-grid depthwise tiles need a padded input "
                            "plane, but the pad is folded into the kernel "
                            "(kiln.depthwise_pad): use plane = \"rows\"");
    x = bounds->input;
  }
  auto xType = cast<MemRefType>(x.getType());
  auto cType = cast<MemRefType>(c.getType());
  auto [xStrides, xOffset] = xType.getStridesAndOffset();
  int64_t rank = xType.getRank();
  if (xStrides.back() != 1 || ShapedType::isDynamic(xStrides[rank - 2]) ||
      !cType.isLastDimUnitStride())
    return op.emitOpError("needs unit-stride rows and a static row pitch "
                          "for depthwise tiles");
  int64_t pitch = xStrides[rank - 2];
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t oh = ranges[loops->oh], ow = ranges[loops->ow];
  int64_t kh = ranges[loops->kh], kw = ranges[loops->kw];
  if (llvm::any_of(ArrayRef<int64_t>{oh, ow, kh, kw}, ShapedType::isDynamic))
    return op.emitOpError("needs static planes for depthwise tiles");
  if (rowBlocks > oh)
    return op.emitOpError("depthwise tile rows ")
           << rowBlocks << " exceed the " << oh << " output rows";

  // The output must start from a fill: the accumulators start from its
  // value (the phases hold pixels out of order, so C is never loaded).
  linalg::FillOp fill;
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto f = dyn_cast<linalg::FillOp>(prev)) {
      if (f.hasPureBufferSemantics() && f.getDpsInits()[0] == c)
        fill = f;
      break;
    }
    if (!isPure(prev))
      break;
  }
  if (!fill)
    return op.emitOpError("depthwise tiles need the output filled right "
                          "before the convolution");

  Location loc = op.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  auto index = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // `stored` is the output's type; accumulators are f32 for float taps
  // (a 16-bit pool's maxima round back where they are stored, exactly).
  Type elt = loops->operandType, stored = loops->accumulatorType;
  Type i8 = rewriter.getI8Type(), i16 = rewriter.getI16Type(),
       i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
  Type acc = floatTaps(native) ? rewriter.getF32Type() : stored;
  auto accType = VectorType::get({chunk}, acc);
  if (cast<MemRefType>(c.getType()).getElementType() != stored)
    return op.emitOpError("depthwise tiles store ")
           << stored << " results: the output must be " << stored;
  // 16-bit float planes are widened to f32 once per channel into a stack
  // copy, which every tap then reads: one conversion per input element
  // rather than one per tap (KH x KW per output). Except bf16 at stride 2:
  // a 32-bit lane of the plane holds the tap in its low half, and a bf16
  // is the top half of its f32, so one shift per tap widens exactly the
  // elements the lanes need (the f32 path's even-lane permute goes too).
  bool bf16Pairs = floatTaps(native) && elt.isBF16() && s == 2;
  bool widen = !integer && !elt.isF32() && !bf16Pairs;
  Type f32 = rewriter.getF32Type();
  Type dataElt = widen ? f32 : elt;
  int64_t planeStatic = (xType.getDimSize(rank - 2) - 1) * pitch +
                        xType.getDimSize(rank - 1);
  if (widen && (xType.isDynamicDim(rank - 2) || xType.isDynamicDim(rank - 1)))
    return op.emitOpError("needs static planes for depthwise tiles");
  // Elements one load reads: `group` per lane (fma: `s` per lane, of which
  // the first is the tap).
  bool wideFma = floatTaps(native) && s == 2;
  int64_t loadLen = wideFma ? chunk * 2 : chunk * group;
  auto loadType = VectorType::get({loadLen}, dataElt);
  auto loadMaskType = VectorType::get({loadLen}, rewriter.getI1Type());
  int64_t groupsPerRow = (kw + group - 1) / group;
  int64_t grid = (oh - 1) * pitch + ow;
  int64_t gridTiles = (grid + tile.pixels - 1) / tile.pixels;

  Value gridBuffer;
  if (tile.flat)
    gridBuffer = memref::AllocaOp::create(
        rewriter, loc, MemRefType::get({gridTiles * tile.pixels}, stored),
        rewriter.getI64IntegerAttr(64));
  Value widePlane;
  if (widen)
    widePlane = memref::AllocaOp::create(
        rewriter, loc, MemRefType::get({planeStatic}, f32),
        rewriter.getI64IntegerAttr(64));

  SmallVector<Value> dims(op.getNumLoops(), index(rewriter, 0));
  for (unsigned d : loops->outer) {
    Value size = getValueOrCreateConstantIndexOp(
        rewriter, loc, op.createLoopRanges(rewriter, loc)[d].size);
    auto loop = scf::ForOp::create(rewriter, loc, index(rewriter, 0), size,
                                   index(rewriter, 1));
    rewriter.setInsertionPointToStart(loop.getBody());
    dims[d] = loop.getInductionVar();
  }
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap xMap = maps[loops->input], wMap = maps[loops->filter],
            cMap = maps[2];

  // This channel's input plane as one flat run of elements.
  auto meta = memref::ExtractStridedMetadataOp::create(rewriter, loc, x);
  SmallVector<Value> xAt = indicesAt(rewriter, loc, xMap, dims);
  Value start = meta.getOffset();
  for (int64_t i = 0; i < rank - 2; ++i)
    start = arith::AddIOp::create(
        rewriter, loc, start,
        arith::MulIOp::create(rewriter, loc, xAt[i], meta.getStrides()[i]));
  Value planeLen = arith::AddIOp::create(
      rewriter, loc,
      arith::MulIOp::create(
          rewriter, loc,
          arith::SubIOp::create(rewriter, loc, meta.getSizes()[rank - 2],
                                index(rewriter, 1)),
          index(rewriter, pitch)),
      meta.getSizes()[rank - 1]);
  Value plane = memref::ReinterpretCastOp::create(
      rewriter, loc,
      MemRefType::get({ShapedType::kDynamic}, elt,
                      StridedLayoutAttr::get(rewriter.getContext(),
                                             ShapedType::kDynamic, {1})),
      meta.getBaseBuffer(), OpFoldResult(start), {OpFoldResult(planeLen)},
      {rewriter.getIndexAttr(1)});
  if (widen) {
    // The plane widened to f32: whole vectors, then a masked tail.
    auto narrowType = VectorType::get({chunk}, elt);
    auto wideType = VectorType::get({chunk}, f32);
    int64_t whole = planeStatic / chunk * chunk;
    if (whole > 0) {
      auto copy = scf::ForOp::create(rewriter, loc, index(rewriter, 0),
                                     index(rewriter, whole),
                                     index(rewriter, chunk));
      OpBuilder::InsertionGuard copyGuard(rewriter);
      rewriter.setInsertionPointToStart(copy.getBody());
      Value i = copy.getInductionVar();
      Value v = vector::LoadOp::create(rewriter, loc, narrowType, plane,
                                       ValueRange{i});
      vector::StoreOp::create(rewriter, loc,
                              arith::ExtFOp::create(rewriter, loc, wideType, v),
                              widePlane, ValueRange{i});
    }
    if (whole < planeStatic) {
      Value at = index(rewriter, whole);
      Value mask = vector::CreateMaskOp::create(
          rewriter, loc, VectorType::get({chunk}, rewriter.getI1Type()),
          ValueRange{index(rewriter, planeStatic - whole)});
      Value v = vector::MaskedLoadOp::create(
          rewriter, loc, narrowType, plane, ValueRange{at}, mask,
          arith::ConstantOp::create(
              rewriter, loc, narrowType,
              DenseElementsAttr::get(narrowType, rewriter.getZeroAttr(elt))));
      vector::MaskedStoreOp::create(
          rewriter, loc, widePlane, ValueRange{at}, mask,
          arith::ExtFOp::create(rewriter, loc, wideType, v));
    }
    plane = widePlane;
  }
  // With bounds a masked load may start before the plane (top and left
  // padding): its address is computed as an integer, so that no memref
  // index is out of bounds (masked-off lanes are never accessed).
  Value planeAddress;
  if (bounds) {
    Value base = widen ? widePlane : x;
    Value first = widen ? index(rewriter, 0) : start;
    planeAddress = arith::AddIOp::create(
        rewriter, loc,
        arith::IndexCastOp::create(
            rewriter, loc, i64,
            memref::ExtractAlignedPointerAsIndexOp::create(rewriter, loc,
                                                           base)),
        arith::MulIOp::create(
            rewriter, loc, arith::IndexCastOp::create(rewriter, loc, i64, first),
            arith::ConstantOp::create(
                rewriter, loc,
                rewriter.getI64IntegerAttr(
                    dataElt.getIntOrFloatBitWidth() / 8))));
  }

  // The weights, one broadcast group per filter row and group of `group`
  // columns (zero past KW), and for vnni 128 * their sum.
  SmallVector<Value> weights;
  Value weightSum = arith::ConstantOp::create(
      rewriter, loc, rewriter.getIntegerAttr(i32, 0));
  for (int64_t r = 0; r < kh && !pool; ++r)
    for (int64_t j = 0; j < groupsPerRow; ++j) {
      SmallVector<Value> taps;
      for (int64_t t = 0; t < group; ++t) {
        int64_t col = j * group + t;
        if (col >= kw) {
          taps.push_back(arith::ConstantOp::create(
              rewriter, loc, rewriter.getZeroAttr(elt)));
          continue;
        }
        SmallVector<Value> at(dims);
        at[loops->kh] = index(rewriter, r);
        at[loops->kw] = index(rewriter, col);
        Value tap = memref::LoadOp::create(rewriter, loc, w,
                                           indicesAt(rewriter, loc, wMap, at));
        if (integer)
          weightSum = arith::AddIOp::create(
              rewriter, loc, weightSum,
              arith::ExtSIOp::create(rewriter, loc, i32, tap));
        taps.push_back(tap);
      }
      if (native == "fma") {
        Value tap = taps[0];
        if (!elt.isF32())
          tap = arith::ExtFOp::create(rewriter, loc, f32, tap);
        weights.push_back(
            vector::BroadcastOp::create(rewriter, loc, accType, tap));
        continue;
      }
      Value bytes = vector::FromElementsOp::create(
          rewriter, loc, VectorType::get({group}, i8), taps);
      if (native == "pmaddwd")
        bytes = arith::ExtSIOp::create(rewriter, loc,
                                       VectorType::get({group}, i16), bytes);
      Value word = vector::BitCastOp::create(
          rewriter, loc, VectorType::get({1}, i32), bytes);
      Value splat = vector::BroadcastOp::create(
          rewriter, loc, VectorType::get({chunk}, i32), word);
      weights.push_back(vector::BitCastOp::create(
          rewriter, loc,
          VectorType::get({chunk * group}, native == "vnni" ? i8 : i16),
          splat));
    }
  // Every accumulator starts at the fill value; vpdpbusd's sums come out
  // 128 * sum(w) high (x read as x + 128), so they start that much lower.
  Value startValue = fill.getDpsInputs()[0];
  if (startValue.getType() != acc)
    startValue = arith::ExtFOp::create(rewriter, loc, acc, startValue);
  if (native == "vnni")
    startValue = arith::SubIOp::create(
        rewriter, loc, startValue,
        arith::MulIOp::create(
            rewriter, loc, weightSum,
            arith::ConstantOp::create(rewriter, loc,
                                      rewriter.getIntegerAttr(i32, 128))));
  Value accStart = vector::BroadcastOp::create(rewriter, loc, accType,
                                               startValue);
  Value flip;
  if (native == "vnni")
    flip = arith::ConstantOp::create(
        rewriter, loc, loadType,
        DenseElementsAttr::get(loadType, rewriter.getIntegerAttr(i8, -128)));
  Value loadZeros = arith::ConstantOp::create(
      rewriter, loc, loadType,
      DenseElementsAttr::get(loadType, rewriter.getZeroAttr(dataElt)));
  // Lanes outside the plane read the pad value (with bounds).
  Value loadPad = loadZeros;
  if (bounds) {
    TypedAttr value = bounds->value;
    if (auto f = dyn_cast<FloatAttr>(value); f && dataElt != f.getType())
      value = rewriter.getFloatAttr(dataElt, f.getValueAsDouble());
    loadPad = arith::ConstantOp::create(
        rewriter, loc, loadType, DenseElementsAttr::get(loadType, value));
  }

  // The last element a tile starting at input element e reads is
  // e + lastRead; tiles with e <= planeLen - 1 - lastRead need no masks.
  int64_t lastRead = s * ((rowBlocks - 1) * pitch + (blocks - 1) * unit +
                          phases - 1) +
                     (kh - 1) * pitch + (groupsPerRow - 1) * group +
                     loadLen - 1;

  // One tile: `rowBlocks` x `blocks` x `phases` accumulators of `chunk`
  // lanes for the pixels whose first input element is `e` (output pixels
  // in order, `unit` per block, rows `pitch` pixels apart), returned in
  // pixel order, one vector of `unit` lanes per row and block. The rows'
  // loads of shared input rows are the same ops (CSE keeps one).
  int64_t tileBlocks = rowBlocks * blocks;
  // The last tile's first input element: a masked tile's loads that end
  // inside the plane even from there need no mask.
  int64_t lastStart =
      tile.flat ? s * ((grid - 1) / tile.pixels * tile.pixels)
                : s * ((oh - rowBlocks) * pitch +
                       (ow >= tile.pixels ? ow - tile.pixels : 0));
  bool staticPlane =
      !xType.isDynamicDim(rank - 2) && !xType.isDynamicDim(rank - 1);
  // With bounds: the tile's first output row and column (rows mode), and
  // a load of `loadLen` elements at plane element `at` for output row
  // tileRow + rb, tap row r, whose first element is column
  // s * (tileCol + lane) + tapCol - left: masked to the columns inside
  // the row [0, W) and to nothing when the input row lies outside
  // [0, H); masked-off lanes read the pad value.
  Value tileRow, tileCol;
  int64_t height = xType.getDimSize(rank - 2), width = xType.getDimSize(rank - 1);
  auto boundedLoad = [&](OpBuilder &b, Value at, int64_t rb, int64_t r,
                         int64_t lane, int64_t tapCol) -> Value {
    Value inputRow = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, tileRow, index(b, s)),
        index(b, s * rb + r - bounds->top));
    Value rowInside = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ult, inputRow, index(b, height));
    Value first = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, tileCol, index(b, s)),
        index(b, s * lane + tapCol - bounds->left));
    // Lanes [-first, W - first), none when the row is outside.
    Value high = arith::SelectOp::create(
        b, loc, rowInside,
        arith::SubIOp::create(b, loc, index(b, width), first), index(b, 0));
    Value low = arith::SubIOp::create(b, loc, index(b, 0), first);
    Value below = vector::CreateMaskOp::create(b, loc, loadMaskType,
                                               ValueRange{high});
    Value before = vector::CreateMaskOp::create(b, loc, loadMaskType,
                                                ValueRange{low});
    Value mask = arith::AndIOp::create(
        b, loc, below,
        arith::XOrIOp::create(
            b, loc, before,
            arith::ConstantOp::create(
                b, loc, loadMaskType,
                DenseElementsAttr::get(loadMaskType, b.getBoolAttr(true)))));
    Value ptr = LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()),
        arith::AddIOp::create(
            b, loc, planeAddress,
            arith::MulIOp::create(
                b, loc, arith::IndexCastOp::create(b, loc, i64, at),
                arith::ConstantOp::create(
                    b, loc,
                    b.getI64IntegerAttr(dataElt.getIntOrFloatBitWidth() / 8))))
            .getResult());
    return LLVM::MaskedLoadOp::create(
        b, loc, loadType, ptr, mask, loadPad,
        b.getI32IntegerAttr(dataElt.getIntOrFloatBitWidth() / 8));
  };
  auto computeTile = [&](OpBuilder &b, Value e, bool masked) {
    SmallVector<Value> accs(tileBlocks * phases, accStart);
    for (int64_t r = 0; r < kh; ++r)
      for (int64_t j = 0; j < groupsPerRow; ++j) {
        Value weight = pool ? Value() : weights[r * groupsPerRow + j];
        // A pool combines each tap with its own max; a conv multiplies it
        // by its weight and adds.
        auto combine = [&](Value taps, Value sum) -> Value {
          if (!pool)
            return vector::FMAOp::create(b, loc, weight, taps, sum);
          OperationState state(loc, loops->poolMax, ValueRange{sum, taps},
                               TypeRange{accType});
          return b.create(state)->getResult(0);
        };
        for (int64_t tb = 0; tb < tileBlocks; ++tb)
          for (int64_t p = 0; p < phases; ++p) {
            int64_t rb = tb / blocks, blk = tb % blocks;
            Value at = arith::AddIOp::create(
                b, loc, e,
                index(b, s * (rb * pitch + blk * unit + p) + r * pitch +
                             j * group));
            Value data;
            int64_t offset =
                s * (rb * pitch + blk * unit + p) + r * pitch + j * group;
            if (masked && bounds) {
              data = boundedLoad(b, at, rb, r, blk * unit + p, j * group);
            } else if (masked &&
                !(staticPlane && lastStart + offset + loadLen <= planeStatic)) {
              Value left = arith::SubIOp::create(b, loc, planeLen, at);
              Value mask = vector::CreateMaskOp::create(b, loc, loadMaskType,
                                                        ValueRange{left});
              data = vector::MaskedLoadOp::create(b, loc, loadType, plane,
                                                  ValueRange{at}, mask,
                                                  loadZeros);
            } else {
              data = vector::LoadOp::create(b, loc, loadType, plane,
                                            ValueRange{at});
            }
            Value &sum = accs[tb * phases + p];
            if (bf16Pairs) {
              Value words = vector::BitCastOp::create(
                  b, loc, VectorType::get({chunk}, i32), data);
              Value high = arith::ShLIOp::create(
                  b, loc, words,
                  arith::ConstantOp::create(
                      b, loc,
                      DenseElementsAttr::get(VectorType::get({chunk}, i32),
                                             b.getIntegerAttr(i32, 16))));
              Value taps = vector::BitCastOp::create(b, loc, accType, high);
              sum = combine(taps, sum);
            } else if (wideFma) {
              // Lane i's tap is element 2 i: one permute of the even ones
              // (vpermt2ps on AVX-512).
              SmallVector<int64_t> evens;
              for (int64_t i = 0; i < chunk; ++i)
                evens.push_back(2 * i);
              Value taps =
                  vector::ShuffleOp::create(b, loc, data, data, evens);
              sum = combine(taps, sum);
            } else if (floatTaps(native)) {
              sum = combine(data, sum);
            } else if (native == "vnni") {
              Value flipped = arith::XOrIOp::create(b, loc, data, flip);
              sum = LLVM::CallIntrinsicOp::create(
                        b, loc, accType,
                        b.getStringAttr(chunk == 16
                                            ? "llvm.x86.avx512.vpdpbusd.512"
                                            : "llvm.x86.avx512.vpdpbusd.256"),
                        ValueRange{sum, flipped, weight})
                        .getResult(0);
            } else {
              Value words = arith::ExtSIOp::create(
                  b, loc, VectorType::get({loadLen}, i16), data);
              Value pairs =
                  LLVM::CallIntrinsicOp::create(
                      b, loc, accType,
                      b.getStringAttr(chunk == 16
                                          ? "llvm.x86.avx512.pmaddw.d.512"
                                          : "llvm.x86.avx2.pmadd.wd"),
                      ValueRange{words, weight})
                      .getResult(0);
              sum = arith::AddIOp::create(b, loc, sum, pairs);
            }
          }
      }
    // Phase p holds pixels p, p + P, p + 2P, ...: interleave back.
    SmallVector<Value> out;
    for (int64_t tb = 0; tb < tileBlocks; ++tb) {
      ArrayRef<Value> ph(accs.data() + tb * phases, phases);
      if (phases == 1 && stored != acc)
        out.push_back(arith::TruncFOp::create(
            b, loc, VectorType::get({unit}, stored), ph[0]));
      else if (phases == 1)
        out.push_back(ph[0]);
      else if (phases == 2)
        out.push_back(interleave(b, loc, ph[0], ph[1]));
      else
        out.push_back(interleave(b, loc, interleave(b, loc, ph[0], ph[2]),
                                 interleave(b, loc, ph[1], ph[3])));
    }
    return out;
  };
  // Emits `body(masked)` unmasked when the tile at input element `e` reads
  // inside the plane, masked otherwise (the last tiles of a plane).
  auto guarded = [&](OpBuilder &b, Value e,
                     function_ref<void(OpBuilder &, bool)> body) {
    Value limit = arith::SubIOp::create(b, loc, planeLen,
                                        index(b, lastRead + 1));
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle,
                                         e, limit);
    if (bounds) {
      // Every load inside the plane's rows and columns: the tile's input
      // rows s * row - top .. + s (R - 1) + KH - 1 and columns
      // s * col - left .. + lastColumn.
      int64_t lastColumn = s * ((blocks - 1) * unit + phases - 1) +
                           (groupsPerRow - 1) * group + loadLen - 1;
      auto within = [&](Value v, int64_t lo, int64_t extent, int64_t size) {
        // lo <= v and v + extent <= size - 1, with v = s * iv.
        return arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, v,
                                  index(b, lo)),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, v,
                                  index(b, size - 1 - extent + lo)));
      };
      Value rowsIn = within(
          arith::MulIOp::create(b, loc, tileRow, index(b, s)), bounds->top,
          s * (rowBlocks - 1) + kh - 1, height);
      Value colsIn = within(
          arith::MulIOp::create(b, loc, tileCol, index(b, s)), bounds->left,
          lastColumn, width);
      inside = arith::AndIOp::create(b, loc, rowsIn, colsIn);
    }
    scf::IfOp::create(
        b, loc, inside,
        [&](OpBuilder &bb, Location) {
          body(bb, false);
          scf::YieldOp::create(bb, loc);
        },
        [&](OpBuilder &bb, Location) {
          body(bb, true);
          scf::YieldOp::create(bb, loc);
        });
  };
  auto unitMaskType = VectorType::get({unit}, rewriter.getI1Type());
  if (!tile.flat) {
    // Row by row: tiles of `rowBlocks` output rows, stored straight into
    // C; the last group of rows moves back to end at OH (recomputing a few
    // rows) when OH is not a multiple.
    auto rows = scf::ForOp::create(rewriter, loc, index(rewriter, 0),
                                   index(rewriter, oh),
                                   index(rewriter, rowBlocks));
    rewriter.setInsertionPointToStart(rows.getBody());
    Value row = rows.getInductionVar();
    if (oh % rowBlocks != 0)
      row = arith::MinSIOp::create(rewriter, loc, row,
                                   index(rewriter, oh - rowBlocks));
    auto cols = scf::ForOp::create(rewriter, loc, index(rewriter, 0),
                                   index(rewriter, ow),
                                   index(rewriter, tile.pixels));
    rewriter.setInsertionPointToStart(cols.getBody());
    Value col = cols.getInductionVar();
    // A row at least one tile wide ends with a tile moved back to end at
    // OW (recomputing a few pixels): every store is a plain one. Masked
    // stores are slow on some CPUs (AVX2's vpmaskmovd on AMD).
    bool overlapLast = ow >= tile.pixels;
    if (overlapLast)
      col = arith::MinSIOp::create(rewriter, loc, col,
                                   index(rewriter, ow - tile.pixels));
    Value e = arith::MulIOp::create(
        rewriter, loc,
        arith::AddIOp::create(
            rewriter, loc,
            arith::MulIOp::create(rewriter, loc, row, index(rewriter, pitch)),
            col),
        index(rewriter, s));
    if (bounds) {
      // The unpadded plane: the tile's first tap is `top` rows up and
      // `left` columns to the left of its padded position.
      e = arith::SubIOp::create(
          rewriter, loc, e,
          index(rewriter, bounds->top * pitch + bounds->left));
      tileRow = row;
      tileCol = col;
    }
    guarded(rewriter, e, [&](OpBuilder &b, bool masked) {
      SmallVector<Value> out = computeTile(b, e, masked);
      for (int64_t tb = 0; tb < tileBlocks; ++tb) {
        int64_t rb = tb / blocks, blk = tb % blocks;
        SmallVector<Value> at(dims);
        at[loops->oh] =
            rb == 0 ? row : arith::AddIOp::create(b, loc, row, index(b, rb));
        at[loops->ow] = arith::AddIOp::create(b, loc, col,
                                              index(b, blk * unit));
        SmallVector<Value> cAt = indicesAt(b, loc, cMap, at);
        // Plain stores, unless the row is narrower than a tile: then its
        // last block is masked (statically known which) and blocks past
        // it are dropped.
        int64_t first = blk * unit;
        if (overlapLast || (ow <= tile.pixels && first + unit <= ow)) {
          vector::StoreOp::create(b, loc, out[tb], c, cAt);
          continue;
        }
        if (ow <= tile.pixels && first >= ow)
          continue;
        Value left = arith::SubIOp::create(b, loc, index(b, ow),
                                           at[loops->ow]);
        vector::MaskedStoreOp::create(
            b, loc, c, cAt,
            vector::CreateMaskOp::create(b, loc, unitMaskType,
                                         ValueRange{left}),
            out[tb]);
      }
    });
  } else {
    // The flat grid: tiles across rows into the stack grid, then each
    // output row's OW pixels copied out.
    auto tiles = scf::ForOp::create(rewriter, loc, index(rewriter, 0),
                                    index(rewriter, grid),
                                    index(rewriter, tile.pixels));
    rewriter.setInsertionPointToStart(tiles.getBody());
    Value f0 = tiles.getInductionVar();
    Value e = arith::MulIOp::create(rewriter, loc, f0, index(rewriter, s));
    guarded(rewriter, e, [&](OpBuilder &b, bool masked) {
      SmallVector<Value> out = computeTile(b, e, masked);
      for (int64_t blk = 0; blk < blocks; ++blk)
        vector::StoreOp::create(
            b, loc, out[blk], gridBuffer,
            ValueRange{arith::AddIOp::create(b, loc, f0,
                                             index(b, blk * unit))});
    });
    rewriter.setInsertionPointAfter(tiles);
    auto rows = scf::ForOp::create(rewriter, loc, index(rewriter, 0),
                                   index(rewriter, oh), index(rewriter, 1));
    rewriter.setInsertionPointToStart(rows.getBody());
    Value row = rows.getInductionVar();
    auto copyType = VectorType::get({chunk}, stored);
    auto copyMaskType = VectorType::get({chunk}, rewriter.getI1Type());
    Value copyZeros = arith::ConstantOp::create(
        rewriter, loc, copyType,
        DenseElementsAttr::get(copyType, rewriter.getZeroAttr(stored)));
    Value rowStart =
        arith::MulIOp::create(rewriter, loc, row, index(rewriter, pitch));
    for (int64_t next = 0; next < ow; next += chunk) {
      // As for row tiles: the last vector of a row at least one vector
      // wide moves back to end at OW.
      int64_t col = next + chunk > ow && ow >= chunk ? ow - chunk : next;
      SmallVector<Value> at(dims);
      at[loops->oh] = row;
      at[loops->ow] = index(rewriter, col);
      SmallVector<Value> cAt = indicesAt(rewriter, loc, cMap, at);
      Value from = arith::AddIOp::create(rewriter, loc, rowStart,
                                         index(rewriter, col));
      if (col + chunk <= ow) {
        Value v = vector::LoadOp::create(rewriter, loc, copyType, gridBuffer,
                                         ValueRange{from});
        vector::StoreOp::create(rewriter, loc, v, c, cAt);
        continue;
      }
      Value mask = vector::CreateMaskOp::create(
          rewriter, loc, copyMaskType, ValueRange{index(rewriter, ow - col)});
      Value v = vector::MaskedLoadOp::create(rewriter, loc, copyType,
                                             gridBuffer, ValueRange{from},
                                             mask, copyZeros);
      vector::MaskedStoreOp::create(rewriter, loc, c, cAt, mask, v);
    }
  }
  rewriter.eraseOp(op);
  rewriter.eraseOp(fill);
  return success();
}

} // namespace mlir::kiln::cpu
