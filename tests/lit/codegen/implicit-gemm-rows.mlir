// RUN: kiln-opt --kiln-cpu-implicit-gemm=cpu=x86-64-v4 --kiln-cpu-lowering-config=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=V4
// RUN: kiln-opt --kiln-cpu-implicit-gemm=cpu=x86-64-v3 --kiln-cpu-lowering-config=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=V3

// Row gathers (ImplicitGemm.h, worthGatheringRows): narrow convolutions,
// too few output channels for the segment gather (worthGathering wants
// 64), on a 1x3x9x60 input:
//   conv 1  3x3, pads 1, 3 -> 8 channels, output 9x60
//   conv 2  7x7, stride 2, pads 3, 8 -> 5 channels (a stem), output 5x30
//   conv 3  3x5, no pads, 5 -> 4 channels, output 3x26
// as kilnc forms them: a pad dispatch (convs 1, 2), an im2col dispatch
// and the contraction. On AVX-512 each becomes one dispatch reading the
// unpadded input, `gather_b = "rows"`: 32-lane register tiles,
// workgroups of whole output rows (60 pixels: 1 row of 60, 2 of 30, 2 of
// 26), K blocks of whole windows for conv 2 (K = 392: 98 = 2 channels of
// 7x7, 245 = 5 on AVX2). On AVX2 (16-lane tiles) stride-1 convs with
// output rows under 28 keep their im2col (measured slower gathered), so
// conv 3 keeps dispatches 6 and 7.

// V4-LABEL: func.func @main
// V4-NOT: call @dispatch_{{[0-9]+}}(
// V4: call @dispatch_2_im2col(%{{.*}}, %arg0) : (tensor<8x27xf32>, tensor<1x3x9x60xf32>) -> tensor<1x8x540xf32>
// V4-NOT: call @dispatch_{{[0-9]+}}(
// V4: call @dispatch_5_im2col(%{{.*}}, %{{.*}}) : (tensor<5x392xf32>, tensor<1x8x9x60xf32>) -> tensor<1x5x150xf32>
// V4-NOT: call @dispatch_{{[0-9]+}}(
// V4: call @dispatch_7_im2col(%{{.*}}, %{{.*}}) : (tensor<4x75xf32>, tensor<1x5x5x30xf32>) -> tensor<1x4x78xf32>
// V4-NOT: call @dispatch_{{[0-9]+}}(
// V4: func.func private @dispatch_2_im2col({{.*}}kiln.lowering_config = {gather_b = "rows", reduction_tile = 0 : i64, register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 0, 8, 60, 0>}
// V4: kiln.conv_gather = {dilations = array<i64: 1, 1>, input = 1 : i64, kernel = array<i64: 3, 3>, output = array<i64: 9, 60>, pads = array<i64: 1, 1>, strides = array<i64: 1, 1>}
// V4: func.func private @dispatch_5_im2col({{.*}}kiln.lowering_config = {gather_b = "rows", reduction_tile = 98 : i64, register_tile = array<i64: 5, 32>, strategy = "contraction", workgroup_tile = array<i64: 0, 5, 60, 0>}
// V4: kiln.conv_gather = {dilations = array<i64: 1, 1>, input = 1 : i64, kernel = array<i64: 7, 7>, output = array<i64: 5, 30>, pads = array<i64: 3, 3>, strides = array<i64: 2, 2>}
// V4: func.func private @dispatch_7_im2col({{.*}}kiln.lowering_config = {gather_b = "rows", reduction_tile = 0 : i64, register_tile = array<i64: 4, 32>, strategy = "contraction", workgroup_tile = array<i64: 0, 4, 52, 0>}
// V4: kiln.conv_gather = {dilations = array<i64: 1, 1>, input = 1 : i64, kernel = array<i64: 3, 5>, output = array<i64: 3, 26>, pads = array<i64: 0, 0>, strides = array<i64: 1, 1>}

