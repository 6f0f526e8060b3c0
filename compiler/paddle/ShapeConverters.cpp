//===- ShapeConverters.cpp - reshape, transpose, slice, concat, full... ---===//
//
// Data movement and constants. Where Paddle's semantics are ONNX's the
// ONNX converter does the work (Reshape: 0 copies a dim and -1 is
// inferred, exactly Paddle's rule; Slice/Gather/Concat/Range/Shape).
// Paddle-only rules handled here:
//   * squeeze ignores listed axes whose size is not 1 and an empty list
//     squeezes every size-1 dim;
//   * unsqueeze inserts its axes one after another (a negative axis counts
//     from the end of the tensor as it is at that point);
//   * slice / strided_slice drop the `decrease_axis` dims afterwards;
//   * split sections may hold one -1 (the rest);
//   * legacy `shape` and PIR `shape` give int32, PIR `shape64` int64;
//   * PIR passes value lists through builtin.combine / builtin.split.
// Shape arithmetic folds to constants during import (eager folding), so
// ops that need constant operands (reshape's shape, slice's bounds) find
// them as long as the input shapes are static (--input-shape).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Composer.h"
#include "compiler/paddle/PaddleConverters.h"

using namespace mlir;

namespace mlir::kiln::paddle_import {
namespace {

using Composer = onnx_import::BasicComposer<OpContext>;

/// reshape2 (legacy X + shape attr / Shape / ShapeTensor) and PIR reshape
/// (x, shape operand).
LogicalResult convertReshape(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  auto shape =
      ctx.intsFromAttrOrOperand("shape", {"ShapeTensor", "Shape"}, 1u);
  if (failed(shape))
    return failure();
  if (!*shape)
    return ctx.error() << "has no target shape";
  return ctx.setResult(
      0, ctx.onnx1("Reshape", {*x, ctx.i64Vector(**shape)}));
}

LogicalResult convertTranspose(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  auto perm = ctx.getInts(ctx.isPir() ? "perm" : "axis");
  if (!perm)
    return ctx.error() << "has no permutation";
  int64_t rank = ctx.typeOf(*x).getRank();
  for (int64_t &p : *perm) {
    auto n = normalizeAxis(ctx, p, rank, "permutation entry");
    if (failed(n))
      return failure();
    p = *n;
  }
  return ctx.setResult(0, ctx.transpose(*x, *perm));
}

/// flatten_contiguous_range / PIR flatten: merge dims start..stop.
LogicalResult convertFlattenRange(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  RankedTensorType type = ctx.typeOf(*x);
  int64_t rank = type.getRank();
  if (rank == 0)
    return ctx.setResult(0, ctx.reshape(*x, {1}));
  auto start = normalizeAxis(ctx, ctx.getInt("start_axis", 1), rank,
                             "start_axis");
  auto stop =
      normalizeAxis(ctx, ctx.getInt("stop_axis", -1), rank, "stop_axis");
  if (failed(start) || failed(stop))
    return failure();
  llvm::SmallVector<int64_t> shape(type.getShape().take_front(*start));
  int64_t merged = 1;
  for (int64_t i = *start; i <= *stop; ++i)
    merged = ShapedType::isDynamic(merged) || type.isDynamicDim(i)
                 ? ShapedType::kDynamic
                 : merged * type.getDimSize(i);
  shape.push_back(merged);
  for (int64_t i = *stop + 1; i < rank; ++i)
    shape.push_back(type.getDimSize(i));
  return ctx.setResult(0, reshapeTo(ctx, *x, shape));
}

/// Legacy flatten / flatten2: to 2-D at `axis` (ONNX Flatten).
LogicalResult convertFlatten2d(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  int64_t axis = ctx.getInt("axis", 1);
  return ctx.setResult(0, ctx.onnx1("Flatten", {*x}, [&](onnx::NodeProto &n) {
    setAttr(n, "axis", axis);
  }));
}

LogicalResult convertSqueeze(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  auto axes = ctx.intsFromAttrOrOperand("axes", {"AxesTensor"}, 1u);
  if (failed(axes))
    return failure();
  RankedTensorType type = ctx.typeOf(*x);
  int64_t rank = type.getRank();
  llvm::SmallVector<bool> drop(rank, false);
  if (!*axes || (*axes)->empty()) {
    for (int64_t i = 0; i < rank; ++i)
      drop[i] = type.getDimSize(i) == 1;
  } else {
    for (int64_t a : **axes) {
      auto n = normalizeAxis(ctx, a, rank, "squeeze axis");
      if (failed(n))
        return failure();
      drop[*n] = type.getDimSize(*n) == 1; // Paddle skips other sizes
    }
  }
  llvm::SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i)
    if (!drop[i])
      shape.push_back(type.getDimSize(i));
  return ctx.setResult(0, reshapeTo(ctx, *x, shape));
}

LogicalResult convertUnsqueeze(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  auto axes = ctx.intsFromAttrOrOperand("axes", {"AxesTensor",
                                                 "AxesTensorList"},
                                        1u);
  if (failed(axes))
    return failure();
  if (!*axes)
    return ctx.error() << "has no axes";
  llvm::SmallVector<int64_t> shape(ctx.typeOf(*x).getShape());
  for (int64_t a : **axes) {
    int64_t cur = shape.size();
    int64_t pos = a < 0 ? a + cur + 1 : a;
    if (pos < 0 || pos > cur)
      return ctx.error() << "unsqueeze axis " << a
                         << " is out of range for rank " << cur;
    shape.insert(shape.begin() + pos, 1);
  }
  return ctx.setResult(0, reshapeTo(ctx, *x, shape));
}

/// concat: legacy X list + axis (or AxisTensor); PIR combine list, axis.
LogicalResult convertConcat(OpContext &ctx) {
  llvm::SmallVector<Value> inputs = ctx.inList("X", 0);
  if (inputs.empty() || llvm::is_contained(inputs, Value()))
    return ctx.error() << "has no inputs to concatenate";
  int64_t axis = ctx.getInt("axis", 0);
  if (Value a = ctx.isPir() ? ctx.in("", 1) : ctx.in("AxisTensor", 0)) {
    auto ints = ctx.constantInts(a, "the concat axis");
    if (failed(ints))
      return failure();
    axis = ints->front();
  }
  return ctx.setResult(0, ctx.onnx1("Concat", inputs, [&](onnx::NodeProto &n) {
    setAttr(n, "axis", axis);
  }));
}

/// split (legacy X, sections/num/axis, outputs Out...; PIR split(x,
/// sections, axis) and split_with_num(x, axis){num}, results a list).
LogicalResult convertSplit(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  bool withNum = ctx.op.type == "pd_op.split_with_num";
  int64_t axis = ctx.getInt("axis", 0);
  Value axisValue = ctx.isPir() ? ctx.in("", withNum ? 1 : 2)
                                : ctx.in("AxisTensor", 0);
  if (axisValue) {
    auto ints = ctx.constantInts(axisValue, "the split axis");
    if (failed(ints))
      return failure();
    axis = ints->front();
  }
  RankedTensorType type = ctx.typeOf(*x);
  auto dim = normalizeAxis(ctx, axis, type.getRank());
  if (failed(dim))
    return failure();
  int64_t size = type.getDimSize(*dim);
  llvm::SmallVector<int64_t> sections;
  if (!withNum) {
    auto given = ctx.intsFromAttrOrOperand("sections", {"SectionsTensorList"},
                                           1u);
    if (failed(given))
      return failure();
    if (*given)
      sections = **given;
  }
  int64_t num = ctx.getInt("num", 0);
  if (sections.empty()) {
    if (num <= 0)
      return ctx.error() << "has neither sections nor num";
    if (ShapedType::isDynamic(size) || size % num)
      return ctx.error() << "cannot split dim " << *dim << " of " << type
                         << " into " << num << " equal parts";
    sections.assign(num, size / num);
  }
  int64_t known = 0, unknown = -1;
  for (auto [i, s] : llvm::enumerate(sections)) {
    if (s < 0) {
      if (unknown >= 0)
        return ctx.error() << "has more than one -1 section";
      unknown = i;
    } else {
      known += s;
    }
  }
  if (unknown >= 0) {
    if (ShapedType::isDynamic(size))
      return ctx.error() << "a -1 section needs a static dim " << *dim;
    sections[unknown] = size - known;
  }
  llvm::SmallVector<Value> parts;
  int64_t begin = 0;
  for (int64_t s : sections) {
    FailureOr<Value> part = ctx.onnx1(
        "Slice", {*x, ctx.i64Vector({begin}), ctx.i64Vector({begin + s}),
                  ctx.i64Vector({*dim})});
    if (failed(part))
      return failure();
    parts.push_back(*part);
    begin += s;
  }
  ctx.setOutList("Out", 0, parts);
  return success();
}

/// Drops the `decrease_axis` dims of a slice result.
FailureOr<Value> decreaseAxes(OpContext &ctx, Value v) {
  llvm::SmallVector<int64_t> decrease =
      ctx.getInts("decrease_axis").value_or(llvm::SmallVector<int64_t>{});
  if (decrease.empty())
    return v;
  RankedTensorType type = ctx.typeOf(v);
  llvm::SmallVector<bool> drop(type.getRank(), false);
  for (int64_t a : decrease) {
    auto n = normalizeAxis(ctx, a, type.getRank(), "decrease_axis");
    if (failed(n))
      return failure();
    drop[*n] = true;
  }
  llvm::SmallVector<int64_t> shape;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (!drop[i])
      shape.push_back(type.getDimSize(i));
  return reshapeTo(ctx, v, shape);
}

/// slice / strided_slice: legacy Input + attrs (or StartsTensor(List),
/// EndsTensor(List), StridesTensor(List)); PIR x, starts, ends[, strides].
LogicalResult convertSlice(OpContext &ctx) {
  auto x = ctx.required("Input", 0);
  if (failed(x))
    return failure();
  bool strided = llvm::StringRef(ctx.op.type).ends_with("strided_slice");
  auto starts = ctx.intsFromAttrOrOperand(
      "starts", {"StartsTensor", "StartsTensorList"}, 1u);
  auto ends =
      ctx.intsFromAttrOrOperand("ends", {"EndsTensor", "EndsTensorList"}, 2u);
  if (failed(starts) || failed(ends))
    return failure();
  auto axes = ctx.getInts("axes");
  if (!*starts || !*ends || !axes)
    return ctx.error() << "needs axes, starts and ends";
  llvm::SmallVector<int64_t> steps;
  if (strided) {
    auto given = ctx.intsFromAttrOrOperand(
        "strides", {"StridesTensor", "StridesTensorList"}, 3u);
    if (failed(given))
      return failure();
    if (*given)
      steps = **given;
  }
  if (steps.empty())
    steps.assign(axes->size(), 1);
  if ((*starts)->size() != axes->size() || (*ends)->size() != axes->size() ||
      steps.size() != axes->size())
    return ctx.error() << "has " << axes->size() << " axes but "
                       << (*starts)->size() << " starts, " << (*ends)->size()
                       << " ends and " << steps.size() << " strides";
  FailureOr<Value> y = ctx.onnx1(
      "Slice", {*x, ctx.i64Vector(**starts), ctx.i64Vector(**ends),
                ctx.i64Vector(*axes), ctx.i64Vector(steps)});
  if (failed(y))
    return failure();
  return ctx.setResult(0, decreaseAxes(ctx, *y));
}

/// gather: legacy X, Index (+Axis tensor) / axis attr; PIR x, index, axis.
LogicalResult convertGather(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  auto index = ctx.required("Index", 1);
  if (failed(x) || failed(index))
    return failure();
  int64_t axis = ctx.getInt("axis", 0);
  if (Value a = ctx.isPir() ? ctx.in("", 2) : ctx.in("Axis", 0)) {
    auto ints = ctx.constantInts(a, "the gather axis");
    if (failed(ints))
      return failure();
    axis = ints->front();
  }
  return ctx.setResult(0, ctx.onnx1("Gather", {*x, *index},
                                    [&](onnx::NodeProto &n) {
                                      setAttr(n, "axis", axis);
                                    }));
}

/// A constant of `shape` filled with `value` of `element`.
FailureOr<Value> filled(OpContext &ctx, llvm::ArrayRef<int64_t> shape,
                        Type element, double value) {
  for (int64_t d : shape)
    if (d < 0)
      return ctx.error() << "needs a static shape to fill, got a -1 dim";
  auto type = RankedTensorType::get(shape, element);
  Attribute attr;
  if (auto f = llvm::dyn_cast<FloatType>(element))
    attr = ctx.builder.getFloatAttr(f, value);
  else if (element.isInteger(1))
    attr = ctx.builder.getBoolAttr(value != 0);
  else
    attr = ctx.builder.getIntegerAttr(element, static_cast<int64_t>(value));
  return ctx.constant(DenseElementsAttr::get(type, llvm::ArrayRef(attr)));
}

/// fill_constant (legacy: shape/value/str_value/dtype, or ShapeTensor,
/// ShapeTensorList, ValueTensor) and PIR full (shape, value, dtype).
LogicalResult convertFull(OpContext &ctx) {
  auto element = ctx.getDType("dtype");
  if (failed(element))
    return failure();
  auto shape = ctx.intsFromAttrOrOperand(
      "shape", {"ShapeTensor", "ShapeTensorList"}, std::nullopt);
  if (failed(shape))
    return failure();
  double value = ctx.getFloat("value", 0.0);
  std::string text = ctx.getString("str_value", "");
  if (!text.empty() && llvm::StringRef(text).getAsDouble(value))
    return ctx.error() << "str_value '" << text << "' is not a number";
  if (Value v = ctx.isPir() ? nullptr : ctx.in("ValueTensor", 0)) {
    auto floats = ctx.constantFloats(v, "the fill value");
    if (failed(floats))
      return failure();
    value = floats->front();
  }
  return ctx.setResult(
      0, filled(ctx, shape->value_or(llvm::SmallVector<int64_t>{}), *element,
                value));
}

/// fill_any_like (legacy X, value, dtype) and PIR full_like (x, value
/// operand, dtype).
LogicalResult convertFullLike(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  RankedTensorType type = ctx.typeOf(*x);
  auto element = ctx.getDType("dtype", type.getElementType());
  auto value = ctx.floatFromAttrOrOperand("value", 0.0, "",
                                          std::optional<unsigned>(1));
  if (failed(element) || failed(value))
    return failure();
  if (type.hasStaticShape())
    return ctx.setResult(0, filled(ctx, type.getShape(), *element, *value));
  // A dynamic shape: broadcast the scalar to x's shape.
  Composer k{ctx};
  Value zero = k.check(ctx.cast(*x, *element));
  Value scalar = ctx.scalar(*element, *value);
  return k.finish(k.bin<AddOp>(k.bin<MulOp>(zero, ctx.scalar(*element, 0)),
                               scalar));
}

/// PIR full_int_array: a 1-D constant of `value`.
LogicalResult convertFullIntArray(OpContext &ctx) {
  auto element = ctx.getDType("dtype", ctx.builder.getI64Type());
  if (failed(element))
    return failure();
  llvm::SmallVector<int64_t> values =
      ctx.getInts("value").value_or(llvm::SmallVector<int64_t>{});
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    *element);
  if (llvm::isa<FloatType>(*element)) {
    llvm::SmallVector<double> floats(values.begin(), values.end());
    llvm::SmallVector<Attribute> attrs;
    for (double f : floats)
      attrs.push_back(ctx.builder.getFloatAttr(*element, f));
    ctx.setResult(0, ctx.constant(DenseElementsAttr::get(type, attrs)));
    return success();
  }
  llvm::SmallVector<Attribute> attrs;
  for (int64_t v : values)
    attrs.push_back(ctx.builder.getIntegerAttr(*element, v));
  ctx.setResult(0, ctx.constant(DenseElementsAttr::get(type, attrs)));
  return success();
}

