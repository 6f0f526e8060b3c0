// RUN: kiln-opt --kiln-cpu-fold-depthwise-pads=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=HOST
// RUN: kiln-opt --kiln-cpu-fold-depthwise-pads=cpu=x86-64-v4 --kiln-cpu-lowering-config=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=V4
// RUN: kiln-opt --kiln-cpu-fold-depthwise-pads=cpu=x86-64-v3 --kiln-cpu-lowering-config=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=V3

// Depthwise pads folded into the kernel (DepthwisePad.h): the host
// function and dispatches kilnc forms for two f32 depthwise convs on a
// 1x6x9x40 input, each a pad dispatch and the conv reading the padded
// tensor through a group split ([N, C, H, W] -> [N, C, 1, H, W]):
//   conv a  3x3 s1, pads 1 (9x40 -> 9x40)
//   conv b  3x3 s2, pads (top 0, left 1, bottom 1, right 0) (-> 4x20)
// kiln-cpu-fold-depthwise-pads calls a copy of a conv dispatch that takes
// the unpadded input (split the same way) and computes the padded tensor
// by a kiln.depthwise_pad generic (bounds checks, the pad value outside),
// when the conv gets row tiles. On x86-64-v4 conv a takes the flat grid
// (tiles across rows: 128-pixel tiles fit its 9 rows of 42 better than
// rows of 40 in 32-pixel tiles) and keeps its pad; on x86-64-v3 (8 lanes)
// both take row tiles and lose their pads.

// HOST-LABEL: func.func @main(
// HOST: %[[PAD:.*]] = call @dispatch_0(%arg0)
// HOST: %[[A:.*]] = call @dispatch_1(%{{.*}}, %{{.*}}) : (tensor<1x6x1x11x42xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x9x40xf32>
// HOST: %[[X:.*]] = tensor.expand_shape %[[A]] {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 6, 1, 9, 40] : tensor<1x6x9x40xf32> into tensor<1x6x1x9x40xf32>
// HOST: call @dispatch_3_bounds(%[[X]], %{{.*}}) : (tensor<1x6x1x9x40xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x4x20xf32>
// HOST-NOT: func.func private @dispatch_2(
// HOST-LABEL: func.func private @dispatch_3_bounds(%arg0: tensor<1x6x1x9x40xf32>, %arg1: tensor<6x1x3x3xf32>)
// HOST: %[[P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x6x1x10x41xf32>) attrs = {kiln.depthwise_pad = {input = 0 : i64, pads = array<i64: 0, 1>}}
// The position (h - 0, w - 1) inside the 9 x 40 plane, compared unsigned
// (a negative position is huge), else the pad value.
// HOST: %[[IN_W:.*]] = arith.cmpi ult, %{{.*}}, %c40{{(_[0-9]+)?}} : index
// HOST: %[[IN_H:.*]] = arith.cmpi ult, %{{.*}}, %c9{{(_[0-9]+)?}} : index
// HOST: %[[INSIDE:.*]] = arith.andi %[[IN_H]], %[[IN_W]]
// HOST: %[[E:.*]] = tensor.extract %arg0[
// HOST: arith.select %[[INSIDE]], %[[E]], %{{.*}} : f32
// HOST: linalg.generic {{.*}} ins(%[[P]], %arg1 : tensor<1x6x1x10x41xf32>, tensor<6x1x3x3xf32>)

// V4-LABEL: func.func private @dispatch_1(
// V4-SAME: native = "fma", pixel_tile = 128 : i64, plane = "flat", strategy = "depthwise"
// V4-LABEL: func.func private @dispatch_3_bounds(
// V4-SAME: native = "fma", pixel_tile = 32 : i64, plane = "rows", strategy = "depthwise", tile_rows = 4 : i64

