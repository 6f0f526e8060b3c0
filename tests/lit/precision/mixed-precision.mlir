// RUN: kiln-opt %s --kiln-mixed-precision | FileCheck %s --check-prefixes=CHECK,BF16
// RUN: kiln-opt %s --kiln-mixed-precision="precision=fp16" | FileCheck %s --check-prefixes=CHECK,FP16
// RUN: kiln-opt %s --kiln-mixed-precision="deny=relu" | FileCheck %s --check-prefix=DENY
// RUN: kiln-opt %s --kiln-mixed-precision="allow=div" | FileCheck %s --check-prefix=ALLOW

// kiln-mixed-precision: contractions and the allowed ops connected to them
// move to 16 bits; casts only at the region's edges; constants converted
// at compile time; function signatures unchanged.

// A two-layer MLP ending in softmax: one bf16 region from the first
// matmul to the second; softmax (always f32) reads an f32 copy. The input
// is cast once; the weights become bf16 constants (3.14159 rounds to
// 3.140625 in bf16, 3.140625 in fp16 too; 1.00390625 = 1 + 2^-8 is a tie
// in bf16 and rounds to even, 1.0, but is exact in fp16).
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: %arg0: tensor<2x4xf32>) -> tensor<2x3xf32>
// BF16-DAG: %[[W1:.*]] = kiln.constant dense<{{.*}}3.140630e+00{{.*}}> : tensor<4x3xbf16>
// BF16-DAG: %[[B:.*]] = kiln.constant dense<[5.000000e-01, 2.500000e-01, 1.000000e+00]> : tensor<3xbf16>
// BF16-DAG: %[[W2:.*]] = kiln.constant dense<{{.*}}> : tensor<3x3xbf16>
// BF16-DAG: %[[X:.*]] = kiln.cast %arg0 to bf16 : tensor<2x4xf32>
// BF16: %[[M1:.*]] = kiln.matmul %[[X]], %[[W1]] : tensor<2x4xbf16>, tensor<4x3xbf16>
// BF16: %[[A:.*]] = kiln.add %[[M1]], %[[B]] : tensor<2x3xbf16>, tensor<3xbf16>
// BF16: %[[R:.*]] = kiln.relu %[[A]] : tensor<2x3xbf16>
// BF16: %[[M2:.*]] = kiln.matmul %[[R]], %[[W2]] : tensor<2x3xbf16>, tensor<3x3xbf16>
// BF16: %[[BACK:.*]] = kiln.cast %[[M2]] to f32 : tensor<2x3xbf16>
// BF16: %[[S:.*]] = kiln.softmax %[[BACK]] : tensor<2x3xf32>
// BF16: return %[[S]] : tensor<2x3xf32>
// FP16-DAG: kiln.constant dense<{{.*}}3.140630e+00{{.*}}> : tensor<4x3xf16>
// FP16-DAG: kiln.constant dense<[5.000000e-01, 2.500000e-01, 1.003910e+00]> : tensor<3xf16>
// FP16-DAG: kiln.cast %arg0 to f16 : tensor<2x4xf32>
// FP16: kiln.matmul {{.*}} : tensor<2x4xf16>, tensor<4x3xf16>
// FP16: kiln.relu {{.*}} : tensor<2x3xf16>
// FP16: kiln.cast {{.*}} to f32 : tensor<2x3xf16>
// FP16: kiln.softmax {{.*}} : tensor<2x3xf32>
// FP16-NOT: kiln.cast
// FP16: return
// A denied relu splits the region in two: relu runs on f32 between a cast
// back to f32 and a cast to bf16 again.
// DENY-LABEL: func.func @mlp(
// DENY: %[[M1:.*]] = kiln.matmul {{.*}} : tensor<2x4xbf16>, tensor<4x3xbf16>
// DENY: %[[A:.*]] = kiln.add %[[M1]], {{.*}} : tensor<2x3xbf16>, tensor<3xbf16>
// DENY: %[[F:.*]] = kiln.cast %[[A]] to f32 : tensor<2x3xbf16>
// DENY: %[[R:.*]] = kiln.relu %[[F]] : tensor<2x3xf32>
// DENY: %[[H:.*]] = kiln.cast %[[R]] to bf16 : tensor<2x3xf32>
// DENY: kiln.matmul %[[H]], {{.*}} : tensor<2x3xbf16>, tensor<3x3xbf16>
func.func @mlp(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w1 = kiln.constant dense<[[3.14159, 1.0, 2.0], [0.5, -1.0, 0.25],
                             [1.0, 1.0, 1.0], [-2.0, 0.0, 4.0]]> : tensor<4x3xf32>
  %b = kiln.constant dense<[0.5, 0.25, 1.00390625]> : tensor<3xf32>
  %w2 = kiln.constant dense<[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0],
                             [0.0, 0.0, 1.0]]> : tensor<3x3xf32>
  %0 = kiln.matmul %x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>
  %1 = kiln.add %0, %b : tensor<2x3xf32>, tensor<3xf32>
  %2 = kiln.relu %1 : tensor<2x3xf32>
  %3 = kiln.matmul %2, %w2 : tensor<2x3xf32>, tensor<3x3xf32>
  %4 = kiln.softmax %3 : tensor<2x3xf32>
  return %4 : tensor<2x3xf32>
}