/// PIR full_with_tensor(value, shape): value broadcast to shape.
LogicalResult convertFullWithTensor(OpContext &ctx) {
  auto value = ctx.required("", 0);
  auto shape = ctx.required("", 1);
  if (failed(value) || failed(shape))
    return failure();
  auto dims = ctx.constantInts(*shape, "the shape");
  auto floats = ctx.constantFloats(*value, "the fill value");
  auto element = ctx.getDType("dtype", ctx.typeOf(*value).getElementType());
  if (failed(dims) || failed(floats) || failed(element))
    return failure();
  return ctx.setResult(0, filled(ctx, *dims, *element, floats->front()));
}

/// assign_value (legacy, PIR assign_value_): a constant from attributes.
LogicalResult convertAssignValue(OpContext &ctx) {
  auto element = ctx.getDType("dtype");
  if (failed(element))
    return failure();
  llvm::SmallVector<int64_t> shape =
      ctx.getInts("shape").value_or(llvm::SmallVector<int64_t>{});
  std::optional<llvm::SmallVector<double>> values;
  for (llvm::StringRef name : {"values", "fp32_values", "int32_values",
                               "int64_values", "bool_values", "fp64_values"})
    if (auto v = ctx.getFloats(name); v && !v->empty()) {
      values = v;
      break;
    }
  if (!values)
    values = llvm::SmallVector<double>{};
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  if (static_cast<int64_t>(values->size()) != count)
    return ctx.error() << "holds " << values->size()
                       << " values for a shape of " << count << " elements";
  auto type = RankedTensorType::get(shape, *element);
  llvm::SmallVector<Attribute> attrs;
  for (double v : *values) {
    if (auto f = llvm::dyn_cast<FloatType>(*element))
      attrs.push_back(ctx.builder.getFloatAttr(f, v));
    else if (element->isInteger(1))
      attrs.push_back(ctx.builder.getBoolAttr(v != 0));
    else
      attrs.push_back(
          ctx.builder.getIntegerAttr(*element, static_cast<int64_t>(v)));
  }
  ctx.setResult(0, ctx.constant(DenseElementsAttr::get(type, attrs)));
  return success();
}

