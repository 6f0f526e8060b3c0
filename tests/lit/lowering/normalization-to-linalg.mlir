// RUN: kiln-opt --kiln-to-linalg %s | FileCheck %s

// Reductions are one reduction generic (reduced loops marked "reduction",
// the init filled with the kind's identity) plus an elementwise epilogue for
// mean/l2/log_sum; keepdims re-expands the reduced dims as size 1. Softmax
// and layer norm are two reductions and an elementwise epilogue each;
// batch norm is one elementwise generic.

// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$DROP_MID:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$DROP_ALL:.*]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-DAG: #[[$ROWS:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$COLS:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$DROP_12:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
// CHECK-DAG: #[[$DROP_LAST:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$LAST:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[$FIRST:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[$LAST2:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$CHANNEL:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

// keepdims (the default) expands [2, 4] back to [2, 1, 4]; a negative axis
// counts from the end.
// CHECK-LABEL: func.func @reduce_sum
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$DROP_MID]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%arg0 : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<2x4xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: %[[KEEP:.*]] = tensor.expand_shape %[[SUM]] {{\[\[}}0], [1, 2]] output_shape [2, 1, 4] : tensor<2x4xf32> into tensor<2x1x4xf32>
// CHECK: %[[SUM2:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$DROP_MID]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK: return %[[KEEP]], %[[SUM2]] : tensor<2x1x4xf32>, tensor<2x4xf32>
func.func @reduce_sum(%x: tensor<2x3x4xf32>) -> (tensor<2x1x4xf32>, tensor<2x4xf32>) {
  %0 = kiln.reduce sum %x {axes = array<i64: 1>} : tensor<2x3x4xf32>
  %1 = kiln.reduce sum %x {axes = array<i64: -2>, keepdims = false} : tensor<2x3x4xf32>
  return %0, %1 : tensor<2x1x4xf32>, tensor<2x4xf32>
}

// No axes: every dim is reduced into a rank-0 tensor. max starts from -inf,
// min from +inf.
// CHECK-LABEL: func.func @reduce_all_axes
// CHECK-DAG: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAXINIT:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<f32>)
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$DROP_ALL]]], iterator_types = ["reduction", "reduction", "reduction"]}
// CHECK-SAME: outs(%[[MAXINIT]] : tensor<f32>)
// CHECK: arith.maximumf
// CHECK: %[[KEEP:.*]] = tensor.expand_shape %[[MAX]] [] output_shape [1, 1, 1] : tensor<f32> into tensor<1x1x1xf32>
// CHECK: %[[MININIT:.*]] = linalg.fill ins(%[[INF]] : f32) outs(%{{.*}} : tensor<f32>)
// CHECK: %[[MIN:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$DROP_ALL]]], iterator_types = ["reduction", "reduction", "reduction"]}
// CHECK-SAME: outs(%[[MININIT]] : tensor<f32>)
// CHECK: arith.minimumf
// CHECK: return %[[KEEP]], %[[MIN]] : tensor<1x1x1xf32>, tensor<f32>
func.func @reduce_all_axes(%x: tensor<2x3x4xf32>) -> (tensor<1x1x1xf32>, tensor<f32>) {
  %0 = kiln.reduce max %x : tensor<2x3x4xf32>
  %1 = kiln.reduce min %x {keepdims = false} : tensor<2x3x4xf32>
  return %0, %1 : tensor<1x1x1xf32>, tensor<f32>
}

// Two adjacent reduced dims in the middle re-expand into one group.
// CHECK-LABEL: func.func @reduce_keepdims_middle
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$DROP_12]]], iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
// CHECK: tensor.expand_shape %[[SUM]] {{\[\[}}0], [1, 2, 3]] output_shape [2, 1, 1, 5] : tensor<2x5xf32> into tensor<2x1x1x5xf32>
func.func @reduce_keepdims_middle(%x: tensor<2x3x4x5xf32>) -> tensor<2x1x1x5xf32> {
  %0 = kiln.reduce sum %x {axes = array<i64: 1, 2>} : tensor<2x3x4x5xf32>
  return %0 : tensor<2x1x1x5xf32>
}