// Elementwise ops with no contraction stay f32 (nothing to gain, and the
// casts would cost): no region without a matmul or conv.
// CHECK-LABEL: func.func @no_contraction(
// CHECK-NOT: kiln.cast
// CHECK: kiln.add %arg0, %arg1 : tensor<8xf32>, tensor<8xf32>
func.func @no_contraction(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %0 = kiln.add %x, %y : tensor<8xf32>, tensor<8xf32>
  %1 = kiln.relu %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}

// Attention scores: the transpose and reshape between two matmuls join the
// region; div is not on the default list, so it stays f32 with casts on
// both sides, unless allow=div adds it. exp, reduce and layer_norm are
// always f32. The graph input is cast once although two matmuls read it.
// CHECK-LABEL: func.func @attention(
// CHECK-SAME: -> tensor<4x8xf32>
// BF16: %[[X:.*]] = kiln.cast %arg0 to bf16 : tensor<4x8xf32>
// BF16-NOT: kiln.cast %arg0
// BF16: %[[T:.*]] = kiln.transpose %[[X]]
// BF16-SAME: tensor<4x8xbf16>
// BF16: %[[S:.*]] = kiln.matmul %[[X]], %[[T]] : tensor<4x8xbf16>, tensor<8x4xbf16>
// BF16: %[[SF:.*]] = kiln.cast %[[S]] to f32 : tensor<4x4xbf16>
// BF16: %[[D:.*]] = kiln.div %[[SF]], {{.*}} : tensor<4x4xf32>, tensor<f32>
// BF16: %[[E:.*]] = kiln.exp %[[D]] : tensor<4x4xf32>
// BF16: %[[EH:.*]] = kiln.cast %[[E]] to bf16 : tensor<4x4xf32>
// BF16: %[[O:.*]] = kiln.matmul %[[EH]], %[[X]] : tensor<4x4xbf16>, tensor<4x8xbf16>
// BF16: %[[OF:.*]] = kiln.cast %[[O]] to f32 : tensor<4x8xbf16>
// BF16: kiln.layer_norm %[[OF]]
// BF16-SAME: tensor<4x8xf32>
// ALLOW-LABEL: func.func @attention(
// ALLOW: %[[S:.*]] = kiln.matmul {{.*}} : tensor<4x8xbf16>, tensor<8x4xbf16>
// ALLOW: %[[D:.*]] = kiln.div %[[S]], {{.*}} : tensor<4x4xbf16>, tensor<bf16>
// ALLOW: %[[DF:.*]] = kiln.cast %[[D]] to f32 : tensor<4x4xbf16>
// ALLOW: kiln.exp %[[DF]] : tensor<4x4xf32>
func.func @attention(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %scale = kiln.constant dense<2.828427> : tensor<f32>
  %t = kiln.transpose %x {perm = array<i64: 1, 0>} : tensor<4x8xf32>
  %s = kiln.matmul %x, %t : tensor<4x8xf32>, tensor<8x4xf32>
  %d = kiln.div %s, %scale : tensor<4x4xf32>, tensor<f32>
  %e = kiln.exp %d : tensor<4x4xf32>
  %o = kiln.matmul %e, %x : tensor<4x4xf32>, tensor<4x8xf32>
  %gamma = kiln.constant dense<1.5> : tensor<8xf32>
  %n = kiln.layer_norm %o, %gamma : tensor<4x8xf32>, tensor<8xf32>
  return %n : tensor<4x8xf32>
}

