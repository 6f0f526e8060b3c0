// RUN: kiln-opt --kiln-to-linalg %s | FileCheck %s

// The input projection is one matmul before the time loop, initialized with
// the biases; each step is a matmul accumulating into that step's slice, a
// gate generic, and an insert into y.
// CHECK-LABEL: func.func @rnn_reverse
// CHECK-SAME: (%[[X:.*]]: tensor<5x3x4xf32>, %[[W:.*]]: tensor<1x8x4xf32>, %[[R:.*]]: tensor<1x8x8xf32>, %[[B:.*]]: tensor<1x16xf32>, %[[H0:.*]]: tensor<1x3x8xf32>)
// CHECK: %[[XS:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<5x3x4xf32> into tensor<15x4xf32>
// CHECK: %[[WD:.*]] = tensor.extract_slice %[[W]][0, 0, 0] [1, 8, 4] [1, 1, 1] : tensor<1x8x4xf32> to tensor<8x4xf32>
// CHECK: %[[WT:.*]] = linalg.transpose ins(%[[WD]] : tensor<8x4xf32>) {{.*}} permutation = [1, 0]
// CHECK: %[[RT:.*]] = linalg.transpose ins(%{{.*}} : tensor<8x8xf32>) {{.*}} permutation = [1, 0]
// CHECK: %[[BIASES:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<15x8xf32>)
// CHECK: %[[PROJ:.*]] = linalg.matmul ins(%[[XS]], %[[WT]] : tensor<15x4xf32>, tensor<4x8xf32>) outs(%[[BIASES]] : tensor<15x8xf32>)
// CHECK: %[[STEPS:.*]] = tensor.expand_shape %[[PROJ]] {{\[\[}}0, 1], [2]] output_shape [5, 3, 8]
// CHECK: %[[INIT:.*]] = tensor.extract_slice %[[H0]][0, 0, 0] [1, 3, 8] [1, 1, 1] : tensor<1x3x8xf32> to tensor<3x8xf32>
// CHECK: %[[LOOP:.*]]:2 = scf.for %[[T:[a-z0-9]+]] = {{.*}} iter_args(%[[Y:.*]] = %{{.*}}, %[[H:.*]] = %[[INIT]]) -> (tensor<5x1x3x8xf32>, tensor<3x8xf32>)
// CHECK: %[[TIME:.*]] = arith.subi %{{.*}}, %[[T]] : index
// CHECK: %[[XT:.*]] = tensor.extract_slice %[[STEPS]][%[[TIME]], 0, 0] [1, 3, 8] [1, 1, 1]
// CHECK: %[[PRE:.*]] = linalg.matmul ins(%[[H]], %[[RT]] : tensor<3x8xf32>, tensor<8x8xf32>) outs(%[[XT]] : tensor<3x8xf32>)
// CHECK: %[[NEW:.*]] = linalg.generic {{.*}} ins(%[[PRE]] : tensor<3x8xf32>)
// CHECK: math.tanh
// CHECK: %[[YNEXT:.*]] = tensor.insert_slice %[[NEW]] into %[[Y]][%[[TIME]], 0, 0, 0] [1, 1, 3, 8] [1, 1, 1, 1]
// CHECK: %[[HNEXT:.*]] = linalg.copy ins(%[[NEW]] : tensor<3x8xf32>) outs(%[[H]] : tensor<3x8xf32>)
// CHECK: scf.yield %[[YNEXT]], %[[HNEXT]]
// CHECK: %[[YH:.*]] = tensor.insert_slice %[[LOOP]]#1 into %{{.*}}[0, 0, 0] [1, 3, 8] [1, 1, 1] : tensor<3x8xf32> into tensor<1x3x8xf32>
// CHECK: return %[[LOOP]]#0, %[[YH]]
func.func @rnn_reverse(%x: tensor<5x3x4xf32>, %w: tensor<1x8x4xf32>, %r: tensor<1x8x8xf32>, %b: tensor<1x16xf32>, %h0: tensor<1x3x8xf32>) -> (tensor<5x1x3x8xf32>, tensor<1x3x8xf32>) {
  %y, %y_h = kiln.rnn reverse %x, %w, %r, %b initial(%h0 : tensor<1x3x8xf32>) {activations = ["tanh"], hidden_size = 8 : i64} : tensor<5x3x4xf32>, tensor<1x8x4xf32>, tensor<1x8x8xf32>, tensor<1x16xf32>
  return %y, %y_h : tensor<5x1x3x8xf32>, tensor<1x3x8xf32>
}

// Bidirectional: two time loops threading y; the gate generic reads the
// four gate blocks, the cell state and the peepholes and yields (h, c).
// CHECK-LABEL: func.func @lstm_bidirectional
// CHECK: %[[FWD:.*]]:3 = scf.for {{.*}} -> (tensor<5x2x3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>)
// CHECK: %[[GATES:.*]] = linalg.matmul {{.*}} -> tensor<3x32xf32>
// CHECK: tensor.extract_slice %[[GATES]][0, 0] [3, 8] [1, 1]
// CHECK: tensor.extract_slice %[[GATES]][0, 8] [3, 8] [1, 1]
// CHECK: tensor.extract_slice %[[GATES]][0, 16] [3, 8] [1, 1]
// CHECK: tensor.extract_slice %[[GATES]][0, 24] [3, 8] [1, 1]
// CHECK: linalg.generic
// CHECK: } -> (tensor<3x8xf32>, tensor<3x8xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, 0, 0, 0] [1, 1, 3, 8]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[FWD]]#0, {{.*}}) -> (tensor<5x2x3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, 1, 0, 0] [1, 1, 3, 8]
func.func @lstm_bidirectional(%x: tensor<5x3x4xf32>, %w: tensor<2x32x4xf32>, %r: tensor<2x32x8xf32>, %b: tensor<2x64xf32>, %p: tensor<2x24xf32>) -> (tensor<5x2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>) {
  %y, %y_h, %y_c = kiln.lstm bidirectional %x, %w, %r, %b, %p
      {activations = ["sigmoid", "tanh", "tanh", "sigmoid", "tanh", "tanh"], hidden_size = 8 : i64}
      : tensor<5x3x4xf32>, tensor<2x32x4xf32>, tensor<2x32x8xf32>, tensor<2x64xf32>, tensor<2x24xf32>
  return %y, %y_h, %y_c : tensor<5x2x3x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>
}

// linear_before_reset = false: (r * h) @ Rh^T is a second matmul per step.
// CHECK-LABEL: func.func @gru
// CHECK: scf.for
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3x8xf32>, tensor<8x16xf32>)
// CHECK: linalg.generic
// CHECK: } -> (tensor<3x8xf32>, tensor<3x8xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3x8xf32>, tensor<8x8xf32>)
// CHECK: linalg.generic
func.func @gru(%x: tensor<5x3x4xf32>, %w: tensor<1x24x4xf32>, %r: tensor<1x24x8xf32>, %b: tensor<1x48xf32>) -> (tensor<5x1x3x8xf32>, tensor<1x3x8xf32>) {
  %y, %y_h = kiln.gru forward %x, %w, %r, %b {activations = ["sigmoid", "tanh"], hidden_size = 8 : i64}
      : tensor<5x3x4xf32>, tensor<1x24x4xf32>, tensor<1x24x8xf32>, tensor<1x48xf32>
  return %y, %y_h : tensor<5x1x3x8xf32>, tensor<1x3x8xf32>
}
