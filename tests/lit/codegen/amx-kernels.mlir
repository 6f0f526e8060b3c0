// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=sapphirerapids %s | FileCheck %s --check-prefix=PACK
// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=sapphirerapids %s | kiln-opt --kiln-cpu-lowering-config=cpu=sapphirerapids | FileCheck %s --check-prefix=CONFIG
// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=cooperlake %s | kiln-opt --kiln-cpu-lowering-config=cpu=cooperlake | FileCheck %s --check-prefix=NOAMX

// On CPUs with AMX (sapphirerapids), bf16 and i8 contractions with a
// constant B run on the tile unit (AmxKernel.h): `native = "amx"`.
//  - B is packed in AMX tile panels [ceil(N/16)][K/g][16][g], zero past
//    N (48 -> 3 panels, 24 -> 2): each 16 x 16-column B tile is 1 KiB of
//    contiguous bytes.
//  - i8: K quads without vpdpbusd's correction constant, A signed as it
//    is (tdpbssd); the same weights packed for a dispatch that cannot
//    take AMX tiles get vpdpbusd's layout and correction (dispatch_2:
//    M = 8).
//  - bf16 that the tile unit does not take stays unpacked (dispatch_3,
//    K = 48): on the AMX Xeons vdpbf16ps is slower than widening to f32
//    and FMAs (CpuTarget.cpp), so it converts on load.
//  - A computed B is not packed here (dispatch_4).
//  - The tile kernel needs M, N >= 16 and K a multiple of one 64-byte tile
//    row (32 bf16, 64 i8); other contractions keep the vector paths:
//    dispatch_2 (M = 8, vnni) and dispatch_3 (K = 48, convert).
//  - cooperlake (AVX512-BF16 and VNNI, no AMX) takes the vector paths
//    everywhere.

// PACK-LABEL: func.func @main(
// PACK: call @dispatch_0(%{{.*}}, %{{.*}}) : (tensor<64x128xi8>, tensor<3x32x16x4xi8>) -> tensor<64x48xi32>
// PACK: call @dispatch_1(%{{.*}}, %{{.*}}) : (tensor<40x64xbf16>, tensor<2x32x16x2xbf16>) -> tensor<40x24xf32>
// PACK: call @dispatch_2(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<8x128xi8>, tensor<32x48x4xi8>, tensor<48xi32>) -> tensor<8x48xi32>
// PACK: call @dispatch_3(%{{.*}}, %{{.*}}) : (tensor<40x48xbf16>, tensor<48x24xbf16>) -> tensor<40x24xf32>
// PACK-LABEL: func.func private @dispatch_0(
// PACK-SAME: tensor<3x32x16x4xi8>
// PACK: arith.extsi
// PACK-NOT: arith.xori
// PACK: linalg.yield

// CONFIG-LABEL: func.func private @dispatch_0(
// CONFIG-SAME: native = "amx", operand_type = i8, reduction_tile = 0 : i64, register_tile = array<i64: 32, 32>, strategy = "contraction", workgroup_tile = array<i64: 32, 16, 0>
// CONFIG-LABEL: func.func private @dispatch_1(
// CONFIG-SAME: native = "amx", operand_type = bf16, reduction_tile = 0 : i64, register_tile = array<i64: 32, 32>, strategy = "contraction", workgroup_tile = array<i64: 20, 24, 0>
// CONFIG-LABEL: func.func private @dispatch_2(
// CONFIG-SAME: native = "vnni"
// CONFIG-LABEL: func.func private @dispatch_3(
// CONFIG-SAME: native = "convert"

// A computed B (a convolution's im2col columns, dispatch_4) is packed by
// the kernel into tile panels, a 32-column block at a time.
// CONFIG-LABEL: func.func private @dispatch_4(
// CONFIG-SAME: native = "amx", operand_type = bf16, pack_b = "panels", reduction_tile = 0 : i64, register_tile = array<i64: 32, 32>, strategy = "contraction"

// NOAMX-LABEL: func.func private @dispatch_0(
// NOAMX-SAME: native = "vnni"
// NOAMX-LABEL: func.func private @dispatch_1(
// NOAMX-SAME: native = "dpbf16"
// NOAMX-LABEL: func.func private @dispatch_4(
// NOAMX-SAME: native = "dpbf16", operand_type = bf16, pack_b = "panels"

