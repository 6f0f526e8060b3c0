// RUN: kiln-opt --kiln-cpu-codegen=cpu=znver4 %s -split-input-file -verify-diagnostics
// RUN: not kiln-opt --kiln-cpu-codegen=cpu=x86-64-v4 %s -split-input-file 2>&1 | FileCheck %s --check-prefix=NOVNNI

// Hand-set "depthwise" configurations (LoweringConfig.h, DepthwiseKernel.h)
// are checked before they are used.

// expected-error @+1 {{the depthwise strategy needs 'native' = "vnni", "pmaddwd", "fma" or "max"}}
func.func private @dispatch_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "convert", pixel_tile = 64 : i64, plane = "rows", strategy = "depthwise", workgroup_tile = array<i64: 0>}} {
  return %arg0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{the depthwise strategy needs 'pixel_tile' (an integer in 1..1024)}}
func.func private @dispatch_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "vnni", plane = "rows", strategy = "depthwise", workgroup_tile = array<i64: 0>}} {
  return %arg0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{the depthwise strategy needs 'plane' = "rows" or "flat"}}
func.func private @dispatch_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "vnni", pixel_tile = 64 : i64, plane = "grid", strategy = "depthwise", workgroup_tile = array<i64: 0>}} {
  return %arg0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{the depthwise strategy's 'tile_rows' must be an integer in 1..64}}
func.func private @dispatch_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "fma", pixel_tile = 64 : i64, plane = "rows", strategy = "depthwise", tile_rows = 0 : i64, workgroup_tile = array<i64: 0>}} {
  return %arg0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{the depthwise strategy's 'tile_rows' needs plane = "rows"}}
func.func private @dispatch_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "fma", pixel_tile = 64 : i64, plane = "flat", strategy = "depthwise", tile_rows = 2 : i64, workgroup_tile = array<i64: 0>}} {
  return %arg0 : tensor<4xf32>
}

// -----

#x1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// More tile rows than the plane has.
func.func private @dispatch_0(%x: tensor<1x8x1x9x9xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x7x7xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "fma", pixel_tile = 16 : i64, plane = "rows", strategy = "depthwise", tile_rows = 8 : i64, workgroup_tile = array<i64: 0, 1, 0, 0, 0, 0, 0>}} {
  %c0 = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<1x8x7x7xf32>
  %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  // expected-error @+1 {{depthwise tile rows 8 exceed the 7 output rows}}
  %2 = linalg.generic {indexing_maps = [#x1, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x1x9x9xf32>, tensor<8x1x3x3xf32>) outs(%1 : tensor<1x8x7x7xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %7 = arith.mulf %in, %in_2 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<1x8x7x7xf32>
  return %2 : tensor<1x8x7x7xf32>
}

// -----

// expected-error @+1 {{the lowering config asks for depthwise tiles but the dispatch has no depthwise convolution they apply to}}
func.func private @dispatch_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "fma", pixel_tile = 64 : i64, plane = "rows", strategy = "depthwise", workgroup_tile = array<i64: 0>}} {
  return %arg0 : tensor<4xf32>
}

// -----