/// shape (legacy Input -> int32), PIR shape (int32) and shape64 (int64).
LogicalResult convertShape(OpContext &ctx) {
  auto x = ctx.required("Input", 0);
  if (failed(x))
    return failure();
  FailureOr<Value> shape = ctx.onnx1("Shape", {*x});
  if (failed(shape))
    return failure();
  Type element = ctx.op.type == "pd_op.shape64" ? ctx.builder.getI64Type()
                                                : ctx.builder.getI32Type();
  return ctx.setResult(0, ctx.cast(*shape, element));
}

/// range (legacy Start, End, Step) and PIR arange(start, end, step){dtype}.
LogicalResult convertArange(OpContext &ctx) {
  auto start = ctx.required("Start", 0);
  auto end = ctx.required("End", 1);
  auto step = ctx.required("Step", 2);
  if (failed(start) || failed(end) || failed(step))
    return failure();
  Type element = ctx.typeOf(*start).getElementType();
  auto wanted = ctx.getDType("dtype", element);
  if (failed(wanted))
    return failure();
  llvm::SmallVector<Value> scalars;
  for (Value v : {*start, *end, *step}) {
    auto r = ctx.reshape(v, {});
    if (failed(r))
      return failure();
    auto c = ctx.cast(*r, *wanted);
    if (failed(c))
      return failure();
    scalars.push_back(*c);
  }
  return ctx.setResult(0, ctx.onnx1("Range", scalars));
}

