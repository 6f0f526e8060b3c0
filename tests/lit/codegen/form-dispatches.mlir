// RUN: kiln-opt --kiln-to-linalg --kiln-form-dispatches -split-input-file %s | FileCheck %s

// kiln-form-dispatches outlines the lowered graph into `kiln.dispatch`
// functions: elementwise chains fuse into one loop nest, a root (matmul,
// conv contraction, reduction) joins its elementwise consumer, identical
// bodies are emitted once, and the host function keeps only constants,
// reshapes, calls and the return.

// matmul + bias + GELU is one dispatch: the matmul and one elementwise
// generic doing the bias add and the GELU.
// CHECK-LABEL: func.func @matmul_bias_gelu(
// CHECK-NOT: {{linalg\.|tensor\.empty|tensor\.pad|math\.|arith\.[a-z]+f }}
// CHECK: %[[R:.*]] = call @dispatch_0(%arg0, %arg1, %arg2) : (tensor<16x64xf32>, tensor<64x128xf32>, tensor<128xf32>) -> tensor<16x128xf32>
// CHECK-NOT: {{linalg\.|tensor\.empty|tensor\.pad|math\.|arith\.[a-z]+f |call}}
// CHECK: return %[[R]]
// CHECK: func.func private @dispatch_0(%{{.*}}: tensor<16x64xf32>, %{{.*}}: tensor<64x128xf32>, %[[BIAS:.*]]: tensor<128xf32>) -> tensor<16x128xf32> attributes {kiln.dispatch}
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK: %[[OUT:.*]] = linalg.generic
// CHECK-SAME: ins(%[[MM]], %[[BIAS]] : tensor<16x128xf32>, tensor<128xf32>)
// CHECK: arith.addf
// CHECK: math.erf
// CHECK: linalg.yield
// CHECK-NOT: linalg.generic
// CHECK: return %[[OUT]]
// CHECK-NOT: func.func private @dispatch_1
func.func @matmul_bias_gelu(%x: tensor<16x64xf32>, %w: tensor<64x128xf32>, %b: tensor<128xf32>) -> tensor<16x128xf32> {
  %0 = kiln.matmul %x, %w : tensor<16x64xf32>, tensor<64x128xf32>
  %1 = kiln.add %0, %b : tensor<16x128xf32>, tensor<128xf32>
  %2 = kiln.gelu %1 : tensor<16x128xf32>
  return %2 : tensor<16x128xf32>
}

// -----