// Convolution with its bias and clip epilogue; ops already in f16 are left alone.
// CHECK-LABEL: func.func @conv(
// BF16: kiln.conv {{.*}} : tensor<1x4x5x5xbf16>, tensor<3x4x3x3xbf16>, tensor<3xbf16>
// BF16: kiln.clip {{.*}} : tensor<1x3x3x3xbf16>
// BF16: kiln.cast {{.*}} to f32 : tensor<1x3x3x3xbf16>
// BF16: kiln.matmul %arg1, %arg1 : tensor<2x2xf16>, tensor<2x2xf16>
func.func @conv(%x: tensor<1x4x5x5xf32>, %y: tensor<2x2xf16>) -> (tensor<1x3x3x3xf32>, tensor<2x2xf16>) {
  %w = kiln.constant dense<0.5> : tensor<3x4x3x3xf32>
  %b = kiln.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = kiln.conv %x, %w, %b : tensor<1x4x5x5xf32>, tensor<3x4x3x3xf32>, tensor<3xf32>
  %1 = kiln.clip %0 {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x3x3x3xf32>
  %2 = kiln.matmul %y, %y : tensor<2x2xf16>, tensor<2x2xf16>
  return %1, %2 : tensor<1x3x3x3xf32>, tensor<2x2xf16>
}

// A CNN's stem (one group, fewer than 4 input channels: the image) stays
// f32, and the region starts at its result: its relu and max pool join the
// next conv's region, with one cast between the stem and the relu. A
// depthwise conv over 3 channels (groups = 3) is no stem and moves.
// CHECK-LABEL: func.func @stem(
// BF16: %[[S:.*]] = kiln.conv %arg0, {{.*}} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>
// BF16: %[[H:.*]] = kiln.cast %[[S]] to bf16 : tensor<1x4x8x8xf32>
// BF16: kiln.relu %[[H]] : tensor<1x4x8x8xbf16>
// BF16: kiln.max_pool
// BF16-SAME: tensor<1x4x8x8xbf16>
// BF16: kiln.conv {{.*}} : tensor<1x4x4x4xbf16>, tensor<4x4x1x1xbf16>
// BF16: kiln.conv {{.*}}groups = 3{{.*}} : tensor<1x3x8x8xbf16>, tensor<3x1x3x3xbf16>
func.func @stem(%x: tensor<1x3x8x8xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x3x8x8xf32>) {
  %w = kiln.constant dense<0.5> : tensor<4x3x3x3xf32>
  %b = kiln.constant dense<1.0> : tensor<4xf32>
  %w2 = kiln.constant dense<0.25> : tensor<4x4x1x1xf32>
  %wd = kiln.constant dense<0.125> : tensor<3x1x3x3xf32>
  %0 = kiln.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>
  %1 = kiln.relu %0 : tensor<1x4x8x8xf32>
  %2 = kiln.max_pool %1 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32>
  %3 = kiln.conv %2, %w2 : tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>
  %4 = kiln.conv %x, %wd {groups = 3 : i64, pads = array<i64: 1, 1, 1, 1>} : tensor<1x3x8x8xf32>, tensor<3x1x3x3xf32>
  return %3, %4 : tensor<1x4x4x4xf32>, tensor<1x3x8x8xf32>
}