/// stack (legacy X list -> Y; PIR combine list): unsqueeze + concat.
LogicalResult convertStack(OpContext &ctx) {
  llvm::SmallVector<Value> inputs = ctx.inList("X", 0);
  if (inputs.empty() || llvm::is_contained(inputs, Value()))
    return ctx.error() << "has no inputs to stack";
  int64_t rank = ctx.typeOf(inputs.front()).getRank();
  auto axis = normalizeAxis(ctx, ctx.getInt("axis", 0), rank + 1);
  if (failed(axis))
    return failure();
  llvm::SmallVector<Value> expanded;
  for (Value v : inputs) {
    llvm::SmallVector<int64_t> shape(ctx.typeOf(v).getShape());
    shape.insert(shape.begin() + *axis, 1);
    auto r = reshapeTo(ctx, v, shape);
    if (failed(r))
      return failure();
    expanded.push_back(*r);
  }
  FailureOr<Value> y = ctx.onnx1("Concat", expanded, [&](onnx::NodeProto &n) {
    setAttr(n, "axis", *axis);
  });
  if (failed(y))
    return failure();
  ctx.setOut(ctx.isPir() ? "" : "Y", 0, *y);
  return success();
}

/// assign / share_data / PIR assign: the identity.
LogicalResult convertIdentity(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  ctx.setResult(0, *x);
  return success();
}

