// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=PACK
// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=x86-64-v3 --kiln-cpu-lowering-config=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=V3
// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=x86-64-v4 --kiln-cpu-lowering-config=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=V4
// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=znver4 --kiln-cpu-lowering-config=cpu=znver4 %s | FileCheck %s --check-prefix=VNNI

// The AVX2 int8 path (x86-64-v3, no VNNI): vpmaddubsw multiplies unsigned
// by signed bytes and saturates its i16 pair sums, so the kernel feeds it
// |x| and y * sign(x) (vpsignb), exact when y never holds -128. The data
// tiling checks the constant operand's bytes:
//  - B constant (a matmul's weights): without -128 it is packed in K
//    quads [ceil(K/4)][N][4] with A left signed (no xori, no correction
//    constant): "pmaddubsw", with at most 8 accumulators per register
//    tile (4x16 where 6x16 fits pmaddwd: the path keeps more values in
//    registers); with a -128 it keeps the K pairs of "pmaddwd".
//  - A constant (a conv's filter, B computed and packed in panels by the
//    kernel): without -128 the contraction is marked kiln.narrow_lhs and
//    its panels run "pmaddubsw"; with a -128, "pmaddwd" panels.
// AVX-512 without VNNI (x86-64-v4) and VNNI (znver4) are unchanged: no
// mark, pairs and pmaddwd, or flipped quads and vpdpbusd.

// PACK-LABEL: func.func @main(
// PACK: %[[Q:.*]] = arith.constant dense<{{\[\[\[}}1, 6, -11, 16], [-2, 7, 12, 17], [3, -8, 13, 18], [-4, 9, 14, -19], [5, 10, -15, 20]], {{\[\[}}21, -26, 0, 0], [-22, 27, 0, 0], [23, 28, 0, 0], [24, 29, 0, 0], [25, -127, 0, 0]]]> : tensor<2x5x4xi8>
// PACK: call @dispatch_2(%{{.*}}, %[[Q]]) : (tensor<3x6xi8>, tensor<2x5x4xi8>) -> tensor<3x5xi32>
// PACK: call @dispatch_3(%{{.*}}, %{{.*}}) : (tensor<3x6xi8>, tensor<3x5x2xi8>) -> tensor<3x5xi32>
// PACK-LABEL: func.func private @dispatch_0(
// PACK: linalg.matmul {kiln.narrow_lhs}
// PACK-LABEL: func.func private @dispatch_1(
// PACK-NOT: kiln.narrow_lhs
// PACK: linalg.matmul ins
// PACK-LABEL: func.func private @dispatch_2(%{{.*}}: tensor<3x6xi8>, %{{.*}}: tensor<2x5x4xi8>) -> tensor<3x5xi32>
// PACK: linalg.fill
// PACK-NOT: arith.xori
// PACK: arith.extsi %{{.*}} : i8 to i32
// PACK-NEXT: arith.extsi %{{.*}} : i8 to i32

// V3-LABEL: func.func private @dispatch_0(
// V3-SAME: native = "pmaddubsw", operand_type = i8, pack_b = "panels", reduction_tile = 0 : i64, register_tile = array<i64: 4, 16>
// V3-LABEL: func.func private @dispatch_1(
// V3-SAME: native = "pmaddwd", operand_type = i8, pack_b = "panels", reduction_tile = 0 : i64, register_tile = array<i64: 4, 16>
// V3-LABEL: func.func private @dispatch_2(
// V3-SAME: native = "pmaddubsw", operand_type = i8, reduction_tile = 0 : i64, register_tile = array<i64: 3, 8>
// V3-LABEL: func.func private @dispatch_3(
// V3-SAME: native = "pmaddwd", operand_type = i8, reduction_tile = 0 : i64, register_tile = array<i64: 3, 8>

// V4-LABEL: func.func private @dispatch_0(
// V4-SAME: native = "pmaddwd", operand_type = i8, pack_b = "panels"
// V4-LABEL: func.func private @dispatch_2(
// V4-SAME: native = "pmaddwd"

