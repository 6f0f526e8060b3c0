// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v4 %s -split-input-file -verify-diagnostics

// Hand-set depthwise configurations on a dispatch whose pad is folded
// into the kernel (DepthwisePad.h) are checked before they are used: the
// flat grid needs a padded plane (its tiles span rows: lanes of one load
// lie in different rows, which column bounds cannot mask), and the pad
// generic must name one of the dispatch's arguments.

#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d4, d2 * 2 + d5, d3 * 2 + d6)>
func.func private @dispatch_3_bounds(%arg0: tensor<1x6x1x9x40xf32>, %arg1: tensor<6x1x3x3xf32>) -> tensor<1x6x4x20xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "fma", pixel_tile = 64 : i64, plane = "flat", strategy = "depthwise", workgroup_tile = array<i64: 0, 6, 0, 0, 0, 0, 0>}} {
    %0 = tensor.empty() : tensor<1x6x1x10x41xf32>
    %1 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<1x6x1x10x41xf32>) attrs =  {kiln.depthwise_pad = {input = 0 : i64, pads = array<i64: 0, 1>}} {
    ^bb0(%out: f32):
      %5 = linalg.index 0 : index
      %6 = linalg.index 1 : index
      %7 = linalg.index 2 : index
      %8 = linalg.index 3 : index
      %9 = linalg.index 4 : index
      %c0 = arith.constant 0 : index
      %10 = arith.subi %8, %c0 : index
      %c1 = arith.constant 1 : index
      %11 = arith.subi %9, %c1 : index
      %c40 = arith.constant 40 : index
      %12 = arith.cmpi ult, %11, %c40 : index
      %c9 = arith.constant 9 : index
      %13 = arith.cmpi ult, %10, %c9 : index
      %14 = arith.andi %13, %12 : i1
      %c0_0 = arith.constant 0 : index
      %15 = arith.select %14, %10, %c0_0 : index
      %16 = arith.select %14, %11, %c0_0 : index
      %extracted = tensor.extract %arg0[%5, %6, %7, %15, %16] : tensor<1x6x1x9x40xf32>
      %cst_1 = arith.constant 0.000000e+00 : f32
      %17 = arith.select %14, %extracted, %cst_1 : f32
      linalg.yield %17 : f32
    } -> tensor<1x6x1x10x41xf32>
    %cst = arith.constant 0.000000e+00 : f32
    %2 = tensor.empty() : tensor<1x6x4x20xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<1x6x4x20xf32>) -> tensor<1x6x4x20xf32>
    // expected-error @+1 {{flat-grid depthwise tiles need a padded input plane, but the pad is folded into the kernel (kiln.depthwise_pad): use plane = "rows"}}
    %4 = linalg.generic {indexing_maps = [#map4, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%1, %arg1 : tensor<1x6x1x10x41xf32>, tensor<6x1x3x3xf32>) outs(%3 : tensor<1x6x4x20xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %5 = arith.mulf %in, %in_0 : f32
      %6 = arith.addf %out, %5 : f32
      linalg.yield %6 : f32
    } -> tensor<1x6x4x20xf32>
    return %4 : tensor<1x6x4x20xf32>
  }

// -----

#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d4, d2 * 2 + d5, d3 * 2 + d6)>
func.func private @dispatch_3_bounds(%arg0: tensor<1x6x1x9x40xf32>, %arg1: tensor<6x1x3x3xf32>) -> tensor<1x6x4x20xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "fma", pixel_tile = 32 : i64, plane = "rows", strategy = "depthwise", tile_rows = 4 : i64, workgroup_tile = array<i64: 0, 6, 0, 0, 0, 0, 0>}} {
    %0 = tensor.empty() : tensor<1x6x1x10x41xf32>
    // expected-error @+1 {{is not a depthwise pad the kernel can fold (kiln.depthwise_pad with an argument number, [top, left] pads and a constant pad value)}}
    %1 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<1x6x1x10x41xf32>) attrs =  {kiln.depthwise_pad = {input = 9 : i64, pads = array<i64: 0, 1>}} {
    ^bb0(%out: f32):
      %5 = linalg.index 0 : index
      %6 = linalg.index 1 : index
      %7 = linalg.index 2 : index
      %8 = linalg.index 3 : index
      %9 = linalg.index 4 : index
      %c0 = arith.constant 0 : index
      %10 = arith.subi %8, %c0 : index
      %c1 = arith.constant 1 : index
      %11 = arith.subi %9, %c1 : index
      %c40 = arith.constant 40 : index
      %12 = arith.cmpi ult, %11, %c40 : index
      %c9 = arith.constant 9 : index
      %13 = arith.cmpi ult, %10, %c9 : index
      %14 = arith.andi %13, %12 : i1
      %c0_0 = arith.constant 0 : index
      %15 = arith.select %14, %10, %c0_0 : index
      %16 = arith.select %14, %11, %c0_0 : index
      %extracted = tensor.extract %arg0[%5, %6, %7, %15, %16] : tensor<1x6x1x9x40xf32>
      %cst_1 = arith.constant 0.000000e+00 : f32
      %17 = arith.select %14, %extracted, %cst_1 : f32
      linalg.yield %17 : f32
    } -> tensor<1x6x1x10x41xf32>
    %cst = arith.constant 0.000000e+00 : f32
    %2 = tensor.empty() : tensor<1x6x4x20xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<1x6x4x20xf32>) -> tensor<1x6x4x20xf32>
    %4 = linalg.generic {indexing_maps = [#map4, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%1, %arg1 : tensor<1x6x1x10x41xf32>, tensor<6x1x3x3xf32>) outs(%3 : tensor<1x6x4x20xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %5 = arith.mulf %in, %in_0 : f32
      %6 = arith.addf %out, %5 : f32
      linalg.yield %6 : f32
    } -> tensor<1x6x4x20xf32>
    return %4 : tensor<1x6x4x20xf32>
  }
