// RUN: kiln-opt --kiln-cpu-codegen %s -split-input-file -verify-diagnostics

// kiln-cpu-codegen runs on a module that holds only dispatch functions.

func.func private @dispatch_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch} {
  return %arg0 : tensor<4xf32>
}

// expected-error @+1 {{kiln-cpu-codegen expects only kiln.dispatch functions (split the host function off first)}}
func.func @host(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @dispatch_0(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Dispatch arguments must be static tensors.
// expected-error @+1 {{dispatch arguments must be static tensors}}
func.func private @dispatch_0(%arg0: tensor<?x4xf32>) -> tensor<4xf32> attributes {kiln.dispatch} {
  %c0 = arith.constant 0 : index
  %0 = tensor.extract_slice %arg0[0, 0] [1, 4] [1, 1] : tensor<?x4xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Scratch must have a static upper bound (the stack budget and the scratch
// binding are sized at compile time); a size read from a tensor has none.
func.func private @dispatch_0(%arg0: tensor<i64>) -> tensor<4xf32> attributes {kiln.dispatch, kiln.lowering_config = {strategy = "scalar", workgroup_tile = array<i64: 0>}} {
  %i = tensor.extract %arg0[] : tensor<i64>
  %n = arith.index_cast %i : i64 to index
  %cst = arith.constant 1.0 : f32
  // expected-error @+1 {{'memref.alloca' op scratch buffer 'memref<?xf32>' has a dynamic size with no static upper bound}}
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = tensor.extract_slice %f[0] [4] [1] : tensor<?xf32> to tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// A hand-set workgroup tile along a concat's axis would have workgroups
// each copy part of one piece at offsets the pieces don't share.
func.func private @dispatch_0(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> attributes {kiln.dispatch, kiln.lowering_config = {strategy = "loop-order", workgroup_tile = array<i64: 0, 4>}} {
  %0 = tensor.empty() : tensor<2x8xf32>
  %1 = tensor.insert_slice %a into %0[0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x8xf32>
  // expected-error @+1 {{concat workgroup tiles must divide their dim and leave the concat axis whole; dim 1 has tile 4}}
  %2 = tensor.insert_slice %b into %1[0, 3] [2, 5] [1, 1] : tensor<2x5xf32> into tensor<2x8xf32>
  return %2 : tensor<2x8xf32>
}

// -----

// B in f32 lane panels (the data tiling writes 16 columns; any width
// parses): register tiles are a power of two wide, so with panels of 12
// a 16-lane tile would start mid-panel, where a vector straddles two.
func.func private @dispatch_0(%a: tensor<12x8xf32>, %b: tensor<4x8x12xf32>) -> tensor<12x48xf32> attributes {kiln.dispatch, kiln.lowering_config = {strategy = "contraction", register_tile = array<i64: 6, 16>, reduction_tile = 0 : i64, workgroup_tile = array<i64: 12, 48, 0>}} {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<12x48xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<12x48xf32>) -> tensor<12x48xf32>
  // expected-error @+1 {{register tile lanes (16) must divide or be a multiple of B's lane panels (12)}}
  %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n floordiv 12, k, n mod 12)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<12x8xf32>, tensor<4x8x12xf32>) outs(%1 : tensor<12x48xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<12x48xf32>
  return %2 : tensor<12x48xf32>
}

// -----

// pack_b = "lanes" copies a computed f32 B; an i8 contraction has none.
func.func private @dispatch_0(%a: tensor<12x8xi8>, %b: tensor<8x16xi8>) -> tensor<12x16xi32> attributes {kiln.dispatch, kiln.lowering_config = {strategy = "contraction", register_tile = array<i64: 6, 16>, reduction_tile = 0 : i64, pack_b = "lanes", workgroup_tile = array<i64: 12, 16, 0>}} {
  %c0 = arith.constant 0 : i32
  %0 = tensor.empty() : tensor<12x16xi32>
  %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<12x16xi32>) -> tensor<12x16xi32>
  // expected-error @+1 {{pack_b = "lanes" copies a computed f32 B with contiguous lanes shared by all rows, one reduction dim and a static K, not packed or gathered otherwise}}
  %2 = linalg.matmul ins(%a, %b : tensor<12x8xi8>, tensor<8x16xi8>) outs(%1 : tensor<12x16xi32>) -> tensor<12x16xi32>
  return %2 : tensor<12x16xi32>
}

// -----

// The lane panel is stack scratch of one K block: at most 32 KiB.
func.func private @dispatch_0(%a: tensor<12x1024xf32>, %b: tensor<1024x16xf32>) -> tensor<12x16xf32> attributes {kiln.dispatch, kiln.lowering_config = {strategy = "contraction", register_tile = array<i64: 6, 16>, reduction_tile = 1024 : i64, pack_b = "lanes", workgroup_tile = array<i64: 12, 16, 0>}} {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<12x16xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<12x16xf32>) -> tensor<12x16xf32>
  // expected-error @+1 {{pack_b = "lanes": a K block of 1024 x 16 lanes exceeds the 32 KiB panel (set a smaller reduction_tile)}}
  %2 = linalg.matmul ins(%a, %b : tensor<12x1024xf32>, tensor<1024x16xf32>) outs(%1 : tensor<12x16xf32>) -> tensor<12x16xf32>
  return %2 : tensor<12x16xf32>
}