/// builtin.combine: its operands become one value list.
LogicalResult convertCombine(OpContext &ctx) {
  llvm::SmallVector<Value> values;
  for (unsigned i = 0; i < ctx.op.inputs.size(); ++i) {
    Value v = ctx.in("", i);
    if (!v)
      return ctx.error() << "operand #" << i << " is missing";
    values.push_back(v);
  }
  ctx.setOutList("", 0, values);
  return success();
}

/// builtin.split: a value list's entries become results 0, 1, ...
LogicalResult convertListSplit(OpContext &ctx) {
  llvm::SmallVector<Value> values = ctx.inList("", 0);
  if (values.size() < ctx.op.outputs.size())
    return ctx.error() << "splits a list of " << values.size()
                       << " values into " << ctx.op.outputs.size()
                       << " results";
  for (unsigned i = 0; i < ctx.op.outputs.size(); ++i)
    ctx.setOut("", i, values[i]);
  return success();
}

/// expand_v2 (legacy X, shape) and PIR expand (x, shape): broadcast with
/// -1 keeping the input's dim (ONNX Expand after resolving the -1s).
LogicalResult convertExpand(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  auto shape = ctx.intsFromAttrOrOperand("shape", {"Shape", "expand_shapes_tensor"}, 1u);
  if (failed(shape))
    return failure();
  if (!*shape)
    return ctx.error() << "has no target shape";
  llvm::SmallVector<int64_t> target = **shape;
  RankedTensorType type = ctx.typeOf(*x);
  int64_t offset = static_cast<int64_t>(target.size()) - type.getRank();
  for (int64_t i = 0; i < static_cast<int64_t>(target.size()); ++i)
    if (target[i] == -1)
      target[i] = i >= offset ? type.getDimSize(i - offset) : 1;
  if (llvm::any_of(target, [](int64_t d) { return d < 0; }))
    return ctx.error() << "expands to a dynamic dim";
  return ctx.setResult(0, ctx.onnx1("Expand", {*x, ctx.i64Vector(target)}));
}

