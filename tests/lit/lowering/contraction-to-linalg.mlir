// RUN: kiln-opt --kiln-to-linalg %s | FileCheck %s

// matmul: linalg.matmul when the rhs is a matrix (lhs batch dims folded
// into M), linalg.batch_matmul when both sides have the same batch dims,
// otherwise a broadcasting contraction generic; vector operands get a unit
// dim that is collapsed away again. conv: im2col generic (a plain reshape
// for 1x1 stride-1 kernels) + a contraction generic over (n, m, p, ck);
// grouped/depthwise conv is one direct generic. Pooling is a window
// reduction generic; average pooling multiplies by per-position 1/count.

// Broadcasting matmul [2,1,4,8] x [3,8,5]: loops (b0, b1, m, n, k); the
// lhs's size-1 batch dim that stretches reads index 0.
// CHECK-DAG: #[[$BMM_LHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: #[[$BMM_RHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[$BMM_OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// Shared by the conv contraction (filter [M, CK] x cols [N, CK, P]) and the
// 2-D x 3-D matmul: loops (n|b, m, p|n, k).
// CHECK-DAG: #[[$C_LHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-DAG: #[[$C_RHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[$C_OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// im2col for a stride-2 3x3 conv: loops (n, c, k1, k2, o1, o2) read
// input[n, c, o1 * 2 + k1, o2 * 2 + k2].
// CHECK-DAG: #[[$IM2COL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2, d5 * 2 + d3)>
// CHECK-DAG: #[[$ID6:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-DAG: #[[$ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// The bias [M] is read along dim 1 (a projected permutation, so the add
// stays fusable with the convolution).
// CHECK-DAG: #[[$BIAS2D:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// Grouped conv: loops (n, g, f, o1, o2, c, k1, k2).
// CHECK-DAG: #[[$G_IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
// CHECK-DAG: #[[$G_FILTER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
// CHECK-DAG: #[[$G_OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[$DW_IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d4, d2 + d5, d3 + d6)>
// CHECK-DAG: #[[$DW_FILTER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-DAG: #[[$DW_OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// 1-D conv, stride 3, dilation 2: loops (n, c, k, o) read input[n, c, o * 3 + k * 2].
// CHECK-DAG: #[[$IM2COL1D:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3 * 3 + d2 * 2)>
// CHECK-DAG: #[[$BIAS1D:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// Pooling: loops (n, c, o1, o2, k1, k2) with a window-shaped placeholder.
// CHECK-DAG: #[[$POOL_IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK-DAG: #[[$POOL_WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: #[[$POOL_OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$POOL1D_IN:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2 + d3)>
// CHECK-DAG: #[[$POOL1D_WIN:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-DAG: #[[$POOL_UNIT_IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 + d4, d3 + d5)>
// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$SCALE1D:.*]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul_2d
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<16x32xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<16x32xf32>)
// CHECK: %[[MM:.*]] = linalg.matmul ins(%arg0, %arg1 : tensor<16x8xf32>, tensor<8x32xf32>) outs(%[[INIT]] : tensor<16x32xf32>)
// CHECK: return %[[MM]]
func.func @matmul_2d(%a: tensor<16x8xf32>, %b: tensor<8x32xf32>) -> tensor<16x32xf32> {
  %0 = kiln.matmul %a, %b : tensor<16x8xf32>, tensor<8x32xf32>
  return %0 : tensor<16x32xf32>
}

