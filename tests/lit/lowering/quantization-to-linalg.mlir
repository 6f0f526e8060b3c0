// RUN: kiln-opt --kiln-to-linalg %s | FileCheck %s

// quantize/dequantize: one elementwise generic reading the scale and zero
// point through (d_axis) per axis, () per tensor (a [1] parameter is
// collapsed to rank 0 first).
// Integer contractions (i8 x i8 -> i32): linalg.matmul / batch_matmul with
// i8 ins and an i32 init filled with 0, or generics whose body is
// extsi, extsi, muli, addi in i32 (the form the int8 kernels match); conv
// pads with 0 : i8 and adds an i32 bias with addi.

// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$AXIS1:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<(d0, d1) -> ()>

// CHECK-LABEL: func.func @quantize_per_axis
// CHECK-DAG: %[[HI:.*]] = arith.constant 1.270000e+02 : f32
// CHECK-DAG: %[[LO:.*]] = arith.constant -1.280000e+02 : f32
// CHECK: linalg.generic {indexing_maps = [#[[$ID2]], #[[$AXIS1]], #[[$AXIS1]], #[[$ID2]]]
// CHECK-SAME: ins(%arg0, %arg1, %arg2 : tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8>) outs(%{{.*}} : tensor<2x3xi8>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[S:.*]]: f32, %[[Z:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT: %[[D:.*]] = arith.divf %[[X]], %[[S]] : f32
// CHECK-NEXT: %[[R:.*]] = math.roundeven %[[D]] : f32
// CHECK-NEXT: %[[ZF:.*]] = arith.sitofp %[[Z]] : i8 to f32
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[R]], %[[ZF]] : f32
// CHECK-NEXT: %[[M1:.*]] = arith.maxnumf %[[A]], %[[LO]] : f32
// CHECK-NEXT: %[[M2:.*]] = arith.minnumf %[[M1]], %[[HI]] : f32
// CHECK-NEXT: %[[Q:.*]] = arith.fptosi %[[M2]] : f32 to i8
// CHECK-NEXT: linalg.yield %[[Q]] : i8
func.func @quantize_per_axis(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %zp: tensor<3xi8>) -> tensor<2x3xi8> {
  %q = kiln.quantize %x, %s, %zp : tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8>
  return %q : tensor<2x3xi8>
}

