// REQUIRES: cpu-amxint8, cpu-amxtile, cpu-avx512bw, cpu-avx512vl
// RUN: kiln-opt --kiln-cpu-codegen=cpu=sapphirerapids %s | mlir-translate --mlir-to-llvmir -o %t.ll
// RUN: llc -O2 -mcpu=sapphirerapids -relocation-model=pic -filetype=obj %t.ll -o %t.o
// RUN: llvm-objdump -d --no-show-raw-insn %t.o | FileCheck %s --check-prefix=ASM
// RUN: ld.lld -shared %t.o -o %t.so
// RUN: run_int8_kernels %t.so tq_0:tquad:70:320:100 tq_1:tquad:16:64:16 tq_2:tquad:64:128:96 | FileCheck %s

// Numerics of the AMX int8 kernels (AmxKernel.h; UNSUPPORTED on a host
// without AMX-INT8) against an exact integer matmul
// (Inputs/run_int8_kernels.c): B packed in AMX tile panels of K quads
// without vpdpbusd's correction (N = 100: a last panel of 4 columns,
// zero-padded, stored through a stack tile), A and B signed bytes that include -128 and 127 (tdpbssd
// multiplies s8 by s8, so nothing needs to be flipped or bounded).
//  - tq_0: 70x320x100 with the backend's config: workgroup tiles of
//    35 x 50 (divisors of M and N), so every workgroup has edge tiles
//    that start at extent - 16 and overlap their neighbours;
//  - tq_1: one 16x16 tile, K = 64 (one tile step);
//  - tq_2: a hand-set workgroup tile of 64 x 48 (two 32-column blocks,
//    the second clamped back to columns 32..47).

// ASM: ldtilecfg
// ASM: tileloadd
// ASM: tdpbssd %tmm{{[0-7]}}, %tmm{{[0-7]}}, %tmm{{[0-7]}}
// ASM: tilestored
// ASM: tilerelease

// CHECK: tq_0: ok (70x320x100 tquad)
// CHECK: tq_1: ok (16x64x16 tquad)
// CHECK: tq_2: ok (64x128x96 tquad)
module {
  func.func private @tq_0(%a: tensor<70x320xi8>, %b: tensor<7x80x16x4xi8>) -> tensor<70x100xi32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<70x100xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<70x100xi32>) -> tensor<70x100xi32>
    %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n floordiv 16, k floordiv 4, n mod 16, k mod 4)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<70x320xi8>, tensor<7x80x16x4xi8>) outs(%1 : tensor<70x100xi32>) {
    ^bb0(%x: i8, %y: i8, %acc: i32):
      %xs = arith.extsi %x : i8 to i32
      %ys = arith.extsi %y : i8 to i32
      %p = arith.muli %xs, %ys : i32
      %s = arith.addi %acc, %p : i32
      linalg.yield %s : i32
    } -> tensor<70x100xi32>
    return %2 : tensor<70x100xi32>
  }
  func.func private @tq_1(%a: tensor<16x64xi8>, %b: tensor<1x16x16x4xi8>) -> tensor<16x16xi32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<16x16xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<16x16xi32>) -> tensor<16x16xi32>
    %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n floordiv 16, k floordiv 4, n mod 16, k mod 4)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x64xi8>, tensor<1x16x16x4xi8>) outs(%1 : tensor<16x16xi32>) {
    ^bb0(%x: i8, %y: i8, %acc: i32):
      %xs = arith.extsi %x : i8 to i32
      %ys = arith.extsi %y : i8 to i32
      %p = arith.muli %xs, %ys : i32
      %s = arith.addi %acc, %p : i32
      linalg.yield %s : i32
    } -> tensor<16x16xi32>
    return %2 : tensor<16x16xi32>
  }
  func.func private @tq_2(%a: tensor<64x128xi8>, %b: tensor<6x32x16x4xi8>) -> tensor<64x96xi32> attributes {kiln.dispatch, kiln.lowering_config = {native = "amx", operand_type = i8, reduction_tile = 0 : i64, register_tile = array<i64: 32, 32>, strategy = "contraction", workgroup_tile = array<i64: 64, 48, 0>}} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<64x96xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<64x96xi32>) -> tensor<64x96xi32>
    %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n floordiv 16, k floordiv 4, n mod 16, k mod 4)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<64x128xi8>, tensor<6x32x16x4xi8>) outs(%1 : tensor<64x96xi32>) {
    ^bb0(%x: i8, %y: i8, %acc: i32):
      %xs = arith.extsi %x : i8 to i32
      %ys = arith.extsi %y : i8 to i32
      %p = arith.muli %xs, %ys : i32
      %s = arith.addi %acc, %p : i32
      linalg.yield %s : i32
    } -> tensor<64x96xi32>
    return %2 : tensor<64x96xi32>
  }
}
