// RUN: kiln-opt --kiln-to-linalg %s | FileCheck %s

// The indexing maps print at the top of the module.
// CHECK-DAG: #[[$BACKWARDS:.*]] = affine_map<(d0, d1) -> (d0 * -2 + 3, d1 * -2 + 7)>
// CHECK-DAG: #[[$INDICES:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$STRETCH:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>

// CHECK-LABEL: func.func @reshape_regroup
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [2, 3, 4] : tensor<2x12xf32> into tensor<2x3x4xf32>
func.func @reshape_regroup(%x: tensor<2x12xf32>) -> tensor<2x3x4xf32> {
  %y = kiln.reshape %x {shape = array<i64: 2, 3, 4>} : tensor<2x12xf32>
  return %y : tensor<2x3x4xf32>
}

// CHECK-LABEL: func.func @reshape_collapse
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
func.func @reshape_collapse(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %y = kiln.reshape %x {shape = array<i64: 6, 4>} : tensor<2x3x4xf32>
  return %y : tensor<6x4xf32>
}

// Not a regrouping: through a 1-D tensor.
// CHECK-LABEL: func.func @reshape_any
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<2x6xf32> into tensor<12xf32>
// CHECK: tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [3, 4] : tensor<12xf32> into tensor<3x4xf32>
func.func @reshape_any(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %y = kiln.reshape %x {shape = array<i64: 3, 4>} : tensor<2x6xf32>
  return %y : tensor<3x4xf32>
}

// CHECK-LABEL: func.func @transpose
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %y = kiln.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32>
  return %y : tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<2x1xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK: %[[PART:.*]] = tensor.insert_slice %[[A]] into %[[INIT]][0, 0] [2, 3] [1, 1]
// CHECK: tensor.insert_slice %[[B]] into %[[PART]][0, 3] [2, 1] [1, 1]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>) -> tensor<2x4xf32> {
  %y = kiln.concat %a, %b {axis = -1 : i64} : tensor<2x3xf32>, tensor<2x1xf32>
  return %y : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @slice
// CHECK: tensor.extract_slice %{{.*}}[0, 1] [4, 3] [1, 2] : tensor<4x8xf32> to tensor<4x3xf32>
func.func @slice(%x: tensor<4x8xf32>) -> tensor<4x3xf32> {
  %y = kiln.slice %x {starts = array<i64: 0, 1>, ends = array<i64: 4, 7>, steps = array<i64: 1, 2>} : tensor<4x8xf32>
  return %y : tensor<4x3xf32>
}

// Negative steps: the indexing map reads backwards.
// CHECK-LABEL: func.func @slice_negative_step
// CHECK: linalg.generic {indexing_maps = [#[[$BACKWARDS]], #{{.*}}], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%{{.*}} : tensor<4x8xf32>) outs(%{{.*}} : tensor<2x4xf32>)
func.func @slice_negative_step(%x: tensor<4x8xf32>) -> tensor<2x4xf32> {
  %y = kiln.slice %x {starts = array<i64: 3, 7>, ends = array<i64: -1, -1>, steps = array<i64: -2, -2>} : tensor<4x8xf32>
  return %y : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[DATA:.*]]: tensor<5x3xf32>, %[[IDS:.*]]: tensor<2x2xi64>)
// CHECK: linalg.generic {indexing_maps = [#[[$INDICES]], #{{.*}}]
// CHECK-SAME: ins(%[[IDS]] : tensor<2x2xi64>)
// CHECK: ^bb0(%[[ID:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[COL:.*]] = linalg.index 2 : index
// CHECK: %[[CAST:.*]] = arith.index_cast %[[ID]] : i64 to index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[CAST]]
// CHECK: %[[WRAPPED:.*]] = arith.addi %[[CAST]]
// CHECK: %[[ROW:.*]] = arith.select %[[NEG]], %[[WRAPPED]], %[[CAST]] : index
// CHECK: %[[V:.*]] = tensor.extract %[[DATA]][%[[ROW]], %[[COL]]] : tensor<5x3xf32>
// CHECK: linalg.yield %[[V]] : f32
func.func @gather(%x: tensor<5x3xf32>, %i: tensor<2x2xi64>) -> tensor<2x2x3xf32> {
  %y = kiln.gather %x, %i {axis = 0 : i64} : tensor<5x3xf32>, tensor<2x2xi64>
  return %y : tensor<2x2x3xf32>
}

// A negative pad crops (extract_slice) before tensor.pad.
// CHECK-LABEL: func.func @pad_constant
// CHECK: %[[VALUE:.*]] = arith.constant 1.500000e+00 : f32
// CHECK: %[[CROP:.*]] = tensor.extract_slice %{{.*}}[0, 1] [2, 2] [1, 1] : tensor<2x3xf32> to tensor<2x2xf32>
// CHECK: tensor.pad %[[CROP]] low[1, 0] high[1, 2]
// CHECK: tensor.yield %[[VALUE]] : f32
// CHECK: } : tensor<2x2xf32> to tensor<4x4xf32>
func.func @pad_constant(%x: tensor<2x3xf32>) -> tensor<4x4xf32> {
  %y = kiln.pad %x {pads = array<i64: 1, -1, 1, 2>, value = 1.5} : tensor<2x3xf32>
  return %y : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @pad_reflect
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<4x7xf32>)
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<2x3xf32>
func.func @pad_reflect(%x: tensor<2x3xf32>) -> tensor<4x7xf32> {
  %y = kiln.pad %x {pads = array<i64: 1, 2, 1, 2>, mode = 1 : i32} : tensor<2x3xf32>
  return %y : tensor<4x7xf32>
}

// CHECK-LABEL: func.func @broadcast
// CHECK: linalg.generic {indexing_maps = [#[[$STRETCH]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%{{.*}} : tensor<3x1xf32>) outs(%{{.*}} : tensor<2x3x4xf32>)
func.func @broadcast(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %y = kiln.broadcast %x {shape = array<i64: 2, 3, 4>} : tensor<3x1xf32>
  return %y : tensor<2x3x4xf32>
}

