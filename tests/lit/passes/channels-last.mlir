// RUN: kiln-opt %s --kiln-channels-last --kiln-graph-cleanup | FileCheck %s
// RUN: kiln-opt %s --kiln-channels-last="max-pixels=16" --kiln-graph-cleanup | FileCheck %s --check-prefix=SMALL
// RUN: kiln-opt %s --kiln-channels-last | FileCheck %s --check-prefix=CSE
// RUN: kiln-opt %s --kiln-channels-last --kiln-to-linalg | FileCheck %s --check-prefix=LINALG

// kiln-channels-last: f32 convs of one group with at most max-pixels
// output pixels and at least min-channels (64) input and output channels
// become kiln.conv_nhwc on an NHWC input and a HWIO filter (a constant
// filter's transpose folds into a new constant), and the transposes move
// down through elementwise ops until consecutive ones cancel.

// A bottleneck block at 7x7: 1x1 -> relu -> 3x3 -> relu -> 1x1, plus the
// residual add and relu. One transpose into NHWC at the top (the block
// input), one back at the bottom; none in between.
// CHECK-LABEL: func.func @block(
// CHECK-SAME: %[[X:.*]]: tensor<1x64x7x7xf32>
// CHECK-DAG: %[[W1:.*]] = kiln.constant {{.*}} : tensor<1x1x64x64xf32>
// CHECK-DAG: %[[W2:.*]] = kiln.constant {{.*}} : tensor<3x3x64x64xf32>
// CHECK: %[[XT:.*]] = kiln.transpose %[[X]] {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[C1:.*]] = kiln.conv_nhwc %[[XT]], %[[W1]], %{{.*}} {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x7x7x64xf32>, tensor<1x1x64x64xf32>, tensor<64xf32>
// CHECK: %[[R1:.*]] = kiln.relu %[[C1]] : tensor<1x7x7x64xf32>
// CHECK: %[[C2:.*]] = kiln.conv_nhwc %[[R1]], %[[W2]] {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
// CHECK: %[[R2:.*]] = kiln.relu %[[C2]]
// CHECK: %[[C3:.*]] = kiln.conv_nhwc %[[R2]], %[[W1]]
// CHECK: %[[S:.*]] = kiln.add %[[C3]], %[[XT]] : tensor<1x7x7x64xf32>, tensor<1x7x7x64xf32>
// CHECK: %[[R3:.*]] = kiln.relu %[[S]]
// CHECK: %[[Y:.*]] = kiln.transpose %[[R3]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NOT: kiln.transpose
// CHECK: return %[[Y]] : tensor<1x64x7x7xf32>

// With max-pixels=16 the 7x7 plane (49 pixels) stays channels first.
// SMALL-LABEL: func.func @block(
// SMALL-NOT: kiln.conv_nhwc
// SMALL-NOT: kiln.transpose
// SMALL: return

