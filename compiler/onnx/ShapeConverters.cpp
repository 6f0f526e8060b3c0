//===- ShapeConverters.cpp - ONNX shape and data-movement ops -------------===//
//
// Reshape, Transpose, Concat, Split, Slice, Gather, Pad, Expand, Tile,
// Squeeze, Unsqueeze, Flatten, DepthToSpace, SpaceToDepth, and the ops that
// produce constants at import: Shape, Size, Range, ConstantOfShape,
// Constant. ONNX conventions (Reshape's 0 and -1, negative and clamped Slice
// bounds, optional axes, attributes that later opsets moved to inputs) are
// resolved here, so Kiln ops get their single normalized form. Operands
// that must be known at compile time must be constants after eager folding;
// otherwise the error names the node.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ConverterRegistry.h"
#include "compiler/onnx/TensorDecoding.h"

#include <limits>

using namespace mlir;

namespace mlir::kiln::onnx_import {
namespace {

/// The shape of `type` with -1 for dynamic dims (Kiln's attribute form).
llvm::SmallVector<int64_t> attrShape(RankedTensorType type) {
  llvm::SmallVector<int64_t> shape;
  for (int64_t d : type.getShape())
    shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  return shape;
}

LogicalResult convertReshape(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  auto requested = ctx.constantInts(1, "shape");
  if (failed(requested))
    return failure();
  RankedTensorType type = ctx.inputType(0);
  bool allowZero = ctx.getInt("allowzero", 0) != 0;
  llvm::SmallVector<int64_t> shape;
  int64_t inferIndex = -1, known = 1;
  for (auto [i, d] : llvm::enumerate(*requested)) {
    int64_t dim = d;
    if (dim == 0 && !allowZero) {
      if (int64_t(i) >= type.getRank())
        return ctx.error() << "shape entry " << i
                           << " is 0 (copy the input dim) but the input "
                           << type << " has no dim " << i;
      dim = type.isDynamicDim(i) ? -1 : type.getDimSize(i);
    } else if (dim == -1) {
      if (inferIndex >= 0)
        return ctx.error() << "shape has more than one -1";
      inferIndex = i;
    } else if (dim < 0) {
      return ctx.error() << "shape entry " << i << " is " << dim;
    }
    if (dim >= 0)
      known *= dim;
    shape.push_back(dim);
  }
  // Solve -1 when the element count is known; otherwise it stays dynamic.
  if (inferIndex >= 0 && type.hasStaticShape() &&
      llvm::count(shape, -1) == 1 && known != 0) {
    int64_t total = type.getNumElements();
    if (total % known != 0)
      return ctx.error() << "cannot reshape " << type << " to "
                         << "a shape with " << known << " known elements";
    shape[inferIndex] = total / known;
  }
  return ctx.setResult(0, ctx.reshape(ctx.input(0), shape));
}

LogicalResult convertTranspose(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  int64_t rank = ctx.inputType(0).getRank();
  llvm::SmallVector<int64_t> perm;
  if (auto given = ctx.getInts("perm")) {
    perm = *given;
  } else {
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  }
  return ctx.setResult(0, ctx.transpose(ctx.input(0), perm));
}

LogicalResult convertConcat(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  llvm::SmallVector<Value> inputs;
  for (unsigned i = 0; i < ctx.numInputs(); ++i)
    if (ctx.hasInput(i))
      inputs.push_back(ctx.input(i));
  return ctx.setResult(0, ctx.create<ConcatOp>(
                            inputs, {ctx.namedInt("axis", ctx.getInt("axis", 0))}));
}

/// A slice of `input` along one axis, every other dim taken whole.
FailureOr<Value> sliceAxis(NodeContext &ctx, Value input, int64_t axis,
                           int64_t start, int64_t end, int64_t step = 1) {
  auto type = llvm::cast<RankedTensorType>(input.getType());
  llvm::SmallVector<int64_t> starts, ends, steps;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    bool isAxis = d == axis;
    starts.push_back(isAxis ? start : 0);
    // A dynamic dim taken whole: there is no static end to give.
    ends.push_back(isAxis ? end
                          : (type.isDynamicDim(d) ? std::numeric_limits<int64_t>::max()
                                                  : type.getDimSize(d)));
    steps.push_back(isAxis ? step : 1);
  }
  return ctx.create<SliceOp>(input, {ctx.namedInts("starts", starts),
                                     ctx.namedInts("ends", ends),
                                     ctx.namedInts("steps", steps)});
}

LogicalResult convertSplit(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  RankedTensorType type = ctx.inputType(0);
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", 0), type.getRank());
  if (failed(axis))
    return failure();
  if (type.isDynamicDim(*axis))
    return ctx.error() << "splits dynamic dim " << *axis << " of " << type;
  int64_t dim = type.getDimSize(*axis);
  auto sizes = ctx.intsFromAttrOrInput("split", 1, 13);
  if (failed(sizes))
    return failure();
  llvm::SmallVector<int64_t> parts;
  if (*sizes && !(*sizes)->empty()) {
    parts = **sizes;
  } else {
    // Equal parts; from opset 18 the last one may be smaller.
    int64_t count = ctx.opset >= 18 && ctx.hasAttr("num_outputs")
                        ? ctx.getInt("num_outputs", 1)
                        : ctx.numOutputs();
    if (count <= 0)
      return ctx.error() << "has no outputs to split into";
    int64_t size = (dim + count - 1) / count;
    for (int64_t i = 0, left = dim; i < count; ++i, left -= size)
      parts.push_back(std::max<int64_t>(0, std::min(size, left)));
  }
  if (parts.size() != ctx.numOutputs())
    return ctx.error() << "split has " << parts.size() << " sizes for "
                       << ctx.numOutputs() << " outputs";
  int64_t start = 0;
  for (auto [i, size] : llvm::enumerate(parts)) {
    if (size < 0 || start + size > dim)
      return ctx.error() << "split sizes exceed dim " << *axis << " (" << dim
                         << ")";
    if (failed(ctx.setResult(
            i, sliceAxis(ctx, ctx.input(0), *axis, start, start + size))))
      return failure();
    start += size;
  }
  return success();
}

/// ONNX Slice semantics for one axis: negative indices count from the back,
/// then bounds are clamped to [0, dim] (step > 0) or [-1, dim - 1]
/// (step < 0), which is Kiln's normalized form.
void normalizeSliceBounds(int64_t dim, int64_t step, int64_t &start,
                          int64_t &end) {
  auto wrap = [&](int64_t v) {
    if (v < 0)
      v = v < std::numeric_limits<int64_t>::min() + dim ? -1 - dim : v + dim;
    return v;
  };
  start = wrap(start);
  end = wrap(end);
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    end = std::max(end, start);
  } else {
    start = std::clamp<int64_t>(start, -1, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
    end = std::min(end, start);
  }
}

LogicalResult convertSlice(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  RankedTensorType type = ctx.inputType(0);
  int64_t rank = type.getRank();
  llvm::SmallVector<int64_t> starts, ends, axes, steps;
  if (ctx.opset < 10) {
    starts = ctx.getInts("starts").value_or(llvm::SmallVector<int64_t>());
    ends = ctx.getInts("ends").value_or(llvm::SmallVector<int64_t>());
    axes = ctx.getInts("axes").value_or(llvm::SmallVector<int64_t>());
  } else {
    if (failed(ctx.requireInputs(3)))
      return failure();
    auto s = ctx.constantInts(1, "starts");
    auto e = ctx.constantInts(2, "ends");
    if (failed(s) || failed(e))
      return failure();
    starts = *s;
    ends = *e;
    if (ctx.hasInput(3)) {
      auto a = ctx.constantInts(3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
    if (ctx.hasInput(4)) {
      auto st = ctx.constantInts(4, "steps");
      if (failed(st))
        return failure();
      steps = *st;
    }
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return ctx.error() << "starts, ends, axes and steps have different lengths";

  llvm::SmallVector<int64_t> outStarts(rank, 0), outEnds, outSteps(rank, 1);
  for (int64_t d = 0; d < rank; ++d)
    outEnds.push_back(type.isDynamicDim(d) ? std::numeric_limits<int64_t>::max()
                                           : type.getDimSize(d));
  llvm::SmallVector<bool> seen(rank, false);
  for (size_t i = 0; i < starts.size(); ++i) {
    FailureOr<int64_t> axis = normalizeAxis(ctx, axes[i], rank);
    if (failed(axis))
      return failure();
    if (seen[*axis])
      return ctx.error() << "axis " << *axis << " is sliced twice";
    seen[*axis] = true;
    if (steps[i] == 0)
      return ctx.error() << "step " << i << " is 0";
    if (type.isDynamicDim(*axis))
      return ctx.error() << "slices dynamic dim " << *axis << " of " << type
                         << "; fix the input shape with --input-shape";
    int64_t start = starts[i], end = ends[i];
    normalizeSliceBounds(type.getDimSize(*axis), steps[i], start, end);
    outStarts[*axis] = start;
    outEnds[*axis] = end;
    outSteps[*axis] = steps[i];
  }
  return ctx.setResult(0, ctx.create<SliceOp>(
                            ctx.input(0), {ctx.namedInts("starts", outStarts),
                                           ctx.namedInts("ends", outEnds),
                                           ctx.namedInts("steps", outSteps)}));
}

LogicalResult convertGather(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  return ctx.setResult(0, ctx.create<GatherOp>(
                            {ctx.input(0), ctx.input(1)},
                            {ctx.namedInt("axis", ctx.getInt("axis", 0))}));
}

LogicalResult convertPad(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  int64_t rank = ctx.inputType(0).getRank();
  std::string mode = ctx.getString("mode", "constant");
  PadMode padMode;
  if (mode == "constant")
    padMode = PadMode::constant;
  else if (mode == "reflect")
    padMode = PadMode::reflect;
  else if (mode == "edge")
    padMode = PadMode::edge;
  else
    return ctx.error() << "pad mode '" << mode << "' is not supported";
  llvm::SmallVector<int64_t> pads;
  double value = 0;
  if (ctx.opset < 11) {
    pads = ctx.getInts("pads").value_or(llvm::SmallVector<int64_t>());
    value = ctx.getFloat("value", 0.0f);
  } else {
    if (failed(ctx.requireInputs(2)))
      return failure();
    auto given = ctx.constantInts(1, "pads");
    if (failed(given))
      return failure();
    pads = *given;
    if (ctx.hasInput(2)) {
      auto v = ctx.constantFloats(2, "constant_value");
      if (failed(v))
        return failure();
      if (!v->empty())
        value = v->front();
    }
    if (ctx.hasInput(3)) {
      // Pads given for some axes only (opset 18): spread to every dim.
      auto axes = ctx.constantInts(3, "axes");
      if (failed(axes))
        return failure();
      if (pads.size() != 2 * axes->size())
        return ctx.error() << "pads needs two entries per axis";
      llvm::SmallVector<int64_t> full(2 * rank, 0);
      for (auto [i, a] : llvm::enumerate(*axes)) {
        FailureOr<int64_t> axis = normalizeAxis(ctx, a, rank);
        if (failed(axis))
          return failure();
        full[*axis] = pads[i];
        full[rank + *axis] = pads[axes->size() + i];
      }
      pads = full;
    }
  }
  if (int64_t(pads.size()) != 2 * rank)
    return ctx.error() << "pads has " << pads.size() << " entries, expected "
                       << 2 * rank;
  return ctx.setResult(
      0, ctx.create<PadOp>(
             ctx.input(0),
             {ctx.namedInts("pads", pads),
              ctx.named("mode", PadModeAttr::get(ctx.getContext(), padMode)),
              ctx.named("value", ctx.builder.getF64FloatAttr(value))}));
}

/// Expand broadcasts both ways: the result shape is the NumPy broadcast of
/// the input shape and the requested one.
LogicalResult convertExpand(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  auto requested = ctx.constantInts(1, "shape");
  if (failed(requested))
    return failure();
  llvm::SmallVector<int64_t> in = attrShape(ctx.inputType(0));
  size_t rank = std::max(in.size(), requested->size());
  llvm::SmallVector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - in.size() ? 1 : in[i - (rank - in.size())];
    int64_t b = i < rank - requested->size()
                    ? 1
                    : (*requested)[i - (rank - requested->size())];
    if (a == 1)
      shape[i] = b;
    else if (b == 1 || a == b)
      shape[i] = a;
    else if (a == -1)
      shape[i] = b;
    else
      return ctx.error() << "cannot expand dim " << a << " to " << b;
  }
  return ctx.setResult(0, ctx.create<BroadcastOp>(
                            ctx.input(0), {ctx.namedInts("shape", shape)}));
}

/// Tile: interleave a size-1 dim before every dim, broadcast it to the
/// repeat count, and merge each (repeat, dim) pair.
LogicalResult convertTile(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  auto repeats = ctx.constantInts(1, "repeats");
  if (failed(repeats))
    return failure();
  RankedTensorType type = ctx.inputType(0);
  if (int64_t(repeats->size()) != type.getRank())
    return ctx.error() << "repeats has " << repeats->size()
                       << " entries for an input of rank " << type.getRank();
  if (!type.hasStaticShape())
    return ctx.error() << "needs a static input shape, got " << type;
  llvm::SmallVector<int64_t> interleaved, broadcast, merged;
  for (auto [r, d] : llvm::zip(*repeats, type.getShape())) {
    if (r < 0)
      return ctx.error() << "repeats must be non-negative";
    interleaved.append({1, d});
    broadcast.append({r, d});
    merged.push_back(r * d);
  }
  FailureOr<Value> v = ctx.reshape(ctx.input(0), interleaved);
  if (failed(v))
    return failure();
  v = ctx.create<BroadcastOp>(*v, {ctx.namedInts("shape", broadcast)});
  if (failed(v))
    return failure();
  return ctx.setResult(0, ctx.reshape(*v, merged));
}

LogicalResult convertSqueeze(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  RankedTensorType type = ctx.inputType(0);
  auto axes = ctx.intsFromAttrOrInput("axes", 1, 13);
  if (failed(axes))
    return failure();
  llvm::SmallVector<bool> drop(type.getRank(), false);
  if (*axes && !(*axes)->empty()) {
    for (int64_t a : **axes) {
      FailureOr<int64_t> axis = normalizeAxis(ctx, a, type.getRank());
      if (failed(axis))
        return failure();
      if (type.getDimSize(*axis) != 1 && !type.isDynamicDim(*axis))
        return ctx.error() << "cannot squeeze dim " << *axis << " of size "
                           << type.getDimSize(*axis);
      drop[*axis] = true;
    }
  } else {
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (type.isDynamicDim(d))
        return ctx.error() << "squeeze without axes needs static dims, got "
                           << type;
      drop[d] = type.getDimSize(d) == 1;
    }
  }
  llvm::SmallVector<int64_t> shape, in = attrShape(type);
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!drop[d])
      shape.push_back(in[d]);
  return ctx.setResult(0, ctx.reshape(ctx.input(0), shape));
}

LogicalResult convertUnsqueeze(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  RankedTensorType type = ctx.inputType(0);
  auto axes = ctx.intsFromAttrOrInput("axes", 1, 13);
  if (failed(axes))
    return failure();
  if (!*axes || (*axes)->empty())
    return ctx.error() << "requires axes";
  int64_t outRank = type.getRank() + (*axes)->size();
  llvm::SmallVector<bool> inserted(outRank, false);
  for (int64_t a : **axes) {
    FailureOr<int64_t> axis = normalizeAxis(ctx, a, outRank);
    if (failed(axis))
      return failure();
    if (inserted[*axis])
      return ctx.error() << "axis " << *axis << " appears twice";
    inserted[*axis] = true;
  }
  llvm::SmallVector<int64_t> shape, in = attrShape(type);
  for (int64_t d = 0, next = 0; d < outRank; ++d)
    shape.push_back(inserted[d] ? 1 : in[next++]);
  return ctx.setResult(0, ctx.reshape(ctx.input(0), shape));
}

LogicalResult convertFlatten(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  RankedTensorType type = ctx.inputType(0);
  int64_t rank = type.getRank();
  int64_t axis = ctx.getInt("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return ctx.error() << "axis " << ctx.getInt("axis", 1)
                       << " is out of range for rank " << rank;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t &part = d < axis ? outer : inner;
    if (type.isDynamicDim(d) || part == -1)
      part = -1;
    else
      part *= type.getDimSize(d);
  }
  return ctx.setResult(0, ctx.reshape(ctx.input(0), {outer, inner}));
}

/// DepthToSpace (DCR or CRD) and SpaceToDepth as reshape, transpose,
/// reshape on a static [N, C, H, W] input.
template <bool toSpace>
LogicalResult convertDepthSpace(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  RankedTensorType type = ctx.inputType(0);
  if (type.getRank() != 4 || !type.hasStaticShape())
    return ctx.error() << "needs a static 4-D input, got " << type;
  int64_t b = ctx.getInt("blocksize", 0);
  if (b <= 0)
    return ctx.error() << "requires a positive blocksize";
  int64_t n = type.getDimSize(0), c = type.getDimSize(1),
          h = type.getDimSize(2), w = type.getDimSize(3);
  llvm::SmallVector<int64_t> first, perm, last;
  if (toSpace) {
    if (c % (b * b))
      return ctx.error() << "channels " << c << " are not a multiple of "
                         << b * b;
    if (ctx.getString("mode", "DCR") == "CRD") {
      first = {n, c / (b * b), b, b, h, w};
      perm = {0, 1, 4, 2, 5, 3};
    } else {
      first = {n, b, b, c / (b * b), h, w};
      perm = {0, 3, 4, 1, 5, 2};
    }
    last = {n, c / (b * b), h * b, w * b};
  } else {
    if (h % b || w % b)
      return ctx.error() << "spatial dims are not multiples of " << b;
    first = {n, c, h / b, b, w / b, b};
    perm = {0, 3, 5, 1, 2, 4};
    last = {n, c * b * b, h / b, w / b};
  }
  FailureOr<Value> v = ctx.reshape(ctx.input(0), first);
  if (failed(v))
    return failure();
  v = ctx.transpose(*v, perm);
  if (failed(v))
    return failure();
  return ctx.setResult(0, ctx.reshape(*v, last));
}

LogicalResult convertShape(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  RankedTensorType type = ctx.inputType(0);
  int64_t rank = type.getRank();
  int64_t start = ctx.getInt("start", 0), end = ctx.getInt("end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  llvm::SmallVector<int64_t> dims;
  for (int64_t d = start; d < end; ++d) {
    if (type.isDynamicDim(d))
      return ctx.error() << "Shape of a tensor with dynamic dim " << d << " ("
                         << type
                         << ") is not supported yet; fix the input shapes "
                            "with --input-shape";
    dims.push_back(type.getDimSize(d));
  }
  ctx.setResult(0, ctx.i64Vector(dims));
  return success();
}

LogicalResult convertSize(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  RankedTensorType type = ctx.inputType(0);
  if (!type.hasStaticShape())
    return ctx.error() << "Size of a dynamic shape " << type
                       << " is not supported yet";
  ctx.setResult(0, ctx.scalar(ctx.builder.getI64Type(), type.getNumElements()));
  return success();
}

LogicalResult convertRange(NodeContext &ctx) {
  if (failed(ctx.requireInputs(3)))
    return failure();
  auto start = ctx.constantFloats(0, "start");
  auto limit = ctx.constantFloats(1, "limit");
  auto delta = ctx.constantFloats(2, "delta");
  if (failed(start) || failed(limit) || failed(delta))
    return failure();
  if (start->size() != 1 || limit->size() != 1 || delta->size() != 1 ||
      delta->front() == 0)
    return ctx.error() << "start, limit and delta must be scalars, delta "
                          "non-zero";
  double s = start->front(), l = limit->front(), d = delta->front();
  double count = std::max(0.0, std::ceil((l - s) / d));
  if (count > (1 << 24))
    return ctx.error() << "range of " << count << " elements is too large";
  Type element = ctx.inputType(0).getElementType();
  auto type = RankedTensorType::get({int64_t(count)}, element);
  llvm::SmallVector<Attribute> values;
  for (int64_t i = 0; i < int64_t(count); ++i) {
    double v = s + i * d;
    if (auto f = llvm::dyn_cast<FloatType>(element))
      values.push_back(ctx.builder.getFloatAttr(f, v));
    else
      values.push_back(ctx.builder.getIntegerAttr(element, int64_t(v)));
  }
  ctx.setResult(0, ctx.constant(DenseElementsAttr::get(type, values)));
  return success();
}

LogicalResult convertConstantOfShape(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  auto shape = ctx.constantInts(0, "shape");
  if (failed(shape))
    return failure();
  ElementsAttr value;
  if (const onnx::AttributeProto *a = ctx.attr("value")) {
    auto decoded = decodeTensor(ctx.getContext(), a->t(), ctx.getModelDir(),
                                ctx.loc);
    if (failed(decoded))
      return failure();
    value = *decoded;
    if (value.getNumElements() != 1)
      return ctx.error() << "value must hold one element";
  } else {
    value = DenseElementsAttr::get(
        RankedTensorType::get({1}, ctx.builder.getF32Type()), 0.0f);
  }
  for (int64_t d : *shape)
    if (d < 0)
      return ctx.error() << "shape has a negative dim " << d;
  auto dense = llvm::cast<DenseElementsAttr>(value);
  auto type = RankedTensorType::get(*shape, dense.getElementType());
  // A splat: any size, one stored value.
  ctx.setResult(0, ctx.constant(DenseElementsAttr::get(
                       type, *dense.getValues<Attribute>().begin())));
  return success();
}

LogicalResult convertConstant(NodeContext &ctx) {
  Builder &b = ctx.builder;
  if (const onnx::AttributeProto *a = ctx.attr("value")) {
    auto decoded = decodeTensor(ctx.getContext(), a->t(), ctx.getModelDir(),
                                ctx.loc);
    if (failed(decoded))
      return failure();
    ctx.setResult(0, ctx.constant(*decoded));
    return success();
  }
  if (ctx.hasAttr("value_float")) {
    ctx.setResult(0, ctx.scalar(b.getF32Type(), ctx.getFloat("value_float", 0)));
    return success();
  }
  if (ctx.hasAttr("value_int")) {
    ctx.setResult(0, ctx.scalar(b.getI64Type(), ctx.getInt("value_int", 0)));
    return success();
  }
  if (auto floats = ctx.getFloats("value_floats")) {
    auto type = RankedTensorType::get({int64_t(floats->size())}, b.getF32Type());
    ctx.setResult(0, ctx.constant(DenseElementsAttr::get(
                         type, llvm::ArrayRef<float>(*floats))));
    return success();
  }
  if (auto ints = ctx.getInts("value_ints")) {
    ctx.setResult(0, ctx.i64Vector(*ints));
    return success();
  }
  if (ctx.hasAttr("sparse_value"))
    return ctx.error() << "sparse_value constants are not supported";
  if (ctx.hasAttr("value_string") || ctx.hasAttr("value_strings"))
    return ctx.error() << "string constants are not supported (Kiln has no "
                          "string tensors)";
  return ctx.error() << "has no value attribute";
}

LogicalResult convertIdentity(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  ctx.setResult(0, ctx.input(0));
  return success();
}

/// Inference-mode Dropout is the identity. Training mode (opset 12's
/// training_mode input) drops values at random, which a compiled inference
/// graph cannot reproduce: it is an error, not a silent identity. (Opset 6's
/// is_test defaults to training, but exporters never meant it and
/// onnxruntime runs every pre-12 Dropout as the identity; so does Kiln.)
/// The optional mask output keeps everything: all true (bool from opset 10,
/// the input's type before), as the ONNX reference gives at inference.
LogicalResult convertDropout(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)) || failed(ctx.requireUnusedOutputsFrom(2)))
    return failure();
  bool training = false;
  if (ctx.opset >= 12 && ctx.hasInput(2)) {
    FailureOr<llvm::SmallVector<int64_t>> mode =
        ctx.constantInts(2, "training_mode");
    if (failed(mode))
      return failure();
    training = llvm::any_of(*mode, [](int64_t v) { return v != 0; });
  }
  if (training)
    return ctx.error() << "training mode is not supported (Kiln compiles "
                          "inference graphs)";
  ctx.setResult(0, ctx.input(0));
  if (ctx.outputUsed(1)) {
    RankedTensorType type = ctx.inputType(0);
    if (!type.hasStaticShape())
      return ctx.error() << "the mask output needs a static input shape, got "
                         << type;
    Type maskElement =
        ctx.opset >= 10 ? ctx.builder.getI1Type() : type.getElementType();
    auto maskType = RankedTensorType::get(type.getShape(), maskElement);
    Attribute one = llvm::isa<FloatType>(maskElement)
                        ? Attribute(ctx.builder.getFloatAttr(maskElement, 1.0))
                        : Attribute(ctx.builder.getIntegerAttr(maskElement, 1));
    ctx.setResult(1, ctx.constant(DenseElementsAttr::get(maskType, one)));
  }
  return success();
}

const ConverterInfo kConverters[] = {
    {"Reshape", convertReshape},
    {"Transpose", convertTranspose},
    {"Concat", convertConcat},
    {"Split", convertSplit},
    {"Slice", convertSlice},
    {"Gather", convertGather},
    {"Pad", convertPad},
    {"Expand", convertExpand, 8},
    {"Tile", convertTile},
    {"Squeeze", convertSqueeze},
    {"Unsqueeze", convertUnsqueeze},
    {"Flatten", convertFlatten},
    {"DepthToSpace", convertDepthSpace<true>},
    {"SpaceToDepth", convertDepthSpace<false>},
    {"Shape", convertShape},
    {"Size", convertSize},
    {"Range", convertRange, 11},
    {"ConstantOfShape", convertConstantOfShape, 9},
    {"Constant", convertConstant},
    {"Identity", convertIdentity},
    {"Dropout", convertDropout},
};

} // namespace

llvm::ArrayRef<ConverterInfo> getShapeConverters() { return kConverters; }

} // namespace mlir::kiln::onnx_import
