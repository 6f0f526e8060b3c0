// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=V4
// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=V3
// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=KERNEL --implicit-check-not=memref.alloc --implicit-check-not=malloc

// A channels-last convolution (kiln.conv_nhwc, lowered by kiln-to-linalg
// and packed by kiln-cpu-pack-weights: channels-last.mlir and
// channels-last-pack.mlir): loops (n, oh, ow, m, kh, kw, c), the output
// pixels of one row as the tile's rows, the output channels as its lanes,
// the HWIO filter in lane panels [ceil(M/16)][KH][KW][C][16] read through
// (m floordiv 16, kh, kw, c, m mod 16). 5x5 output, 64 input and 70
// output channels: a ragged last panel, a masked lane edge.

// AVX-512: a whole output row (5 pixels) by 64 lanes (20 accumulators of
// 28), whole K, workgroups of one lane tile; 70 channels are 2 lane tiles,
// so the 5 output rows split in 2 as well (4 workgroups).
// V4: kiln.lowering_config = {reduction_tile = 0 : i64, register_tile = array<i64: 5, 64>, strategy = "contraction", workgroup_tile = array<i64: 0, 3, 0, 64>}
// AVX2: two ymm of lanes and 5 rows (a 5-pixel row fits one tile).
// V3: kiln.lowering_config = {reduction_tile = 0 : i64, register_tile = array<i64: 5, 16>, strategy = "contraction", workgroup_tile = array<i64: 0, 0, 0, 16>}

// The kernel: per k, the 64 lanes of 4 panel rows and 5 broadcasts feed 5
// FMAs of 64 lanes (20 zmm FMAs in LLVM); nothing is allocated on the heap.
// KERNEL-LABEL: llvm.func internal @dispatch_2_impl(
// KERNEL-COUNT-5: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<64xf32>, vector<64xf32>, vector<64xf32>) -> vector<64xf32>
// The values: //tests/e2e:channels_last_e2e against onnxruntime.
#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3 floordiv 16, d4, d5, d6, d3 mod 16)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func private @dispatch_2(%arg0: tensor<1x7x7x64xf32>, %arg1: tensor<5x3x3x64x16xf32>) -> tensor<1x5x5x70xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x5x5x70xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x5x5x70xf32>) -> tensor<1x5x5x70xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %arg1 : tensor<1x7x7x64xf32>, tensor<5x3x3x64x16xf32>) outs(%1 : tensor<1x5x5x70xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.mulf %in, %in_0 : f32
    %6 = arith.addf %out, %5 : f32
    linalg.yield %6 : f32
  } -> tensor<1x5x5x70xf32>
  %3 = tensor.empty() : tensor<1x5x5x70xf32>
  %4 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2 : tensor<1x5x5x70xf32>) outs(%3 : tensor<1x5x5x70xf32>) {
  ^bb0(%in: f32, %out: f32):
    %5 = arith.maxnumf %in, %cst : f32
    linalg.yield %5 : f32
  } -> tensor<1x5x5x70xf32>
  return %4 : tensor<1x5x5x70xf32>
}
