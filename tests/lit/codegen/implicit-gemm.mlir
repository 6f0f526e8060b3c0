// RUN: kiln-opt --kiln-cpu-implicit-gemm=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=HOST
// RUN: kiln-opt --kiln-cpu-implicit-gemm=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=GONE
// RUN: kiln-opt --kiln-cpu-implicit-gemm=cpu=x86-64-v4 --kiln-cpu-lowering-config=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=V4
// RUN: kiln-opt --kiln-cpu-implicit-gemm=cpu=x86-64-v3 --kiln-cpu-lowering-config=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=V3

// Implicit GEMM (ImplicitGemm.h): the host function and dispatches kilnc
// forms for three f32 convolutions on a 2x5x17x19 input (batch 2):
//   conv 1  3x3, pads 1, 5 -> 70 channels, + bias + Relu (one dispatch)
//   conv 2  3x3, stride 3, pads (top 0, left 1, bottom 1, right 0), 70 -> 120
//   conv 3  3x3, pads 1, 120 -> 8 channels
// each a pad dispatch, an im2col dispatch writing the whole column tensor
// and the contraction (filter [M, C*9] x columns [N, C*9, P]).
// kiln-cpu-implicit-gemm calls a copy of each contraction dispatch that
// takes the unpadded input and computes its columns by a gather generic
// (kiln.conv_gather: bounds checks for the padding, zero outside); the pad
// and im2col dispatches go. Conv 3's 8 output channels are too few rows to
// repay the gather (worthGathering): it keeps its three dispatches.

// HOST-LABEL: func.func @main(
// HOST: %[[Y1:.*]] = call @dispatch_2_im2col(%{{.*}}, %arg0, %{{.*}}) : (tensor<70x45xf32>, tensor<2x5x17x19xf32>, tensor<70xf32>) -> tensor<2x70x323xf32>
// HOST: %[[X2:.*]] = tensor.expand_shape %[[Y1]]
// HOST: %[[Y2:.*]] = call @dispatch_5_im2col(%{{.*}}, %[[X2]]) : (tensor<120x630xf32>, tensor<2x70x17x19xf32>) -> tensor<2x120x36xf32>
// HOST: call @dispatch_6(
// HOST: call @dispatch_7(
// HOST: call @dispatch_8(
// HOST-LABEL: func.func private @dispatch_2_im2col(%arg0: tensor<70x45xf32>, %arg1: tensor<2x5x17x19xf32>, %arg2: tensor<70xf32>) -> tensor<2x70x323xf32>
// HOST: %[[COLS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x45x323xf32>) attrs = {kiln.conv_gather = {dilations = array<i64: 1, 1>, input = 1 : i64, kernel = array<i64: 3, 3>, output = array<i64: 17, 19>, pads = array<i64: 1, 1>, strides = array<i64: 1, 1>}}
// The window position (oh - 1 + kh, ow - 1 + kw) inside the 17 x 19 plane,
// compared unsigned (a negative position is huge), else zero.
// HOST: %[[IN_W:.*]] = arith.cmpi ult, %{{.*}}, %c19{{(_[0-9]+)?}} : index
// HOST: %[[IN_H:.*]] = arith.cmpi ult, %{{.*}}, %c17{{(_[0-9]+)?}} : index
// HOST: %[[INSIDE:.*]] = arith.andi %[[IN_H]], %[[IN_W]]
// HOST: %[[X:.*]] = tensor.extract %arg1[
// HOST: arith.select %[[INSIDE]], %[[X]], %{{.*}} : f32
// HOST: linalg.generic {{.*}} ins(%arg0, %[[COLS]] : tensor<70x45xf32>, tensor<2x45x323xf32>)
// HOST-LABEL: func.func private @dispatch_5_im2col(%arg0: tensor<120x630xf32>, %arg1: tensor<2x70x17x19xf32>) -> tensor<2x120x36xf32>
// HOST: kiln.conv_gather = {dilations = array<i64: 1, 1>, input = 1 : i64, kernel = array<i64: 3, 3>, output = array<i64: 6, 6>, pads = array<i64: 0, 1>, strides = array<i64: 3, 3>}
// HOST-LABEL: func.func private @dispatch_6(
// HOST: tensor.pad

// GONE-NOT: func.func private @dispatch_{{[0-5]}}(
// GONE: func.func private @dispatch_8(

