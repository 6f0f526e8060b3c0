// RUN: kiln-opt --kiln-cpu-codegen=cpu=cooperlake %s -split-input-file -verify-diagnostics
// RUN: kiln-opt --kiln-cpu-codegen=cpu=sapphirerapids %s -split-input-file -verify-diagnostics

// Hand-set AMX configurations (native = "amx") are checked against the
// dispatch and the CPU: the same errors on a CPU without AMX (cooperlake)
// and on one with it (sapphirerapids), where these contractions still
// cannot take the tile kernel.

// B is not packed in AMX tile panels (the data tiling did not run).
func.func private @dispatch_0(%a: tensor<32x64xbf16>, %b: tensor<64x32xbf16>) -> tensor<32x32xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "amx", operand_type = bf16, reduction_tile = 0 : i64, register_tile = array<i64: 32, 32>, strategy = "contraction", workgroup_tile = array<i64: 32, 32, 0>}} {
  %c0 = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<32x32xf32>
  %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<32x32xf32>) -> tensor<32x32xf32>
  // expected-error @+1 {{the lowering config asks for AMX tiles, which need bf16 or i8 operands with B packed in AMX tile panels by the data tiling (or, with pack_b, a B to pack), C filled before it, static M, N >= 16, K a multiple of 32 bf16 or 64 i8, and CPU}}
  %2 = linalg.matmul ins(%a, %b : tensor<32x64xbf16>, tensor<64x32xbf16>) outs(%1 : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %2 : tensor<32x32xf32>
}

// -----

// B packed in vdpbf16ps's K pairs, not AMX tile panels.
func.func private @dispatch_0(%a: tensor<8x64xbf16>, %b: tensor<32x32x2xbf16>) -> tensor<8x32xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "amx", operand_type = bf16, reduction_tile = 0 : i64, register_tile = array<i64: 32, 32>, strategy = "contraction", workgroup_tile = array<i64: 8, 32, 0>}} {
  %c0 = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<8x32xf32>
  %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  // expected-error @+1 {{the lowering config asks for AMX tiles}}
  %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k floordiv 2, n, k mod 2)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<8x64xbf16>, tensor<32x32x2xbf16>) outs(%1 : tensor<8x32xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %2 : tensor<8x32xf32>
}

// -----

// pack_b = "panels" asks the kernel to pack B itself: not a B the data
// tiling packed already.
func.func private @dispatch_0(%a: tensor<32x64xbf16>, %b: tensor<2x32x16x2xbf16>) -> tensor<32x32xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "amx", operand_type = bf16, pack_b = "panels", reduction_tile = 0 : i64, register_tile = array<i64: 32, 32>, strategy = "contraction", workgroup_tile = array<i64: 32, 32, 0>}} {
  %c0 = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<32x32xf32>
  %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<32x32xf32>) -> tensor<32x32xf32>
  // expected-error @+1 {{the lowering config asks for B packed in panels (pack_b), but B is packed already}}
  %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n floordiv 16, k floordiv 2, n mod 16, k mod 2)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<32x64xbf16>, tensor<2x32x16x2xbf16>) outs(%1 : tensor<32x32xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  return %2 : tensor<32x32xf32>
}

// -----

// M = 8: fewer rows than one tile, even with B in tile panels.
func.func private @dispatch_0(%a: tensor<8x64xbf16>, %b: tensor<2x32x16x2xbf16>) -> tensor<8x32xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "amx", operand_type = bf16, reduction_tile = 0 : i64, register_tile = array<i64: 32, 32>, strategy = "contraction", workgroup_tile = array<i64: 8, 32, 0>}} {
  %c0 = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<8x32xf32>
  %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  // expected-error @+1 {{the lowering config asks for AMX tiles}}
  %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n floordiv 16, k floordiv 2, n mod 16, k mod 2)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<8x64xbf16>, tensor<2x32x16x2xbf16>) outs(%1 : tensor<8x32xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  return %2 : tensor<8x32xf32>
}
