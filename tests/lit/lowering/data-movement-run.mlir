// Numerics of the data movement lowerings: kiln-to-linalg, then upstream
// bufferization and lowering to LLVM, run by mlir-runner. Expected values are
// NumPy's (concatenate, slicing, take, pad, transpose, reshape, broadcast_to).
// RUN: kiln-opt --kiln-to-linalg %s | mlir-opt --one-shot-bufferize="bufferize-function-boundaries" --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine --finalize-memref-to-llvm --convert-math-to-libm --convert-math-to-llvm --convert-arith-to-llvm --convert-cf-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_runner_utils.so | FileCheck %s

func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>) -> tensor<2x4xf32> {
  %y = kiln.concat %a, %b {axis = -1 : i64} : tensor<2x3xf32>, tensor<2x1xf32>
  return %y : tensor<2x4xf32>
}

func.func @slice(%x: tensor<4x8xf32>) -> tensor<2x3xf32> {
  %y = kiln.slice %x {starts = array<i64: 1, 1>, ends = array<i64: 4, 7>, steps = array<i64: 2, 2>} : tensor<4x8xf32>
  return %y : tensor<2x3xf32>
}

func.func @slice_neg(%x: tensor<4x8xf32>) -> tensor<2x4xf32> {
  %y = kiln.slice %x {starts = array<i64: 3, 7>, ends = array<i64: -1, -1>, steps = array<i64: -2, -2>} : tensor<4x8xf32>
  return %y : tensor<2x4xf32>
}

func.func @gather(%x: tensor<5x3xf32>, %i: tensor<2x2xi64>) -> tensor<2x2x3xf32> {
  %y = kiln.gather %x, %i {axis = 0 : i64} : tensor<5x3xf32>, tensor<2x2xi64>
  return %y : tensor<2x2x3xf32>
}

func.func @gather_axis1(%x: tensor<5x3xf32>, %i: tensor<2xi64>) -> tensor<5x2xf32> {
  %y = kiln.gather %x, %i {axis = 1 : i64} : tensor<5x3xf32>, tensor<2xi64>
  return %y : tensor<5x2xf32>
}

func.func @pad_constant(%x: tensor<2x3xf32>) -> tensor<4x4xf32> {
  %y = kiln.pad %x {pads = array<i64: 1, -1, 1, 2>, value = 1.5} : tensor<2x3xf32>
  return %y : tensor<4x4xf32>
}

func.func @pad_reflect(%x: tensor<2x3xf32>) -> tensor<4x7xf32> {
  %y = kiln.pad %x {pads = array<i64: 1, 2, 1, 2>, mode = 1 : i32} : tensor<2x3xf32>
  return %y : tensor<4x7xf32>
}

func.func @pad_edge(%x: tensor<2x3xf32>) -> tensor<3x6xf32> {
  %y = kiln.pad %x {pads = array<i64: 0, 2, 1, 1>, mode = 2 : i32} : tensor<2x3xf32>
  return %y : tensor<3x6xf32>
}

func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %y = kiln.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32>
  return %y : tensor<4x2x3xf32>
}

func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %y = kiln.reshape %x {shape = array<i64: 4, 6>} : tensor<2x3x4xf32>
  return %y : tensor<4x6xf32>
}

func.func @broadcast(%x: tensor<3x1xf32>) -> tensor<2x3x2xf32> {
  %y = kiln.broadcast %x {shape = array<i64: 2, 3, 2>} : tensor<3x1xf32>
  return %y : tensor<2x3x2xf32>
}