// Every kind over the rows of a 4x6 tensor.
// CHECK-LABEL: func.func @reduce_kinds
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[SIX:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// mean: sum, then / 6.
// CHECK: linalg.fill ins(%[[ZERO]] : f32)
// CHECK: %[[MSUM:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROWS]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.addf
// CHECK: %[[MEAN:.*]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]]], iterator_types = ["parallel"]} ins(%[[MSUM]] : tensor<4xf32>)
// CHECK: arith.divf %{{.*}}, %[[SIX]] : f32
// prod: starts from 1.
// CHECK: linalg.fill ins(%[[ONE]] : f32)
// CHECK: %[[PROD:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROWS]]], iterator_types = ["parallel", "reduction"]}
// CHECK: ^bb0(%[[PX:.*]]: f32, %[[PACC:.*]]: f32):
// CHECK-NEXT: arith.mulf %[[PACC]], %[[PX]] : f32
// l1: sum of |x|.
// CHECK: %[[L1:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROWS]]], iterator_types = ["parallel", "reduction"]}
// CHECK: ^bb0(%[[AX:.*]]: f32, %[[AACC:.*]]: f32):
// CHECK-NEXT: %[[ABS:.*]] = math.absf %[[AX]] : f32
// CHECK-NEXT: arith.addf %[[AACC]], %[[ABS]] : f32
// l2: sqrt of the sum of squares.
// CHECK: %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROWS]]], iterator_types = ["parallel", "reduction"]}
// CHECK: ^bb0(%[[QX:.*]]: f32, %[[QACC:.*]]: f32):
// CHECK-NEXT: %[[Q:.*]] = arith.mulf %[[QX]], %[[QX]] : f32
// CHECK-NEXT: arith.addf %[[QACC]], %[[Q]] : f32
// CHECK: %[[L2:.*]] = linalg.generic {{.*}} ins(%[[SQ]] : tensor<4xf32>)
// CHECK: math.sqrt
// log_sum: log of the sum.
// CHECK: %[[LSUM:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROWS]]], iterator_types = ["parallel", "reduction"]}
// CHECK: %[[LOGSUM:.*]] = linalg.generic {{.*}} ins(%[[LSUM]] : tensor<4xf32>)
// CHECK: math.log
// log_sum_exp: max, then sum of exp(x - max) (max replaced by 0 when it is
// not finite), then log(sum) + max.
// CHECK: linalg.fill ins(%[[NEGINF]] : f32)
// CHECK: %[[LMAX:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROWS]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.maximumf
// CHECK: %[[LSE_SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROWS]], #[[$ROWS]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%arg0, %[[LMAX]] : tensor<4x6xf32>, tensor<4xf32>)
// CHECK: ^bb0(%[[EX:.*]]: f32, %[[EM:.*]]: f32, %[[EACC:.*]]: f32):
// CHECK-NEXT: %[[FIN:.*]] = math.isfinite %[[EM]] : f32
// CHECK-NEXT: %[[SHIFT:.*]] = arith.select %[[FIN]], %[[EM]], %[[ZERO]] : f32
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[EX]], %[[SHIFT]] : f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT: arith.addf %[[EACC]], %[[E]] : f32
// CHECK: %[[LSE:.*]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]], #[[$ID1]]], iterator_types = ["parallel"]}
// CHECK-SAME: ins(%[[LSE_SUM]], %[[LMAX]] : tensor<4xf32>, tensor<4xf32>)
// CHECK: ^bb0(%[[S:.*]]: f32, %[[M:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[FIN2:.*]] = math.isfinite %[[M]] : f32
// CHECK-NEXT: %[[SHIFT2:.*]] = arith.select %[[FIN2]], %[[M]], %[[ZERO]] : f32
// CHECK-NEXT: %[[LOG:.*]] = math.log %[[S]] : f32
// CHECK-NEXT: arith.addf %[[LOG]], %[[SHIFT2]] : f32
// sum_square: the sum of squares with no epilogue.
// CHECK: %[[SUMSQ:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROWS]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK: return %[[MEAN]], %[[PROD]], %[[L1]], %[[L2]], %[[LOGSUM]], %[[LSE]], %[[SUMSQ]]
func.func @reduce_kinds(%x: tensor<4x6xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = kiln.reduce mean %x {axes = array<i64: 1>, keepdims = false} : tensor<4x6xf32>
  %1 = kiln.reduce prod %x {axes = array<i64: 1>, keepdims = false} : tensor<4x6xf32>
  %2 = kiln.reduce l1 %x {axes = array<i64: 1>, keepdims = false} : tensor<4x6xf32>
  %3 = kiln.reduce l2 %x {axes = array<i64: 1>, keepdims = false} : tensor<4x6xf32>
  %4 = kiln.reduce log_sum %x {axes = array<i64: 1>, keepdims = false} : tensor<4x6xf32>
  %5 = kiln.reduce log_sum_exp %x {axes = array<i64: 1>, keepdims = false} : tensor<4x6xf32>
  %6 = kiln.reduce sum_square %x {axes = array<i64: 1>, keepdims = false} : tensor<4x6xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// Integer reductions: addi/muli/maxsi/absi, max starts from INT_MIN, mean
// divides with divsi.
// CHECK-LABEL: func.func @reduce_int
// CHECK-DAG: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK-DAG: %[[SIX:.*]] = arith.constant 6 : i32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: linalg.generic {indexing_maps = [#[[$ID2]], #[[$COLS]]], iterator_types = ["reduction", "parallel"]}
// CHECK: arith.muli
// CHECK-NEXT: arith.addi
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 2] : tensor<2xi32> into tensor<1x2xi32>
// CHECK: arith.addi
// CHECK: arith.divsi %{{.*}}, %[[SIX]] : i32
// CHECK: linalg.fill ins(%[[MIN]] : i32)
// CHECK: arith.maxsi
// CHECK: math.absi
// CHECK-NEXT: arith.addi
func.func @reduce_int(%x: tensor<6x2xi32>) -> (tensor<1x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) {
  %0 = kiln.reduce sum_square %x {axes = array<i64: 0>} : tensor<6x2xi32>
  %1 = kiln.reduce mean %x {axes = array<i64: 0>, keepdims = false} : tensor<6x2xi32>
  %2 = kiln.reduce max %x {axes = array<i64: 0>, keepdims = false} : tensor<6x2xi32>
  %3 = kiln.reduce l1 %x {axes = array<i64: 0>, keepdims = false} : tensor<6x2xi32>
  return %0, %1, %2, %3 : tensor<1x2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>
}