// The lowering: the 1x1 conv is a matmul of [pixels, C] by [C, M]; the
// 3x3 pads its NHWC input and runs one generic over (n, oh, ow, m, kh, kw,
// c) with the output channels innermost.
// LINALG-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>
// LINALG-DAG: #[[FILTER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>
// LINALG-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// LINALG-LABEL: func.func @block(
// LINALG: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<49x64xf32>, tensor<64x64xf32>)
// LINALG: tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 1, 1, 0]
// LINALG: tensor<1x9x9x64xf32>
// LINALG: linalg.generic {indexing_maps = [#[[IN]], #[[FILTER]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
func.func @block(%x: tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32> {
  %w1 = kiln.constant dense<0.01> : tensor<64x64x1x1xf32>
  %b1 = kiln.constant dense<0.5> : tensor<64xf32>
  %w2 = kiln.constant dense<0.02> : tensor<64x64x3x3xf32>
  %0 = kiln.conv %x, %w1, %b1 : tensor<1x64x7x7xf32>, tensor<64x64x1x1xf32>, tensor<64xf32>
  %1 = kiln.relu %0 : tensor<1x64x7x7xf32>
  %2 = kiln.conv %1, %w2 {pads = array<i64: 1, 1, 1, 1>} : tensor<1x64x7x7xf32>, tensor<64x64x3x3xf32>
  %3 = kiln.relu %2 : tensor<1x64x7x7xf32>
  %4 = kiln.conv %3, %w1 : tensor<1x64x7x7xf32>, tensor<64x64x1x1xf32>
  %5 = kiln.add %4, %x : tensor<1x64x7x7xf32>, tensor<1x64x7x7xf32>
  %6 = kiln.relu %5 : tensor<1x64x7x7xf32>
  return %6 : tensor<1x64x7x7xf32>
}

// Left channels first: more than 4096 output pixels (72x72), two groups,
// fewer than 64 output channels, an f16 conv.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT: kiln.conv_nhwc
// CHECK-NOT: kiln.transpose
// CHECK: return
func.func @left_alone(%big: tensor<1x64x72x72xf32>, %x: tensor<1x64x16x16xf32>,
                      %w: tensor<64x64x1x1xf32>,
                      %g: tensor<64x32x1x1xf32>, %n: tensor<32x64x1x1xf32>,
                      %h: tensor<1x64x7x7xf16>, %hw: tensor<64x64x1x1xf16>)
    -> (tensor<1x64x72x72xf32>, tensor<1x64x16x16xf32>, tensor<1x32x16x16xf32>, tensor<1x64x7x7xf16>) {
  %0 = kiln.conv %big, %w : tensor<1x64x72x72xf32>, tensor<64x64x1x1xf32>
  %1 = kiln.conv %x, %g {groups = 2 : i64} : tensor<1x64x16x16xf32>, tensor<64x32x1x1xf32>
  %2 = kiln.conv %x, %n : tensor<1x64x16x16xf32>, tensor<32x64x1x1xf32>
  %3 = kiln.conv %h, %hw : tensor<1x64x7x7xf16>, tensor<64x64x1x1xf16>
  return %0, %1, %2, %3 : tensor<1x64x72x72xf32>, tensor<1x64x16x16xf32>, tensor<1x32x16x16xf32>, tensor<1x64x7x7xf16>
}

// A transpose with another user does not move (it would then run twice),
// and an add of differently shaped operands (a broadcast) keeps its
// transpose in front.
// CHECK-LABEL: func.func @shared(
// CHECK: %[[C:.*]] = kiln.conv_nhwc
// CHECK: %[[T:.*]] = kiln.transpose %[[C]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: kiln.add %[[T]], %{{.*}} : tensor<1x64x7x7xf32>, tensor<64x1x1xf32>
func.func @shared(%x: tensor<1x64x7x7xf32>, %w: tensor<64x64x1x1xf32>, %c: tensor<64x1x1xf32>) -> (tensor<1x64x7x7xf32>, tensor<1x64x7x7xf32>) {
  %0 = kiln.conv %x, %w : tensor<1x64x7x7xf32>, tensor<64x64x1x1xf32>
  %1 = kiln.add %0, %c : tensor<1x64x7x7xf32>, tensor<64x1x1xf32>
  %2 = kiln.relu %0 : tensor<1x64x7x7xf32>
  return %1, %2 : tensor<1x64x7x7xf32>, tensor<1x64x7x7xf32>
}

// A 1x1 plane (a squeeze-excite block's convs): the same bytes in either
// layout, left alone rather than given two transposes.
// CHECK-LABEL: func.func @one_pixel(
// CHECK-NOT: kiln.transpose
// CHECK: kiln.conv %{{.*}} : tensor<1x288x1x1xf32>, tensor<72x288x1x1xf32>
func.func @one_pixel(%x: tensor<1x288x1x1xf32>, %w: tensor<72x288x1x1xf32>) -> tensor<1x72x1x1xf32> {
  %0 = kiln.conv %x, %w : tensor<1x288x1x1xf32>, tensor<72x288x1x1xf32>
  return %0 : tensor<1x72x1x1xf32>
}

// Two convs reading one tensor: each transposes it, and the pass keeps
// the first transpose for both.
// CSE-LABEL: func.func @two_readers(
// CSE: kiln.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CSE-NOT: kiln.transpose %arg0
// CSE: return
func.func @two_readers(%x: tensor<1x64x7x7xf32>, %w: tensor<64x64x1x1xf32>, %v: tensor<128x64x1x1xf32>) -> (tensor<1x64x7x7xf32>, tensor<1x128x7x7xf32>) {
  %0 = kiln.conv %x, %w : tensor<1x64x7x7xf32>, tensor<64x64x1x1xf32>
  %1 = kiln.conv %x, %v : tensor<1x64x7x7xf32>, tensor<128x64x1x1xf32>
  return %0, %1 : tensor<1x64x7x7xf32>, tensor<1x128x7x7xf32>
}