// A batched lhs times a matrix: the batch folds into M (2*3*4 = 24).
// CHECK-LABEL: func.func @matmul_batched_2d_rhs
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1, 2], [3]] : tensor<2x3x4x8xf32> into tensor<24x8xf32>
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[FLAT]], %arg1 : tensor<24x8xf32>, tensor<8x5xf32>) outs(%{{.*}} : tensor<24x5xf32>)
// CHECK: %[[OUT:.*]] = tensor.expand_shape %[[MM]] {{\[\[}}0, 1, 2], [3]] output_shape [2, 3, 4, 5] : tensor<24x5xf32> into tensor<2x3x4x5xf32>
// CHECK: return %[[OUT]]
// CHECK-NOT: linalg.batch_matmul
func.func @matmul_batched_2d_rhs(%a: tensor<2x3x4x8xf32>, %b: tensor<8x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = kiln.matmul %a, %b : tensor<2x3x4x8xf32>, tensor<8x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// CHECK-LABEL: func.func @matmul_same_batch
// CHECK-NOT: tensor.collapse_shape
// CHECK: %[[MM:.*]] = linalg.batch_matmul ins(%arg0, %arg1 : tensor<6x4x8xf32>, tensor<6x8x5xf32>) outs(%{{.*}} : tensor<6x4x5xf32>)
// CHECK-NOT: tensor.expand_shape
// CHECK: return %[[MM]]
func.func @matmul_same_batch(%a: tensor<6x4x8xf32>, %b: tensor<6x8x5xf32>) -> tensor<6x4x5xf32> {
  %0 = kiln.matmul %a, %b : tensor<6x4x8xf32>, tensor<6x8x5xf32>
  return %0 : tensor<6x4x5xf32>
}

// Several equal batch dims fold into one batch_matmul batch (2*3 = 6).
// CHECK-LABEL: func.func @matmul_same_batch_4d
// CHECK-DAG: %[[L:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2], [3]] : tensor<2x3x4x8xf32> into tensor<6x4x8xf32>
// CHECK-DAG: %[[R:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1], [2], [3]] : tensor<2x3x8x5xf32> into tensor<6x8x5xf32>
// CHECK: %[[MM:.*]] = linalg.batch_matmul ins(%[[L]], %[[R]] : tensor<6x4x8xf32>, tensor<6x8x5xf32>) outs(%{{.*}} : tensor<6x4x5xf32>)
// CHECK: %[[OUT:.*]] = tensor.expand_shape %[[MM]] {{\[\[}}0, 1], [2], [3]] output_shape [2, 3, 4, 5] : tensor<6x4x5xf32> into tensor<2x3x4x5xf32>
// CHECK: return %[[OUT]]
func.func @matmul_same_batch_4d(%a: tensor<2x3x4x8xf32>, %b: tensor<2x3x8x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = kiln.matmul %a, %b : tensor<2x3x4x8xf32>, tensor<2x3x8x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// CHECK-LABEL: func.func @matmul_broadcast_batch
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x3x4x5xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$BMM_LHS]], #[[$BMM_RHS]], #[[$BMM_OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%arg0, %arg1 : tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) outs(%[[INIT]] : tensor<2x3x4x5xf32>)
// CHECK: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @matmul_broadcast_batch(%a: tensor<2x1x4x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = kiln.matmul %a, %b : tensor<2x1x4x8xf32>, tensor<3x8x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// Integer matmul with a broadcast matrix lhs: muli/addi, zero init.
// CHECK-LABEL: func.func @matmul_int
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: linalg.fill ins(%[[ZERO]] : i32)
// CHECK: linalg.generic {indexing_maps = [#[[$C_LHS]], #[[$C_RHS]], #[[$C_OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%arg0, %arg1 : tensor<4x8xi32>, tensor<2x8x3xi32>)
// CHECK: arith.muli
// CHECK-NEXT: arith.addi
func.func @matmul_int(%a: tensor<4x8xi32>, %b: tensor<2x8x3xi32>) -> tensor<2x4x3xi32> {
  %0 = kiln.matmul %a, %b : tensor<4x8xi32>, tensor<2x8x3xi32>
  return %0 : tensor<2x4x3xi32>
}

// vector x matrix, matrix x vector, vector x vector (a rank-0 result).
// CHECK-LABEL: func.func @matmul_vectors
// CHECK: %[[ROW:.*]] = tensor.expand_shape %arg0 {{\[\[}}0, 1]] output_shape [1, 5] : tensor<5xf32> into tensor<1x5xf32>
// CHECK: %[[VM:.*]] = linalg.matmul ins(%[[ROW]], %arg1 : tensor<1x5xf32>, tensor<5x7xf32>) outs(%{{.*}} : tensor<1x7xf32>)
// CHECK: %[[R0:.*]] = tensor.collapse_shape %[[VM]] {{\[\[}}0, 1]] : tensor<1x7xf32> into tensor<7xf32>
// CHECK: %[[COL:.*]] = tensor.expand_shape %arg2 {{\[\[}}0, 1]] output_shape [7, 1] : tensor<7xf32> into tensor<7x1xf32>
// CHECK: %[[MV:.*]] = linalg.matmul ins(%arg1, %[[COL]] : tensor<5x7xf32>, tensor<7x1xf32>) outs(%{{.*}} : tensor<5x1xf32>)
// CHECK: %[[R1:.*]] = tensor.collapse_shape %[[MV]] {{\[\[}}0, 1]] : tensor<5x1xf32> into tensor<5xf32>
// CHECK: %[[VV:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<1x5xf32>, tensor<5x1xf32>) outs(%{{.*}} : tensor<1x1xf32>)
// CHECK: %[[R2:.*]] = tensor.collapse_shape %[[VV]] [] : tensor<1x1xf32> into tensor<f32>
// CHECK: return %[[R0]], %[[R1]], %[[R2]] : tensor<7xf32>, tensor<5xf32>, tensor<f32>
func.func @matmul_vectors(%v: tensor<5xf32>, %m: tensor<5x7xf32>, %w: tensor<7xf32>) -> (tensor<7xf32>, tensor<5xf32>, tensor<f32>) {
  %0 = kiln.matmul %v, %m : tensor<5xf32>, tensor<5x7xf32>
  %1 = kiln.matmul %m, %w : tensor<5x7xf32>, tensor<7xf32>
  %2 = kiln.matmul %v, %v : tensor<5xf32>, tensor<5xf32>
  return %0, %1, %2 : tensor<7xf32>, tensor<5xf32>, tensor<f32>
}

