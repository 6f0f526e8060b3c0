// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=AVX512
// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=AVX2
// RUN: kiln-opt --kiln-cpu-lowering-config="cpu=x86-64-v4 codegen=loop-order" %s | FileCheck %s --check-prefix=LOOPS

// kiln-cpu-lowering-config picks each dispatch's strategy and tile sizes
// from the target: register tiles of 8 rows x 32 lanes (16 of 32 zmm
// accumulators) on AVX-512, 6 x 16 (12 of 16 ymm) on AVX2; workgroup
// tiles of whole register tiles near 64x64; K blocks whose B sub-panel
// fills half of L1 (128 x 32 lanes, 256 x 16) when K is long; fewer rows
// and wider lanes when the output has few rows; other dispatches split
// their outer parallel dims. A configuration set by hand is kept.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// AVX512-LABEL: func.func private @matmul_bias
// AVX512-SAME: kiln.lowering_config = {reduction_tile = 0 : i64, register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 64, 64>}
// AVX2-LABEL: func.func private @matmul_bias
// AVX2-SAME: kiln.lowering_config = {reduction_tile = 0 : i64, register_tile = array<i64: 6, 16>, strategy = "contraction", workgroup_tile = array<i64: 60, 64>}
// LOOPS-LABEL: func.func private @matmul_bias
// LOOPS-SAME: kiln.lowering_config = {strategy = "loop-order", workgroup_tile = array<i64: 64, 64>}
func.func private @matmul_bias(%arg0: tensor<128x64xf32>, %arg1: tensor<64x256xf32>, %arg2: tensor<256xf32>) -> tensor<128x256xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<128x256xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<128x256xf32>) -> tensor<128x256xf32>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<128x64xf32>, tensor<64x256xf32>) outs(%1 : tensor<128x256xf32>) -> tensor<128x256xf32>
  %3 = tensor.empty() : tensor<128x256xf32>
  %4 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%2, %arg2 : tensor<128x256xf32>, tensor<256xf32>) outs(%3 : tensor<128x256xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.addf %in, %in_0 : f32
    linalg.yield %5 : f32
  } -> tensor<128x256xf32>
  return %4 : tensor<128x256xf32>
}

// Long K: 128-deep K blocks on AVX-512, 256 on AVX2, where B's 784-byte
// rows (196 f32, off the 64-byte lines) are also copied into lane panels
// per K block (`pack_b = "lanes"`, copy-lanes.mlir) by taller workgroups.
// AVX512-LABEL: func.func private @long_k
// AVX512-SAME: {reduction_tile = 128 : i64, register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 64, 64, 0>}
// AVX2-LABEL: func.func private @long_k
// AVX2-SAME: {pack_b = "lanes", reduction_tile = 256 : i64, register_tile = array<i64: 6, 16>, strategy = "contraction", workgroup_tile = array<i64: 128, 48, 0>}
func.func private @long_k(%arg0: tensor<128x2304xf32>, %arg1: tensor<2304x196xf32>) -> tensor<128x196xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<128x196xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<128x196xf32>) -> tensor<128x196xf32>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<128x2304xf32>, tensor<2304x196xf32>) outs(%1 : tensor<128x196xf32>) -> tensor<128x196xf32>
  return %2 : tensor<128x196xf32>
}

// One row (a batch-1 linear layer): 1 x 128 lanes on AVX-512 (8 zmm
// accumulators in flight), 1 x 64 on AVX2.
// AVX512-LABEL: func.func private @vector_matrix
// AVX512-SAME: reduction_tile = 0 : i64, register_tile = array<i64: 1, 128>, strategy = "contraction", workgroup_tile = array<i64: 1, 128, 0>
// AVX2-LABEL: func.func private @vector_matrix
// AVX2-SAME: reduction_tile = 0 : i64, register_tile = array<i64: 1, 64>, strategy = "contraction", workgroup_tile = array<i64: 1, 64, 0>
func.func private @vector_matrix(%arg0: tensor<1x512xf32>, %arg1: tensor<512x1000xf32>) -> tensor<1x1000xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x1000xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<1x512xf32>, tensor<512x1000xf32>) outs(%1 : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  return %2 : tensor<1x1000xf32>
}