// A chain of four elementwise ops fuses into one generic in one dispatch.
// CHECK-LABEL: func.func @elementwise_chain(
// CHECK: %[[R:.*]] = call @dispatch_0(%arg0, %arg1)
// CHECK-NOT: call
// CHECK: return %[[R]]
// CHECK: func.func private @dispatch_0(
// CHECK-SAME: attributes {kiln.dispatch}
// CHECK: %[[G:.*]] = linalg.generic
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK: math.tanh
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: linalg.yield
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]]
// CHECK-NOT: func.func private @dispatch_1
func.func @elementwise_chain(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = kiln.add %x, %y : tensor<4x8xf32>, tensor<4x8xf32>
  %1 = kiln.mul %0, %y : tensor<4x8xf32>, tensor<4x8xf32>
  %2 = kiln.tanh %1 : tensor<4x8xf32>
  %3 = kiln.sigmoid %2 : tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// -----

// Two identical matmul + ReLU layers: one dispatch function, called twice,
// the second call reading the first's result.
// CHECK-LABEL: func.func @identical_layers(
// CHECK: %[[A:.*]] = call @dispatch_0(%arg0, %arg1) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
// CHECK: %[[B:.*]] = call @dispatch_0(%[[A]], %arg2) : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
// CHECK: return %[[B]]
// CHECK: func.func private @dispatch_0(
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: arith.maxnumf
// CHECK-NOT: func.func private @dispatch_1
func.func @identical_layers(%x: tensor<8x16xf32>, %w1: tensor<16x16xf32>, %w2: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %0 = kiln.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x16xf32>
  %1 = kiln.relu %0 : tensor<8x16xf32>
  %2 = kiln.matmul %1, %w2 : tensor<8x16xf32>, tensor<16x16xf32>
  %3 = kiln.relu %2 : tensor<8x16xf32>
  return %3 : tensor<8x16xf32>
}

// -----

// Same structure, different shapes: two dispatch functions.
// CHECK-LABEL: func.func @different_shapes(
// CHECK: call @dispatch_0(
// CHECK: call @dispatch_1(
// CHECK: func.func private @dispatch_0(%{{.*}}: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: func.func private @dispatch_1(%{{.*}}: tensor<8x4xf32>) -> tensor<8x4xf32>
func.func @different_shapes(%x: tensor<4x8xf32>, %y: tensor<8x4xf32>) -> (tensor<4x8xf32>, tensor<8x4xf32>) {
  %0 = kiln.exp %x : tensor<4x8xf32>
  %1 = kiln.exp %y : tensor<8x4xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<8x4xf32>
}

// -----

// Conv (3x3, no bias) + ReLU: the contraction and the ReLU share a
// dispatch, the ReLU collapsed onto the contraction's [N, M, P] shape. The
// padding and the im2col are dispatches of their own; the host keeps the
// reshapes between them.
// CHECK-LABEL: func.func @conv_relu(
// CHECK-NOT: {{linalg\.|tensor\.empty|tensor\.pad|math\.|arith\.[a-z]+f }}
// CHECK: %[[PAD:.*]] = call @dispatch_0(%arg0) : (tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32>
// CHECK: %[[WIN:.*]] = call @dispatch_1(%[[PAD]]) : (tensor<1x3x10x10xf32>) -> tensor<1x3x3x3x8x8xf32>
// CHECK: %[[COLS:.*]] = tensor.collapse_shape %[[WIN]]
// CHECK: %[[W:.*]] = tensor.collapse_shape %arg1
// CHECK: %[[CONV:.*]] = call @dispatch_2(%[[W]], %[[COLS]]) : (tensor<4x27xf32>, tensor<1x27x64xf32>) -> tensor<1x4x64xf32>
// CHECK: %[[OUT:.*]] = tensor.expand_shape %[[CONV]]
// CHECK-NOT: {{linalg\.|tensor\.empty|tensor\.pad|math\.|arith\.[a-z]+f |call}}
// CHECK: return %[[OUT]]
// CHECK: func.func private @dispatch_0(
// CHECK: tensor.pad
// CHECK: func.func private @dispatch_1(
// CHECK: linalg.generic
// CHECK: func.func private @dispatch_2(
// CHECK: %[[MM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: %[[RELU:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME: ins(%[[MM]] : tensor<1x4x64xf32>)
// CHECK: arith.maxnumf
// CHECK: return %[[RELU]]
// CHECK-NOT: func.func private @dispatch_3
func.func @conv_relu(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  %0 = kiln.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>
  %1 = kiln.relu %0 : tensor<1x4x8x8xf32>
  return %1 : tensor<1x4x8x8xf32>
}

// -----

// 1-D pointwise conv + bias + ReLU: one dispatch with the contraction and
// one elementwise generic for bias and ReLU.
// CHECK-LABEL: func.func @conv1d_bias_relu(
// CHECK: %[[R:.*]] = call @dispatch_0(
// CHECK-NOT: call
// CHECK: return %[[R]]
// CHECK: func.func private @dispatch_0(%{{.*}}: tensor<32x16xf32>, %{{.*}}: tensor<1x16x8xf32>, %[[BIAS:.*]]: tensor<32xf32>) -> tensor<1x32x8xf32>
// CHECK: %[[MM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: %[[OUT:.*]] = linalg.generic
// CHECK-SAME: ins(%[[MM]], %[[BIAS]] : tensor<1x32x8xf32>, tensor<32xf32>)
// CHECK: arith.addf
// CHECK-NEXT: arith.maxnumf
// CHECK: return %[[OUT]]
// CHECK-NOT: func.func private @dispatch_1
func.func @conv1d_bias_relu(%x: tensor<1x16x8xf32>, %w: tensor<32x16x1xf32>, %b: tensor<32xf32>) -> tensor<1x32x8xf32> {
  %0 = kiln.conv %x, %w, %b : tensor<1x16x8xf32>, tensor<32x16x1xf32>, tensor<32xf32>
  %1 = kiln.relu %0 : tensor<1x32x8xf32>
  return %1 : tensor<1x32x8xf32>
}

// -----

// 2-D conv + bias + ReLU: see form-dispatches-conv-bias.mlir.
func.func @placeholder_conv2d(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// Tensor constants stay on the host (constant bindings) and are passed to
// the dispatch; a splat constant folded into an elementwise body is cloned
// into the dispatch as a scalar. The scaled tensor has two users (a result
// and the matmul), so it is not fused into the matmul's dispatch.
// CHECK-LABEL: func.func @constants(
// CHECK: %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<8x4xf32>
// CHECK: %[[S:.*]] = call @dispatch_0(%arg0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[M:.*]] = call @dispatch_1(%[[S]], %[[W]]) : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
// CHECK: return %[[S]], %[[M]]
// CHECK: func.func private @dispatch_0(%{{.*}}: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[C:.*]] = arith.constant 1.500000e+00 : f32
// CHECK-NOT: arith.constant dense
// CHECK: arith.mulf %{{.*}}, %[[C]] : f32
// CHECK: func.func private @dispatch_1(%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8x4xf32>) -> tensor<4x4xf32>
// CHECK-NOT: arith.constant dense
// CHECK: linalg.matmul
func.func @constants(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x4xf32>) {
  %c = kiln.constant dense<1.5> : tensor<4x8xf32>
  %w = kiln.constant dense<[[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]]> : tensor<8x4xf32>
  %0 = kiln.mul %x, %c : tensor<4x8xf32>, tensor<4x8xf32>
  %1 = kiln.matmul %0, %w : tensor<4x8xf32>, tensor<8x4xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x4xf32>
}

// -----

// Softmax is one dispatch: the row max and the row sum of exponentials are
// reductions that only the normalizing elementwise op reads (broadcast
// along the row), so they join its dispatch; nothing but the call is left
// on the host.
// CHECK-LABEL: func.func @softmax_rows(
// CHECK: %[[R:.*]] = call @dispatch_0(%arg0) : (tensor<8x128xf32>) -> tensor<8x128xf32>
// CHECK-NEXT: return %[[R]]
// CHECK: func.func private @dispatch_0(%{{.*}}: tensor<8x128xf32>) -> tensor<8x128xf32> attributes {kiln.dispatch}
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: return
// CHECK-NOT: func.func private @dispatch_1
func.func @softmax_rows(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %0 = kiln.softmax %x {axis = -1 : i64} : tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
}

// -----

// A row statistic that something else also reads stays its own dispatch.
// CHECK-LABEL: func.func @shared_row_sum(
// CHECK: call @dispatch_0
// CHECK: call @dispatch_1
// CHECK: func.func private @dispatch_0({{.*}}) -> tensor<8xf32> attributes {kiln.dispatch}
func.func @shared_row_sum(%x: tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8xf32>) {
  %s = kiln.reduce sum %x {axes = array<i64: 1>, keepdims = false} : tensor<8x128xf32>
  %k = kiln.reshape %s {shape = array<i64: 8, 1>} : tensor<8xf32>
  %d = kiln.div %x, %k : tensor<8x128xf32>, tensor<8x1xf32>
  return %d, %s : tensor<8x128xf32>, tensor<8xf32>
}

// -----

// Weights that a lowering slices and transposes (the recurrent layers'
// gate matrices) are laid out at compile time: a transpose of a
// rank-reducing slice of a constant becomes one constant, and no dispatch
// reformats it on every run.
// CHECK-LABEL: func.func @weight_slice_transpose(
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[}}0.000000e+00, 2.000000e+00], [1.000000e+00, 3.000000e+00]]> : tensor<2x2xf32>
// CHECK-NOT: linalg.transpose
// CHECK-NOT: tensor.extract_slice
// CHECK: call @dispatch_0(%arg0, %[[W]])
func.func @weight_slice_transpose(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]]> : tensor<2x2x2xf32>
  %s = tensor.extract_slice %w[0, 0, 0] [1, 2, 2] [1, 1, 1] : tensor<2x2x2xf32> to tensor<2x2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %t = linalg.transpose ins(%s : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) permutation = [1, 0]
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<3x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<3x2xf32>) -> tensor<3x2xf32>
  %m = linalg.matmul ins(%x, %t : tensor<3x2xf32>, tensor<2x2xf32>) outs(%f : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %m : tensor<3x2xf32>
}