#x1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// An f32 convolution on an int8 path, and a pixel tile that is not whole
// phase groups (4 phases x 16 lanes for vnni at stride 1).
func.func private @dispatch_0(%x: tensor<1x8x1x9x9xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x7x7xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "vnni", pixel_tile = 64 : i64, plane = "flat", strategy = "depthwise", workgroup_tile = array<i64: 0, 1, 0, 0, 0, 0, 0>}} {
  %c0 = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<1x8x7x7xf32>
  %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  // expected-error @+1 {{the depthwise path 'vnni' does not take 'f32' operands (vnni and pmaddwd take i8, fma and max f32, bf16 or f16)}}
  %2 = linalg.generic {indexing_maps = [#x1, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x1x9x9xf32>, tensor<8x1x3x3xf32>) outs(%1 : tensor<1x8x7x7xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %7 = arith.mulf %in, %in_2 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<1x8x7x7xf32>
  return %2 : tensor<1x8x7x7xf32>
}

// -----

#x1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// NOVNNI: the depthwise path 'vnni' needs an instruction CPU 'x86-64-v4' does not have
func.func private @dispatch_0(%x: tensor<1x8x1x9x9xi8>, %w: tensor<8x1x3x3xi8>) -> tensor<1x8x7x7xi32> attributes {kiln.dispatch, kiln.lowering_config = {native = "vnni", pixel_tile = 48 : i64, plane = "flat", strategy = "depthwise", workgroup_tile = array<i64: 0, 1, 0, 0, 0, 0, 0>}} {
  %c0 = arith.constant 0 : i32
  %0 = tensor.empty() : tensor<1x8x7x7xi32>
  %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<1x8x7x7xi32>) -> tensor<1x8x7x7xi32>
  // expected-error @+1 {{depthwise pixel tile 48 must be a multiple of 64 (phases x vector lanes)}}
  %2 = linalg.generic {indexing_maps = [#x1, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x1x9x9xi8>, tensor<8x1x3x3xi8>) outs(%1 : tensor<1x8x7x7xi32>) {
  ^bb0(%in: i8, %in_2: i8, %out: i32):
    %5 = arith.extsi %in : i8 to i32
    %6 = arith.extsi %in_2 : i8 to i32
    %7 = arith.muli %5, %6 : i32
    %8 = arith.addi %out, %7 : i32
    linalg.yield %8 : i32
  } -> tensor<1x8x7x7xi32>
  return %2 : tensor<1x8x7x7xi32>
}

// -----

#x1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d4, d2 + d5, d3 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// "max" is max pooling's path: a convolution on it is refused.
func.func private @dispatch_0(%x: tensor<1x8x1x9x9xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x7x7xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "max", pixel_tile = 16 : i64, plane = "rows", strategy = "depthwise", workgroup_tile = array<i64: 0, 1, 0, 0, 0, 0, 0>}} {
  %c0 = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<1x8x7x7xf32>
  %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  // expected-error @+1 {{the depthwise path 'max' does not run a convolution ('max' is max pooling's path)}}
  %2 = linalg.generic {indexing_maps = [#x1, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x1x9x9xf32>, tensor<8x1x3x3xf32>) outs(%1 : tensor<1x8x7x7xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %7 = arith.mulf %in, %in_2 : f32
    %8 = arith.addf %out, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<1x8x7x7xf32>
  return %2 : tensor<1x8x7x7xf32>
}

// -----

// A max pool on the FMA path is refused too.
func.func private @dispatch_0(%x: tensor<1x4x9x9xf32>) -> tensor<1x4x7x7xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "fma", pixel_tile = 16 : i64, plane = "rows", strategy = "depthwise", workgroup_tile = array<i64: 0, 1, 0, 0, 0, 0>}} {
  %ninf = arith.constant 0xFF800000 : f32
  %window = tensor.empty() : tensor<3x3xf32>
  %0 = tensor.empty() : tensor<1x4x7x7xf32>
  %1 = linalg.fill ins(%ninf : f32) outs(%0 : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  // expected-error @+1 {{the depthwise path 'fma' does not run a max pool (its path is 'max')}}
  %2 = linalg.generic {indexing_maps = [affine_map<(n, c, h, w, kh, kw) -> (n, c, h + kh, w + kw)>, affine_map<(n, c, h, w, kh, kw) -> (kh, kw)>, affine_map<(n, c, h, w, kh, kw) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %window : tensor<1x4x9x9xf32>, tensor<3x3xf32>) outs(%1 : tensor<1x4x7x7xf32>) {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %m = arith.maximumf %out, %in : f32
    linalg.yield %m : f32
  } -> tensor<1x4x7x7xf32>
  return %2 : tensor<1x4x7x7xf32>
}
