//===- ResamplingConverters.cpp - ConvTranspose, Resize, Upsample ---------===//
//
// ConvTranspose: ONNX's `output_shape` and `auto_pad` are resolved into the
// explicit pads of kiln.conv_transpose (the ONNX spec's formulas; for odd
// total padding SAME_UPPER puts the extra element at the end).
// Resize (opsets 10..) and Upsample (7..9): the scales or sizes must be
// constants; they become kiln.resize's output sizes, and the scales a model
// states are kept since coordinate mapping uses them. Only what Kiln
// represents is accepted: antialias, tf_crop_and_resize and
// tf_half_pixel_for_nn are reported as unsupported.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ConverterRegistry.h"

#include <cmath>

using namespace mlir;

namespace mlir::kiln::onnx_import {
namespace {

//===----------------------------------------------------------------------===//
// ConvTranspose
//===----------------------------------------------------------------------===//

LogicalResult convertConvTranspose(NodeContext &ctx) {
  if (failed(ctx.requireInputs(2)))
    return failure();
  RankedTensorType inputType = ctx.inputType(0);
  FailureOr<llvm::SmallVector<int64_t>> kernelOrError =
      convKernelShape(ctx, "[C, M/g, K...]");
  if (failed(kernelOrError))
    return failure();
  llvm::SmallVector<int64_t> kernel = std::move(*kernelOrError);
  size_t n = kernel.size();
  auto intsOr = [&](llvm::StringRef name, int64_t fill) {
    return ctx.getInts(name).value_or(llvm::SmallVector<int64_t>(n, fill));
  };
  llvm::SmallVector<int64_t> strides = intsOr("strides", 1);
  llvm::SmallVector<int64_t> dilations = intsOr("dilations", 1);
  llvm::SmallVector<int64_t> outputPadding = intsOr("output_padding", 0);
  if (strides.size() != n || dilations.size() != n || outputPadding.size() != n)
    return ctx.error() << "strides, dilations and output_padding need " << n
                       << " entries";

  std::string autoPad = ctx.getString("auto_pad", "NOTSET");
  std::optional<llvm::SmallVector<int64_t>> outputShape =
      ctx.getInts("output_shape");
  // onnxruntime also accepts output_shape with the batch and channel dims.
  if (outputShape && outputShape->size() == n + 2)
    outputShape->erase(outputShape->begin(), outputShape->begin() + 2);
  if (outputShape && outputShape->size() != n)
    return ctx.error() << "output_shape has " << outputShape->size()
                       << " entries, expected " << n;
  llvm::SmallVector<int64_t> pads(2 * n, 0);
  if (outputShape || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < n; ++i) {
      int64_t in = inputType.getDimSize(2 + i);
      if (ShapedType::isDynamic(in))
        return ctx.error() << "output_shape / auto_pad need a static spatial "
                              "dim "
                           << 2 + i << " of input " << inputType;
      int64_t out = outputShape ? (*outputShape)[i] : in * strides[i];
      int64_t total = strides[i] * (in - 1) + outputPadding[i] +
                      (kernel[i] - 1) * dilations[i] + 1 - out;
      if (total < 0) {
        // An output larger than the natural one gets its extra positions at
        // the end, where no input contributes: that is output_padding (as
        // onnxruntime computes it), as far as kiln.conv_transpose allows it.
        outputPadding[i] -= total;
        if (outputPadding[i] >= std::max(strides[i], dilations[i]))
          return ctx.error() << "output_shape entry " << i << " (" << out
                             << ") exceeds the natural output by "
                             << outputPadding[i]
                             << ", more than the stride or dilation allows";
        continue;
      }
      bool extraAtEnd = autoPad == "SAME_UPPER";
      pads[i] = extraAtEnd ? total / 2 : total - total / 2;
      pads[n + i] = total - pads[i];
    }
  } else if (autoPad == "NOTSET") {
    if (auto given = ctx.getInts("pads"))
      pads = *given;
    if (pads.size() != 2 * n)
      return ctx.error() << "pads has " << pads.size() << " entries, expected "
                         << 2 * n;
  } else if (autoPad != "VALID") {
    return ctx.error() << "unknown auto_pad '" << autoPad << "'";
  }
  llvm::SmallVector<Value> operands{ctx.input(0), ctx.input(1)};
  if (ctx.hasInput(2))
    operands.push_back(ctx.input(2));
  return ctx.setResult(
      0, ctx.create<ConvTransposeOp>(
             operands, {ctx.namedInts("strides", strides),
                        ctx.namedInts("dilations", dilations),
                        ctx.namedInts("pads", pads),
                        ctx.namedInts("output_padding", outputPadding),
                        ctx.namedInt("groups", ctx.getInt("group", 1))}));
}

//===----------------------------------------------------------------------===//
// Resize and Upsample
//===----------------------------------------------------------------------===//

/// Builds kiln.resize from per-dimension scales (when the model gives them)
/// or output sizes.
LogicalResult buildResize(NodeContext &ctx, ResizeMode mode,
                          ResizeCoordinateMode coordinates,
                          ResizeNearestMode nearest,
                          std::optional<llvm::SmallVector<float>> scales,
                          llvm::SmallVector<int64_t> sizes) {
  llvm::SmallVector<NamedAttribute> attrs{
      ctx.named("mode", ResizeModeAttr::get(ctx.getContext(), mode)),
      ctx.namedInts("sizes", sizes),
      ctx.named("coordinate_transformation_mode",
                ResizeCoordinateModeAttr::get(ctx.getContext(), coordinates)),
      ctx.named("nearest_mode",
                ResizeNearestModeAttr::get(ctx.getContext(), nearest)),
      ctx.named("cubic_coeff_a", ctx.builder.getF32FloatAttr(
                                     ctx.getFloat("cubic_coeff_a", -0.75f))),
      ctx.named("exclude_outside",
                ctx.builder.getBoolAttr(ctx.getInt("exclude_outside", 0))),
      ctx.named("extrapolation_value",
                ctx.builder.getF32FloatAttr(
                    ctx.getFloat("extrapolation_value", 0.0f)))};
  if (scales)
    attrs.push_back(
        ctx.named("scales", ctx.builder.getDenseF32ArrayAttr(*scales)));
  return ctx.setResult(0, ctx.create<ResizeOp>(ctx.input(0), attrs));
}

/// Output sizes from scales: floor(in * scale); a dynamic dim stays
/// dynamic.
llvm::SmallVector<int64_t> sizesFromScales(RankedTensorType type,
                                           llvm::ArrayRef<float> scales) {
  llvm::SmallVector<int64_t> sizes;
  for (auto [d, scale] : llvm::enumerate(scales)) {
    int64_t in = type.getDimSize(d);
    if (ShapedType::isDynamic(in))
      sizes.push_back(-1);
    else
      sizes.push_back(static_cast<int64_t>(
          std::floor(static_cast<double>(in) * static_cast<double>(scale))));
  }
  return sizes;
}

/// Before opset 11 (and in Upsample) nearest truncates the input coordinate
/// when upsampling and rounds it up when downsampling (onnxruntime's
/// behaviour for these versions): one mode for the op, so a mix of both
/// directions is refused.
FailureOr<ResizeNearestMode> legacyNearestMode(NodeContext &ctx,
                                               llvm::ArrayRef<float> scales) {
  bool up = llvm::any_of(scales, [](float s) { return s > 1.0f; });
  bool down = llvm::any_of(scales, [](float s) { return s < 1.0f; });
  if (up && down)
    return ctx.error() << "nearest resize that upsamples some dims and "
                          "downsamples others is not supported before opset 11";
  return down ? ResizeNearestMode::ceil : ResizeNearestMode::floor;
}

FailureOr<ResizeMode> parseMode(NodeContext &ctx) {
  std::string name = ctx.getString("mode", "nearest");
  std::optional<ResizeMode> mode = symbolizeResizeMode(name);
  // Opsets 7..10 spell linear interpolation "linear" as well, and the old
  // Upsample-7 accepted "bilinear".
  if (!mode && name == "bilinear")
    mode = ResizeMode::linear;
  if (!mode)
    return ctx.error() << "unknown mode '" << name << "'";
  return *mode;
}

LogicalResult convertUpsampleOrResize10(NodeContext &ctx,
                                        llvm::SmallVector<float> scales) {
  RankedTensorType type = ctx.inputType(0);
  if (static_cast<int64_t>(scales.size()) != type.getRank())
    return ctx.error() << "scales has " << scales.size()
                       << " entries, input " << type << " has rank "
                       << type.getRank();
  FailureOr<ResizeMode> mode = parseMode(ctx);
  if (failed(mode))
    return failure();
  if (*mode == ResizeMode::cubic)
    return ctx.error() << "cubic mode needs opset 11";
  FailureOr<ResizeNearestMode> nearest = legacyNearestMode(ctx, scales);
  if (failed(nearest))
    return failure();
  return buildResize(ctx, *mode, ResizeCoordinateMode::asymmetric, *nearest,
                     scales, sizesFromScales(type, scales));
}

LogicalResult convertUpsample(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  llvm::SmallVector<float> scales;
  if (ctx.opset < 9) {
    auto given = ctx.getFloats("scales");
    if (!given)
      return ctx.error() << "needs the attribute scales";
    scales = *given;
  } else {
    if (failed(ctx.requireInputs(2)))
      return failure();
    FailureOr<llvm::SmallVector<double>> given =
        ctx.constantFloats(1, "scales");
    if (failed(given))
      return failure();
    for (double s : *given)
      scales.push_back(static_cast<float>(s));
  }
  return convertUpsampleOrResize10(ctx, scales);
}

LogicalResult convertResize(NodeContext &ctx) {
  if (failed(ctx.requireInputs(1)))
    return failure();
  RankedTensorType type = ctx.inputType(0);
  int64_t rank = type.getRank();
  if (ctx.opset < 11) {
    if (failed(ctx.requireInputs(2)))
      return failure();
    FailureOr<llvm::SmallVector<double>> given = ctx.constantFloats(1, "scales");
    if (failed(given))
      return failure();
    return convertUpsampleOrResize10(
        ctx, llvm::SmallVector<float>(given->begin(), given->end()));
  }

  FailureOr<ResizeMode> mode = parseMode(ctx);
  if (failed(mode))
    return failure();
  if (ctx.getInt("antialias", 0) != 0)
    return ctx.error() << "antialias = 1 is not supported";
  std::string coordinateName =
      ctx.getString("coordinate_transformation_mode", "half_pixel");
  std::optional<ResizeCoordinateMode> coordinates =
      symbolizeResizeCoordinateMode(coordinateName);
  if (!coordinates)
    return ctx.error() << "coordinate_transformation_mode '" << coordinateName
                       << "' is not supported";
  std::string nearestName = ctx.getString("nearest_mode", "round_prefer_floor");
  std::optional<ResizeNearestMode> nearest =
      symbolizeResizeNearestMode(nearestName);
  if (!nearest)
    return ctx.error() << "unknown nearest_mode '" << nearestName << "'";

  // Opset 18 added `axes`: scales and sizes may cover only some dims.
  llvm::SmallVector<int64_t> axes;
  if (auto given = ctx.getInts("axes")) {
    for (int64_t axis : *given) {
      FailureOr<int64_t> normalized = normalizeAxis(ctx, axis, rank, "axes entry");
      if (failed(normalized))
        return failure();
      axes.push_back(*normalized);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }

  // Inputs: X, roi, scales, sizes; an empty tensor counts as absent (what
  // exporters write for the unused one before opset 13).
  auto isGiven = [&](unsigned i) {
    if (!ctx.hasInput(i))
      return false;
    RankedTensorType t = ctx.inputType(i);
    return !(t.hasStaticShape() && t.getNumElements() == 0);
  };
  llvm::SmallVector<float> scales(rank, 1.0f);
  llvm::SmallVector<int64_t> sizes;
  if (isGiven(3)) {
    if (isGiven(2))
      return ctx.error() << "gives both scales and sizes";
    FailureOr<llvm::SmallVector<int64_t>> given = ctx.constantInts(3, "sizes");
    if (failed(given))
      return failure();
    if (given->size() != axes.size())
      return ctx.error() << "sizes has " << given->size()
                         << " entries, expected " << axes.size();
    for (int64_t d : type.getShape())
      sizes.push_back(ShapedType::isDynamic(d) ? int64_t(-1) : d);
    std::string policy = ctx.getString("keep_aspect_ratio_policy", "stretch");
    if (policy == "stretch") {
      for (auto [axis, size] : llvm::zip(axes, *given))
        sizes[axis] = size;
    } else if (policy == "not_larger" || policy == "not_smaller") {
      // One scale for all the axes: the smallest (largest) ratio, and the
      // sizes rounded from it.
      double scale = policy == "not_larger" ? INFINITY : 0.0;
      for (auto [axis, size] : llvm::zip(axes, *given)) {
        if (type.isDynamicDim(axis))
          return ctx.error() << "keep_aspect_ratio_policy '" << policy
                             << "' needs static dim " << axis;
        double ratio = double(size) / double(type.getDimSize(axis));
        scale = policy == "not_larger" ? std::min(scale, ratio)
                                       : std::max(scale, ratio);
      }
      for (int64_t axis : axes) {
        sizes[axis] = static_cast<int64_t>(
            std::round(scale * double(type.getDimSize(axis))));
        scales[axis] = static_cast<float>(scale);
      }
      return buildResize(ctx, *mode, *coordinates, *nearest, scales, sizes);
    } else {
      return ctx.error() << "unknown keep_aspect_ratio_policy '" << policy
                         << "'";
    }
    return buildResize(ctx, *mode, *coordinates, *nearest, std::nullopt,
                       sizes);
  }
  if (!isGiven(2))
    return ctx.error() << "needs scales or sizes";
  FailureOr<llvm::SmallVector<double>> given = ctx.constantFloats(2, "scales");
  if (failed(given))
    return failure();
  if (given->size() != axes.size())
    return ctx.error() << "scales has " << given->size()
                       << " entries, expected " << axes.size();
  for (auto [axis, scale] : llvm::zip(axes, *given))
    scales[axis] = static_cast<float>(scale);
  return buildResize(ctx, *mode, *coordinates, *nearest, scales,
                     sizesFromScales(type, scales));
}

const ConverterInfo kConverters[] = {
    {"ConvTranspose", convertConvTranspose},
    {"Resize", convertResize, 10},
    {"Upsample", convertUpsample, 7, 9},
};

} // namespace

llvm::ArrayRef<ConverterInfo> getResamplingConverters() { return kConverters; }

} // namespace mlir::kiln::onnx_import
