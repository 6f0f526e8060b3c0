//===- ContractionConverters.cpp - MatMul, Gemm, Conv and pooling ---------===//
//
// ONNX window conventions are resolved here into Kiln's single form:
// `auto_pad` (SAME_UPPER, SAME_LOWER, VALID) becomes explicit `pads`
// [begin..., end...], computed from the static spatial input sizes.
// LpPool is composed of an average pool and elementwise ops.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/Composer.h"
#include "compiler/onnx/ConverterRegistry.h"

using namespace mlir;

namespace mlir::kiln::onnx_import {
namespace {

LogicalResult convertMatMul(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  return ctx.setResult(0, ctx.create<MatmulOp>({ctx.input(0), ctx.input(1)}));
}

/// Y = alpha * A' * B' + beta * C, with A' and B' optionally transposed.
LogicalResult convertGemm(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  Value a = ctx.input(0), b = ctx.input(1);
  if (ctx.getInt("transA", 0)) {
    FailureOr<Value> t = ctx.transpose(a, {1, 0});
    if (failed(t))
      return failure();
    a = *t;
  }
  if (ctx.getInt("transB", 0)) {
    FailureOr<Value> t = ctx.transpose(b, {1, 0});
    if (failed(t))
      return failure();
    b = *t;
  }
  FailureOr<Value> y = ctx.create<MatmulOp>({a, b});
  if (failed(y))
    return failure();
  double alpha = ctx.getFloat("alpha", 1.0f), beta = ctx.getFloat("beta", 1.0f);
  if (alpha != 1.0) {
    y = ctx.create<MulOp>({*y, ctx.scalarLike(*y, alpha)});
    if (failed(y))
      return failure();
  }
  if (ctx.hasInput(2) && beta != 0.0) {
    Value c = ctx.input(2);
    if (beta != 1.0) {
      FailureOr<Value> scaled = ctx.create<MulOp>({c, ctx.scalarLike(c, beta)});
      if (failed(scaled))
        return failure();
      c = *scaled;
    }
    y = ctx.create<AddOp>({*y, c});
    if (failed(y))
      return failure();
  }
  ctx.setResult(0, *y);
  return success();
}

/// The explicit pads of a window op: from `pads`, or computed from
/// `auto_pad` as ONNX defines it (total = max(0, (ceil(in / stride) - 1) *
/// stride + (k - 1) * dilation + 1 - in); SAME_UPPER puts the odd element
/// at the end, SAME_LOWER at the beginning).
FailureOr<llvm::SmallVector<int64_t>>
resolvePads(NodeContext &ctx, RankedTensorType inputType,
            llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> strides,
            llvm::ArrayRef<int64_t> dilations) {
  size_t n = kernel.size();
  std::string autoPad = ctx.getString("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    llvm::SmallVector<int64_t> pads =
        ctx.getInts("pads").value_or(llvm::SmallVector<int64_t>(2 * n, 0));
    if (pads.size() != 2 * n)
      return ctx.error() << "pads has " << pads.size() << " entries, expected "
                         << 2 * n;
    return pads;
  }
  if (autoPad == "VALID")
    return llvm::SmallVector<int64_t>(2 * n, 0);
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return ctx.error() << "unknown auto_pad '" << autoPad << "'";
  llvm::SmallVector<int64_t> pads(2 * n, 0);
  for (size_t i = 0; i < n; ++i) {
    int64_t in = inputType.getDimSize(2 + i);
    if (ShapedType::isDynamic(in))
      return ctx.error() << "auto_pad " << autoPad
                         << " needs a static spatial dim " << 2 + i
                         << "; fix the input shape with --input-shape";
    int64_t out = (in + strides[i] - 1) / strides[i];
    int64_t total = std::max<int64_t>(
        0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - in);
    int64_t small = total / 2, large = total - small;
    pads[i] = autoPad == "SAME_UPPER" ? small : large;
    pads[n + i] = autoPad == "SAME_UPPER" ? large : small;
  }
  return pads;
}

/// Strides and dilations with their defaults (1 per spatial dim).
llvm::SmallVector<int64_t> intsOrOnes(NodeContext &ctx, llvm::StringRef name,
                                      size_t n) {
  return ctx.getInts(name).value_or(llvm::SmallVector<int64_t>(n, 1));
}

LogicalResult convertConv(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  RankedTensorType inputType = ctx.inputType(0);
  FailureOr<llvm::SmallVector<int64_t>> kernelOrError =
      convKernelShape(ctx, "[M, C/g, K...]");
  if (failed(kernelOrError))
    return failure();
  llvm::SmallVector<int64_t> kernel = std::move(*kernelOrError);
  size_t n = kernel.size();
  llvm::SmallVector<int64_t> strides = intsOrOnes(ctx, "strides", n);
  llvm::SmallVector<int64_t> dilations = intsOrOnes(ctx, "dilations", n);
  if (strides.size() != n || dilations.size() != n)
    return ctx.error() << "strides and dilations need " << n << " entries";
  auto pads = resolvePads(ctx, inputType, kernel, strides, dilations);
  if (failed(pads))
    return failure();
  llvm::SmallVector<Value> operands{ctx.input(0), ctx.input(1)};
  if (ctx.hasInput(2))
    operands.push_back(ctx.input(2));
  return ctx.setResult(0, ctx.create<ConvOp>(
      operands, {ctx.namedInts("strides", strides),
                 ctx.namedInts("dilations", dilations),
                 ctx.namedInts("pads", *pads),
                 ctx.namedInt("groups", ctx.getInt("group", 1))}));
}

/// The Kiln window attributes of a pooling node (kernel_shape, strides,
/// dilations, pads, ceil_mode), with ONNX defaults and auto_pad resolved.
FailureOr<llvm::SmallVector<NamedAttribute>> poolWindow(NodeContext &ctx) {
  RankedTensorType inputType = ctx.inputType(0);
  auto kernel = ctx.getInts("kernel_shape");
  if (!kernel || inputType.getRank() < 3 ||
      kernel->size() != size_t(inputType.getRank() - 2))
    return ctx.error() << "needs kernel_shape with one entry per spatial dim "
                          "of input "
                       << inputType;
  size_t n = kernel->size();
  llvm::SmallVector<int64_t> strides = intsOrOnes(ctx, "strides", n);
  llvm::SmallVector<int64_t> dilations = intsOrOnes(ctx, "dilations", n);
  if (strides.size() != n || dilations.size() != n)
    return ctx.error() << "strides and dilations need " << n << " entries";
  auto pads = resolvePads(ctx, inputType, *kernel, strides, dilations);
  if (failed(pads))
    return failure();
  return llvm::SmallVector<NamedAttribute>{
      ctx.namedInts("kernel_shape", *kernel), ctx.namedInts("strides", strides),
      ctx.namedInts("dilations", dilations), ctx.namedInts("pads", *pads),
      ctx.named("ceil_mode",
                ctx.builder.getBoolAttr(ctx.getInt("ceil_mode", 0)))};
}

template <typename PoolOp>
LogicalResult convertPool(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)) || failed(ctx.requireUnusedOutputsFrom(1)))
    return failure();
  if (ctx.getInt("storage_order", 0) != 0)
    return ctx.error() << "storage_order = 1 is not supported";
  FailureOr<llvm::SmallVector<NamedAttribute>> attrs = poolWindow(ctx);
  if (failed(attrs))
    return failure();
  if (std::is_same_v<PoolOp, AvgPoolOp>)
    attrs->push_back(ctx.named(
        "count_include_pad",
        ctx.builder.getBoolAttr(ctx.getInt("count_include_pad", 0))));
  Type element = ctx.inputType(0).getElementType();
  if (!std::is_same_v<PoolOp, MaxPoolOp> || !element.isInteger(8))
    return ctx.setResult(0, ctx.create<PoolOp>(ctx.input(0), *attrs));
  // int8 and (biased) uint8 MaxPool (opset 12): the max of integers in
  // [-128, 127] taken in f32 is exact, padding never wins (-inf), and the
  // cast back is exact; subtracting 128 keeps the order, so the biased
  // maximum is the biased u8 maximum.
  Composer k{ctx};
  Value x = k.cast(ctx.input(0), Float32Type::get(ctx.getContext()));
  Value y = k.op<PoolOp>({x}, *attrs);
  return k.finish(k.cast(y, element));
}

