// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v4 %s -split-input-file -verify-diagnostics

// Hand-set `gather_b` configurations (implicit GEMM, LoweringConfig.h) are
// checked before they are used.

// expected-error @+1 {{'gather_b' must be "im2col" or "rows"}}
func.func private @dispatch_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch, kiln.lowering_config = {gather_b = "columns", register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 0>}} {
  return %arg0 : tensor<4xf32>
}

// -----

// B is a dispatch argument (columns computed elsewhere), not a
// kiln.conv_gather generic: there is no input to gather from.
func.func private @dispatch_0(%a: tensor<16x45xf32>, %b: tensor<1x45x99xf32>) -> tensor<1x16x99xf32> attributes {kiln.dispatch, kiln.lowering_config = {gather_b = "im2col", reduction_tile = 0 : i64, register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 0, 16, 64, 0>}} {
  %c0 = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<1x16x99xf32>
  %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<1x16x99xf32>) -> tensor<1x16x99xf32>
  // expected-error @+1 {{the lowering config asks for B gathered from a convolution's input (gather_b), but B is not an f32 im2col gather (kiln.conv_gather)}}
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x45xf32>, tensor<1x45x99xf32>) outs(%1 : tensor<1x16x99xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x99xf32>
  return %2 : tensor<1x16x99xf32>
}

// -----

// A hand-set row gather (`gather_b = "rows"`) on a column stride of 3: a
// lane tile would not be one run of the input (or its even elements).
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func private @dispatch_0(%arg0: tensor<120x630xf32>, %arg1: tensor<2x70x17x19xf32>) -> tensor<2x120x36xf32> attributes {kiln.dispatch, kiln.lowering_config = {gather_b = "rows", reduction_tile = 0 : i64, register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 0, 64, 36, 0>}} {
  %0 = tensor.empty() : tensor<2x630x36xf32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%0 : tensor<2x630x36xf32>) attrs =  {kiln.conv_gather = {dilations = array<i64: 1, 1>, input = 1 : i64, kernel = array<i64: 3, 3>, output = array<i64: 6, 6>, pads = array<i64: 0, 1>, strides = array<i64: 3, 3>}} {
  ^bb0(%out: f32):
    %5 = linalg.index 0 : index
    %6 = linalg.index 1 : index
    %7 = linalg.index 2 : index
    %c9 = arith.constant 9 : index
    %8 = arith.divui %6, %c9 : index
    %9 = arith.remui %6, %c9 : index
    %c3 = arith.constant 3 : index
    %10 = arith.divui %9, %c3 : index
    %c3_0 = arith.constant 3 : index
    %11 = arith.remui %9, %c3_0 : index
    %c6 = arith.constant 6 : index
    %12 = arith.divui %7, %c6 : index
    %c6_1 = arith.constant 6 : index
    %13 = arith.remui %7, %c6_1 : index
    %c1 = arith.constant 1 : index
    %14 = arith.muli %10, %c1 : index
    %c3_2 = arith.constant 3 : index
    %15 = arith.muli %12, %c3_2 : index
    %16 = arith.addi %15, %14 : index
    %c0 = arith.constant 0 : index
    %17 = arith.subi %16, %c0 : index
    %c1_3 = arith.constant 1 : index
    %18 = arith.muli %11, %c1_3 : index
    %c3_4 = arith.constant 3 : index
    %19 = arith.muli %13, %c3_4 : index
    %20 = arith.addi %19, %18 : index
    %c1_5 = arith.constant 1 : index
    %21 = arith.subi %20, %c1_5 : index
    %c19 = arith.constant 19 : index
    %22 = arith.cmpi ult, %21, %c19 : index
    %c17 = arith.constant 17 : index
    %23 = arith.cmpi ult, %17, %c17 : index
    %24 = arith.andi %23, %22 : i1
    %c0_6 = arith.constant 0 : index
    %25 = arith.select %24, %17, %c0_6 : index
    %26 = arith.select %24, %21, %c0_6 : index
    %extracted = tensor.extract %arg1[%5, %8, %25, %26] : tensor<2x70x17x19xf32>
    %cst_7 = arith.constant 0.000000e+00 : f32
    %27 = arith.select %24, %extracted, %cst_7 : f32
    linalg.yield %27 : f32
  } -> tensor<2x630x36xf32>
  %cst = arith.constant 0.000000e+00 : f32
  %2 = tensor.empty() : tensor<2x120x36xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<2x120x36xf32>) -> tensor<2x120x36xf32>
  // expected-error @+1 {{gather_b = "rows" reads each lane tile as one run of the input and needs a column stride of 1 or 2, got 3}}
  %4 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %1 : tensor<120x630xf32>, tensor<2x630x36xf32>) outs(%3 : tensor<2x120x36xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.mulf %in, %in_0 : f32
    %6 = arith.addf %out, %5 : f32
    linalg.yield %6 : f32
  } -> tensor<2x120x36xf32>
  return %4 : tensor<2x120x36xf32>
}