// CHECK-LABEL: func.func @dequantize_per_tensor
// CHECK: %[[S0:.*]] = tensor.collapse_shape %arg1 [] : tensor<1xf32> into tensor<f32>
// CHECK: %[[Z0:.*]] = tensor.collapse_shape %arg2 [] : tensor<1xi8> into tensor<i8>
// CHECK: linalg.generic {indexing_maps = [#[[$ID2]], #[[$SCALAR]], #[[$SCALAR]], #[[$ID2]]]
// CHECK-SAME: ins(%arg0, %[[S0]], %[[Z0]] : tensor<2x3xi8>, tensor<f32>, tensor<i8>)
// CHECK: ^bb0(%[[Q:.*]]: i8, %[[S:.*]]: f32, %[[Z:.*]]: i8, %{{.*}}: f32):
// CHECK-NEXT: %[[QW:.*]] = arith.extsi %[[Q]] : i8 to i32
// CHECK-NEXT: %[[ZW:.*]] = arith.extsi %[[Z]] : i8 to i32
// CHECK-NEXT: %[[D:.*]] = arith.subi %[[QW]], %[[ZW]] : i32
// CHECK-NEXT: %[[F:.*]] = arith.sitofp %[[D]] : i32 to f32
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[F]], %[[S]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
func.func @dequantize_per_tensor(%q: tensor<2x3xi8>, %s: tensor<1xf32>, %zp: tensor<1xi8>) -> tensor<2x3xf32> {
  %y = kiln.dequantize %q, %s, %zp : tensor<2x3xi8>, tensor<1xf32>, tensor<1xi8>
  return %y : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @dequantize_i32
// CHECK: linalg.generic {indexing_maps = [#[[$ID2]], #[[$SCALAR]], #[[$SCALAR]], #[[$ID2]]]
// CHECK: ^bb0(%[[Q:.*]]: i32, %[[S:.*]]: f32, %[[Z:.*]]: i32, %{{.*}}: f32):
// CHECK-NEXT: %[[D:.*]] = arith.subi %[[Q]], %[[Z]] : i32
// CHECK-NEXT: %[[F:.*]] = arith.sitofp %[[D]] : i32 to f32
// CHECK-NEXT: arith.mulf %[[F]], %[[S]] : f32
func.func @dequantize_i32(%q: tensor<2x3xi32>, %s: tensor<f32>, %zp: tensor<i32>) -> tensor<2x3xf32> {
  %y = kiln.dequantize %q, %s, %zp : tensor<2x3xi32>, tensor<f32>, tensor<i32>
  return %y : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @matmul_i8
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[LHS:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]] : tensor<4x2x8xi8> into tensor<8x8xi8>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : i32) outs(%{{.*}} : tensor<8x5xi32>)
// CHECK: linalg.matmul ins(%[[LHS]], %arg1 : tensor<8x8xi8>, tensor<8x5xi8>) outs(%[[INIT]] : tensor<8x5xi32>)
func.func @matmul_i8(%a: tensor<4x2x8xi8>, %b: tensor<8x5xi8>) -> tensor<4x2x5xi32> {
  %c = kiln.matmul %a, %b : tensor<4x2x8xi8>, tensor<8x5xi8>
  return %c : tensor<4x2x5xi32>
}

// CHECK-LABEL: func.func @batch_matmul_i8
// CHECK: linalg.batch_matmul ins(%arg0, %arg1 : tensor<4x2x8xi8>, tensor<4x8x5xi8>) outs(%{{.*}} : tensor<4x2x5xi32>)
func.func @batch_matmul_i8(%a: tensor<4x2x8xi8>, %b: tensor<4x8x5xi8>) -> tensor<4x2x5xi32> {
  %c = kiln.matmul %a, %b : tensor<4x2x8xi8>, tensor<4x8x5xi8>
  return %c : tensor<4x2x5xi32>
}

// CHECK-LABEL: func.func @broadcast_matmul_i8
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %arg1 : tensor<1x8xi8>, tensor<3x8x5xi8>) outs(%{{.*}} : tensor<3x1x5xi32>)
// CHECK: ^bb0(%[[A:.*]]: i8, %[[B:.*]]: i8, %[[ACC:.*]]: i32):
// CHECK-NEXT: %[[AW:.*]] = arith.extsi %[[A]] : i8 to i32
// CHECK-NEXT: %[[BW:.*]] = arith.extsi %[[B]] : i8 to i32
// CHECK-NEXT: %[[P:.*]] = arith.muli %[[AW]], %[[BW]] : i32
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %[[ACC]], %[[P]] : i32
// CHECK-NEXT: linalg.yield %[[SUM]] : i32
func.func @broadcast_matmul_i8(%a: tensor<8xi8>, %b: tensor<3x8x5xi8>) -> tensor<3x5xi32> {
  %c = kiln.matmul %a, %b : tensor<8xi8>, tensor<3x8x5xi8>
  return %c : tensor<3x5xi32>
}

// CHECK-LABEL: func.func @conv_i8
// CHECK-DAG: %[[Z32:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[Z8:.*]] = arith.constant 0 : i8
// CHECK: tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[Z8]] : i8
// CHECK: tensor.collapse_shape {{.*}} into tensor<1x27x25xi8>
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[Z32]] : i32) outs(%{{.*}} : tensor<1x4x25xi32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<4x27xi8>, tensor<1x27x25xi8>) outs(%[[INIT]] : tensor<1x4x25xi32>)
// CHECK: arith.extsi
// CHECK-NEXT: arith.extsi
// CHECK-NEXT: arith.muli
// CHECK-NEXT: arith.addi
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %arg2 : tensor<1x4x5x5xi32>, tensor<4xi32>)
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
func.func @conv_i8(%x: tensor<1x3x5x5xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>) -> tensor<1x4x5x5xi32> {
  %y = kiln.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : tensor<1x3x5x5xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>
  return %y : tensor<1x4x5x5xi32>
}

// CHECK-LABEL: func.func @depthwise_i8
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %arg1 : tensor<1x3x1x5x5xi8>, tensor<3x1x3x3xi8>) outs(%{{.*}} : tensor<1x3x3x3xi32>)
// CHECK: arith.extsi
// CHECK-NEXT: arith.extsi
// CHECK-NEXT: arith.muli
// CHECK-NEXT: arith.addi
func.func @depthwise_i8(%x: tensor<1x3x5x5xi8>, %w: tensor<3x1x3x3xi8>) -> tensor<1x3x3x3xi32> {
  %y = kiln.conv %x, %w {groups = 3 : i64} : tensor<1x3x5x5xi8>, tensor<3x1x3x3xi8>
  return %y : tensor<1x3x3x3xi32>
}