// The configuration says so: gather_b = "im2col", register tiles as for
// any contraction, taller workgroup tiles (all 70 or 64 of 120 rows: one
// gathered panel row feeds more FMAs), K blocks for conv 2 (K = 630),
// whose 36 pixels take 16 x 16 tiles on AVX-512 (LoweringConfig's few
// pixels rule: 2.5 zmm per row instead of 3).
// V4-LABEL: func.func private @dispatch_2_im2col(
// V4-SAME: kiln.lowering_config = {gather_b = "im2col", reduction_tile = 0 : i64, register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 1, 70, 64>}
// V4-LABEL: func.func private @dispatch_5_im2col(
// V4-SAME: kiln.lowering_config = {gather_b = "im2col", reduction_tile = 256 : i64, register_tile = array<i64: 16, 16>, strategy = "contraction", workgroup_tile = array<i64: 1, 64, 36, 0>}
// V4-LABEL: func.func private @dispatch_8(
// V4-NOT: gather_b
// V4-SAME: strategy = "contraction"

// V3-LABEL: func.func private @dispatch_2_im2col(
// V3-SAME: kiln.lowering_config = {gather_b = "im2col", reduction_tile = 0 : i64, register_tile = array<i64: 6, 16>, strategy = "contraction", workgroup_tile = array<i64: 1, 70, 64>}
// V3-LABEL: func.func private @dispatch_5_im2col(
// V3-SAME: kiln.lowering_config = {gather_b = "im2col", reduction_tile = 256 : i64, register_tile = array<i64: 6, 16>, strategy = "contraction", workgroup_tile = array<i64: 1, 60, 36, 0>}
#map = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map5 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map6 = affine_map<(d0, d1, d2) -> (d1)>
#map7 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 3 + d2, d5 * 3 + d3)>
module {
  func.func @main(%arg0: tensor<2x5x17x19xf32> {kiln.name = "x"}) -> (tensor<2x8x6x6xf32> {kiln.name = "y"}) {
    %cst = arith.constant dense<0.25> : tensor<8x1080xf32>
    %cst_0 = arith.constant dense<0.25> : tensor<120x630xf32>
    %cst_1 = arith.constant dense<0.25> : tensor<70x45xf32>
    %cst_2 = arith.constant dense<0.125> : tensor<70xf32>
    %cst_3 = arith.constant 0.000000e+00 : f32
    %0 = call @dispatch_0(%arg0) : (tensor<2x5x17x19xf32>) -> tensor<2x5x19x21xf32>
    %1 = call @dispatch_1(%0) : (tensor<2x5x19x21xf32>) -> tensor<2x5x3x3x17x19xf32>
    %collapsed = tensor.collapse_shape %1 [[0], [1, 2, 3], [4, 5]] : tensor<2x5x3x3x17x19xf32> into tensor<2x45x323xf32>
    %2 = call @dispatch_2(%cst_1, %collapsed, %cst_2) : (tensor<70x45xf32>, tensor<2x45x323xf32>, tensor<70xf32>) -> tensor<2x70x323xf32>
    %expanded = tensor.expand_shape %2 [[0], [1], [2, 3]] output_shape [2, 70, 17, 19] : tensor<2x70x323xf32> into tensor<2x70x17x19xf32>
    %3 = call @dispatch_3(%expanded) : (tensor<2x70x17x19xf32>) -> tensor<2x70x18x20xf32>
    %4 = call @dispatch_4(%3) : (tensor<2x70x18x20xf32>) -> tensor<2x70x3x3x6x6xf32>
    %collapsed_4 = tensor.collapse_shape %4 [[0], [1, 2, 3], [4, 5]] : tensor<2x70x3x3x6x6xf32> into tensor<2x630x36xf32>
    %5 = call @dispatch_5(%cst_0, %collapsed_4) : (tensor<120x630xf32>, tensor<2x630x36xf32>) -> tensor<2x120x36xf32>
    %expanded_5 = tensor.expand_shape %5 [[0], [1], [2, 3]] output_shape [2, 120, 6, 6] : tensor<2x120x36xf32> into tensor<2x120x6x6xf32>
    %6 = call @dispatch_6(%expanded_5) : (tensor<2x120x6x6xf32>) -> tensor<2x120x8x8xf32>
    %7 = call @dispatch_7(%6) : (tensor<2x120x8x8xf32>) -> tensor<2x120x3x3x6x6xf32>
    %collapsed_6 = tensor.collapse_shape %7 [[0], [1, 2, 3], [4, 5]] : tensor<2x120x3x3x6x6xf32> into tensor<2x1080x36xf32>
    %8 = call @dispatch_8(%cst, %collapsed_6) : (tensor<8x1080xf32>, tensor<2x1080x36xf32>) -> tensor<2x8x36xf32>
    %expanded_7 = tensor.expand_shape %8 [[0], [1], [2, 3]] output_shape [2, 8, 6, 6] : tensor<2x8x36xf32> into tensor<2x8x6x6xf32>
    return %expanded_7 : tensor<2x8x6x6xf32>
  }
  func.func private @dispatch_0(%arg0: tensor<2x5x17x19xf32>) -> tensor<2x5x19x21xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.000000e+00 : f32
    %padded = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst : f32
    } : tensor<2x5x17x19xf32> to tensor<2x5x19x21xf32>
    return %padded : tensor<2x5x19x21xf32>
  }
  func.func private @dispatch_1(%arg0: tensor<2x5x19x21xf32>) -> tensor<2x5x3x3x17x19xf32> attributes {kiln.dispatch} {
    %0 = tensor.empty() : tensor<2x5x3x3x17x19xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x5x19x21xf32>) outs(%0 : tensor<2x5x3x3x17x19xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x5x3x3x17x19xf32>
    return %1 : tensor<2x5x3x3x17x19xf32>
  }
  func.func private @dispatch_2(%arg0: tensor<70x45xf32>, %arg1: tensor<2x45x323xf32>, %arg2: tensor<70xf32>) -> tensor<2x70x323xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<2x70x323xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x70x323xf32>) -> tensor<2x70x323xf32>
    %2 = linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<70x45xf32>, tensor<2x45x323xf32>) outs(%1 : tensor<2x70x323xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %5 = arith.mulf %in, %in_0 : f32
      %6 = arith.addf %out, %5 : f32
      linalg.yield %6 : f32
    } -> tensor<2x70x323xf32>
    %3 = tensor.empty() : tensor<2x70x323xf32>
    %4 = linalg.generic {indexing_maps = [#map5, #map6, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2, %arg2 : tensor<2x70x323xf32>, tensor<70xf32>) outs(%3 : tensor<2x70x323xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %5 = arith.addf %in, %in_0 : f32
      %6 = arith.maxnumf %5, %cst : f32
      linalg.yield %6 : f32
    } -> tensor<2x70x323xf32>
    return %4 : tensor<2x70x323xf32>
  }
  func.func private @dispatch_3(%arg0: tensor<2x70x17x19xf32>) -> tensor<2x70x18x20xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.000000e+00 : f32
    %padded = tensor.pad %arg0 low[0, 0, 0, 1] high[0, 0, 1, 0] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst : f32
    } : tensor<2x70x17x19xf32> to tensor<2x70x18x20xf32>
    return %padded : tensor<2x70x18x20xf32>
  }
  func.func private @dispatch_4(%arg0: tensor<2x70x18x20xf32>) -> tensor<2x70x3x3x6x6xf32> attributes {kiln.dispatch} {
    %0 = tensor.empty() : tensor<2x70x3x3x6x6xf32>
    %1 = linalg.generic {indexing_maps = [#map7, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x70x18x20xf32>) outs(%0 : tensor<2x70x3x3x6x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x70x3x3x6x6xf32>
    return %1 : tensor<2x70x3x3x6x6xf32>
  }
  func.func private @dispatch_5(%arg0: tensor<120x630xf32>, %arg1: tensor<2x630x36xf32>) -> tensor<2x120x36xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<2x120x36xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x120x36xf32>) -> tensor<2x120x36xf32>
    %2 = linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<120x630xf32>, tensor<2x630x36xf32>) outs(%1 : tensor<2x120x36xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %3 = arith.mulf %in, %in_0 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    } -> tensor<2x120x36xf32>
    return %2 : tensor<2x120x36xf32>
  }
  func.func private @dispatch_6(%arg0: tensor<2x120x6x6xf32>) -> tensor<2x120x8x8xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.000000e+00 : f32
    %padded = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst : f32
    } : tensor<2x120x6x6xf32> to tensor<2x120x8x8xf32>
    return %padded : tensor<2x120x8x8xf32>
  }
  func.func private @dispatch_7(%arg0: tensor<2x120x8x8xf32>) -> tensor<2x120x3x3x6x6xf32> attributes {kiln.dispatch} {
    %0 = tensor.empty() : tensor<2x120x3x3x6x6xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x120x8x8xf32>) outs(%0 : tensor<2x120x3x3x6x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x120x3x3x6x6xf32>
    return %1 : tensor<2x120x3x3x6x6xf32>
  }
  func.func private @dispatch_8(%arg0: tensor<8x1080xf32>, %arg1: tensor<2x1080x36xf32>) -> tensor<2x8x36xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<2x8x36xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x8x36xf32>) -> tensor<2x8x36xf32>
    %2 = linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<8x1080xf32>, tensor<2x1080x36xf32>) outs(%1 : tensor<2x8x36xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %3 = arith.mulf %in, %in_0 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    } -> tensor<2x8x36xf32>
    return %2 : tensor<2x8x36xf32>
  }
}