// Conv as GEMM (n, m, p, ck): the lanes are the output pixels p, the rows
// the output channels m; the batch dim is tiled one at a time.
// AVX512-LABEL: func.func private @conv_gemm
// AVX512-SAME: register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 1, 64, 64, 0>
func.func private @conv_gemm(%w: tensor<64x147xf32>, %col: tensor<2x147x3136xf32>) -> tensor<2x64x3136xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x64x3136xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x64x3136xf32>) -> tensor<2x64x3136xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(n, m, p, k) -> (m, k)>, affine_map<(n, m, p, k) -> (n, k, p)>, affine_map<(n, m, p, k) -> (n, m, p)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%w, %col : tensor<64x147xf32>, tensor<2x147x3136xf32>) outs(%1 : tensor<2x64x3136xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x64x3136xf32>
  return %2 : tensor<2x64x3136xf32>
}

// A contraction whose lanes are not contiguous in an operand (A * B^T with
// B read along its rows) keeps the loop-order strategy and 64x64 tiles.
// AVX512-LABEL: func.func private @transposed_rhs
// AVX512-SAME: kiln.lowering_config = {strategy = "loop-order", workgroup_tile = array<i64: 64, 64, 0>}
func.func private @transposed_rhs(%a: tensor<128x64xf32>, %b: tensor<256x64xf32>) -> tensor<128x256xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<128x256xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<128x256xf32>) -> tensor<128x256xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<128x64xf32>, tensor<256x64xf32>) outs(%1 : tensor<128x256xf32>) {
  ^bb0(%x: f32, %y: f32, %c: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<128x256xf32>
  return %2 : tensor<128x256xf32>
}

// Elementwise: outer dims split for parallelism.
// AVX512-LABEL: func.func private @elementwise
// AVX512-SAME: kiln.lowering_config = {strategy = "loop-order", workgroup_tile = array<i64: 4, 0>}
func.func private @elementwise(%arg0: tensor<32x1024xf32>) -> tensor<32x1024xf32> attributes {kiln.dispatch} {
  %0 = tensor.empty() : tensor<32x1024xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<32x1024xf32>) outs(%0 : tensor<32x1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2 = math.tanh %in : f32
    linalg.yield %2 : f32
  } -> tensor<32x1024xf32>
  return %1 : tensor<32x1024xf32>
}

// Set by hand: kept as given.
// AVX512-LABEL: func.func private @by_hand
// AVX512-SAME: kiln.lowering_config = {strategy = "scalar", workgroup_tile = array<i64: 16, 0>}
func.func private @by_hand(%arg0: tensor<32x1024xf32>) -> tensor<32x1024xf32> attributes {kiln.dispatch, kiln.lowering_config = {strategy = "scalar", workgroup_tile = array<i64: 16, 0>}} {
  %0 = tensor.empty() : tensor<32x1024xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<32x1024xf32>) outs(%0 : tensor<32x1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2 = math.tanh %in : f32
    linalg.yield %2 : f32
  } -> tensor<32x1024xf32>
  return %1 : tensor<32x1024xf32>
}

// A depthwise convolution (DepthwiseKernel.h) gets the "fma" depthwise
// tiles, whole channel planes per workgroup: rows of 56 outputs in tiles
// of 2 vectors, 4 output rows per tile (8 FMA chains; AVX2's 16
// registers: 2 x 8 lanes, 2 rows).
// AVX512-LABEL: func.func private @depthwise
// AVX512-SAME: {native = "fma", pixel_tile = 32 : i64, plane = "rows", strategy = "depthwise", tile_rows = 4 : i64, workgroup_tile = array<i64: 0, 1, 0, 0, 0, 0, 0, 0>}
// AVX2-LABEL: func.func private @depthwise
// AVX2-SAME: {native = "fma", pixel_tile = 16 : i64, plane = "rows", strategy = "depthwise", tile_rows = 2 : i64, workgroup_tile = array<i64: 0, 1, 0, 0, 0, 0, 0, 0>}
func.func private @depthwise(%x: tensor<1x16x1x58x58xf32>, %w: tensor<16x1x1x3x3xf32>) -> tensor<1x16x1x56x56xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x16x1x56x56xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x16x1x56x56xf32>) -> tensor<1x16x1x56x56xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x16x1x58x58xf32>, tensor<16x1x1x3x3xf32>) outs(%1 : tensor<1x16x1x56x56xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %3 = arith.mulf %in, %in_0 : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<1x16x1x56x56xf32>
  return %2 : tensor<1x16x1x56x56xf32>
}

