//===- ReductionConverters.cpp - ONNX Reduce* ops -------------------------===//
//
// ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare -> kiln.reduce.
// Axes are an attribute before opset 13 for ReduceSum and before opset 18
// for the others, an optional (constant) input after. With no axes every
// dimension is reduced, unless `noop_with_empty_axes` asks for the identity.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ConverterRegistry.h"

using namespace mlir;

namespace mlir::kiln::onnx_import {
namespace {

template <ReduceKind kind, int64_t firstOpsetWithAxesInput>
LogicalResult convertReduce(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  auto axes = ctx.intsFromAttrOrInput("axes", 1, firstOpsetWithAxesInput);
  if (failed(axes))
    return failure();
  llvm::SmallVector<int64_t> axisList = axes->value_or(llvm::SmallVector<int64_t>());
  if (axisList.empty() && ctx.getInt("noop_with_empty_axes", 0) != 0) {
    ctx.setResult(0, ctx.input(0));
    return success();
  }
  bool keepDims = ctx.getInt("keepdims", 1) != 0;
  Value input = ctx.input(0);
  if (!ctx.inputType(0).getElementType().isInteger(1))
    return ctx.setResult(0, ctx.reduce(kind, input, axisList, keepDims));
  // Bool ReduceMax/ReduceMin (opset 20) are any/all. kiln.reduce works on
  // numbers, so the bools go through i8 and back; no other reduction takes
  // bools in ONNX.
  if (kind != ReduceKind::max && kind != ReduceKind::min)
    return ctx.error() << "bool input is only defined for ReduceMax and "
                          "ReduceMin";
  auto castTo = [&](Value value, Type elementType) {
    return ctx.create<CastOp>(value,
                              {ctx.named("to", TypeAttr::get(elementType))});
  };
  FailureOr<Value> numbers = castTo(input, ctx.builder.getI8Type());
  if (failed(numbers))
    return failure();
  FailureOr<Value> reduced = ctx.reduce(kind, *numbers, axisList, keepDims);
  if (failed(reduced))
    return failure();
  return ctx.setResult(0, castTo(*reduced, ctx.builder.getI1Type()));
}

const ConverterInfo kConverters[] = {
    {"ReduceSum", convertReduce<ReduceKind::sum, 13>},
    {"ReduceMean", convertReduce<ReduceKind::mean, 18>},
    {"ReduceMax", convertReduce<ReduceKind::max, 18>},
    {"ReduceMin", convertReduce<ReduceKind::min, 18>},
    {"ReduceProd", convertReduce<ReduceKind::prod, 18>},
    {"ReduceL1", convertReduce<ReduceKind::l1, 18>},
    {"ReduceL2", convertReduce<ReduceKind::l2, 18>},
    {"ReduceLogSum", convertReduce<ReduceKind::log_sum, 18>},
    {"ReduceLogSumExp", convertReduce<ReduceKind::log_sum_exp, 18>},
    {"ReduceSumSquare", convertReduce<ReduceKind::sum_square, 18>},
};

} // namespace

llvm::ArrayRef<ConverterInfo> getReductionConverters() { return kConverters; }

} // namespace mlir::kiln::onnx_import