//===----------------------------------------------------------------------===//
// softmax, log_softmax
//===----------------------------------------------------------------------===//

// max, then sum(exp(x - max)), then exp(x - max) * (1 / sum): two reductions and
// an all-parallel epilogue reading both through the dropped map.
// CHECK-LABEL: func.func @softmax
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROWS]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.maximumf
// CHECK: linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROWS]], #[[$ROWS]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%arg0, %[[MAX]] : tensor<2x8xf32>, tensor<2xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[M:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[X]], %[[M]] : f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT: arith.addf %[[ACC]], %[[E]] : f32
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROWS]], #[[$ROWS]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%arg0, %[[MAX]], %[[SUM]] : tensor<2x8xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK: ^bb0(%[[X2:.*]]: f32, %[[M2:.*]]: f32, %[[S2:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[D2:.*]] = arith.subf %[[X2]], %[[M2]] : f32
// CHECK-NEXT: %[[INV:.*]] = arith.divf %[[ONE]], %[[S2]] : f32
// CHECK-NEXT: %[[E2:.*]] = math.exp %[[D2]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.mulf %[[E2]], %[[INV]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: return %[[OUT]]
func.func @softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = kiln.softmax %x {axis = -1 : i64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// Along axis 0 the reduced loop is the outer one.
// CHECK-LABEL: func.func @softmax_axis0
// CHECK: linalg.generic {indexing_maps = [#[[$ID2]], #[[$COLS]]], iterator_types = ["reduction", "parallel"]}
// CHECK: linalg.generic {indexing_maps = [#[[$ID2]], #[[$COLS]], #[[$COLS]]], iterator_types = ["reduction", "parallel"]}
// CHECK: linalg.generic {indexing_maps = [#[[$ID2]], #[[$COLS]], #[[$COLS]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
func.func @softmax_axis0(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = kiln.softmax %x {axis = 0 : i64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// log_softmax: (x - max) - log(sum).
// CHECK-LABEL: func.func @log_softmax
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROWS]]], iterator_types = ["parallel", "reduction"]}
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROWS]], #[[$ROWS]]], iterator_types = ["parallel", "reduction"]}
// CHECK: math.exp
// CHECK: linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROWS]], #[[$ROWS]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%arg0, %[[MAX]], %[[SUM]] : tensor<2x8xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[M:.*]]: f32, %[[S:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[X]], %[[M]] : f32
// CHECK-NEXT: %[[L:.*]] = math.log %[[S]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.subf %[[D]], %[[L]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @log_softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = kiln.log_softmax %x {axis = 1 : i64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

//===----------------------------------------------------------------------===//
// layer_norm, batch_norm
//===----------------------------------------------------------------------===//

