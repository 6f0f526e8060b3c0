// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v3 %s | mlir-translate --mlir-to-llvmir -o %t.ll
// RUN: llc -O2 -mcpu=x86-64-v3 -relocation-model=pic -filetype=obj %t.ll -o %t.o
// RUN: ld.lld -shared %t.o -o %t.so
// RUN: run_int8_kernels %t.so pair_0:pair:70:300:100 pair_1:pair:9:301:37 pair_2:pair:1:7:5 plain_0:plain:70:300:100 plain_1:plain:1:7:5 panel_0:plain:9:301:37 convert_0:plain:70:300:100 | FileCheck %s

// Numerics of the int8 register-tile kernels on AVX2 without VNNI
// (x86-64-v3): K-pair-packed B sign-extended to i16 and summed by
// vpmaddwd (ymm); an unpacked B packed into K pairs by the kernel, one
// K block x 16-lane panel at a time (plain_0 by the backend's choice,
// panel_0 by hand with K blocks of 64), or widened to i32 on load (plain_1,
// convert_0); against an exact integer matmul
// (Inputs/run_int8_kernels.c). Same edge shapes as int8-kernels-run.mlir,
// with 6x16 tiles.

// CHECK: pair_0: ok (70x300x100 pair)
// CHECK: pair_1: ok (9x301x37 pair)
// CHECK: pair_2: ok (1x7x5 pair)
// CHECK: plain_0: ok (70x300x100 plain)
// CHECK: plain_1: ok (1x7x5 plain)
// CHECK: panel_0: ok (9x301x37 plain)
// CHECK: convert_0: ok (70x300x100 plain)
module {
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
  func.func private @panel_0(%a: tensor<9x301xi8>, %b: tensor<301x37xi8>) -> tensor<9x37xi32> attributes {kiln.dispatch, kiln.lowering_config = {native = "pmaddwd", pack_b = "panels", reduction_tile = 64 : i64, register_tile = array<i64: 6, 16>, strategy = "contraction", workgroup_tile = array<i64: 64, 64, 0>}} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<9x37xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<9x37xi32>) -> tensor<9x37xi32>
    %2 = linalg.matmul ins(%a, %b : tensor<9x301xi8>, tensor<301x37xi8>) outs(%1 : tensor<9x37xi32>) -> tensor<9x37xi32>
    return %2 : tensor<9x37xi32>
  }
  func.func private @convert_0(%a: tensor<70x300xi8>, %b: tensor<300x100xi8>) -> tensor<70x100xi32> attributes {kiln.dispatch, kiln.lowering_config = {register_tile = array<i64: 6, 16>, strategy = "contraction", workgroup_tile = array<i64: 64, 64, 0>}} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<70x100xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<70x100xi32>) -> tensor<70x100xi32>
    %2 = linalg.matmul ins(%a, %b : tensor<70x300xi8>, tensor<300x100xi8>) outs(%1 : tensor<70x100xi32>) -> tensor<70x100xi32>
    return %2 : tensor<70x100xi32>
  }
}