// A vector against a batch of matrices (broadcasting generic), and a batch
// of matrices times a vector (folded into one linalg.matmul).
// CHECK-LABEL: func.func @matmul_vectors_batched
// CHECK: %[[ROW:.*]] = tensor.expand_shape %arg0 {{\[\[}}0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[$C_LHS]], #[[$C_RHS]], #[[$C_OUT]]]
// CHECK-SAME: ins(%[[ROW]], %arg1 : tensor<1x4xf32>, tensor<2x4x5xf32>) outs(%{{.*}} : tensor<2x1x5xf32>)
// CHECK: %[[R0:.*]] = tensor.collapse_shape %[[G]] {{\[\[}}0], [1, 2]] : tensor<2x1x5xf32> into tensor<2x5xf32>
// CHECK: %[[COL:.*]] = tensor.expand_shape %arg3 {{\[\[}}0, 1]] output_shape [5, 1] : tensor<5xf32> into tensor<5x1xf32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %arg2 {{\[\[}}0, 1], [2]] : tensor<3x4x5xf32> into tensor<12x5xf32>
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[FLAT]], %[[COL]] : tensor<12x5xf32>, tensor<5x1xf32>) outs(%{{.*}} : tensor<12x1xf32>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[MM]] {{\[\[}}0, 1], [2]] output_shape [3, 4, 1] : tensor<12x1xf32> into tensor<3x4x1xf32>
// CHECK: %[[R1:.*]] = tensor.collapse_shape %[[E]] {{\[\[}}0], [1, 2]] : tensor<3x4x1xf32> into tensor<3x4xf32>
// CHECK: return %[[R0]], %[[R1]]
func.func @matmul_vectors_batched(%v: tensor<4xf32>, %b: tensor<2x4x5xf32>, %c: tensor<3x4x5xf32>, %w: tensor<5xf32>) -> (tensor<2x5xf32>, tensor<3x4xf32>) {
  %0 = kiln.matmul %v, %b : tensor<4xf32>, tensor<2x4x5xf32>
  %1 = kiln.matmul %c, %w : tensor<3x4x5xf32>, tensor<5xf32>
  return %0, %1 : tensor<2x5xf32>, tensor<3x4xf32>
}

//===----------------------------------------------------------------------===//
// conv
//===----------------------------------------------------------------------===//