// Stride 2: the lanes read every other input column (a 2x wider load and
// a shuffle of the even elements); 28-wide rows, 2 planes of 784 outputs
// per workgroup.
// AVX512-LABEL: func.func private @depthwise_stride2
// AVX512-SAME: {native = "fma", pixel_tile = 32 : i64, plane = "rows", strategy = "depthwise", tile_rows = 4 : i64, workgroup_tile = array<i64: 0, 2, 0, 0, 0, 0, 0, 0>}
// AVX2-LABEL: func.func private @depthwise_stride2
// AVX2-SAME: {native = "fma", pixel_tile = 16 : i64, plane = "rows", strategy = "depthwise", tile_rows = 2 : i64, workgroup_tile = array<i64: 0, 2, 0, 0, 0, 0, 0, 0>}
func.func private @depthwise_stride2(%x: tensor<1x16x1x57x57xf32>, %w: tensor<16x1x1x3x3xf32>) -> tensor<1x16x1x28x28xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x16x1x28x28xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x16x1x28x28xf32>) -> tensor<1x16x1x28x28xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 * 2 + d6, d4 * 2 + d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x16x1x57x57xf32>, tensor<16x1x1x3x3xf32>) outs(%1 : tensor<1x16x1x28x28xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %3 = arith.mulf %in, %in_0 : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<1x16x1x28x28xf32>
  return %2 : tensor<1x16x1x28x28xf32>
}

// Softmax as one dispatch: the normalizing op reads the row max and sum
// broadcast along d2, so d2 is never split; the rows are.
// AVX512-LABEL: func.func private @softmax
// AVX512-SAME: kiln.lowering_config = {strategy = "loop-order", workgroup_tile = array<i64: 1, 32, 0>}
func.func private @softmax(%x: tensor<4x128x128xf32>) -> tensor<4x128x128xf32> attributes {kiln.dispatch} {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<4x128xf32>
  %f0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<4x128xf32>) -> tensor<4x128xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<4x128x128xf32>) outs(%f0 : tensor<4x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maxnumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<4x128xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x128xf32>) -> tensor<4x128xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %max : tensor<4x128x128xf32>, tensor<4x128xf32>) outs(%f1 : tensor<4x128xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %e = math.exp %d : f32
    %s = arith.addf %out, %e : f32
    linalg.yield %s : f32
  } -> tensor<4x128xf32>
  %e1 = tensor.empty() : tensor<4x128x128xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %max, %sum : tensor<4x128x128xf32>, tensor<4x128xf32>, tensor<4x128xf32>) outs(%e1 : tensor<4x128x128xf32>) {
  ^bb0(%in: f32, %mx: f32, %s: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %e = math.exp %d : f32
    %q = arith.divf %e, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x128x128xf32>
  return %y : tensor<4x128x128xf32>
}

// Pads split into workgroups along the dims they do not pad (here the
// channels), so each workgroup pads whole planes in place.
// AVX512-LABEL: func.func private @pad_planes
// AVX512-SAME: kiln.lowering_config = {strategy = "loop-order", workgroup_tile = array<i64: 0, 1, 0, 0>}
func.func private @pad_planes(%x: tensor<1x48x112x112xf32>) -> tensor<1x48x114x114xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %cst : f32
  } : tensor<1x48x112x112xf32> to tensor<1x48x114x114xf32>
  return %p : tensor<1x48x114x114xf32>
}

// Three rows: 16 accumulator registers / 3 rows = 5 vectors per row,
// rounded down to a power of two (4 x 16 lanes): LLVM would split an
// 80-lane vector into odd pieces.
// AVX512-LABEL: func.func private @three_rows
// AVX512-SAME: register_tile = array<i64: 3, 64>
func.func private @three_rows(%a: tensor<3x64xf32>, %b: tensor<64x500xf32>) -> tensor<3x500xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<3x500xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<3x500xf32>) -> tensor<3x500xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<3x64xf32>, tensor<64x500xf32>) outs(%1 : tensor<3x500xf32>) -> tensor<3x500xf32>
  return %2 : tensor<3x500xf32>
}

