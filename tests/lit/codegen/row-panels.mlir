// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=V4
// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=V3

// Row panels (DataTiling.cpp, findRowCandidate): a constant f32 A [M, K]
// (a conv's filter, the broadcast operand of the register tiles) is stored
// as [ceil(M/R)][K][R] with R the register tile's rows (8 on AVX-512, 6 on
// AVX2), zero past M, and the contraction reads it through
// (m floordiv R, k, m mod R): a tile's R broadcasts of one k are one
// contiguous run, which the prefetchers follow when the weights stream from
// memory. Left alone: fewer than 4 * R rows, a computed A, and A shared
// with another reader.

// M = 36, K = 3 on AVX-512: five panels of 8 rows, the last holding rows
// 32..35 and zeros; on AVX2 six panels of 6.
// V4-DAG: #[[ROWS:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d1 floordiv 8, d3, d1 mod 8)>
// V4-LABEL: func.func @main(
// The panel rows of k = 0 start with A[0..7][0] = 0, 3, ..., 21; the last
// one (k = 2 of panel 4) holds A[32..35][2] = 98, 101, 104, 107 and zeros.
// V4: %[[P:.*]] = arith.constant dense<"0x00000000000040400000C04000001041000040410000704100009041{{.*}}0000C4420000CA420000D0420000D64200000000000000000000000000000000"> : tensor<5x3x8xf32>
// V4: call @conv_1x1(%[[P]], %{{.*}}) : (tensor<5x3x8xf32>, tensor<1x3x50xf32>) -> tensor<1x36x50xf32>
// V4: call @few_rows(%{{.*}}, %{{.*}}) : (tensor<16x3xf32>, tensor<1x3x50xf32>) -> tensor<1x16x50xf32>
// V4: call @computed_a(%arg1, %{{.*}}) : (tensor<40x3xf32>, tensor<1x3x50xf32>) -> tensor<1x40x50xf32>
// V4-LABEL: func.func private @conv_1x1(
// V4-SAME: %{{.*}}: tensor<5x3x8xf32>, %{{.*}}: tensor<1x3x50xf32>)
// V4: linalg.generic {indexing_maps = [#[[ROWS]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// V4-LABEL: func.func private @few_rows(
// V4-SAME: %{{.*}}: tensor<16x3xf32>
// V4-LABEL: func.func private @computed_a(
// V4-SAME: %{{.*}}: tensor<40x3xf32>

// AVX2: panels of 6 rows; 16 rows are still too few (fewer than 4 x 6).
// V3-DAG: #[[ROWS6:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d1 floordiv 6, d3, d1 mod 6)>
// V3-LABEL: func.func @main(
// V3: call @conv_1x1(%{{.*}}, %{{.*}}) : (tensor<6x3x6xf32>, tensor<1x3x50xf32>) -> tensor<1x36x50xf32>
// V3: call @few_rows(%{{.*}}, %{{.*}}) : (tensor<16x3xf32>, tensor<1x3x50xf32>) -> tensor<1x16x50xf32>
// V3-LABEL: func.func private @conv_1x1(
// V3: linalg.generic {indexing_maps = [#[[ROWS6]], #{{.*}}, #{{.*}}]

// The kernel over the panels: row-panels-kernels.mlir.

#a = affine_map<(n, m, p, k) -> (m, k)>
#b = affine_map<(n, m, p, k) -> (n, k, p)>
#c = affine_map<(n, m, p, k) -> (n, m, p)>
module {
  func.func @main(%x: tensor<1x3x50xf32>, %w2: tensor<40x3xf32>) -> (tensor<1x36x50xf32>, tensor<1x16x50xf32>, tensor<1x40x50xf32>) {
    %w = arith.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0], [9.0, 10.0, 11.0], [12.0, 13.0, 14.0], [15.0, 16.0, 17.0], [18.0, 19.0, 20.0], [21.0, 22.0, 23.0], [24.0, 25.0, 26.0], [27.0, 28.0, 29.0], [30.0, 31.0, 32.0], [33.0, 34.0, 35.0], [36.0, 37.0, 38.0], [39.0, 40.0, 41.0], [42.0, 43.0, 44.0], [45.0, 46.0, 47.0], [48.0, 49.0, 50.0], [51.0, 52.0, 53.0], [54.0, 55.0, 56.0], [57.0, 58.0, 59.0], [60.0, 61.0, 62.0], [63.0, 64.0, 65.0], [66.0, 67.0, 68.0], [69.0, 70.0, 71.0], [72.0, 73.0, 74.0], [75.0, 76.0, 77.0], [78.0, 79.0, 80.0], [81.0, 82.0, 83.0], [84.0, 85.0, 86.0], [87.0, 88.0, 89.0], [90.0, 91.0, 92.0], [93.0, 94.0, 95.0], [96.0, 97.0, 98.0], [99.0, 100.0, 101.0], [102.0, 103.0, 104.0], [105.0, 106.0, 107.0]]> : tensor<36x3xf32>
    %r0 = call @conv_1x1(%w, %x) : (tensor<36x3xf32>, tensor<1x3x50xf32>) -> tensor<1x36x50xf32>
    %w16 = arith.constant dense<0.25> : tensor<16x3xf32>
    %r1 = call @few_rows(%w16, %x) : (tensor<16x3xf32>, tensor<1x3x50xf32>) -> tensor<1x16x50xf32>
    %r2 = call @computed_a(%w2, %x) : (tensor<40x3xf32>, tensor<1x3x50xf32>) -> tensor<1x40x50xf32>
    return %r0, %r1, %r2 : tensor<1x36x50xf32>, tensor<1x16x50xf32>, tensor<1x40x50xf32>
  }
  func.func private @conv_1x1(%w: tensor<36x3xf32>, %x: tensor<1x3x50xf32>) -> tensor<1x36x50xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<1x36x50xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x36x50xf32>) -> tensor<1x36x50xf32>
    %2 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%w, %x : tensor<36x3xf32>, tensor<1x3x50xf32>) outs(%1 : tensor<1x36x50xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %3 = arith.mulf %in, %in_0 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    } -> tensor<1x36x50xf32>
    return %2 : tensor<1x36x50xf32>
  }
  func.func private @few_rows(%w: tensor<16x3xf32>, %x: tensor<1x3x50xf32>) -> tensor<1x16x50xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<1x16x50xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x16x50xf32>) -> tensor<1x16x50xf32>
    %2 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%w, %x : tensor<16x3xf32>, tensor<1x3x50xf32>) outs(%1 : tensor<1x16x50xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %3 = arith.mulf %in, %in_0 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    } -> tensor<1x16x50xf32>
    return %2 : tensor<1x16x50xf32>
  }
  func.func private @computed_a(%w: tensor<40x3xf32>, %x: tensor<1x3x50xf32>) -> tensor<1x40x50xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<1x40x50xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x40x50xf32>) -> tensor<1x40x50xf32>
    %2 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%w, %x : tensor<40x3xf32>, tensor<1x3x50xf32>) outs(%1 : tensor<1x40x50xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %3 = arith.mulf %in, %in_0 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    } -> tensor<1x40x50xf32>
    return %2 : tensor<1x40x50xf32>
  }
}