/// LpPool: (sum over the window of |x|^p)^(1/p). Kiln has no sum pooling,
/// so the sum is an average that counts the zero padding, times the kernel
/// size. p = 1 and p = 2 avoid the general pow.
LogicalResult convertLpPool(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  FailureOr<llvm::SmallVector<NamedAttribute>> attrs = poolWindow(ctx);
  if (failed(attrs))
    return failure();
  attrs->push_back(
      ctx.named("count_include_pad", ctx.builder.getBoolAttr(true)));
  int64_t p = ctx.getInt("p", 2);
  if (p <= 0)
    return ctx.error() << "p must be positive, got " << p;
  int64_t windowSize = 1;
  llvm::SmallVector<int64_t> kernel = *ctx.getInts("kernel_shape");
  for (int64_t size : kernel)
    windowSize *= size;
  Composer k{ctx};
  Value x = ctx.input(0);
  Value powered = p == 1   ? k.un<AbsOp>(x)
                  : p == 2 ? k.bin<MulOp>(x, x)
                           : k.bin<PowOp>(k.un<AbsOp>(x), k.c(x, p));
  Value sum = k.bin<MulOp>(k.op<AvgPoolOp>({powered}, *attrs),
                           k.c(x, windowSize));
  Value y = p == 1   ? sum
            : p == 2 ? k.un<SqrtOp>(sum)
                     : k.bin<PowOp>(sum, k.c(x, 1.0 / p));
  return k.finish(y);
}

/// GlobalAveragePool / GlobalMaxPool: a reduction over every spatial dim.
template <ReduceKind kind>
LogicalResult convertGlobalPool(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  int64_t rank = ctx.inputType(0).getRank();
  if (rank < 3)
    return ctx.error() << "expects an input [N, C, D...], got "
                       << ctx.inputType(0);
  llvm::SmallVector<int64_t> axes;
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  return ctx.setResult(0, ctx.reduce(kind, ctx.input(0), axes, true));
}

const ConverterInfo kConverters[] = {
    {"MatMul", convertMatMul},
    {"Gemm", convertGemm},
    {"Conv", convertConv},
    {"MaxPool", convertPool<MaxPoolOp>},
    {"AveragePool", convertPool<AvgPoolOp>},
    {"LpPool", convertLpPool},
    {"GlobalAveragePool", convertGlobalPool<ReduceKind::mean>},
    {"GlobalMaxPool", convertGlobalPool<ReduceKind::max>},
};

} // namespace

llvm::ArrayRef<ConverterInfo> getContractionConverters() { return kConverters; }

} // namespace mlir::kiln::onnx_import
