//===- ResizeConverters.cpp - nearest_interp, bilinear_interp -------------===//
//
// Paddle's interpolate ops as ONNX Resize (opset 18, axes = H, W):
//   * output size: SizeTensor, then OutSize, then `scale`, then out_h/out_w
//     (Paddle's order of precedence); a scale gives floor(in * scale);
//   * nearest: align_corners picks round(ratio * k) with ratio =
//     (in - 1) / (out - 1): ONNX align_corners + round_prefer_ceil;
//     otherwise floor(k * in / out): asymmetric + floor;
//   * bilinear: align_corners -> align_corners; align_mode 0 -> half_pixel
//     (Paddle clamps negative source coordinates to 0, as Resize does at
//     the edge); align_mode 1 -> asymmetric.
// When the size comes from a scale, the scale itself is handed on, since
// Paddle's source coordinates use 1 / scale rather than in / out.
//
//===----------------------------------------------------------------------===//

#include "compiler/paddle/PaddleConverters.h"

using namespace mlir;

namespace mlir::kiln::paddle_import {
namespace {

LogicalResult convertInterp(OpContext &ctx) {
  auto x = ctx.required("X", 0);
  if (failed(x))
    return failure();
  llvm::StringRef type = ctx.op.type;
  bool nearest = type.contains("nearest");
  RankedTensorType xType = ctx.typeOf(*x);
  std::string layout = ctx.getString(
      ctx.isPir() ? "data_format" : "data_layout", "NCHW");
  if (layout != "NCHW")
    return ctx.error() << "data layout '" << layout
                       << "' is not supported (NCHW only)";
  if (xType.getRank() != 4)
    return ctx.error() << "expects a 4-D input, got " << xType;

  // Output size or scale, in Paddle's order of precedence.
  std::optional<llvm::SmallVector<int64_t>> sizes;
  std::optional<llvm::SmallVector<double>> scales;
  auto fromOperand = [&](llvm::StringRef slot, unsigned pirIndex)
      -> FailureOr<bool> {
    if (!ctx.has(slot, pirIndex))
      return false;
    llvm::SmallVector<int64_t> all;
    for (Value v : ctx.inList(slot, pirIndex)) {
      auto ints = ctx.constantInts(v, "the output size ('" + slot.str() + "')");
      if (failed(ints))
        return failure();
      all.append(ints->begin(), ints->end());
    }
    sizes = all;
    return true;
  };
  auto sizeTensor = fromOperand("SizeTensor", 2);
  if (failed(sizeTensor))
    return failure();
  if (!*sizeTensor) {
    auto outSize = fromOperand("OutSize", 1);
    if (failed(outSize))
      return failure();
  }
  if (!sizes) {
    if (Value s = ctx.in("Scale", 3)) {
      auto floats = ctx.constantFloats(s, "the scale ('Scale')");
      if (failed(floats))
        return failure();
      scales = *floats;
    } else if (auto list = ctx.getFloats("scale");
               list && !list->empty() && list->front() > 0) {
      scales = *list;
    }
    if (scales && scales->size() == 1)
      scales->push_back(scales->front());
    if (!scales) {
      int64_t h = ctx.getInt("out_h", -1), w = ctx.getInt("out_w", -1);
      if (h <= 0 || w <= 0)
        return ctx.error() << "gives no output size (out_h/out_w, scale, "
                              "OutSize or SizeTensor)";
      sizes = llvm::SmallVector<int64_t>{h, w};
    }
  }
  if ((sizes && sizes->size() != 2) || (scales && scales->size() != 2))
    return ctx.error() << "expects 2 output sizes or scales (H, W)";

  bool alignCorners = ctx.getBool("align_corners", false);
  int64_t alignMode = ctx.getInt("align_mode", type.ends_with("_v2") ||
                                                       ctx.isPir()
                                                   ? 0
                                                   : 1);
  std::string coordinates = "asymmetric", nearestMode = "floor";
  if (alignCorners) {
    coordinates = "align_corners";
    nearestMode = "round_prefer_ceil";
  } else if (!nearest && alignMode == 0) {
    coordinates = "half_pixel";
  }
  Value sizesValue, scalesValue;
  if (sizes) {
    sizesValue = ctx.i64Vector(*sizes);
  } else {
    auto t = RankedTensorType::get({2}, ctx.builder.getF32Type());
    llvm::SmallVector<float> f{static_cast<float>((*scales)[0]),
                               static_cast<float>((*scales)[1])};
    scalesValue = ctx.constant(DenseElementsAttr::get(t, llvm::ArrayRef(f)));
  }
  return ctx.setResult(
      0, ctx.onnx1("Resize", {*x, nullptr, scalesValue, sizesValue},
                   [&](onnx::NodeProto &node) {
                     setAttr(node, "mode", llvm::StringRef(
                                               nearest ? "nearest" : "linear"));
                     setAttr(node, "coordinate_transformation_mode",
                             llvm::StringRef(coordinates));
                     setAttr(node, "nearest_mode", llvm::StringRef(nearestMode));
                     setAttr(node, "axes", llvm::ArrayRef<int64_t>{2, 3});
                   }));
}

const ConverterInfo kConverters[] = {
    {"nearest_interp", convertInterp},
    {"nearest_interp_v2", convertInterp},
    {"bilinear_interp", convertInterp},
    {"bilinear_interp_v2", convertInterp},
    {"pd_op.nearest_interp", convertInterp},
    {"pd_op.bilinear_interp", convertInterp},
};

} // namespace

llvm::ArrayRef<ConverterInfo> getResizeConverters() { return kConverters; }

} // namespace mlir::kiln::paddle_import
