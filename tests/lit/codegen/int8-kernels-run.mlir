// REQUIRES: cpu-avx512vnni, cpu-avx512bw, cpu-avx512vl
// RUN: kiln-opt --kiln-cpu-codegen=cpu=znver4 %s | mlir-translate --mlir-to-llvmir -o %t.ll
// RUN: llc -O2 -mcpu=znver4 -relocation-model=pic -filetype=obj %t.ll -o %t.o
// RUN: ld.lld -shared %t.o -o %t.so
// RUN: run_int8_kernels %t.so quad_0:quad:70:300:100 quad_1:quad:9:301:37 quad_2:quad:1:7:5 pair_0:pair:70:300:100 pair_1:pair:9:301:37 pair_2:pair:1:7:5 plain_0:plain:70:300:100 plain_1:plain:1:7:5 panel_0:plain:9:301:37 convert_0:plain:70:300:100 | FileCheck %s

// Numerics of the int8 register-tile kernels on AVX-512 with VNNI
// (znver4; UNSUPPORTED on a host without AVX512-VNNI): every output
// of the three B layouts matches an exact integer matmul
// (Inputs/run_int8_kernels.c, which packs B as documented in
// compiler/targets/cpu/DataTiling.h):
//  - quad: vpdpbusd on K quads, A flipped to unsigned, accumulators
//    started at -128 * colsum(B);
//  - pair: i8 pairs widened to i16 and summed by pmaddwd (no VNNI needed);
//  - plain: B not packed ahead of time (not a constant): plain_0 (70 rows)
//    gets `pack_b = "panels"` from the backend, the kernel packing each
//    K block x 32-lane panel of B into K quads itself (A flipped, and
//    128 * the panel's column sums subtracted); panel_0 asks for that by
//    hand with K blocks of 64 (K = 301: a last group of one, N = 37: a
//    masked half tile); plain_1 (one row) and convert_0 (a config without
//    pack_b) widen i8 to i32 on load.
// Shapes: whole and edge tiles (70x300x100), K blocks of 64 with K = 301
// (a last group of one) and N = 37 (a masked half tile), and M = 1, K = 7,
// N = 5.

