// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=znver4 %s | FileCheck %s --check-prefix=VNNI
// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=AVX2
// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=V4

// Data tiling: constant weights (B of a matmul, [K, N]) are repacked at
// compile time for the target's dot-product instruction, and the dispatch
// reads them through (k floordiv g, n, k mod g).
//  - i8 with VNNI (znver4): K quads [ceil(K/4)][N][4], K zero-padded; A
//    is read as unsigned (xori 0x80, extui) and the accumulators start at
//    -128 * colsum(B), a second constant passed last.
//  - i8 without VNNI (x86-64-v3, x86-64-v4): K pairs [ceil(K/2)][N][2]
//    (pmaddwd).
//  - bf16 with AVX512-BF16 (znver4): K pairs; without it (x86-64-v4,
//    x86-64-v3) unchanged.
//  - a B computed at run time is left alone; f32 B goes in lane panels
//    (lane-panels.mlir).

// K = 6, N = 5. Column sums: 7, 39, 77, 53, -83.
// VNNI: #[[PACKED4:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2 floordiv 4, d1, d2 mod 4)>
// VNNI-LABEL: func.func @main(
// VNNI: %[[Q:.*]] = arith.constant dense<{{\[\[\[}}1, 6, -11, 16], [-2, 7, 12, 17], [3, -8, 13, 18], [-4, 9, 14, -19], [5, 10, -15, 20]], {{\[\[}}21, -26, 0, 0], [-22, 27, 0, 0], [23, 28, 0, 0], [24, 29, 0, 0], [25, -128, 0, 0]]]> : tensor<2x5x4xi8>
// VNNI: %[[C:.*]] = arith.constant dense<[-896, -4992, -9856, -6784, 10624]> : tensor<5xi32>
// VNNI: call @dispatch_0(%arg0, %[[Q]], %[[C]]) : (tensor<3x6xi8>, tensor<2x5x4xi8>, tensor<5xi32>) -> tensor<3x5xi32>
// The bf16 weights, K = 3: pairs, the last one padded with 0.
// VNNI: %[[P:.*]] = arith.constant dense<{{\[\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]], {{\[\[}}5.000000e+00, 0.000000e+00], [6.000000e+00, 0.000000e+00]]]> : tensor<2x2x2xbf16>
// VNNI: call @dispatch_1(%{{.*}}, %[[P]]) : (tensor<4x3xbf16>, tensor<2x2x2xbf16>) -> tensor<4x2xf32>
// The f32 weights: lane panels (lane-panels.mlir), on AVX-512 as on AVX2.
// VNNI: call @dispatch_2(%{{.*}}, %{{.*}}) : (tensor<4x3xf32>, tensor<1x3x16xf32>) -> tensor<4x2xf32>
// VNNI: call @dispatch_3(%{{.*}}, %{{.*}}) : (tensor<3x6xi8>, tensor<6x5xi8>) -> tensor<3x5xi32>
// VNNI-LABEL: func.func private @dispatch_0(
// VNNI-SAME: %{{.*}}: tensor<3x6xi8>, %{{.*}}: tensor<2x5x4xi8>, %[[CORR:.*]]: tensor<5xi32>)
// VNNI-NOT: linalg.fill
// VNNI: %[[INIT:.*]] = linalg.generic {{.*}} ins(%[[CORR]] : tensor<5xi32>)
// VNNI: linalg.generic {indexing_maps = [#{{.*}}, #[[PACKED4]], #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]} {{.*}} outs(%[[INIT]] : tensor<3x5xi32>)
// VNNI: arith.xori %{{.*}}, %{{.*}} : i8
// VNNI-NEXT: arith.extui %{{.*}} : i8 to i32
// VNNI-NEXT: arith.extsi %{{.*}} : i8 to i32
// VNNI-LABEL: func.func private @dispatch_1(%{{.*}}: tensor<4x3xbf16>, %{{.*}}: tensor<2x2x2xbf16>)
// VNNI-LABEL: func.func private @dispatch_2(%{{.*}}: tensor<4x3xf32>, %{{.*}}: tensor<1x3x16xf32>)
// VNNI: linalg.generic
// VNNI-LABEL: func.func private @dispatch_3(%{{.*}}: tensor<3x6xi8>, %{{.*}}: tensor<6x5xi8>)
// VNNI: linalg.matmul