// Over the last axis (8 elements): sum, then sum((x - sum/8)^2), then
// (x - mean) * rsqrt(var + eps) * scale + bias, with scale and bias [8]
// broadcast along the normalized dim.
// CHECK-LABEL: func.func @layer_norm
// CHECK-DAG: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK-DAG: %[[INV:.*]] = arith.constant 1.250000e-01 : f32
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$DROP_LAST]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%arg0 : tensor<2x4x8xf32>) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: arith.addf
// CHECK: %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$DROP_LAST]], #[[$DROP_LAST]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%arg0, %[[SUM]] : tensor<2x4x8xf32>, tensor<2x4xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[S:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[MEAN:.*]] = arith.mulf %[[S]], %[[INV]] : f32
// CHECK-NEXT: %[[DEV:.*]] = arith.subf %[[X]], %[[MEAN]] : f32
// CHECK-NEXT: %[[DEV2:.*]] = arith.mulf %[[DEV]], %[[DEV]] : f32
// CHECK-NEXT: arith.addf %[[ACC]], %[[DEV2]] : f32
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$DROP_LAST]], #[[$DROP_LAST]], #[[$LAST]], #[[$LAST]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%arg0, %[[SUM]], %[[SQ]], %arg1, %arg2 : tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK: ^bb0(%[[EX:.*]]: f32, %[[ES:.*]]: f32, %[[EQ:.*]]: f32, %[[G:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[ES]], %[[INV]] : f32
// CHECK-NEXT: %[[V:.*]] = arith.mulf %[[EQ]], %[[INV]] : f32
// CHECK-NEXT: %[[VE:.*]] = arith.addf %[[V]], %[[EPS]] : f32
// CHECK-NEXT: %[[R:.*]] = math.rsqrt %[[VE]] : f32
// CHECK-NEXT: %[[C:.*]] = arith.subf %[[EX]], %[[M]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.mulf %[[C]], %[[R]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[N]], %[[G]] : f32
// CHECK-NEXT: %[[YB:.*]] = arith.addf %[[Y]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[YB]] : f32
// CHECK: return %[[OUT]]
func.func @layer_norm(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  %0 = kiln.layer_norm %x, %g, %b {axis = -1 : i64, epsilon = 1.0e-5 : f32} : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %0 : tensor<2x4x8xf32>
}

// From axis 1 (4 * 8 = 32 elements), no bias: the epilogue ends with the
// scale multiplication.
// CHECK-LABEL: func.func @layer_norm_no_bias
// CHECK-DAG: %[[INV:.*]] = arith.constant 3.125000e-02 : f32
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$FIRST]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK: %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$FIRST]], #[[$FIRST]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK: linalg.generic {indexing_maps = [#[[$ID3]], #[[$FIRST]], #[[$FIRST]], #[[$LAST2]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%arg0, %[[SUM]], %[[SQ]], %arg1 : tensor<2x4x8xf32>, tensor<2xf32>, tensor<2xf32>, tensor<4x8xf32>)
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %[[G:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[Y:.*]] = arith.mulf %{{.*}}, %[[G]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
func.func @layer_norm_no_bias(%x: tensor<2x4x8xf32>, %g: tensor<4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = kiln.layer_norm %x, %g {axis = 1 : i64} : tensor<2x4x8xf32>, tensor<4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// Inference batch norm: one elementwise generic, the four [C] operands read
// along dim 1: (x - mean) * (rsqrt(var + eps) * scale) + bias.
// CHECK-LABEL: func.func @batch_norm
// CHECK: %[[EPS:.*]] = arith.constant 1.000000e-03 : f32
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$CHANNEL]], #[[$CHANNEL]], #[[$CHANNEL]], #[[$CHANNEL]], #[[$ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%arg0, %arg1, %arg2, %arg3, %arg4 : tensor<1x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[SCALE:.*]]: f32, %[[BIAS:.*]]: f32, %[[MEAN:.*]]: f32, %[[VAR:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[VE:.*]] = arith.addf %[[VAR]], %[[EPS]] : f32
// CHECK-NEXT: %[[R:.*]] = math.rsqrt %[[VE]] : f32
// CHECK-NEXT: %[[K:.*]] = arith.mulf %[[R]], %[[SCALE]] : f32
// CHECK-NEXT: %[[C:.*]] = arith.subf %[[X]], %[[MEAN]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[C]], %[[K]] : f32
// CHECK-NEXT: %[[YB:.*]] = arith.addf %[[Y]], %[[BIAS]] : f32
// CHECK-NEXT: linalg.yield %[[YB]] : f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[OUT]]
func.func @batch_norm(%x: tensor<1x4x3x3xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<1x4x3x3xf32> {
  %0 = kiln.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-3 : f32} : tensor<1x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<1x4x3x3xf32>
}