// CHECK: quad_0: ok (70x300x100 quad)
// CHECK: quad_1: ok (9x301x37 quad)
// CHECK: quad_2: ok (1x7x5 quad)
// CHECK: pair_0: ok (70x300x100 pair)
// CHECK: pair_1: ok (9x301x37 pair)
// CHECK: pair_2: ok (1x7x5 pair)
// CHECK: plain_0: ok (70x300x100 plain)
// CHECK: plain_1: ok (1x7x5 plain)
// CHECK: panel_0: ok (9x301x37 plain)
// CHECK: convert_0: ok (70x300x100 plain)
module {
  func.func private @quad_0(%a: tensor<70x300xi8>, %b: tensor<75x100x4xi8>, %corr: tensor<100xi32>) -> tensor<70x100xi32> attributes {kiln.dispatch} {
    %0 = tensor.empty() : tensor<70x100xi32>
    %1 = linalg.generic {indexing_maps = [affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%corr : tensor<100xi32>) outs(%0 : tensor<70x100xi32>) {
    ^bb0(%in: i32, %out: i32):
      linalg.yield %in : i32
    } -> tensor<70x100xi32>
    %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k floordiv 4, n, k mod 4)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<70x300xi8>, tensor<75x100x4xi8>) outs(%1 : tensor<70x100xi32>) {
    ^bb0(%x: i8, %y: i8, %acc: i32):
      %c128 = arith.constant -128 : i8
      %f = arith.xori %x, %c128 : i8
      %xu = arith.extui %f : i8 to i32
      %ys = arith.extsi %y : i8 to i32
      %p = arith.muli %xu, %ys : i32
      %s = arith.addi %acc, %p : i32
      linalg.yield %s : i32
    } -> tensor<70x100xi32>
    return %2 : tensor<70x100xi32>
  }
  func.func private @quad_1(%a: tensor<9x301xi8>, %b: tensor<76x37x4xi8>, %corr: tensor<37xi32>) -> tensor<9x37xi32> attributes {kiln.dispatch, kiln.lowering_config = {reduction_tile = 64 : i64, register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 64, 64, 0>}} {
    %0 = tensor.empty() : tensor<9x37xi32>
    %1 = linalg.generic {indexing_maps = [affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%corr : tensor<37xi32>) outs(%0 : tensor<9x37xi32>) {
    ^bb0(%in: i32, %out: i32):
      linalg.yield %in : i32
    } -> tensor<9x37xi32>
    %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k floordiv 4, n, k mod 4)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<9x301xi8>, tensor<76x37x4xi8>) outs(%1 : tensor<9x37xi32>) {
    ^bb0(%x: i8, %y: i8, %acc: i32):
      %c128 = arith.constant -128 : i8
      %f = arith.xori %x, %c128 : i8
      %xu = arith.extui %f : i8 to i32
      %ys = arith.extsi %y : i8 to i32
      %p = arith.muli %xu, %ys : i32
      %s = arith.addi %acc, %p : i32
      linalg.yield %s : i32
    } -> tensor<9x37xi32>
    return %2 : tensor<9x37xi32>
  }
  func.func private @quad_2(%a: tensor<1x7xi8>, %b: tensor<2x5x4xi8>, %corr: tensor<5xi32>) -> tensor<1x5xi32> attributes {kiln.dispatch} {
    %0 = tensor.empty() : tensor<1x5xi32>
    %1 = linalg.generic {indexing_maps = [affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%corr : tensor<5xi32>) outs(%0 : tensor<1x5xi32>) {
    ^bb0(%in: i32, %out: i32):
      linalg.yield %in : i32
    } -> tensor<1x5xi32>
    %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k floordiv 4, n, k mod 4)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1x7xi8>, tensor<2x5x4xi8>) outs(%1 : tensor<1x5xi32>) {
    ^bb0(%x: i8, %y: i8, %acc: i32):
      %c128 = arith.constant -128 : i8
      %f = arith.xori %x, %c128 : i8
      %xu = arith.extui %f : i8 to i32
      %ys = arith.extsi %y : i8 to i32
      %p = arith.muli %xu, %ys : i32
      %s = arith.addi %acc, %p : i32
      linalg.yield %s : i32
    } -> tensor<1x5xi32>
    return %2 : tensor<1x5xi32>
  }
  func.func private @pair_0(%a: tensor<70x300xi8>, %b: tensor<150x100x2xi8>) -> tensor<70x100xi32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<70x100xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<70x100xi32>) -> tensor<70x100xi32>
    %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k floordiv 2, n, k mod 2)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<70x300xi8>, tensor<150x100x2xi8>) outs(%1 : tensor<70x100xi32>) {
    ^bb0(%x: i8, %y: i8, %acc: i32):
      %xs = arith.extsi %x : i8 to i32
      %ys = arith.extsi %y : i8 to i32
      %p = arith.muli %xs, %ys : i32
      %s = arith.addi %acc, %p : i32
      linalg.yield %s : i32
    } -> tensor<70x100xi32>
    return %2 : tensor<70x100xi32>
  }
  func.func private @pair_1(%a: tensor<9x301xi8>, %b: tensor<151x37x2xi8>) -> tensor<9x37xi32> attributes {kiln.dispatch, kiln.lowering_config = {reduction_tile = 64 : i64, register_tile = array<i64: 6, 16>, strategy = "contraction", workgroup_tile = array<i64: 64, 64, 0>}} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<9x37xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<9x37xi32>) -> tensor<9x37xi32>
    %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k floordiv 2, n, k mod 2)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<9x301xi8>, tensor<151x37x2xi8>) outs(%1 : tensor<9x37xi32>) {
    ^bb0(%x: i8, %y: i8, %acc: i32):
      %xs = arith.extsi %x : i8 to i32
      %ys = arith.extsi %y : i8 to i32
      %p = arith.muli %xs, %ys : i32
      %s = arith.addi %acc, %p : i32
      linalg.yield %s : i32
    } -> tensor<9x37xi32>
    return %2 : tensor<9x37xi32>
  }
  func.func private @pair_2(%a: tensor<1x7xi8>, %b: tensor<4x5x2xi8>) -> tensor<1x5xi32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<1x5xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<1x5xi32>) -> tensor<1x5xi32>
    %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k floordiv 2, n, k mod 2)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1x7xi8>, tensor<4x5x2xi8>) outs(%1 : tensor<1x5xi32>) {
    ^bb0(%x: i8, %y: i8, %acc: i32):
      %xs = arith.extsi %x : i8 to i32
      %ys = arith.extsi %y : i8 to i32
      %p = arith.muli %xs, %ys : i32
      %s = arith.addi %acc, %p : i32
      linalg.yield %s : i32
    } -> tensor<1x5xi32>
    return %2 : tensor<1x5xi32>
  }
  func.func private @plain_0(%a: tensor<70x300xi8>, %b: tensor<300x100xi8>) -> tensor<70x100xi32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<70x100xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<70x100xi32>) -> tensor<70x100xi32>
    %2 = linalg.matmul ins(%a, %b : tensor<70x300xi8>, tensor<300x100xi8>) outs(%1 : tensor<70x100xi32>) -> tensor<70x100xi32>
    return %2 : tensor<70x100xi32>
  }
  func.func private @plain_1(%a: tensor<1x7xi8>, %b: tensor<7x5xi8>) -> tensor<1x5xi32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<1x5xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<1x5xi32>) -> tensor<1x5xi32>
    %2 = linalg.matmul ins(%a, %b : tensor<1x7xi8>, tensor<7x5xi8>) outs(%1 : tensor<1x5xi32>) -> tensor<1x5xi32>
    return %2 : tensor<1x5xi32>
  }
  func.func private @panel_0(%a: tensor<9x301xi8>, %b: tensor<301x37xi8>) -> tensor<9x37xi32> attributes {kiln.dispatch, kiln.lowering_config = {native = "vnni", pack_b = "panels", reduction_tile = 64 : i64, register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 64, 64, 0>}} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<9x37xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<9x37xi32>) -> tensor<9x37xi32>
    %2 = linalg.matmul ins(%a, %b : tensor<9x301xi8>, tensor<301x37xi8>) outs(%1 : tensor<9x37xi32>) -> tensor<9x37xi32>
    return %2 : tensor<9x37xi32>
  }
  func.func private @convert_0(%a: tensor<70x300xi8>, %b: tensor<300x100xi8>) -> tensor<70x100xi32> attributes {kiln.dispatch, kiln.lowering_config = {register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 64, 64, 0>}} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<70x100xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<70x100xi32>) -> tensor<70x100xi32>
    %2 = linalg.matmul ins(%a, %b : tensor<70x300xi8>, tensor<300x100xi8>) outs(%1 : tensor<70x100xi32>) -> tensor<70x100xi32>
    return %2 : tensor<70x100xi32>
  }
}
