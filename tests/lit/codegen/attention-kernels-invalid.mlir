// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v4 %s -split-input-file -verify-diagnostics

// Attention configurations set by hand are checked before the kernel is
// built.

// expected-error @+1 {{the attention strategy needs 'register_tile' = array<i64: rows, keys>}}
func.func private @dispatch_0(%q: tensor<2x8x16xf32>, %kt: tensor<2x16x8xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> attributes {kiln.dispatch, kiln.lowering_config = {strategy = "attention", workgroup_tile = array<i64: 1, 8>}} {
  %o = kiln.attention %q, %kt, %v {scale = 1.0 : f32} : tensor<2x8x16xf32>, tensor<2x16x8xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

func.func private @dispatch_0(%q: tensor<2x8x16xf32>, %kt: tensor<2x16x8xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> attributes {kiln.dispatch, kiln.lowering_config = {register_tile = array<i64: 4, 24>, strategy = "attention", workgroup_tile = array<i64: 1, 8>}} {
  // expected-error @+1 {{the attention lowering config needs workgroup_tile = [1, R] and register_tile = [rows, keys] with rows in 1..16, keys a multiple of the 16 f32 lanes (at most 16 vectors), R a multiple of rows}}
  %o = kiln.attention %q, %kt, %v {scale = 1.0 : f32} : tensor<2x8x16xf32>, tensor<2x16x8xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

func.func private @dispatch_0(%q: tensor<2x8x16xf32>, %kt: tensor<2x16x8xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> attributes {kiln.dispatch, kiln.lowering_config = {register_tile = array<i64: 4, 16>, strategy = "attention", workgroup_tile = array<i64: 1, 6>}} {
  // expected-error @+1 {{R a multiple of rows; got {register_tile = array<i64: 4, 16>, strategy = "attention", workgroup_tile = array<i64: 1, 6>}}}
  %o = kiln.attention %q, %kt, %v {scale = 1.0 : f32} : tensor<2x8x16xf32>, tensor<2x16x8xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return %o : tensor<2x8x16xf32>
}

// -----

// expected-error @+1 {{the attention strategy needs a dispatch of one kiln.attention}}
func.func private @dispatch_0(%a: tensor<8x8xf32>) -> tensor<8x8xf32> attributes {kiln.dispatch, kiln.lowering_config = {register_tile = array<i64: 4, 16>, strategy = "attention", workgroup_tile = array<i64: 1, 8>}} {
  return %a : tensor<8x8xf32>
}
