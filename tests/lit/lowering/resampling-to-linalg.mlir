// RUN: kiln-opt --kiln-to-linalg %s | FileCheck %s

// CHECK-DAG: #[[$FLIP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, -d3 + 2, -d4 + 2)>
// CHECK-DAG: #[[$IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
// CHECK-DAG: #[[$FILTER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d5, d2, d6, d7)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>

// Linear resize of the two spatial dims: 2 x 2 taps read with tensor.extract.
// CHECK-LABEL: func.func @resize_linear
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x3x16x16xf32>)
// CHECK: math.floor
// CHECK: math.floor
// CHECK-COUNT-4: tensor.extract %{{.*}} : tensor<1x3x8x8xf32>
// CHECK-NOT: tensor.extract
// CHECK: linalg.yield
func.func @resize_linear(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32> {
  %y = kiln.resize linear %x {sizes = array<i64: 1, 3, 16, 16>, scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x3x8x8xf32>
  return %y : tensor<1x3x16x16xf32>
}

// CHECK-LABEL: func.func @resize_nearest
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK: math.floor
// CHECK: tensor.extract
// CHECK-NOT: tensor.extract
// CHECK: linalg.yield
func.func @resize_nearest(%x: tensor<1x2x4xi64>) -> tensor<1x2x8xi64> {
  %y = kiln.resize nearest %x {sizes = array<i64: 1, 2, 8>, coordinate_transformation_mode = 4 : i32, nearest_mode = 2 : i32} : tensor<1x2x4xi64>
  return %y : tensor<1x2x8xi64>
}

// CHECK-LABEL: func.func @resize_cubic
// CHECK: linalg.generic
// CHECK-COUNT-16: tensor.extract
// CHECK-NOT: tensor.extract
// CHECK: linalg.yield
func.func @resize_cubic(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32> {
  %y = kiln.resize cubic %x {sizes = array<i64: 1, 1, 8, 8>} : tensor<1x1x4x4xf32>
  return %y : tensor<1x1x8x8xf32>
}

// Zero-insert with a strided insert_slice into the padded zero tensor, split
// the channels by group, flip the kernel, convolve, merge the groups.
// CHECK-LABEL: func.func @conv_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<1x16x8x8xf32>, %[[W:.*]]: tensor<16x8x3x3xf32>)
// CHECK: %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x16x18x18xf32>)
// CHECK: %[[DILATED:.*]] = tensor.insert_slice %[[X]] into %[[ZEROS]][0, 0, 1, 1] [1, 16, 8, 8] [1, 1, 2, 2]
// CHECK: %[[XG:.*]] = tensor.expand_shape %[[DILATED]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 1, 16, 18, 18]
// CHECK: %[[WG:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0, 1], [2], [3], [4]] output_shape [1, 16, 8, 3, 3]
// CHECK: %[[FLIPPED:.*]] = linalg.generic {indexing_maps = [#[[$FLIP]], #{{.*}}]{{.*}} ins(%[[WG]]
// CHECK: %[[CONV:.*]] = linalg.generic {indexing_maps = [#[[$IN]], #[[$FILTER]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[XG]], %[[FLIPPED]]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: tensor.collapse_shape %[[CONV]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<1x1x8x16x16xf32> into tensor<1x8x16x16xf32>
func.func @conv_transpose(%x: tensor<1x16x8x8xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<1x8x16x16xf32> {
  %y = kiln.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 1, 1>} : tensor<1x16x8x8xf32>, tensor<16x8x3x3xf32>
  return %y : tensor<1x8x16x16xf32>
}