const ConverterInfo kConverters[] = {
    {"reshape2", convertReshape},
    {"reshape", convertReshape},
    {"pd_op.reshape", convertReshape},
    {"pd_op.reshape_", convertReshape},
    {"transpose2", convertTranspose},
    {"transpose", convertTranspose},
    {"pd_op.transpose", convertTranspose},
    {"flatten_contiguous_range", convertFlattenRange},
    {"pd_op.flatten", convertFlattenRange},
    {"flatten", convertFlatten2d},
    {"flatten2", convertFlatten2d},
    {"squeeze2", convertSqueeze},
    {"squeeze", convertSqueeze},
    {"pd_op.squeeze", convertSqueeze},
    {"pd_op.squeeze_", convertSqueeze},
    {"unsqueeze2", convertUnsqueeze},
    {"unsqueeze", convertUnsqueeze},
    {"pd_op.unsqueeze", convertUnsqueeze},
    {"pd_op.unsqueeze_", convertUnsqueeze},
    {"concat", convertConcat},
    {"pd_op.concat", convertConcat},
    {"split", convertSplit},
    {"pd_op.split", convertSplit},
    {"pd_op.split_with_num", convertSplit},
    {"slice", convertSlice},
    {"pd_op.slice", convertSlice},
    {"strided_slice", convertSlice},
    {"pd_op.strided_slice", convertSlice},
    {"gather", convertGather},
    {"pd_op.gather", convertGather},
    {"fill_constant", convertFull},
    {"pd_op.full", convertFull},
    {"fill_any_like", convertFullLike},
    {"pd_op.full_like", convertFullLike},
    {"pd_op.full_int_array", convertFullIntArray},
    {"pd_op.full_with_tensor", convertFullWithTensor},
    {"assign_value", convertAssignValue},
    {"pd_op.assign_value", convertAssignValue},
    {"pd_op.assign_value_", convertAssignValue},
    {"shape", convertShape},
    {"pd_op.shape", convertShape},
    {"pd_op.shape64", convertShape},
    {"range", convertArange},
    {"pd_op.arange", convertArange},
    {"stack", convertStack},
    {"pd_op.stack", convertStack},
    {"assign", convertIdentity},
    {"pd_op.assign", convertIdentity},
    {"share_data", convertIdentity},
    {"pd_op.share_data_", convertIdentity},
    {"expand_v2", convertExpand},
    {"pd_op.expand", convertExpand},
    {"builtin.combine", convertCombine},
    {"builtin.split", convertListSplit},
};

} // namespace

llvm::ArrayRef<ConverterInfo> getShapeConverters() { return kConverters; }

} // namespace mlir::kiln::paddle_import
