//===- ConvPoolConverters.cpp - conv2d, conv2d_transpose, pool2d ----------===//
//
// Paddle's window attributes resolved onto the ONNX frontend's Conv,
// ConvTranspose and pooling converters:
//   * `paddings` is [pad_h, pad_w] (both sides) or [top, bottom, left,
//     right]; ONNX/Kiln pads are [top, left, bottom, right];
//   * `padding_algorithm` SAME is ONNX's SAME_UPPER (Paddle puts the odd
//     pad at the end), VALID is no padding;
//   * `data_format` NHWC is handled by transposing to NCHW and back;
//   * pool2d `exclusive` is ONNX's count_include_pad = 0; `adaptive`
//     pooling becomes a fixed window when the output divides the input
//     (global pooling for output 1x1).
//
//===----------------------------------------------------------------------===//

#include "compiler/paddle/PaddleConverters.h"

using namespace mlir;

namespace mlir::kiln::paddle_import {
namespace {

/// ONNX pads [top, left, bottom, right] from Paddle's `paddings`.
FailureOr<llvm::SmallVector<int64_t>> onnxPads(OpContext &ctx) {
  llvm::SmallVector<int64_t> p =
      ctx.getInts("paddings").value_or(llvm::SmallVector<int64_t>{0, 0});
  if (p.size() == 2)
    return llvm::SmallVector<int64_t>{p[0], p[1], p[0], p[1]};
  if (p.size() == 4)
    return llvm::SmallVector<int64_t>{p[0], p[2], p[1], p[3]};
  return ctx.error() << "paddings has " << p.size()
                     << " entries; expected 2 or 4";
}

/// Sets auto_pad or pads on `node` from paddings / padding_algorithm.
LogicalResult setPadding(OpContext &ctx, onnx::NodeProto &node) {
  std::string algorithm = ctx.getString("padding_algorithm", "EXPLICIT");
  if (algorithm == "SAME") {
    setAttr(node, "auto_pad", llvm::StringRef("SAME_UPPER"));
    return success();
  }
  if (algorithm == "VALID") {
    setAttr(node, "pads", llvm::ArrayRef<int64_t>{0, 0, 0, 0});
    return success();
  }
  auto pads = onnxPads(ctx);
  if (failed(pads))
    return failure();
  setAttr(node, "pads", llvm::ArrayRef<int64_t>(*pads));
  return success();
}

bool isNhwc(OpContext &ctx) {
  std::string format = ctx.getString(
      "data_format", ctx.getString("data_layout", "NCHW"));
  return format == "NHWC";
}

/// Runs `body` on the input in NCHW, transposing around it for NHWC.
LogicalResult inNchw(OpContext &ctx, Value x,
                     const std::function<FailureOr<Value>(Value)> &body) {
  bool nhwc = isNhwc(ctx);
  if (nhwc) {
    auto t = ctx.transpose(x, {0, 3, 1, 2});
    if (failed(t))
      return failure();
    x = *t;
  }
  FailureOr<Value> y = body(x);
  if (failed(y))
    return failure();
  if (nhwc) {
    y = ctx.transpose(*y, {0, 2, 3, 1});
    if (failed(y))
      return failure();
  }
  ctx.setResult(0, *y);
  return success();
}

/// conv2d / depthwise_conv2d (legacy Input, Filter[, Bias]; PIR x, filter).
LogicalResult convertConv2d(OpContext &ctx) {
  auto x = ctx.required("Input", 0);
  auto w = ctx.required("Filter", 1);
  if (failed(x) || failed(w))
    return failure();
  Value bias = ctx.isPir() ? nullptr : ctx.in("Bias", 0);
  onnx::NodeProto attrs;
  if (failed(setPadding(ctx, attrs)))
    return failure();
  return inNchw(ctx, *x, [&](Value in) {
    return ctx.onnx1("Conv", {in, *w, bias}, [&](onnx::NodeProto &node) {
      node.mutable_attribute()->MergeFrom(attrs.attribute());
      setAttr(node, "strides",
              llvm::ArrayRef<int64_t>(
                  ctx.getInts("strides").value_or(
                      llvm::SmallVector<int64_t>{1, 1})));
      setAttr(node, "dilations",
              llvm::ArrayRef<int64_t>(
                  ctx.getInts("dilations").value_or(
                      llvm::SmallVector<int64_t>{1, 1})));
      setAttr(node, "group", ctx.getInt("groups", 1));
    });
  });
}

/// conv2d_transpose (legacy Input, Filter; PIR x, filter, output_size).
LogicalResult convertConv2dTranspose(OpContext &ctx) {
  auto x = ctx.required("Input", 0);
  auto w = ctx.required("Filter", 1);
  if (failed(x) || failed(w))
    return failure();
  if (ctx.getString("padding_algorithm", "EXPLICIT") != "EXPLICIT")
    return ctx.error() << "padding_algorithm '"
                       << ctx.getString("padding_algorithm", "")
                       << "' is not supported for conv2d_transpose (only "
                          "explicit paddings)";
  auto pads = onnxPads(ctx);
  auto outputSize = ctx.intsFromAttrOrOperand("output_size", {"OutputSize"},
                                              std::optional<unsigned>(2));
  if (failed(pads) || failed(outputSize))
    return failure();
  return inNchw(ctx, *x, [&](Value in) {
    return ctx.onnx1("ConvTranspose", {in, *w}, [&](onnx::NodeProto &node) {
      setAttr(node, "pads", llvm::ArrayRef<int64_t>(*pads));
      setAttr(node, "strides",
              llvm::ArrayRef<int64_t>(ctx.getInts("strides").value_or(
                  llvm::SmallVector<int64_t>{1, 1})));
      setAttr(node, "dilations",
              llvm::ArrayRef<int64_t>(ctx.getInts("dilations").value_or(
                  llvm::SmallVector<int64_t>{1, 1})));
      setAttr(node, "group", ctx.getInt("groups", 1));
      llvm::SmallVector<int64_t> outputPadding =
          ctx.getInts("output_padding").value_or(llvm::SmallVector<int64_t>{});
      if (!outputPadding.empty())
        setAttr(node, "output_padding", llvm::ArrayRef<int64_t>(outputPadding));
      if (*outputSize && !(*outputSize)->empty())
        setAttr(node, "output_shape", llvm::ArrayRef<int64_t>(**outputSize));
    });
  });
}

/// pool2d (legacy X + ksize; PIR x, kernel_size) and max_pool2d_with_index
/// (its Mask output is not supported).
LogicalResult convertPool(OpContext &ctx, bool isMax, Value x,
                          llvm::SmallVector<int64_t> kernel) {
  bool global = ctx.getBool("global_pooling", false);
  bool adaptive = ctx.getBool("adaptive", false);
  bool ceil = ctx.getBool("ceil_mode", false);
  bool exclusive = ctx.getBool("exclusive", true);
  return inNchw(ctx, x, [&](Value in) -> FailureOr<Value> {
    RankedTensorType type = ctx.typeOf(in);
    if (type.getRank() != 4)
      return ctx.error() << "expects a 4-D input, got " << type;
    if (kernel.size() != 2)
      return ctx.error() << "expects a 2-D kernel, got " << kernel.size()
                         << " entries";
    if (adaptive && !global) {
      // Adaptive pooling to [oh, ow]: output cell i covers input rows
      // [floor(i*H/oh), ceil((i+1)*H/oh)), a fixed window when oh | H.
      if (kernel[0] == 1 && kernel[1] == 1) {
        global = true;
      } else {
        int64_t h = type.getDimSize(2), w = type.getDimSize(3);
        if (ShapedType::isDynamic(h) || ShapedType::isDynamic(w))
          return ctx.error() << "adaptive pooling needs static spatial dims "
                                "(give them with --input-shape)";
        if (h % kernel[0] || w % kernel[1])
          return ctx.error()
                 << "adaptive pooling to " << kernel[0] << "x" << kernel[1]
                 << " of a " << h << "x" << w
                 << " input is not supported (only output sizes that divide "
                    "the input)";
        llvm::SmallVector<int64_t> window{h / kernel[0], w / kernel[1]};
        return ctx.onnx1(isMax ? "MaxPool" : "AveragePool", {in},
                         [&](onnx::NodeProto &node) {
                           setAttr(node, "kernel_shape",
                                   llvm::ArrayRef<int64_t>(window));
                           setAttr(node, "strides",
                                   llvm::ArrayRef<int64_t>(window));
                         });
      }
    }
    if (global)
      return ctx.onnx1(isMax ? "GlobalMaxPool" : "GlobalAveragePool", {in});
    onnx::NodeProto padAttrs;
    if (failed(setPadding(ctx, padAttrs)))
      return failure();
    return ctx.onnx1(
        isMax ? "MaxPool" : "AveragePool", {in}, [&](onnx::NodeProto &node) {
          node.mutable_attribute()->MergeFrom(padAttrs.attribute());
          setAttr(node, "kernel_shape", llvm::ArrayRef<int64_t>(kernel));
          setAttr(node, "strides",
                  llvm::ArrayRef<int64_t>(ctx.getInts("strides").value_or(
                      llvm::SmallVector<int64_t>{1, 1})));
          if (ceil)
            setAttr(node, "ceil_mode", int64_t(1));
          if (!isMax)
            setAttr(node, "count_include_pad", int64_t(exclusive ? 0 : 1));
        });
  });
}

LogicalResult convertPool2d(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  auto kernel =
      ctx.intsFromAttrOrOperand("ksize", {}, std::optional<unsigned>(1));
  if (failed(kernel))
    return failure();
  if (!*kernel)
    return ctx.error() << "has no kernel size (ksize)";
  std::string kind = ctx.getString("pooling_type", "max");
  if (kind != "max" && kind != "avg")
    return ctx.error() << "pooling_type '" << kind << "' is not supported";
  return convertPool(ctx, kind == "max", *x, **kernel);
}

LogicalResult convertMaxPoolWithIndex(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  auto kernel = ctx.getInts("ksize");
  if (!kernel)
    kernel = ctx.getInts("kernel_size");
  if (!kernel)
    return ctx.error() << "has no kernel size";
  return convertPool(ctx, /*isMax=*/true, *x, *kernel);
}

const ConverterInfo kConverters[] = {
    {"conv2d", convertConv2d},
    {"depthwise_conv2d", convertConv2d},
    {"pd_op.conv2d", convertConv2d},
    {"pd_op.depthwise_conv2d", convertConv2d},
    {"conv2d_transpose", convertConv2dTranspose},
    {"depthwise_conv2d_transpose", convertConv2dTranspose},
    {"pd_op.conv2d_transpose", convertConv2dTranspose},
    {"pd_op.depthwise_conv2d_transpose", convertConv2dTranspose},
    {"pool2d", convertPool2d},
    {"pd_op.pool2d", convertPool2d},
    {"max_pool2d_with_index", convertMaxPoolWithIndex},
    {"pd_op.max_pool2d_with_index", convertMaxPoolWithIndex},
};

} // namespace

llvm::ArrayRef<ConverterInfo> getConvPoolConverters() { return kConverters; }

} // namespace mlir::kiln::paddle_import
