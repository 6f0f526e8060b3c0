// RUN: kiln-opt %s --kiln-graph-cleanup --mlir-elide-elementsattrs-if-larger=16 | FileCheck %s

// Reshape, transpose, slice and concat of constants copy the constants'
// storage at compile time, at any size (up to kMaxMoveBytes), so that no
// weight is laid out again on every run. Large results are printed elided
// (`dense_resource<__elided__>`); their values are checked through small
// slices, which fold too. Small results check each element type bit for
// bit.

//===----------------------------------------------------------------------===//
// Large constants
//===----------------------------------------------------------------------===//

// A 512x256 matrix of four 256x128 blocks [[1, 2], [3, 4]], transposed:
// the 256x512 result has blocks [[1, 3], [2, 4]]. The 2x2 window around
// its centre reads one element of each block.
// CHECK-LABEL: func.func @fold_large_transpose(
// CHECK-DAG: %[[T:.*]] = kiln.constant dense_resource<__elided__> : tensor<256x512xf32>
// CHECK-DAG: %[[W:.*]] = kiln.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NOT: kiln.{{[a-z_]+}} %
// CHECK: return %[[T]], %[[W]] :
func.func @fold_large_transpose() -> (tensor<256x512xf32>, tensor<2x2xf32>) {
  %a = kiln.constant dense<1.0> : tensor<256x128xf32>
  %b = kiln.constant dense<2.0> : tensor<256x128xf32>
  %c = kiln.constant dense<3.0> : tensor<256x128xf32>
  %d = kiln.constant dense<4.0> : tensor<256x128xf32>
  %top = kiln.concat %a, %b {axis = 1 : i64} : tensor<256x128xf32>, tensor<256x128xf32>
  %bottom = kiln.concat %c, %d {axis = 1 : i64} : tensor<256x128xf32>, tensor<256x128xf32>
  %m = kiln.concat %top, %bottom {axis = 0 : i64} : tensor<256x256xf32>, tensor<256x256xf32>
  %t = kiln.transpose %m {perm = array<i64: 1, 0>} : tensor<512x256xf32>
  %w = kiln.slice %t {starts = array<i64: 127, 255>, ends = array<i64: 129, 257>, steps = array<i64: 1, 1>} : tensor<256x512xf32>
  return %t, %w : tensor<256x512xf32>, tensor<2x2xf32>
}

// Gemm(transB=1) and MatMul(x, Transpose(W)): the matmul reads a constant
// laid out at compile time (here 3072x768, 2.4M elements), not a transpose.
// CHECK-LABEL: func.func @fold_transposed_weight(
// CHECK-DAG: %[[WT:.*]] = kiln.constant dense_resource<__elided__> : tensor<3072x768xf32>
// CHECK-NOT: kiln.transpose
// CHECK: %[[Y:.*]] = kiln.matmul %arg0, %[[WT]] : tensor<4x3072xf32>, tensor<3072x768xf32>
// CHECK: return %[[Y]]
func.func @fold_transposed_weight(%x: tensor<4x3072xf32>) -> tensor<4x768xf32> {
  %lo = kiln.constant dense<0.5> : tensor<768x1536xf32>
  %hi = kiln.constant dense<-0.5> : tensor<768x1536xf32>
  %w = kiln.concat %lo, %hi {axis = 1 : i64} : tensor<768x1536xf32>, tensor<768x1536xf32>
  %wt = kiln.transpose %w {perm = array<i64: 1, 0>} : tensor<768x3072xf32>
  %y = kiln.matmul %x, %wt : tensor<4x3072xf32>, tensor<3072x768xf32>
  return %y : tensor<4x768xf32>
}

// i1 is stored bit-packed; it is moved as bytes and packed again.
// CHECK-LABEL: func.func @fold_large_transpose_i1(
// CHECK-DAG: %[[T:.*]] = kiln.constant dense_resource<__elided__> : tensor<256x512xi1>
// CHECK-DAG: %[[W:.*]] = kiln.constant dense<{{\[\[}}true, false], [true, false]]> : tensor<2x2xi1>
// CHECK-NOT: kiln.{{[a-z_]+}} %
// CHECK: return %[[T]], %[[W]] :
func.func @fold_large_transpose_i1() -> (tensor<256x512xi1>, tensor<2x2xi1>) {
  %t = kiln.constant dense<true> : tensor<256x256xi1>
  %f = kiln.constant dense<false> : tensor<256x256xi1>
  %m = kiln.concat %t, %f {axis = 0 : i64} : tensor<256x256xi1>, tensor<256x256xi1>
  %tr = kiln.transpose %m {perm = array<i64: 1, 0>} : tensor<512x256xi1>
  %w = kiln.slice %tr {starts = array<i64: 0, 255>, ends = array<i64: 2, 257>, steps = array<i64: 1, 1>} : tensor<256x512xi1>
  return %tr, %w : tensor<256x512xi1>, tensor<2x2xi1>
}