// Few pixels (a 7x7 conv output, 49 lanes): on AVX-512, 16 x 16 tiles
// end in an 8-lane half tile (3.5 zmm of FMAs per row) where 8 x 32 tiles
// end in a 17-of-32 one (4 zmm); 16-deep K blocks of 256 keep the same L1
// bytes. AVX2 keeps 6 x 16 (its half tile is an xmm FMA at the ymm rate)
// and copies B's 196-byte rows into lane panels.
// AVX512-LABEL: func.func private @few_pixels
// AVX512-SAME: {reduction_tile = 256 : i64, register_tile = array<i64: 16, 16>, strategy = "contraction", workgroup_tile = array<i64: 0, 64, 49, 0>}
// AVX2-LABEL: func.func private @few_pixels
// AVX2-SAME: {pack_b = "lanes", reduction_tile = 256 : i64, register_tile = array<i64: 6, 16>, strategy = "contraction", workgroup_tile = array<i64: 0, 132, 49, 0>}
func.func private @few_pixels(%w: tensor<512x4608xf32>, %col: tensor<1x4608x49xf32>) -> tensor<1x512x49xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x512x49xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x512x49xf32>) -> tensor<1x512x49xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(n, m, p, k) -> (m, k)>, affine_map<(n, m, p, k) -> (n, k, p)>, affine_map<(n, m, p, k) -> (n, m, p)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%w, %col : tensor<512x4608xf32>, tensor<1x4608x49xf32>) outs(%1 : tensor<1x512x49xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x512x49xf32>
  return %2 : tensor<1x512x49xf32>
}

// The same with A's rows 8 KiB apart (K = 2048): 16 rows broadcast from
// one set of the 8-way L1 would evict each other, so 8 x 32 stays. So
// does a 14x14 output (196 lanes: 12.5 zmm per row against 13 saves too
// little) and an output with fewer than 16 rows.
// AVX512-LABEL: func.func private @few_pixels_aliased_rows
// AVX512-SAME: register_tile = array<i64: 8, 32>
// AVX512-LABEL: func.func private @pixels_196
// AVX512-SAME: register_tile = array<i64: 8, 32>
// AVX512-LABEL: func.func private @few_pixels_few_rows
// AVX512-SAME: register_tile = array<i64: 8, 32>
func.func private @few_pixels_aliased_rows(%w: tensor<512x2048xf32>, %x: tensor<1x2048x49xf32>) -> tensor<1x512x49xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x512x49xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x512x49xf32>) -> tensor<1x512x49xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(n, m, p, k) -> (m, k)>, affine_map<(n, m, p, k) -> (n, k, p)>, affine_map<(n, m, p, k) -> (n, m, p)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%w, %x : tensor<512x2048xf32>, tensor<1x2048x49xf32>) outs(%1 : tensor<1x512x49xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x512x49xf32>
  return %2 : tensor<1x512x49xf32>
}
func.func private @pixels_196(%w: tensor<256x2304xf32>, %col: tensor<1x2304x196xf32>) -> tensor<1x256x196xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x256x196xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x256x196xf32>) -> tensor<1x256x196xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(n, m, p, k) -> (m, k)>, affine_map<(n, m, p, k) -> (n, k, p)>, affine_map<(n, m, p, k) -> (n, m, p)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%w, %col : tensor<256x2304xf32>, tensor<1x2304x196xf32>) outs(%1 : tensor<1x256x196xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x256x196xf32>
  return %2 : tensor<1x256x196xf32>
}
func.func private @few_pixels_few_rows(%w: tensor<8x288xf32>, %col: tensor<1x288x49xf32>) -> tensor<1x8x49xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x8x49xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x8x49xf32>) -> tensor<1x8x49xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(n, m, p, k) -> (m, k)>, affine_map<(n, m, p, k) -> (n, k, p)>, affine_map<(n, m, p, k) -> (n, m, p)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%w, %col : tensor<8x288xf32>, tensor<1x288x49xf32>) outs(%1 : tensor<1x8x49xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x49xf32>
  return %2 : tensor<1x8x49xf32>
}