// 1x1, stride 1: no im2col, no padding, the input is only reshaped.
// CHECK-LABEL: func.func @conv_pointwise
// CHECK-NOT: tensor.pad
// CHECK: %[[COLS:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0], [1], [2, 3]] : tensor<1x16x8x8xf32> into tensor<1x16x64xf32>
// CHECK: %[[W:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0], [1, 2, 3]] : tensor<32x16x1x1xf32> into tensor<32x16xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x32x64xf32>)
// CHECK: %[[MM:.*]] = linalg.generic {indexing_maps = [#[[$C_LHS]], #[[$C_RHS]], #[[$C_OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[W]], %[[COLS]] : tensor<32x16xf32>, tensor<1x16x64xf32>) outs(%[[INIT]] : tensor<1x32x64xf32>)
// CHECK: %[[OUT:.*]] = tensor.expand_shape %[[MM]] {{\[\[}}0], [1], [2, 3]] output_shape [1, 32, 8, 8] : tensor<1x32x64xf32> into tensor<1x32x8x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[OUT]]
func.func @conv_pointwise(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32> {
  %0 = kiln.conv %x, %w : tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>
  return %0 : tensor<1x32x8x8xf32>
}

// 3x3, stride 2, pad 1, with bias: zero padding, im2col into
// [N, C, K1, K2, O1, O2] = [1, 3, 3, 3, 4, 4] viewed as [1, 27, 16], the
// contraction, then the bias add.
// CHECK-LABEL: func.func @conv_3x3_strided_padded_bias
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PAD:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[ZERO]] : f32
// CHECK: } : tensor<1x3x8x8xf32> to tensor<1x3x10x10xf32>
// CHECK: %[[WIN:.*]] = linalg.generic {indexing_maps = [#[[$IM2COL]], #[[$ID6]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[PAD]] : tensor<1x3x10x10xf32>) outs(%{{.*}} : tensor<1x3x3x3x4x4xf32>)
// CHECK: %[[COLS:.*]] = tensor.collapse_shape %[[WIN]] {{\[\[}}0], [1, 2, 3], [4, 5]] : tensor<1x3x3x3x4x4xf32> into tensor<1x27x16xf32>
// CHECK: %[[W:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0], [1, 2, 3]] : tensor<4x3x3x3xf32> into tensor<4x27xf32>
// CHECK: %[[MM:.*]] = linalg.generic {indexing_maps = [#[[$C_LHS]], #[[$C_RHS]], #[[$C_OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[W]], %[[COLS]] : tensor<4x27xf32>, tensor<1x27x16xf32>) outs(%{{.*}} : tensor<1x4x16xf32>)
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK: %[[CONV:.*]] = tensor.expand_shape %[[MM]] {{\[\[}}0], [1], [2, 3]] output_shape [1, 4, 4, 4] : tensor<1x4x16xf32> into tensor<1x4x4x4xf32>
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$BIAS2D]], #[[$ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[CONV]], %{{.*}} : tensor<1x4x4x4xf32>, tensor<4xf32>)
// CHECK: arith.addf
// CHECK: return %[[OUT]]
func.func @conv_3x3_strided_padded_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = kiln.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// groups = 2: input [1, 8, 6, 6] -> [1, 2, 4, 6, 6], filter [6, 4, 3, 3] ->
// [2, 3, 4, 3, 3], output [1, 2, 3, 4, 4] -> [1, 6, 4, 4]; one direct generic
// with the group as a parallel loop and (c, k1, k2) reduced.
// CHECK-LABEL: func.func @conv_grouped
// CHECK: %[[IN:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 2, 4, 6, 6] : tensor<1x8x6x6xf32> into tensor<1x2x4x6x6xf32>
// CHECK: %[[W:.*]] = tensor.expand_shape %arg1 {{\[\[}}0, 1], [2], [3], [4]] output_shape [2, 3, 4, 3, 3] : tensor<6x4x3x3xf32> into tensor<2x3x4x3x3xf32>
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[$G_IN]], #[[$G_FILTER]], #[[$G_OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[IN]], %[[W]] : tensor<1x2x4x6x6xf32>, tensor<2x3x4x3x3xf32>) outs(%{{.*}} : tensor<1x2x3x4x4xf32>)
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK: %[[OUT:.*]] = tensor.collapse_shape %[[G]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<1x2x3x4x4xf32> into tensor<1x6x4x4xf32>
// CHECK: return %[[OUT]]
func.func @conv_grouped(%x: tensor<1x8x6x6xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x4x4xf32> {
  %0 = kiln.conv %x, %w {groups = 2 : i64} : tensor<1x8x6x6xf32>, tensor<6x4x3x3xf32>
  return %0 : tensor<1x6x4x4xf32>
}

// Depthwise (groups == channels), padded, with bias: the padded input is
// split into 8 groups of one channel; with one filter per group the
// filter is read as it is and the result is [N, G, O...] directly, with no
// reshape before the bias add (so the two share a dispatch).
// CHECK-LABEL: func.func @conv_depthwise
// CHECK: %[[PAD:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: } : tensor<1x8x6x6xf32> to tensor<1x8x8x8xf32>
// CHECK: %[[IN:.*]] = tensor.expand_shape %[[PAD]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 8, 1, 8, 8] : tensor<1x8x8x8xf32> into tensor<1x8x1x8x8xf32>
// CHECK: %[[CONV:.*]] = linalg.generic {indexing_maps = [#[[$DW_IN]], #[[$DW_FILTER]], #[[$DW_OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[IN]], %arg1 : tensor<1x8x1x8x8xf32>, tensor<8x1x3x3xf32>) outs(%{{.*}} : tensor<1x8x6x6xf32>)
// CHECK-NOT: tensor.collapse_shape
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$BIAS2D]], #[[$ID4]]]
// CHECK-SAME: ins(%[[CONV]], %{{.*}} : tensor<1x8x6x6xf32>, tensor<8xf32>)
// CHECK: return %[[OUT]]
func.func @conv_depthwise(%x: tensor<1x8x6x6xf32>, %w: tensor<8x1x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x6x6xf32> {
  %0 = kiln.conv %x, %w, %b {groups = 8 : i64, pads = array<i64: 1, 1, 1, 1>} : tensor<1x8x6x6xf32>, tensor<8x1x3x3xf32>, tensor<8xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// 1-D with asymmetric pads, stride 3 and dilation 2.
// CHECK-LABEL: func.func @conv_1d
// CHECK: %[[PAD:.*]] = tensor.pad %arg0 low[0, 0, 1] high[0, 0, 2]
// CHECK: } : tensor<1x3x10xf32> to tensor<1x3x13xf32>
// CHECK: %[[WIN:.*]] = linalg.generic {indexing_maps = [#[[$IM2COL1D]], #[[$ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[PAD]] : tensor<1x3x13xf32>) outs(%{{.*}} : tensor<1x3x3x3xf32>)
// CHECK: %[[COLS:.*]] = tensor.collapse_shape %[[WIN]] {{\[\[}}0], [1, 2], [3]] : tensor<1x3x3x3xf32> into tensor<1x9x3xf32>
// CHECK: %[[W:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0], [1, 2]] : tensor<4x3x3xf32> into tensor<4x9xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$C_LHS]], #[[$C_RHS]], #[[$C_OUT]]]
// CHECK-SAME: ins(%[[W]], %[[COLS]] : tensor<4x9xf32>, tensor<1x9x3xf32>) outs(%{{.*}} : tensor<1x4x3xf32>)
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$BIAS1D]], #[[$ID3]]]
// CHECK-SAME: tensor<1x4x3xf32>, tensor<4xf32>
// CHECK: return %[[OUT]]
func.func @conv_1d(%x: tensor<1x3x10xf32>, %w: tensor<4x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x3xf32> {
  %0 = kiln.conv %x, %w, %b {strides = array<i64: 3>, dilations = array<i64: 2>, pads = array<i64: 1, 2>} : tensor<1x3x10xf32>, tensor<4x3x3xf32>, tensor<4xf32>
  return %0 : tensor<1x4x3xf32>
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

// Max pooling pads with -inf and starts from -inf.
// CHECK-LABEL: func.func @max_pool
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PAD:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[NEGINF]] : f32
// CHECK: } : tensor<1x2x8x8xf32> to tensor<1x2x10x10xf32>
// CHECK: %[[WINDOW:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<1x2x4x4xf32>)
// CHECK: %[[POOL:.*]] = linalg.generic {indexing_maps = [#[[$POOL_IN]], #[[$POOL_WIN]], #[[$POOL_OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[PAD]], %[[WINDOW]] : tensor<1x2x10x10xf32>, tensor<3x3xf32>) outs(%[[INIT]] : tensor<1x2x4x4xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.maximumf %[[ACC]], %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[M]] : f32
// CHECK: return %[[POOL]]
func.func @max_pool(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %0 = kiln.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x2x8x8xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// ceil_mode: the last window (starting at 8) runs past the end of the 9
// elements, so one more -inf cell is padded on the high side.
// CHECK-LABEL: func.func @max_pool_ceil
// CHECK: %[[PAD:.*]] = tensor.pad %arg0 low[0, 0, 0] high[0, 0, 1]
// CHECK: } : tensor<2x4x9xf32> to tensor<2x4x10xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$POOL1D_IN]], #[[$POOL1D_WIN]], #[[$C_OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[PAD]], %{{.*}} : tensor<2x4x10xf32>, tensor<2xf32>) outs(%{{.*}} : tensor<2x4x5xf32>)
// CHECK: arith.maximumf
func.func @max_pool_ceil(%y: tensor<2x4x9xf32>) -> tensor<2x4x5xf32> {
  %0 = kiln.max_pool %y {kernel_shape = array<i64: 2>, strides = array<i64: 2>, ceil_mode = true} : tensor<2x4x9xf32>
  return %0 : tensor<2x4x5xf32>
}

// Average pooling excluding pads: a 3x3 window over a 4x4 input padded by 1
// covers 4 cells in the corners, 6 on the edges and 9 inside.
// CHECK-LABEL: func.func @avg_pool_exclude_pad
// CHECK: %[[SCALE:.*]] = arith.constant dense<{{\[\[\[\[}}2.500000e-01, 0.166666672, 0.166666672, 2.500000e-01], [0.166666672, 0.111111112, 0.111111112, 0.166666672], [0.166666672, 0.111111112, 0.111111112, 0.166666672], [2.500000e-01, 0.166666672, 0.166666672, 2.500000e-01]]]]> : tensor<1x1x4x4xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PAD:.*]] = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[ZERO]] : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$POOL_UNIT_IN]], #[[$POOL_WIN]], #[[$POOL_OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[PAD]], %{{.*}} : tensor<1x1x6x6xf32>, tensor<3x3xf32>) outs(%[[INIT]] : tensor<1x1x4x4xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: arith.addf %[[ACC]], %[[X]] : f32
// CHECK: %[[AVG:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$ID4]], #[[$ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[SUM]], %[[SCALE]] : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>)
// CHECK: arith.mulf
// CHECK: return %[[AVG]]
func.func @avg_pool_exclude_pad(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %0 = kiln.avg_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// count_include_pad: every window counts 9 cells.
// CHECK-LABEL: func.func @avg_pool_include_pad
// CHECK: %[[SCALE:.*]] = arith.constant dense<0.111111112> : tensor<1x1x4x4xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$POOL_UNIT_IN]], #[[$POOL_WIN]], #[[$POOL_OUT]]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[SUM]], %[[SCALE]] : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>)
// CHECK: arith.mulf
func.func @avg_pool_include_pad(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %0 = kiln.avg_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = true} : tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// ceil_mode: windows start at 0, 2, 4 over 6 elements; the last one holds
// only 2 real elements (the extra padded cell does not count). The scale is
// [1, 1, O] and broadcasts over N and C.
// CHECK-LABEL: func.func @avg_pool_ceil
// CHECK: %[[SCALE:.*]] = arith.constant dense<{{\[\[\[}}0.333333343, 0.333333343, 5.000000e-01]]]> : tensor<1x1x3xf32>
// CHECK: %[[PAD:.*]] = tensor.pad %arg0 low[0, 0, 0] high[0, 0, 1]
// CHECK: } : tensor<1x2x6xf32> to tensor<1x2x7xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$POOL1D_IN]], #[[$POOL1D_WIN]], #[[$C_OUT]]]
// CHECK: linalg.generic {indexing_maps = [#[[$ID3]], #[[$SCALE1D]], #[[$ID3]]]
// CHECK-SAME: ins(%[[SUM]], %[[SCALE]] : tensor<1x2x3xf32>, tensor<1x1x3xf32>)
func.func @avg_pool_ceil(%y: tensor<1x2x6xf32>) -> tensor<1x2x3xf32> {
  %0 = kiln.avg_pool %y {kernel_shape = array<i64: 3>, strides = array<i64: 2>, ceil_mode = true} : tensor<1x2x6xf32>
  return %0 : tensor<1x2x3xf32>
}

// ceil_mode with count_include_pad: windows start at -1, 1, 3, 5 over
// [-1, 7); the last one counts only cells 5 and 6 (as PyTorch does).
// CHECK-LABEL: func.func @avg_pool_ceil_include_pad
// CHECK: arith.constant dense<{{\[\[\[}}0.333333343, 0.333333343, 0.333333343, 5.000000e-01]]]> : tensor<1x1x4xf32>
// CHECK: tensor.pad %arg0 low[0, 0, 1] high[0, 0, 2]
// CHECK: } : tensor<1x2x6xf32> to tensor<1x2x9xf32>
func.func @avg_pool_ceil_include_pad(%y: tensor<1x2x6xf32>) -> tensor<1x2x4xf32> {
  %0 = kiln.avg_pool %y {kernel_shape = array<i64: 3>, strides = array<i64: 2>, pads = array<i64: 1, 1>, ceil_mode = true, count_include_pad = true} : tensor<1x2x6xf32>
  return %0 : tensor<1x2x4xf32>
}