// The kernels: amx-kernels-codegen.mlir.
module {
  func.func @main(%x: tensor<64x128xi8>, %y: tensor<40x64xbf16>, %x8: tensor<8x128xi8>, %y48: tensor<40x48xbf16>, %cols: tensor<1x64x40xbf16>) -> (tensor<64x48xi32>, tensor<40x24xf32>, tensor<8x48xi32>, tensor<40x24xf32>, tensor<1x32x40xf32>) {
    %w = arith.constant dense<3> : tensor<128x48xi8>
    %v = arith.constant dense<1.5> : tensor<64x24xbf16>
    %v48 = arith.constant dense<0.5> : tensor<48x24xbf16>
    %0 = call @dispatch_0(%x, %w) : (tensor<64x128xi8>, tensor<128x48xi8>) -> tensor<64x48xi32>
    %1 = call @dispatch_1(%y, %v) : (tensor<40x64xbf16>, tensor<64x24xbf16>) -> tensor<40x24xf32>
    %2 = call @dispatch_2(%x8, %w) : (tensor<8x128xi8>, tensor<128x48xi8>) -> tensor<8x48xi32>
    %3 = call @dispatch_3(%y48, %v48) : (tensor<40x48xbf16>, tensor<48x24xbf16>) -> tensor<40x24xf32>
    %filter = arith.constant dense<0.25> : tensor<32x64xbf16>
    %4 = call @dispatch_4(%filter, %cols) : (tensor<32x64xbf16>, tensor<1x64x40xbf16>) -> tensor<1x32x40xf32>
    return %0, %1, %2, %3, %4 : tensor<64x48xi32>, tensor<40x24xf32>, tensor<8x48xi32>, tensor<40x24xf32>, tensor<1x32x40xf32>
  }
  func.func private @dispatch_0(%a: tensor<64x128xi8>, %b: tensor<128x48xi8>) -> tensor<64x48xi32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<64x48xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<64x48xi32>) -> tensor<64x48xi32>
    %2 = linalg.matmul ins(%a, %b : tensor<64x128xi8>, tensor<128x48xi8>) outs(%1 : tensor<64x48xi32>) -> tensor<64x48xi32>
    return %2 : tensor<64x48xi32>
  }
  func.func private @dispatch_1(%a: tensor<40x64xbf16>, %b: tensor<64x24xbf16>) -> tensor<40x24xf32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<40x24xf32>
    %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<40x24xf32>) -> tensor<40x24xf32>
    %2 = linalg.matmul ins(%a, %b : tensor<40x64xbf16>, tensor<64x24xbf16>) outs(%1 : tensor<40x24xf32>) -> tensor<40x24xf32>
    return %2 : tensor<40x24xf32>
  }
  func.func private @dispatch_2(%a: tensor<8x128xi8>, %b: tensor<128x48xi8>) -> tensor<8x48xi32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<8x48xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<8x48xi32>) -> tensor<8x48xi32>
    %2 = linalg.matmul ins(%a, %b : tensor<8x128xi8>, tensor<128x48xi8>) outs(%1 : tensor<8x48xi32>) -> tensor<8x48xi32>
    return %2 : tensor<8x48xi32>
  }
  func.func private @dispatch_3(%a: tensor<40x48xbf16>, %b: tensor<48x24xbf16>) -> tensor<40x24xf32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<40x24xf32>
    %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<40x24xf32>) -> tensor<40x24xf32>
    %2 = linalg.matmul ins(%a, %b : tensor<40x48xbf16>, tensor<48x24xbf16>) outs(%1 : tensor<40x24xf32>) -> tensor<40x24xf32>
    return %2 : tensor<40x24xf32>
  }
  // A convolution as GEMM: the constant filter is A, the computed im2col
  // columns B.
  func.func private @dispatch_4(%w: tensor<32x64xbf16>, %cols: tensor<1x64x40xbf16>) -> tensor<1x32x40xf32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<1x32x40xf32>
    %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<1x32x40xf32>) -> tensor<1x32x40xf32>
    %2 = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (m, k)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<32x64xbf16>, tensor<1x64x40xbf16>) outs(%1 : tensor<1x32x40xf32>) {
    ^bb0(%x: bf16, %y: bf16, %acc: f32):
      %xf = arith.extf %x : bf16 to f32
      %yf = arith.extf %y : bf16 to f32
      %p = arith.mulf %xf, %yf : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    } -> tensor<1x32x40xf32>
    return %2 : tensor<1x32x40xf32>
  }
}