// A 3-D permutation and a strided, reversed slice of a 64x64x32 constant
// (131072 elements), checked at a few elements: c[i, j, k] is 1 for
// i < 32 and 2 otherwise, plus 4 where k >= 16.
// CHECK-LABEL: func.func @fold_large_permute_slice(
// CHECK-DAG: %[[T:.*]] = kiln.constant dense<{{\[\[\[}}1, 2]], {{\[\[}}5, 6]]]> : tensor<2x1x2xi8>
// CHECK-DAG: %[[S:.*]] = kiln.constant dense<{{\[\[\[}}6, 6, 5]]]> : tensor<1x1x3xi8>
// CHECK-NOT: kiln.{{[a-z_]+}} %
// CHECK: return %[[T]], %[[S]] :
func.func @fold_large_permute_slice() -> (tensor<2x1x2xi8>, tensor<1x1x3xi8>) {
  %one = kiln.constant dense<1> : tensor<32x64x16xi8>
  %two = kiln.constant dense<2> : tensor<32x64x16xi8>
  %five = kiln.constant dense<5> : tensor<32x64x16xi8>
  %six = kiln.constant dense<6> : tensor<32x64x16xi8>
  %lo = kiln.concat %one, %two {axis = 0 : i64} : tensor<32x64x16xi8>, tensor<32x64x16xi8>
  %hi = kiln.concat %five, %six {axis = 0 : i64} : tensor<32x64x16xi8>, tensor<32x64x16xi8>
  %c = kiln.concat %lo, %hi {axis = 2 : i64} : tensor<64x64x16xi8>, tensor<64x64x16xi8>
  // t[k, j, i] = c[i, j, k]; the window is t[15:17, 0:1, 31:33].
  %t = kiln.transpose %c {perm = array<i64: 2, 1, 0>} : tensor<64x64x32xi8>
  %tw = kiln.slice %t {starts = array<i64: 15, 0, 31>, ends = array<i64: 17, 1, 33>, steps = array<i64: 1, 1, 1>} : tensor<32x64x64xi8>
  // c[63::-31, 5:6, 31:30:-1] reads i = 63, 32, 1 at k = 31, then the
  // transpose moves i last.
  %s = kiln.slice %c {starts = array<i64: 63, 5, 31>, ends = array<i64: -1, 6, 30>, steps = array<i64: -31, 1, -1>} : tensor<64x64x32xi8>
  %st = kiln.transpose %s {perm = array<i64: 1, 2, 0>} : tensor<3x1x1xi8>
  return %tw, %st : tensor<2x1x2xi8>, tensor<1x1x3xi8>
}