// VNNI-LABEL: func.func private @dispatch_0(
// VNNI-SAME: native = "vnni", operand_type = i8, pack_b = "panels"
// VNNI-NOT: kiln.narrow_lhs
// VNNI-LABEL: func.func private @dispatch_2(
// VNNI-SAME: native = "vnni"
// VNNI: arith.xori

module {
  func.func @main(%x: tensor<6x40xi8>, %y: tensor<3x6xi8>) -> (tensor<4x40xi32>, tensor<4x40xi32>, tensor<3x5xi32>, tensor<3x5xi32>) {
    %a = arith.constant dense<[[1, -2, 3, -4, 5, 127], [6, 7, -8, 9, 10, -127], [-11, 12, 13, 14, -15, 0], [16, 17, 18, -19, 20, 1]]> : tensor<4x6xi8>
    %r0 = call @dispatch_0(%a, %x) : (tensor<4x6xi8>, tensor<6x40xi8>) -> tensor<4x40xi32>
    %a2 = arith.constant dense<[[1, -2, 3, -4, 5, 127], [6, 7, -8, 9, 10, -128], [-11, 12, 13, 14, -15, 0], [16, 17, 18, -19, 20, 1]]> : tensor<4x6xi8>
    %r1 = call @dispatch_1(%a2, %x) : (tensor<4x6xi8>, tensor<6x40xi8>) -> tensor<4x40xi32>
    %w = arith.constant dense<[[1, -2, 3, -4, 5], [6, 7, -8, 9, 10], [-11, 12, 13, 14, -15], [16, 17, 18, -19, 20], [21, -22, 23, 24, 25], [-26, 27, 28, 29, -127]]> : tensor<6x5xi8>
    %r2 = call @dispatch_2(%y, %w) : (tensor<3x6xi8>, tensor<6x5xi8>) -> tensor<3x5xi32>
    %w2 = arith.constant dense<[[1, -2, 3, -4, 5], [6, 7, -8, 9, 10], [-11, 12, 13, 14, -15], [16, 17, 18, -19, 20], [21, -22, 23, 24, 25], [-26, 27, 28, 29, -128]]> : tensor<6x5xi8>
    %r3 = call @dispatch_3(%y, %w2) : (tensor<3x6xi8>, tensor<6x5xi8>) -> tensor<3x5xi32>
    return %r0, %r1, %r2, %r3 : tensor<4x40xi32>, tensor<4x40xi32>, tensor<3x5xi32>, tensor<3x5xi32>
  }
  func.func private @dispatch_0(%a: tensor<4x6xi8>, %b: tensor<6x40xi8>) -> tensor<4x40xi32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<4x40xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<4x40xi32>) -> tensor<4x40xi32>
    %2 = linalg.matmul ins(%a, %b : tensor<4x6xi8>, tensor<6x40xi8>) outs(%1 : tensor<4x40xi32>) -> tensor<4x40xi32>
    return %2 : tensor<4x40xi32>
  }
  func.func private @dispatch_1(%a: tensor<4x6xi8>, %b: tensor<6x40xi8>) -> tensor<4x40xi32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<4x40xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<4x40xi32>) -> tensor<4x40xi32>
    %2 = linalg.matmul ins(%a, %b : tensor<4x6xi8>, tensor<6x40xi8>) outs(%1 : tensor<4x40xi32>) -> tensor<4x40xi32>
    return %2 : tensor<4x40xi32>
  }
  func.func private @dispatch_2(%a: tensor<3x6xi8>, %b: tensor<6x5xi8>) -> tensor<3x5xi32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<3x5xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<3x5xi32>) -> tensor<3x5xi32>
    %2 = linalg.matmul ins(%a, %b : tensor<3x6xi8>, tensor<6x5xi8>) outs(%1 : tensor<3x5xi32>) -> tensor<3x5xi32>
    return %2 : tensor<3x5xi32>
  }
  func.func private @dispatch_3(%a: tensor<3x6xi8>, %b: tensor<6x5xi8>) -> tensor<3x5xi32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<3x5xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<3x5xi32>) -> tensor<3x5xi32>
    %2 = linalg.matmul ins(%a, %b : tensor<3x6xi8>, tensor<6x5xi8>) outs(%1 : tensor<3x5xi32>) -> tensor<3x5xi32>
    return %2 : tensor<3x5xi32>
  }
}