// AVX2-LABEL: func.func @main(
// AVX2: %[[Q:.*]] = arith.constant dense<{{\[\[\[}}1, 6], [-2, 7], [3, -8], [-4, 9], [5, 10]], {{\[\[}}-11, 16], [12, 17], [13, 18], [14, -19], [-15, 20]], {{\[\[}}21, -26], [-22, 27], [23, 28], [24, 29], [25, -128]]]> : tensor<3x5x2xi8>
// AVX2: call @dispatch_0(%arg0, %[[Q]]) : (tensor<3x6xi8>, tensor<3x5x2xi8>) -> tensor<3x5xi32>
// AVX2: call @dispatch_1(%{{.*}}, %{{.*}}) : (tensor<4x3xbf16>, tensor<3x2xbf16>) -> tensor<4x2xf32>
// AVX2-LABEL: func.func private @dispatch_0(
// AVX2: linalg.fill
// AVX2: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<3x6xi8>, tensor<3x5x2xi8>)
// AVX2-NOT: arith.xori
// AVX2: arith.extsi %{{.*}} : i8 to i32
// AVX2-NEXT: arith.extsi %{{.*}} : i8 to i32

// V4-LABEL: func.func @main(
// V4: call @dispatch_0(%arg0, %{{.*}}) : (tensor<3x6xi8>, tensor<3x5x2xi8>) -> tensor<3x5xi32>
// V4: call @dispatch_1(%{{.*}}, %{{.*}}) : (tensor<4x3xbf16>, tensor<3x2xbf16>) -> tensor<4x2xf32>

module {
  func.func @main(%x: tensor<3x6xi8>, %y: tensor<4x3xbf16>, %z: tensor<4x3xf32>, %w2: tensor<6x5xi8>) -> (tensor<3x5xi32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<3x5xi32>) {
    %w = arith.constant dense<[[1, -2, 3, -4, 5], [6, 7, -8, 9, 10], [-11, 12, 13, 14, -15], [16, 17, 18, -19, 20], [21, -22, 23, 24, 25], [-26, 27, 28, 29, -128]]> : tensor<6x5xi8>
    %r = call @dispatch_0(%x, %w) : (tensor<3x6xi8>, tensor<6x5xi8>) -> tensor<3x5xi32>
    %h = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xbf16>
    %s = call @dispatch_1(%y, %h) : (tensor<4x3xbf16>, tensor<3x2xbf16>) -> tensor<4x2xf32>
    %f = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
    %t = call @dispatch_2(%z, %f) : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
    %u = call @dispatch_3(%x, %w2) : (tensor<3x6xi8>, tensor<6x5xi8>) -> tensor<3x5xi32>
    return %r, %s, %t, %u : tensor<3x5xi32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<3x5xi32>
  }
  func.func private @dispatch_0(%a: tensor<3x6xi8>, %b: tensor<6x5xi8>) -> tensor<3x5xi32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<3x5xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<3x5xi32>) -> tensor<3x5xi32>
    %2 = linalg.matmul ins(%a, %b : tensor<3x6xi8>, tensor<6x5xi8>) outs(%1 : tensor<3x5xi32>) -> tensor<3x5xi32>
    return %2 : tensor<3x5xi32>
  }
  func.func private @dispatch_1(%a: tensor<4x3xbf16>, %b: tensor<3x2xbf16>) -> tensor<4x2xf32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<4x2xf32>
    %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<4x2xf32>) -> tensor<4x2xf32>
    %2 = linalg.matmul ins(%a, %b : tensor<4x3xbf16>, tensor<3x2xbf16>) outs(%1 : tensor<4x2xf32>) -> tensor<4x2xf32>
    return %2 : tensor<4x2xf32>
  }
  func.func private @dispatch_2(%a: tensor<4x3xf32>, %b: tensor<3x2xf32>) -> tensor<4x2xf32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<4x2xf32>
    %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<4x2xf32>) -> tensor<4x2xf32>
    %2 = linalg.matmul ins(%a, %b : tensor<4x3xf32>, tensor<3x2xf32>) outs(%1 : tensor<4x2xf32>) -> tensor<4x2xf32>
    return %2 : tensor<4x2xf32>
  }
  // B is a graph input: nothing to pack.
  func.func private @dispatch_3(%a: tensor<3x6xi8>, %b: tensor<6x5xi8>) -> tensor<3x5xi32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<3x5xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<3x5xi32>) -> tensor<3x5xi32>
    %2 = linalg.matmul ins(%a, %b : tensor<3x6xi8>, tensor<6x5xi8>) outs(%1 : tensor<3x5xi32>) -> tensor<3x5xi32>
    return %2 : tensor<3x5xi32>
  }
}