// -----

// A layer norm after a matmul and its residual add (every transformer
// layer) is one dispatch: the add joins the matmul, and the normalizing op
// stays at the layer norm's shape next to its mean and variance instead of
// being collapsed onto the matmul's 2-D shape, which left a reshape
// between it and its statistics and made three dispatches of the norm.
// CHECK-LABEL: func.func @matmul_residual_layer_norm(
// CHECK: call @dispatch_0(
// CHECK: %[[LN:.*]] = call @dispatch_1(
// CHECK-SAME: -> tensor<1x128x64xf32>
// CHECK: tensor.collapse_shape %[[LN]]
// CHECK: call @dispatch_2(
// CHECK-NOT: call @dispatch_3
// CHECK: func.func private @dispatch_0(
// CHECK: linalg.matmul
// CHECK: arith.addf
// CHECK: func.func private @dispatch_1(
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]
// CHECK: math.rsqrt
// CHECK: func.func private @dispatch_2(
// CHECK: linalg.matmul
func.func @matmul_residual_layer_norm(%x: tensor<128x64xf32>, %w: tensor<64x64xf32>, %r: tensor<1x128x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>, %w2: tensor<64x32xf32>) -> tensor<128x32xf32> {
  %0 = kiln.matmul %x, %w : tensor<128x64xf32>, tensor<64x64xf32>
  %1 = kiln.reshape %0 {shape = array<i64: 1, 128, 64>} : tensor<128x64xf32>
  %2 = kiln.add %1, %r : tensor<1x128x64xf32>, tensor<1x128x64xf32>
  %3 = kiln.layer_norm %2, %g, %b {axis = -1 : i64, epsilon = 1.0e-12 : f32} : tensor<1x128x64xf32>, tensor<64xf32>, tensor<64xf32>
  %4 = kiln.reshape %3 {shape = array<i64: 128, 64>} : tensor<1x128x64xf32>
  %5 = kiln.matmul %4, %w2 : tensor<128x64xf32>, tensor<64x32xf32>
  return %5 : tensor<128x32xf32>
}