// V3-LABEL: func.func @main(
// V3: call @dispatch_1_bounds(
// V3: call @dispatch_3_bounds(
// V3-NOT: tensor.pad
// V3-LABEL: func.func private @dispatch_1_bounds(
// V3-SAME: native = "fma", pixel_tile = 16 : i64, plane = "rows", strategy = "depthwise", tile_rows = 2 : i64
// V3-LABEL: func.func private @dispatch_3_bounds(
// V3-SAME: native = "fma", pixel_tile = 16 : i64, plane = "rows", strategy = "depthwise", tile_rows = 2 : i64

#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d4, d2 * 2 + d5, d3 * 2 + d6)>
module {
  func.func @main(%arg0: tensor<1x6x9x40xf32> {kiln.name = "x"}) -> (tensor<1x6x4x20xf32> {kiln.name = "b"}) {
    %cst = arith.constant dense<2.500000e-01> : tensor<6x1x3x3xf32>
    %cst_0 = arith.constant dense<2.500000e-01> : tensor<6x1x3x3xf32>
    %cst_1 = arith.constant 0.000000e+00 : f32
    %0 = call @dispatch_0(%arg0) : (tensor<1x6x9x40xf32>) -> tensor<1x6x11x42xf32>
    %expanded = tensor.expand_shape %0 [[0], [1, 2], [3], [4]] output_shape [1, 6, 1, 11, 42] : tensor<1x6x11x42xf32> into tensor<1x6x1x11x42xf32>
    %1 = call @dispatch_1(%expanded, %cst) : (tensor<1x6x1x11x42xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x9x40xf32>
    %2 = call @dispatch_2(%1) : (tensor<1x6x9x40xf32>) -> tensor<1x6x10x41xf32>
    %expanded_2 = tensor.expand_shape %2 [[0], [1, 2], [3], [4]] output_shape [1, 6, 1, 10, 41] : tensor<1x6x10x41xf32> into tensor<1x6x1x10x41xf32>
    %3 = call @dispatch_3(%expanded_2, %cst_0) : (tensor<1x6x1x10x41xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x4x20xf32>
    return %3 : tensor<1x6x4x20xf32>
  }
  func.func private @dispatch_0(%arg0: tensor<1x6x9x40xf32>) -> tensor<1x6x11x42xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.000000e+00 : f32
    %padded = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst : f32
    } : tensor<1x6x9x40xf32> to tensor<1x6x11x42xf32>
    return %padded : tensor<1x6x11x42xf32>
  }
  func.func private @dispatch_1(%arg0: tensor<1x6x1x11x42xf32>, %arg1: tensor<6x1x3x3xf32>) -> tensor<1x6x9x40xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<1x6x9x40xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x6x9x40xf32>) -> tensor<1x6x9x40xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %arg1 : tensor<1x6x1x11x42xf32>, tensor<6x1x3x3xf32>) outs(%1 : tensor<1x6x9x40xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %3 = arith.mulf %in, %in_0 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    } -> tensor<1x6x9x40xf32>
    return %2 : tensor<1x6x9x40xf32>
  }
  func.func private @dispatch_2(%arg0: tensor<1x6x9x40xf32>) -> tensor<1x6x10x41xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.000000e+00 : f32
    %padded = tensor.pad %arg0 low[0, 0, 0, 1] high[0, 0, 1, 0] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst : f32
    } : tensor<1x6x9x40xf32> to tensor<1x6x10x41xf32>
    return %padded : tensor<1x6x10x41xf32>
  }
  func.func private @dispatch_3(%arg0: tensor<1x6x1x10x41xf32>, %arg1: tensor<6x1x3x3xf32>) -> tensor<1x6x4x20xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<1x6x4x20xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x6x4x20xf32>) -> tensor<1x6x4x20xf32>
    %2 = linalg.generic {indexing_maps = [#map3, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %arg1 : tensor<1x6x1x10x41xf32>, tensor<6x1x3x3xf32>) outs(%1 : tensor<1x6x4x20xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %3 = arith.mulf %in, %in_0 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    } -> tensor<1x6x4x20xf32>
    return %2 : tensor<1x6x4x20xf32>
  }
}

