// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=PACK
// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=PACK
// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=znver4 %s | FileCheck %s --check-prefix=PACK
// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=x86-64-v4 --kiln-cpu-lowering-config=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=CONFIG512
// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=x86-64-v3 --kiln-cpu-lowering-config=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=CONFIG

// f32 lane panels (DataTiling.h, AVX2 and AVX-512): a constant f32 B
// [K, N] is stored as [ceil(N/16)][K][16], zero past N, and the dispatch
// reads it through (n floordiv 16, k, n mod 16), so the K rows a 16-lane
// register tile reads are one contiguous run instead of N * 4 bytes apart
// (an AVX-512 tile's 32 lanes read two panels per k). A small computed B
// and a contraction inside a loop (a recurrence, run in loop order) keep B
// as it is (larger computed ones are packed at run time:
// pack-lanes-at-run-time.mlir). The kernels: lane-panels-kernels.mlir.

// K = 3, N = 20: two panels, the second holding columns 16..19 and zeros.
// PACK: #[[PANEL:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1 floordiv 16, d2, d1 mod 16)>
// PACK-LABEL: func.func @main(
// PACK: %[[P:.*]] = arith.constant dense<{{\[\[\[}}0.000000e+00, 1.000000e+00, 2.000000e+00, {{.*}}, 1.500000e+01], [2.000000e+01, 2.100000e+01, {{.*}}, 3.500000e+01], [4.000000e+01, {{.*}}, 5.500000e+01]], {{\[\[}}1.600000e+01, 1.700000e+01, 1.800000e+01, 1.900000e+01, 0.000000e+00, {{.*}}, 0.000000e+00], [3.600000e+01, 3.700000e+01, 3.800000e+01, 3.900000e+01, 0.000000e+00, {{.*}}], [5.600000e+01, 5.700000e+01, 5.800000e+01, 5.900000e+01, 0.000000e+00, {{.*}}]]]> : tensor<2x3x16xf32>
// PACK: call @dispatch_0(%{{.*}}, %[[P]]) : (tensor<70x3xf32>, tensor<2x3x16xf32>) -> tensor<70x20xf32>
// PACK: call @dispatch_1(%{{.*}}, %{{.*}}) : (tensor<70x3xf32>, tensor<3x20xf32>) -> tensor<70x20xf32>
// PACK: call @dispatch_2(%{{.*}}, %{{.*}}) : (tensor<4x1x3xf32>, tensor<3x20xf32>) -> tensor<4x1x20xf32>
// PACK-LABEL: func.func private @dispatch_0(
// PACK-SAME: %{{.*}}: tensor<70x3xf32>, %{{.*}}: tensor<2x3x16xf32>)
// PACK: linalg.fill
// PACK: linalg.generic {indexing_maps = [#{{.*}}, #[[PANEL]], #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<70x3xf32>, tensor<2x3x16xf32>)
// PACK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// PACK-NEXT: %[[M:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// PACK-NEXT: arith.addf %[[ACC]], %[[M]] : f32
// PACK-LABEL: func.func private @dispatch_1(
// PACK: linalg.matmul
// PACK-LABEL: func.func private @dispatch_2(
// PACK: scf.for
// PACK: linalg.matmul


// The register tile stays 6 x 16: one panel per tile (AVX-512: 16 rows,
// 16 lanes for N = 20, one panel).
// CONFIG-LABEL: func.func private @dispatch_0(
// CONFIG-SAME: register_tile = array<i64: 6, 16>, strategy = "contraction"
// CONFIG512-LABEL: func.func private @dispatch_0(
// CONFIG512-SAME: register_tile = array<i64: 16, 16>, strategy = "contraction"

module {
  func.func @main(%x: tensor<70x3xf32>, %h: tensor<4x1x3xf32>) -> (tensor<70x20xf32>, tensor<70x20xf32>, tensor<4x1x20xf32>) {
    %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0],
                               [20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0],
                               [40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0]]> : tensor<3x20xf32>
    %r = call @dispatch_0(%x, %w) : (tensor<70x3xf32>, tensor<3x20xf32>) -> tensor<70x20xf32>
    // B computed: a graph value.
    %wt = call @dispatch_3(%w) : (tensor<3x20xf32>) -> tensor<3x20xf32>
    %s = call @dispatch_1(%x, %wt) : (tensor<70x3xf32>, tensor<3x20xf32>) -> tensor<70x20xf32>
    %t = call @dispatch_2(%h, %w) : (tensor<4x1x3xf32>, tensor<3x20xf32>) -> tensor<4x1x20xf32>
    return %r, %s, %t : tensor<70x20xf32>, tensor<70x20xf32>, tensor<4x1x20xf32>
  }
  func.func private @dispatch_0(%a: tensor<70x3xf32>, %b: tensor<3x20xf32>) -> tensor<70x20xf32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<70x20xf32>
    %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<70x20xf32>) -> tensor<70x20xf32>
    %2 = linalg.matmul ins(%a, %b : tensor<70x3xf32>, tensor<3x20xf32>) outs(%1 : tensor<70x20xf32>) -> tensor<70x20xf32>
    return %2 : tensor<70x20xf32>
  }
  func.func private @dispatch_1(%a: tensor<70x3xf32>, %b: tensor<3x20xf32>) -> tensor<70x20xf32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<70x20xf32>
    %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<70x20xf32>) -> tensor<70x20xf32>
    %2 = linalg.matmul ins(%a, %b : tensor<70x3xf32>, tensor<3x20xf32>) outs(%1 : tensor<70x20xf32>) -> tensor<70x20xf32>
    return %2 : tensor<70x20xf32>
  }
  // A recurrence-like step loop: the matmul by the constant runs inside
  // scf.for, in loop order.
  func.func private @dispatch_2(%h: tensor<4x1x3xf32>, %b: tensor<3x20xf32>) -> tensor<4x1x20xf32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    %out = tensor.empty() : tensor<4x1x20xf32>
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %out) -> (tensor<4x1x20xf32>) {
      %hi = tensor.extract_slice %h[%i, 0, 0] [1, 1, 3] [1, 1, 1] : tensor<4x1x3xf32> to tensor<1x3xf32>
      %e = tensor.empty() : tensor<1x20xf32>
      %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x20xf32>) -> tensor<1x20xf32>
      %m = linalg.matmul ins(%hi, %b : tensor<1x3xf32>, tensor<3x20xf32>) outs(%f : tensor<1x20xf32>) -> tensor<1x20xf32>
      %next = tensor.insert_slice %m into %acc[%i, 0, 0] [1, 1, 20] [1, 1, 1] : tensor<1x20xf32> into tensor<4x1x20xf32>
      scf.yield %next : tensor<4x1x20xf32>
    }
    return %r : tensor<4x1x20xf32>
  }
  func.func private @dispatch_3(%w: tensor<3x20xf32>) -> tensor<3x20xf32> attributes {kiln.dispatch} {
    %0 = tensor.empty() : tensor<3x20xf32>
    %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<3x20xf32>) outs(%0 : tensor<3x20xf32>) {
    ^bb0(%in: f32, %out: f32):
      %n = arith.negf %in : f32
      linalg.yield %n : f32
    } -> tensor<3x20xf32>
    return %1 : tensor<3x20xf32>
  }
}