func.func @main_concat() {
  %in0 = arith.constant dense<[[1., 2., 3.], [4., 5., 6.]]> : tensor<2x3xf32>
  %in1 = arith.constant dense<[[7.], [8.]]> : tensor<2x1xf32>
  %r0 = call @concat(%in0, %in1) : (tensor<2x3xf32>, tensor<2x1xf32>) -> (tensor<2x4xf32>)
  %u0 = tensor.cast %r0 : tensor<2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_slice() {
  %in0 = arith.constant dense<[[ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.], [ 8.,  9., 10., 11., 12., 13., 14., 15.], [16., 17., 18., 19., 20., 21., 22., 23.], [24., 25., 26., 27., 28., 29., 30., 31.]]> : tensor<4x8xf32>
  %r0 = call @slice(%in0) : (tensor<4x8xf32>) -> (tensor<2x3xf32>)
  %u0 = tensor.cast %r0 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_slice_neg() {
  %in0 = arith.constant dense<[[ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.], [ 8.,  9., 10., 11., 12., 13., 14., 15.], [16., 17., 18., 19., 20., 21., 22., 23.], [24., 25., 26., 27., 28., 29., 30., 31.]]> : tensor<4x8xf32>
  %r0 = call @slice_neg(%in0) : (tensor<4x8xf32>) -> (tensor<2x4xf32>)
  %u0 = tensor.cast %r0 : tensor<2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_gather() {
  %in0 = arith.constant dense<[[ 0.,  1.,  2.], [ 3.,  4.,  5.], [ 6.,  7.,  8.], [ 9., 10., 11.], [12., 13., 14.]]> : tensor<5x3xf32>
  %in1 = arith.constant dense<[[ 0, -1], [ 2,  1]]> : tensor<2x2xi64>
  %r0 = call @gather(%in0, %in1) : (tensor<5x3xf32>, tensor<2x2xi64>) -> (tensor<2x2x3xf32>)
  %u0 = tensor.cast %r0 : tensor<2x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_gather_axis1() {
  %in0 = arith.constant dense<[[ 0.,  1.,  2.], [ 3.,  4.,  5.], [ 6.,  7.,  8.], [ 9., 10., 11.], [12., 13., 14.]]> : tensor<5x3xf32>
  %in1 = arith.constant dense<[ 2, -3]> : tensor<2xi64>
  %r0 = call @gather_axis1(%in0, %in1) : (tensor<5x3xf32>, tensor<2xi64>) -> (tensor<5x2xf32>)
  %u0 = tensor.cast %r0 : tensor<5x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_pad_constant() {
  %in0 = arith.constant dense<[[1., 2., 3.], [4., 5., 6.]]> : tensor<2x3xf32>
  %r0 = call @pad_constant(%in0) : (tensor<2x3xf32>) -> (tensor<4x4xf32>)
  %u0 = tensor.cast %r0 : tensor<4x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_pad_reflect() {
  %in0 = arith.constant dense<[[1., 2., 3.], [4., 5., 6.]]> : tensor<2x3xf32>
  %r0 = call @pad_reflect(%in0) : (tensor<2x3xf32>) -> (tensor<4x7xf32>)
  %u0 = tensor.cast %r0 : tensor<4x7xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_pad_edge() {
  %in0 = arith.constant dense<[[1., 2., 3.], [4., 5., 6.]]> : tensor<2x3xf32>
  %r0 = call @pad_edge(%in0) : (tensor<2x3xf32>) -> (tensor<3x6xf32>)
  %u0 = tensor.cast %r0 : tensor<3x6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_transpose() {
  %in0 = arith.constant dense<[[[ 0.,  1.,  2.,  3.],  [ 4.,  5.,  6.,  7.],  [ 8.,  9., 10., 11.]], [[12., 13., 14., 15.],  [16., 17., 18., 19.],  [20., 21., 22., 23.]]]> : tensor<2x3x4xf32>
  %r0 = call @transpose(%in0) : (tensor<2x3x4xf32>) -> (tensor<4x2x3xf32>)
  %u0 = tensor.cast %r0 : tensor<4x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_reshape() {
  %in0 = arith.constant dense<[[[ 0.,  1.,  2.,  3.],  [ 4.,  5.,  6.,  7.],  [ 8.,  9., 10., 11.]], [[12., 13., 14., 15.],  [16., 17., 18., 19.],  [20., 21., 22., 23.]]]> : tensor<2x3x4xf32>
  %r0 = call @reshape(%in0) : (tensor<2x3x4xf32>) -> (tensor<4x6xf32>)
  %u0 = tensor.cast %r0 : tensor<4x6xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_broadcast() {
  %in0 = arith.constant dense<[[1.], [2.], [3.]]> : tensor<3x1xf32>
  %r0 = call @broadcast(%in0) : (tensor<3x1xf32>) -> (tensor<2x3x2xf32>)
  %u0 = tensor.cast %r0 : tensor<2x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  call @main_concat() : () -> ()
  call @main_slice() : () -> ()
  call @main_slice_neg() : () -> ()
  call @main_gather() : () -> ()
  call @main_gather_axis1() : () -> ()
  call @main_pad_constant() : () -> ()
  call @main_pad_reflect() : () -> ()
  call @main_pad_edge() : () -> ()
  call @main_transpose() : () -> ()
  call @main_reshape() : () -> ()
  call @main_broadcast() : () -> ()
  return
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}
func.func private @printMemrefI64(tensor<*xi64>) attributes {llvm.emit_c_interface}

// CHECK: data =
// CHECK-NEXT: {{\[\[}}1,   2,   3,   7],
// CHECK-NEXT: [4,   5,   6,   8]]
// CHECK: data =
// CHECK-NEXT: {{\[\[}}9,   11,   13],
// CHECK-NEXT: [25,   27,   29]]
// CHECK: data =
// CHECK-NEXT: {{\[\[}}31,   29,   27,   25],
// CHECK-NEXT: [15,   13,   11,   9]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[}}0,    1,    2],
// CHECK-NEXT: [12,    13,    14]],
// CHECK-NEXT: {{\[\[}}6,    7,    8],
// CHECK-NEXT: [3,    4,    5]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[}}2,   0],
// CHECK-NEXT: [5,   3],
// CHECK-NEXT: [8,   6],
// CHECK-NEXT: [11,   9],
// CHECK-NEXT: [14,   12]]
// CHECK: data =
// CHECK-NEXT: {{\[\[}}1.5,   1.5,   1.5,   1.5],
// CHECK-NEXT: [2,   3,   1.5,   1.5],
// CHECK-NEXT: [5,   6,   1.5,   1.5],
// CHECK-NEXT: [1.5,   1.5,   1.5,   1.5]]
// CHECK: data =
// CHECK-NEXT: {{\[\[}}6,   5,   4,   5,   6,   5,   4],
// CHECK-NEXT: [3,   2,   1,   2,   3,   2,   1],
// CHECK-NEXT: [6,   5,   4,   5,   6,   5,   4],
// CHECK-NEXT: [3,   2,   1,   2,   3,   2,   1]]
// CHECK: data =
// CHECK-NEXT: {{\[\[}}1,   1,   1,   2,   3,   3],
// CHECK-NEXT: [4,   4,   4,   5,   6,   6],
// CHECK-NEXT: [4,   4,   4,   5,   6,   6]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[}}0,    4,    8],
// CHECK-NEXT: [12,    16,    20]],
// CHECK-NEXT: {{\[\[}}1,    5,    9],
// CHECK-NEXT: [13,    17,    21]],
// CHECK-NEXT: {{\[\[}}2,    6,    10],
// CHECK-NEXT: [14,    18,    22]],
// CHECK-NEXT: {{\[\[}}3,    7,    11],
// CHECK-NEXT: [15,    19,    23]]]
// CHECK: data =
// CHECK-NEXT: {{\[\[}}0,   1,   2,   3,   4,   5],
// CHECK-NEXT: [6,   7,   8,   9,   10,   11],
// CHECK-NEXT: [12,   13,   14,   15,   16,   17],
// CHECK-NEXT: [18,   19,   20,   21,   22,   23]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[}}1,    1],
// CHECK-NEXT: [2,    2],
// CHECK-NEXT: [3,    3]],
// CHECK-NEXT: {{\[\[}}1,    1],
// CHECK-NEXT: [2,    2],
// CHECK-NEXT: [3,    3]]]
