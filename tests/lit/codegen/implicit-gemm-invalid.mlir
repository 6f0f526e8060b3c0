// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v4 %s -split-input-file -verify-diagnostics

// Hand-set `gather_b` configurations (implicit GEMM, LoweringConfig.h) are
// checked before they are used.

// expected-error @+1 {{'gather_b' must be "im2col"}}
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
