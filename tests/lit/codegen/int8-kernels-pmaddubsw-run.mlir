// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v3 %s | mlir-translate --mlir-to-llvmir -o %t.ll
// RUN: llc -O2 -mcpu=x86-64-v3 -relocation-model=pic -filetype=obj %t.ll -o %t.o
// RUN: llvm-objdump -d --no-show-raw-insn %t.o | FileCheck %s --check-prefix=ASM
// RUN: ld.lld -shared %t.o -o %t.so
// RUN: run_int8_kernels %t.so squad_0:squad:70:300:100 squad_1:squad:9:301:37 squad_2:squad:1:7:5 npanel_0:npanel:9:301:37 npanel_1:npanel:70:300:100 | FileCheck %s

// Numerics of the AVX2 pmaddubsw int8 kernels (x86-64-v3, ymm) against an
// exact integer matmul (Inputs/run_int8_kernels.c), on the inputs that
// would saturate a plain vpmaddubsw: whole rows of A at -128 or 127
// against whole columns of B at -127 (or -128), so i16 pair sums reach
// 2 * 128 * 127 = 32512 of both signs, and otherwise mostly extremes.
//  - squad: B packed in K quads (no -128, as the data tiling only packs
//    such a B so), |A| x B * sign(A); K = 301 and 7 leave a partial last
//    quad, N = 37 and 5 masked last tiles, M = 1 and 9 partial row tiles.
//  - npanel: B computed, packed by the kernel into quad panels; A (no
//    -128) x sign(B) against |B|, B holding -128. The config is written
//    here as the lowering config would choose it for a filter marked
//    kiln.narrow_lhs.

// ASM: vpsignb
// ASM: vpmaddubsw
// ASM: vpmaddwd

// CHECK: squad_0: ok (70x300x100 squad)
// CHECK: squad_1: ok (9x301x37 squad)
// CHECK: squad_2: ok (1x7x5 squad)
// CHECK: npanel_0: ok (9x301x37 npanel)
// CHECK: npanel_1: ok (70x300x100 npanel)
module {
  func.func private @squad_0(%a: tensor<70x300xi8>, %b: tensor<75x100x4xi8>) -> tensor<70x100xi32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<70x100xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<70x100xi32>) -> tensor<70x100xi32>
    %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k floordiv 4, n, k mod 4)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<70x300xi8>, tensor<75x100x4xi8>) outs(%1 : tensor<70x100xi32>) {
    ^bb0(%x: i8, %y: i8, %acc: i32):
      %xs = arith.extsi %x : i8 to i32
      %ys = arith.extsi %y : i8 to i32
      %p = arith.muli %xs, %ys : i32
      %s = arith.addi %acc, %p : i32
      linalg.yield %s : i32
    } -> tensor<70x100xi32>
    return %2 : tensor<70x100xi32>
  }
  func.func private @squad_1(%a: tensor<9x301xi8>, %b: tensor<76x37x4xi8>) -> tensor<9x37xi32> attributes {kiln.dispatch, kiln.lowering_config = {native = "pmaddubsw", operand_type = i8, reduction_tile = 64 : i64, register_tile = array<i64: 4, 16>, strategy = "contraction", workgroup_tile = array<i64: 64, 64, 0>}} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<9x37xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<9x37xi32>) -> tensor<9x37xi32>
    %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k floordiv 4, n, k mod 4)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<9x301xi8>, tensor<76x37x4xi8>) outs(%1 : tensor<9x37xi32>) {
    ^bb0(%x: i8, %y: i8, %acc: i32):
      %xs = arith.extsi %x : i8 to i32
      %ys = arith.extsi %y : i8 to i32
      %p = arith.muli %xs, %ys : i32
      %s = arith.addi %acc, %p : i32
      linalg.yield %s : i32
    } -> tensor<9x37xi32>
    return %2 : tensor<9x37xi32>
  }
  func.func private @squad_2(%a: tensor<1x7xi8>, %b: tensor<2x5x4xi8>) -> tensor<1x5xi32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<1x5xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<1x5xi32>) -> tensor<1x5xi32>
    %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k floordiv 4, n, k mod 4)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1x7xi8>, tensor<2x5x4xi8>) outs(%1 : tensor<1x5xi32>) {
    ^bb0(%x: i8, %y: i8, %acc: i32):
      %xs = arith.extsi %x : i8 to i32
      %ys = arith.extsi %y : i8 to i32
      %p = arith.muli %xs, %ys : i32
      %s = arith.addi %acc, %p : i32
      linalg.yield %s : i32
    } -> tensor<1x5xi32>
    return %2 : tensor<1x5xi32>
  }
  func.func private @npanel_0(%a: tensor<9x301xi8>, %b: tensor<301x37xi8>) -> tensor<9x37xi32> attributes {kiln.dispatch, kiln.lowering_config = {native = "pmaddubsw", operand_type = i8, pack_b = "panels", reduction_tile = 64 : i64, register_tile = array<i64: 4, 16>, strategy = "contraction", workgroup_tile = array<i64: 64, 64, 0>}} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<9x37xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<9x37xi32>) -> tensor<9x37xi32>
    %2 = linalg.matmul {kiln.narrow_lhs} ins(%a, %b : tensor<9x301xi8>, tensor<301x37xi8>) outs(%1 : tensor<9x37xi32>) -> tensor<9x37xi32>
    return %2 : tensor<9x37xi32>
  }
  func.func private @npanel_1(%a: tensor<70x300xi8>, %b: tensor<300x100xi8>) -> tensor<70x100xi32> attributes {kiln.dispatch, kiln.lowering_config = {native = "pmaddubsw", operand_type = i8, pack_b = "panels", reduction_tile = 0 : i64, register_tile = array<i64: 4, 16>, strategy = "contraction", workgroup_tile = array<i64: 64, 64, 0>}} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<70x100xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<70x100xi32>) -> tensor<70x100xi32>
    %2 = linalg.matmul {kiln.narrow_lhs} ins(%a, %b : tensor<70x300xi8>, tensor<300x100xi8>) outs(%1 : tensor<70x100xi32>) -> tensor<70x100xi32>
    return %2 : tensor<70x100xi32>
  }
}