// -----

// The same for a softmax over a batch matmul's scores that a reshape
// regroups into heads (ONNX Attention, exporters' Q K^T): max, sum and
// normalize are one dispatch between the two batch matmuls.
// CHECK-LABEL: func.func @scores_softmax_heads(
// CHECK: call @dispatch_0(
// CHECK: %[[P:.*]] = call @dispatch_1(
// CHECK-SAME: -> tensor<2x4x3x5xf32>
// CHECK: tensor.collapse_shape %[[P]]
// CHECK: call @dispatch_2(
// CHECK-NOT: call @dispatch_3
// CHECK: func.func private @dispatch_1(
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK: math.exp
// CHECK: func.func private @dispatch_2(
// CHECK: linalg.batch_matmul
func.func @scores_softmax_heads(%q: tensor<8x3x5xf32>, %k: tensor<8x5x5xf32>, %v: tensor<8x5x6xf32>) -> tensor<8x3x6xf32> {
  %s = kiln.matmul %q, %k : tensor<8x3x5xf32>, tensor<8x5x5xf32>
  %h = kiln.reshape %s {shape = array<i64: 2, 4, 3, 5>} : tensor<8x3x5xf32>
  %p = kiln.softmax %h {axis = -1 : i64} : tensor<2x4x3x5xf32>
  %f = kiln.reshape %p {shape = array<i64: 8, 3, 5>} : tensor<2x4x3x5xf32>
  %o = kiln.matmul %f, %v : tensor<8x3x5xf32>, tensor<8x5x6xf32>
  return %o : tensor<8x3x6xf32>
}