//===----------------------------------------------------------------------===//
// Element types, bit for bit
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fold_movement_types(
// CHECK-DAG: %[[F16:.*]] = kiln.constant dense<{{\[\[}}1.000000e+00, -2.500000e+00], [6.103520e-05, 6.550400e+04], [-0.000000e+00, 0x7E00]]> : tensor<3x2xf16>
// CHECK-DAG: %[[BF16:.*]] = kiln.constant dense<[3.000000e+00, 1.000000e+00]> : tensor<2xbf16>
// CHECK-DAG: %[[I64:.*]] = kiln.constant dense<{{\[\[}}9223372036854775807, -1, 7], [-9223372036854775808, 0, 7]]> : tensor<2x3xi64>
// CHECK-DAG: %[[I1:.*]] = kiln.constant dense<{{\[\[}}true, false], [false, false], [true, true]]> : tensor<3x2xi1>
// CHECK-DAG: %[[I1R:.*]] = kiln.constant dense<[true, false, true, false, false, true]> : tensor<6xi1>
// CHECK-DAG: %[[SCALAR:.*]] = kiln.constant dense<4.200000e+01> : tensor<f32>
// CHECK-DAG: %[[EMPTY:.*]] = kiln.constant dense<> : tensor<0x3xi32>
// CHECK-NOT: kiln.{{[a-z_]+}} %
// CHECK: return %[[F16]], %[[BF16]], %[[I64]], %[[I1]], %[[I1R]], %[[SCALAR]], %[[EMPTY]] :
func.func @fold_movement_types() -> (tensor<3x2xf16>, tensor<2xbf16>, tensor<2x3xi64>, tensor<3x2xi1>, tensor<6xi1>, tensor<f32>, tensor<0x3xi32>) {
  // Smallest normal, largest finite, negative zero and a NaN keep their bits.
  %h = kiln.constant dense<[[1.0, 6.103515625e-05, -0.0], [-2.5, 65504.0, 0x7E00]]> : tensor<2x3xf16>
  %0 = kiln.transpose %h {perm = array<i64: 1, 0>} : tensor<2x3xf16>
  %b = kiln.constant dense<[1.0, 2.0, 3.0]> : tensor<3xbf16>
  %1 = kiln.slice %b {starts = array<i64: 2>, ends = array<i64: -1>, steps = array<i64: -2>} : tensor<3xbf16>
  %i = kiln.constant dense<[9223372036854775807, -9223372036854775808, -1, 0]> : tensor<4xi64>
  %seven = kiln.constant dense<7> : tensor<2xi64>
  %ir = kiln.reshape %i {shape = array<i64: 2, 2>} : tensor<4xi64>
  %it = kiln.transpose %ir {perm = array<i64: 1, 0>} : tensor<2x2xi64>
  %s7 = kiln.reshape %seven {shape = array<i64: 2, 1>} : tensor<2xi64>
  %2 = kiln.concat %it, %s7 {axis = 1 : i64} : tensor<2x2xi64>, tensor<2x1xi64>
  %p = kiln.constant dense<[[true, false, true], [false, false, true]]> : tensor<2x3xi1>
  %3 = kiln.transpose %p {perm = array<i64: 1, 0>} : tensor<2x3xi1>
  %4 = kiln.reshape %p {shape = array<i64: 6>} : tensor<2x3xi1>
  %one = kiln.constant dense<[42.0]> : tensor<1xf32>
  %5 = kiln.reshape %one {shape = array<i64>} : tensor<1xf32>
  %e = kiln.constant dense<[[1, 2, 3]]> : tensor<1x3xi32>
  %6 = kiln.slice %e {starts = array<i64: 1, 0>, ends = array<i64: 1, 3>, steps = array<i64: 1, 1>} : tensor<1x3xi32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3x2xf16>, tensor<2xbf16>, tensor<2x3xi64>, tensor<3x2xi1>, tensor<6xi1>, tensor<f32>, tensor<0x3xi32>
}

// A dense_resource weight (alignment 4, then 1, 2, 3, 4 as i32) is moved
// like a dense one.
// CHECK-LABEL: func.func @fold_resource_transpose(
// CHECK: %[[T:.*]] = kiln.constant dense<{{\[\[}}1, 3], [2, 4]]> : tensor<2x2xi32>
// CHECK-NEXT: return %[[T]]
func.func @fold_resource_transpose() -> tensor<2x2xi32> {
  %c = kiln.constant dense_resource<weight> : tensor<2x2xi32>
  %0 = kiln.transpose %c {perm = array<i64: 1, 0>} : tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// A reshape to a dynamic shape cannot be a constant: it stays.
// CHECK-LABEL: func.func @reshape_constant_dynamic(
// CHECK: %[[R:.*]] = kiln.reshape %{{.*}} {shape = array<i64: -1>} : tensor<2x2xf32>
// CHECK: %[[S:.*]] = kiln.reshape %{{.*}} {shape = array<i64: -1, 2>} : tensor<2x2xf32>
// CHECK: return %[[R]], %[[S]] : tensor<?xf32>, tensor<?x2xf32>
func.func @reshape_constant_dynamic() -> (tensor<?xf32>, tensor<?x2xf32>) {
  %c = kiln.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %s = kiln.constant dense<1.0> : tensor<2x2xf32>
  %0 = kiln.reshape %c {shape = array<i64: -1>} : tensor<2x2xf32>
  %1 = kiln.reshape %s {shape = array<i64: -1, 2>} : tensor<2x2xf32>
  return %0, %1 : tensor<?xf32>, tensor<?x2xf32>
}

// Broadcast can grow data: beyond kMaxFoldElements only splats fold.
// CHECK-LABEL: func.func @broadcast_not_moved(
// CHECK: %[[B:.*]] = kiln.broadcast
// CHECK: return %[[B]]
func.func @broadcast_not_moved() -> tensor<65536x2xf32> {
  %c = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = kiln.broadcast %c {shape = array<i64: 65536, 2>} : tensor<2xf32>
  return %0 : tensor<65536x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      weight: "0x0400000001000000020000000300000004000000"
    }
  }
#-}
