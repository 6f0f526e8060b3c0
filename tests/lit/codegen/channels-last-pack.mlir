// RUN: kiln-opt %s --kiln-channels-last="min-channels=2" --kiln-graph-cleanup --kiln-to-linalg --kiln-form-dispatches --kiln-cpu-pack-weights=cpu=x86-64-v4 | FileCheck %s

// The HWIO filter of a channels-last convolution (3 reduction dims kh, kw,
// c) is packed like a [KH * KW * C, M] matrix into f32 lane panels
// [ceil(M/16)][KH][KW][C][16], zero past M, read through (m floordiv 16,
// kh, kw, c, m mod 16). Here M = 18 output channels (2 panels, the
// second with 2 valid lanes), C = 2 and a 1 x 2 window.
// CHECK-DAG: #[[PANEL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3 floordiv 16, d4, d5, d6, d3 mod 16)>
// CHECK-LABEL: func.func @main(
// W[o][c][0][kw] = 4 o + 2 c + kw. Panel 0 starts with (kh, kw, c) =
// (0, 0, 0): W[0..2][0][0][0] = 0, 4, 8 (little-endian hex); panel 1's
// first row (element 64) is W[16..17][0][0][0] = 64, 68, then 14 zeros,
// and its next row (c = 1) W[16..17][1][0][0] = 66, 70.
// CHECK: %[[W:.*]] = arith.constant dense<"0x000000000000804000000041{{.*}}000080420000884200000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000844200008C42{{.*}}"> : tensor<2x1x2x2x16xf32>
// CHECK: call @dispatch_1(%{{.*}}, %[[W]]) : (tensor<1x3x5x2xf32>, tensor<2x1x2x2x16xf32>) -> tensor<1x3x4x18xf32>
// CHECK-LABEL: func.func private @dispatch_1(
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[PANEL]], #{{.*}}]
func.func @main(%x: tensor<1x2x3x5xf32>) -> tensor<1x18x3x4xf32> {
  %w = kiln.constant dense<[[[[0.0, 1.0]], [[2.0, 3.0]]], [[[4.0, 5.0]], [[6.0, 7.0]]], [[[8.0, 9.0]], [[10.0, 11.0]]], [[[12.0, 13.0]], [[14.0, 15.0]]], [[[16.0, 17.0]], [[18.0, 19.0]]], [[[20.0, 21.0]], [[22.0, 23.0]]], [[[24.0, 25.0]], [[26.0, 27.0]]], [[[28.0, 29.0]], [[30.0, 31.0]]], [[[32.0, 33.0]], [[34.0, 35.0]]], [[[36.0, 37.0]], [[38.0, 39.0]]], [[[40.0, 41.0]], [[42.0, 43.0]]], [[[44.0, 45.0]], [[46.0, 47.0]]], [[[48.0, 49.0]], [[50.0, 51.0]]], [[[52.0, 53.0]], [[54.0, 55.0]]], [[[56.0, 57.0]], [[58.0, 59.0]]], [[[60.0, 61.0]], [[62.0, 63.0]]], [[[64.0, 65.0]], [[66.0, 67.0]]], [[[68.0, 69.0]], [[70.0, 71.0]]]]> : tensor<18x2x1x2xf32>
  %0 = kiln.conv %x, %w : tensor<1x2x3x5xf32>, tensor<18x2x1x2xf32>
  return %0 : tensor<1x18x3x4xf32>
}
