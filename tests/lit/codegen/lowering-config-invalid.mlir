// RUN: kiln-opt --kiln-cpu-codegen %s -split-input-file -verify-diagnostics

// Lowering configurations set by hand are checked before they are used.

// expected-error @+1 {{unknown lowering strategy 'fastest' (expected contraction, depthwise, attention, loop-order or scalar)}}
func.func private @dispatch_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch, kiln.lowering_config = {strategy = "fastest", workgroup_tile = array<i64: 0>}} {
  return %arg0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{the contraction strategy needs 'register_tile' = array<i64: rows, lanes>}}
func.func private @dispatch_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch, kiln.lowering_config = {strategy = "contraction", workgroup_tile = array<i64: 0>}} {
  return %arg0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{register tile 64x32 is out of range (rows 1..32, lanes 1..256)}}
func.func private @dispatch_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch, kiln.lowering_config = {strategy = "contraction", register_tile = array<i64: 64, 32>, workgroup_tile = array<i64: 0>}} {
  return %arg0 : tensor<4xf32>
}

// -----

// Register tiles need an f32 contraction.
// expected-error @+1 {{the lowering config asks for register tiles but the dispatch has no f32 contraction they apply to}}
func.func private @dispatch_0(%arg0: tensor<32x64xf32>) -> tensor<32x64xf32> attributes {kiln.dispatch, kiln.lowering_config = {strategy = "contraction", register_tile = array<i64: 8, 32>, workgroup_tile = array<i64: 8, 0>}} {
  %0 = tensor.empty() : tensor<32x64xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<32x64xf32>) outs(%0 : tensor<32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2 = math.tanh %in : f32
    linalg.yield %2 : f32
  } -> tensor<32x64xf32>
  return %1 : tensor<32x64xf32>
}

// -----

// One tile size per loop of the root op.
func.func private @dispatch_0(%arg0: tensor<32x64xf32>) -> tensor<32x64xf32> attributes {kiln.dispatch, kiln.lowering_config = {strategy = "loop-order", workgroup_tile = array<i64: 8>}} {
  %0 = tensor.empty() : tensor<32x64xf32>
  // expected-error @+1 {{has 2 loops but the lowering config's workgroup_tile has 1 sizes}}
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<32x64xf32>) outs(%0 : tensor<32x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2 = math.tanh %in : f32
    linalg.yield %2 : f32
  } -> tensor<32x64xf32>
  return %1 : tensor<32x64xf32>
}

// -----

// expected-error @+1 {{register tile lanes must be a power of two, got 48}}
func.func private @dispatch_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch, kiln.lowering_config = {strategy = "contraction", register_tile = array<i64: 8, 48>, workgroup_tile = array<i64: 0>}} {
  return %arg0 : tensor<4xf32>
}

// -----

// pack_b = "lanes" copies an f32 B as it is: no native path.
// expected-error @+1 {{'pack_b' = "lanes" copies an f32 B and takes no 'native' path}}
func.func private @dispatch_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch, kiln.lowering_config = {strategy = "contraction", register_tile = array<i64: 6, 16>, pack_b = "lanes", native = "vnni", workgroup_tile = array<i64: 0>}} {
  return %arg0 : tensor<4xf32>
}