// V3-LABEL: func.func @main
// V3: call @dispatch_2_im2col(
// V3: call @dispatch_5_im2col(
// V3: call @dispatch_6(
// V3: call @dispatch_7(
// V3: func.func private @dispatch_2_im2col({{.*}}kiln.lowering_config = {gather_b = "rows", reduction_tile = 0 : i64, register_tile = array<i64: 6, 16>, strategy = "contraction", workgroup_tile = array<i64: 0, 8, 60, 0>}
// V3: func.func private @dispatch_5_im2col({{.*}}kiln.lowering_config = {gather_b = "rows", reduction_tile = 245 : i64, register_tile = array<i64: 5, 16>, strategy = "contraction", workgroup_tile = array<i64: 0, 5, 60, 0>}
// V3: func.func private @dispatch_7({{.*}}kiln.lowering_config = {reduction_tile = 0 : i64, register_tile = array<i64: 4, 16>, strategy = "contraction", workgroup_tile = array<i64: 0, 4, 64, 0>}

#map = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2, d5 * 2 + d3)>
module {
  func.func @main(%arg0: tensor<1x3x9x60xf32> {kiln.name = "x"}) -> (tensor<1x4x3x26xf32> {kiln.name = "y"}) {
    %w1 = arith.constant dense<0.25> : tensor<8x27xf32>
    %w2 = arith.constant dense<0.125> : tensor<5x392xf32>
    %w3 = arith.constant dense<0.5> : tensor<4x75xf32>
    %0 = call @dispatch_0(%arg0) : (tensor<1x3x9x60xf32>) -> tensor<1x3x11x62xf32>
    %1 = call @dispatch_1(%0) : (tensor<1x3x11x62xf32>) -> tensor<1x3x3x3x9x60xf32>
    %c1 = tensor.collapse_shape %1 [[0], [1, 2, 3], [4, 5]] : tensor<1x3x3x3x9x60xf32> into tensor<1x27x540xf32>
    %2 = call @dispatch_2(%w1, %c1) : (tensor<8x27xf32>, tensor<1x27x540xf32>) -> tensor<1x8x540xf32>
    %e2 = tensor.expand_shape %2 [[0], [1], [2, 3]] output_shape [1, 8, 9, 60] : tensor<1x8x540xf32> into tensor<1x8x9x60xf32>
    %3 = call @dispatch_3(%e2) : (tensor<1x8x9x60xf32>) -> tensor<1x8x15x66xf32>
    %4 = call @dispatch_4(%3) : (tensor<1x8x15x66xf32>) -> tensor<1x8x7x7x5x30xf32>
    %c4 = tensor.collapse_shape %4 [[0], [1, 2, 3], [4, 5]] : tensor<1x8x7x7x5x30xf32> into tensor<1x392x150xf32>
    %5 = call @dispatch_5(%w2, %c4) : (tensor<5x392xf32>, tensor<1x392x150xf32>) -> tensor<1x5x150xf32>
    %e5 = tensor.expand_shape %5 [[0], [1], [2, 3]] output_shape [1, 5, 5, 30] : tensor<1x5x150xf32> into tensor<1x5x5x30xf32>
    %6 = call @dispatch_6(%e5) : (tensor<1x5x5x30xf32>) -> tensor<1x5x3x5x3x26xf32>
    %c6 = tensor.collapse_shape %6 [[0], [1, 2, 3], [4, 5]] : tensor<1x5x3x5x3x26xf32> into tensor<1x75x78xf32>
    %7 = call @dispatch_7(%w3, %c6) : (tensor<4x75xf32>, tensor<1x75x78xf32>) -> tensor<1x4x78xf32>
    %e7 = tensor.expand_shape %7 [[0], [1], [2, 3]] output_shape [1, 4, 3, 26] : tensor<1x4x78xf32> into tensor<1x4x3x26xf32>
    return %e7 : tensor<1x4x3x26xf32>
  }
  func.func private @dispatch_0(%arg0: tensor<1x3x9x60xf32>) -> tensor<1x3x11x62xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.000000e+00 : f32
    %padded = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%a: index, %b: index, %c: index, %d: index):
      tensor.yield %cst : f32
    } : tensor<1x3x9x60xf32> to tensor<1x3x11x62xf32>
    return %padded : tensor<1x3x11x62xf32>
  }
  func.func private @dispatch_1(%arg0: tensor<1x3x11x62xf32>) -> tensor<1x3x3x3x9x60xf32> attributes {kiln.dispatch} {
    %0 = tensor.empty() : tensor<1x3x3x3x9x60xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x3x11x62xf32>) outs(%0 : tensor<1x3x3x3x9x60xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x3x3x3x9x60xf32>
    return %1 : tensor<1x3x3x3x9x60xf32>
  }
  func.func private @dispatch_2(%arg0: tensor<8x27xf32>, %arg1: tensor<1x27x540xf32>) -> tensor<1x8x540xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<1x8x540xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x8x540xf32>) -> tensor<1x8x540xf32>
    %2 = linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<8x27xf32>, tensor<1x27x540xf32>) outs(%1 : tensor<1x8x540xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %3 = arith.mulf %in, %in_0 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    } -> tensor<1x8x540xf32>
    return %2 : tensor<1x8x540xf32>
  }
  func.func private @dispatch_3(%arg0: tensor<1x8x9x60xf32>) -> tensor<1x8x15x66xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.000000e+00 : f32
    %padded = tensor.pad %arg0 low[0, 0, 3, 3] high[0, 0, 3, 3] {
    ^bb0(%a: index, %b: index, %c: index, %d: index):
      tensor.yield %cst : f32
    } : tensor<1x8x9x60xf32> to tensor<1x8x15x66xf32>
    return %padded : tensor<1x8x15x66xf32>
  }
  func.func private @dispatch_4(%arg0: tensor<1x8x15x66xf32>) -> tensor<1x8x7x7x5x30xf32> attributes {kiln.dispatch} {
    %0 = tensor.empty() : tensor<1x8x7x7x5x30xf32>
    %1 = linalg.generic {indexing_maps = [#map5, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x8x15x66xf32>) outs(%0 : tensor<1x8x7x7x5x30xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x8x7x7x5x30xf32>
    return %1 : tensor<1x8x7x7x5x30xf32>
  }
  func.func private @dispatch_5(%arg0: tensor<5x392xf32>, %arg1: tensor<1x392x150xf32>) -> tensor<1x5x150xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<1x5x150xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x5x150xf32>) -> tensor<1x5x150xf32>
    %2 = linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<5x392xf32>, tensor<1x392x150xf32>) outs(%1 : tensor<1x5x150xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %3 = arith.mulf %in, %in_0 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    } -> tensor<1x5x150xf32>
    return %2 : tensor<1x5x150xf32>
  }
  func.func private @dispatch_6(%arg0: tensor<1x5x5x30xf32>) -> tensor<1x5x3x5x3x26xf32> attributes {kiln.dispatch} {
    %0 = tensor.empty() : tensor<1x5x3x5x3x26xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x5x5x30xf32>) outs(%0 : tensor<1x5x3x5x3x26xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x5x3x5x3x26xf32>
    return %1 : tensor<1x5x3x5x3x26xf32>
  }
  func.func private @dispatch_7(%arg0: tensor<4x75xf32>, %arg1: tensor<1x75x78xf32>) -> tensor<1x4x78xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<1x4x78xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x4x78xf32>) -> tensor<1x4x78xf32>
    %2 = linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<4x75xf32>, tensor<1x75x78xf32>) outs(%1 : tensor<1x4x78xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %3 = arith.mulf %in, %in_0 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    } -> tensor<1x4x78xf32>
    return %2 : tensor<1x4x78xf32>
  }
}
