// RUN: kiln-opt --kiln-cpu-codegen=cpu=znver4 %s -split-input-file -verify-diagnostics
// RUN: not kiln-opt --kiln-cpu-codegen=cpu=x86-64-v4 %s -split-input-file 2>&1 | FileCheck %s --check-prefix=NOVNNI

// Hand-set `pack_b` configurations (kernel-packed B panels, LoweringConfig.h)
// are checked before they are used.

// expected-error @+1 {{'pack_b' must be "panels" or "lanes"}}
func.func private @dispatch_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "vnni", pack_b = "yes", register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 0>}} {
  return %arg0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'pack_b' needs 'native' = "vnni", "pmaddubsw", "pmaddwd", "dpbf16" or "amx"}}
func.func private @dispatch_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "convert", pack_b = "panels", register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 0>}} {
  return %arg0 : tensor<4xf32>
}

// -----

// f32 operands have no K-group path.
func.func private @dispatch_0(%a: tensor<16x64xf32>, %b: tensor<64x32xf32>) -> tensor<16x32xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "vnni", pack_b = "panels", register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 16, 32, 0>}} {
  %c0 = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<16x32xf32>
  %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<16x32xf32>) -> tensor<16x32xf32>
  // expected-error @+1 {{the lowering config asks for B packed in panels (pack_b), but B is packed already or is not a computed i8/bf16 operand with contiguous lanes and A contiguous along k}}
  %2 = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x32xf32>) outs(%1 : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %2 : tensor<16x32xf32>
}

// -----

// The path must take the operands: vdpbf16ps does not multiply bytes.
func.func private @dispatch_0(%a: tensor<16x64xi8>, %b: tensor<64x32xi8>) -> tensor<16x32xi32> attributes {kiln.dispatch, kiln.lowering_config = {native = "dpbf16", pack_b = "panels", register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 16, 32, 0>}} {
  %c0 = arith.constant 0 : i32
  %0 = tensor.empty() : tensor<16x32xi32>
  %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<16x32xi32>) -> tensor<16x32xi32>
  // expected-error @+1 {{the 'dpbf16' path does not take 'i8' operands}}
  %2 = linalg.matmul ins(%a, %b : tensor<16x64xi8>, tensor<64x32xi8>) outs(%1 : tensor<16x32xi32>) -> tensor<16x32xi32>
  return %2 : tensor<16x32xi32>
}

// -----

// A B packed ahead of time (K quads) is not packed again.
func.func private @dispatch_0(%a: tensor<16x64xi8>, %b: tensor<32x32x2xi8>) -> tensor<16x32xi32> attributes {kiln.dispatch, kiln.lowering_config = {native = "pmaddwd", pack_b = "panels", register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 16, 32, 0>}} {
  %c0 = arith.constant 0 : i32
  %0 = tensor.empty() : tensor<16x32xi32>
  %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<16x32xi32>) -> tensor<16x32xi32>
  // expected-error @+1 {{the lowering config asks for B packed in panels (pack_b), but B is packed already}}
  %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k floordiv 2, n, k mod 2)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x64xi8>, tensor<32x32x2xi8>) outs(%1 : tensor<16x32xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xs = arith.extsi %x : i8 to i32
    %ys = arith.extsi %y : i8 to i32
    %p = arith.muli %xs, %ys : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<16x32xi32>
  return %2 : tensor<16x32xi32>
}

// -----

// Valid on znver4; x86-64-v4 has AVX-512 but no VNNI.
// NOVNNI: error: 'linalg.matmul' op reads B packed for the 'vnni' path, which CPU 'x86-64-v4' has no instruction for
func.func private @dispatch_0(%a: tensor<16x64xi8>, %b: tensor<64x32xi8>) -> tensor<16x32xi32> attributes {kiln.dispatch, kiln.lowering_config = {native = "vnni", pack_b = "panels", register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 16, 32, 0>}} {
  %c0 = arith.constant 0 : i32
  %0 = tensor.empty() : tensor<16x32xi32>
  %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<16x32xi32>) -> tensor<16x32xi32>
  %2 = linalg.matmul ins(%a, %b : tensor<16x64xi8>, tensor<64x32xi8>) outs(%1 : tensor<16x32xi32>) -> tensor<16x32xi32>
  return %2 : tensor<16x32xi32>
}

// -----

// pmaddubsw multiplies A by sign(B), which wraps for an A byte of -128:
// only kiln-cpu-pack-weights, reading a constant A, may mark A narrow.
func.func private @dispatch_0(%a: tensor<16x64xi8>, %b: tensor<64x32xi8>) -> tensor<16x32xi32> attributes {kiln.dispatch, kiln.lowering_config = {native = "pmaddubsw", pack_b = "panels", register_tile = array<i64: 4, 16>, strategy = "contraction", workgroup_tile = array<i64: 16, 32, 0>}} {
  %c0 = arith.constant 0 : i32
  %0 = tensor.empty() : tensor<16x32xi32>
  %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<16x32xi32>) -> tensor<16x32xi32>
  // expected-error @+1 {{the 'pmaddubsw' path needs an A known to hold no -128}}
  %2 = linalg.matmul ins(%a, %b : tensor<16x64xi8>, tensor<64x32xi8>) outs(%1 : tensor<16x32xi32>) -> tensor<16x32xi32>
  return %2 : tensor<16x32xi32>
}
