// Numerics of the indexing lowerings through upstream MLIR's CPU pipeline and
// mlir-runner. Expected values are NumPy's (argmax/argmin, a stable argsort
// for top_k, cumsum, take_along_axis, and the ONNX reference loops for the
// scatters).
// RUN: kiln-opt --kiln-to-linalg %s | mlir-opt --one-shot-bufferize="bufferize-function-boundaries" --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine --finalize-memref-to-llvm --convert-math-to-libm --convert-math-to-llvm --convert-arith-to-llvm --convert-cf-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_runner_utils.so | FileCheck %s

func.func @argmax_last(%x: tensor<3x4xf32>) -> tensor<3x1xi64> {
  %i = kiln.arg_reduce max %x {axis = 1 : i64, keepdims = true, select_last_index = true} : tensor<3x4xf32>
  return %i : tensor<3x1xi64>
}

func.func @argmin(%x: tensor<3x4xf32>) -> tensor<4xi64> {
  %i = kiln.arg_reduce min %x {axis = 0 : i64, keepdims = false} : tensor<3x4xf32>
  return %i : tensor<4xi64>
}

func.func @topk(%x: tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %v, %i = kiln.top_k %x {k = 3 : i64, axis = -1 : i64} : tensor<2x5xf32>
  return %v, %i : tensor<2x3xf32>, tensor<2x3xi64>
}

func.func @topk_smallest(%x: tensor<2x5xf32>) -> (tensor<1x5xf32>, tensor<1x5xi64>) {
  %v, %i = kiln.top_k %x {k = 1 : i64, axis = 0 : i64, largest = false} : tensor<2x5xf32>
  return %v, %i : tensor<1x5xf32>, tensor<1x5xi64>
}

func.func @cumsum_reverse_exclusive(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %y = kiln.cumsum %x {axis = 1 : i64, exclusive = true, reverse = true} : tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

func.func @cumsum(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %y = kiln.cumsum %x {axis = 0 : i64} : tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

func.func @gather_elements(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>) -> tensor<3x2xf32> {
  %y = kiln.gather_elements %x, %i {axis = 1 : i64} : tensor<3x4xf32>, tensor<3x2xi64>
  return %y : tensor<3x2xf32>
}

func.func @gather_nd(%x: tensor<2x3x4xf32>, %i: tensor<2x3x1xi64>) -> tensor<2x3x4xf32> {
  %y = kiln.gather_nd %x, %i {batch_dims = 1 : i64} : tensor<2x3x4xf32>, tensor<2x3x1xi64>
  return %y : tensor<2x3x4xf32>
}

func.func @gather_nd_points(%x: tensor<3x4xf32>, %i: tensor<2x2xi64>) -> tensor<2xf32> {
  %y = kiln.gather_nd %x, %i : tensor<3x4xf32>, tensor<2x2xi64>
  return %y : tensor<2xf32>
}

func.func @scatter_nd_add(%x: tensor<4x5xf32>, %i: tensor<3x1xi64>, %u: tensor<3x5xf32>) -> tensor<4x5xf32> {
  %y = kiln.scatter_nd add %x, %i, %u : tensor<4x5xf32>, tensor<3x1xi64>, tensor<3x5xf32>
  return %y : tensor<4x5xf32>
}

func.func @scatter_elements_max(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) -> tensor<3x4xf32> {
  %y = kiln.scatter_elements max %x, %i, %u {axis = 1 : i64} : tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>
  return %y : tensor<3x4xf32>
}

func.func @main_argmax_last() {
  %in0 = arith.constant dense<[[ 1.,  3.,  3.,  0.], [ 5.,  2.,  5.,  5.], [-1., -2., -3., -1.]]> : tensor<3x4xf32>
  %r0 = call @argmax_last(%in0) : (tensor<3x4xf32>) -> (tensor<3x1xi64>)
  %u0 = tensor.cast %r0 : tensor<3x1xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
func.func @main_argmin() {
  %in0 = arith.constant dense<[[ 1.,  3.,  3.,  0.], [ 5.,  2.,  5.,  5.], [-1., -2., -3., -1.]]> : tensor<3x4xf32>
  %r0 = call @argmin(%in0) : (tensor<3x4xf32>) -> (tensor<4xi64>)
  %u0 = tensor.cast %r0 : tensor<4xi64> to tensor<*xi64>
  call @printMemrefI64(%u0) : (tensor<*xi64>) -> ()
  return
}
func.func @main_topk() {
  %in0 = arith.constant dense<[[3., 1., 4., 1., 5.], [9., 2., 6., 5., 3.]]> : tensor<2x5xf32>
  %r0, %r1 = call @topk(%in0) : (tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  %u0 = tensor.cast %r0 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1 = tensor.cast %r1 : tensor<2x3xi64> to tensor<*xi64>
  call @printMemrefI64(%u1) : (tensor<*xi64>) -> ()
  return
}
func.func @main_topk_smallest() {
  %in0 = arith.constant dense<[[3., 1., 4., 1., 5.], [9., 2., 6., 5., 3.]]> : tensor<2x5xf32>
  %r0, %r1 = call @topk_smallest(%in0) : (tensor<2x5xf32>) -> (tensor<1x5xf32>, tensor<1x5xi64>)
  %u0 = tensor.cast %r0 : tensor<1x5xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %u1 = tensor.cast %r1 : tensor<1x5xi64> to tensor<*xi64>
  call @printMemrefI64(%u1) : (tensor<*xi64>) -> ()
  return
}
func.func @main_cumsum_reverse_exclusive() {
  %in0 = arith.constant dense<[[3., 1., 4., 1., 5.], [9., 2., 6., 5., 3.]]> : tensor<2x5xf32>
  %r0 = call @cumsum_reverse_exclusive(%in0) : (tensor<2x5xf32>) -> (tensor<2x5xf32>)
  %u0 = tensor.cast %r0 : tensor<2x5xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_cumsum() {
  %in0 = arith.constant dense<[[3., 1., 4., 1., 5.], [9., 2., 6., 5., 3.]]> : tensor<2x5xf32>
  %r0 = call @cumsum(%in0) : (tensor<2x5xf32>) -> (tensor<2x5xf32>)
  %u0 = tensor.cast %r0 : tensor<2x5xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_gather_elements() {
  %in0 = arith.constant dense<[[ 0.,  1.,  2.,  3.], [ 4.,  5.,  6.,  7.], [ 8.,  9., 10., 11.]]> : tensor<3x4xf32>
  %in1 = arith.constant dense<[[ 0, -1], [ 2,  1], [ 3,  3]]> : tensor<3x2xi64>
  %r0 = call @gather_elements(%in0, %in1) : (tensor<3x4xf32>, tensor<3x2xi64>) -> (tensor<3x2xf32>)
  %u0 = tensor.cast %r0 : tensor<3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_gather_nd() {
  %in0 = arith.constant dense<[[[ 0.,  1.,  2.,  3.],  [ 4.,  5.,  6.,  7.],  [ 8.,  9., 10., 11.]], [[12., 13., 14., 15.],  [16., 17., 18., 19.],  [20., 21., 22., 23.]]]> : tensor<2x3x4xf32>
  %in1 = arith.constant dense<[[[ 0],  [ 2],  [-1]], [[ 1],  [ 1],  [ 0]]]> : tensor<2x3x1xi64>
  %r0 = call @gather_nd(%in0, %in1) : (tensor<2x3x4xf32>, tensor<2x3x1xi64>) -> (tensor<2x3x4xf32>)
  %u0 = tensor.cast %r0 : tensor<2x3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_gather_nd_points() {
  %in0 = arith.constant dense<[[ 0.,  1.,  2.,  3.], [ 4.,  5.,  6.,  7.], [ 8.,  9., 10., 11.]]> : tensor<3x4xf32>
  %in1 = arith.constant dense<[[ 0,  1], [ 1, -1]]> : tensor<2x2xi64>
  %r0 = call @gather_nd_points(%in0, %in1) : (tensor<3x4xf32>, tensor<2x2xi64>) -> (tensor<2xf32>)
  %u0 = tensor.cast %r0 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_scatter_nd_add() {
  %in0 = arith.constant dense<[[1., 1., 1., 1., 1.], [1., 1., 1., 1., 1.], [1., 1., 1., 1., 1.], [1., 1., 1., 1., 1.]]> : tensor<4x5xf32>
  %in1 = arith.constant dense<[[ 1], [-1], [ 1]]> : tensor<3x1xi64>
  %in2 = arith.constant dense<[[ 0.,  1.,  2.,  3.,  4.], [ 5.,  6.,  7.,  8.,  9.], [10., 11., 12., 13., 14.]]> : tensor<3x5xf32>
  %r0 = call @scatter_nd_add(%in0, %in1, %in2) : (tensor<4x5xf32>, tensor<3x1xi64>, tensor<3x5xf32>) -> (tensor<4x5xf32>)
  %u0 = tensor.cast %r0 : tensor<4x5xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}
func.func @main_scatter_elements_max() {
  %in0 = arith.constant dense<[[ 0.,  1.,  2.,  3.], [ 4.,  5.,  6.,  7.], [ 8.,  9., 10., 11.]]> : tensor<3x4xf32>
  %in1 = arith.constant dense<[[ 1,  3], [ 0, -4], [ 2,  2]]> : tensor<3x2xi64>
  %in2 = arith.constant dense<[[10., 20.], [30., 40.], [50., 60.]]> : tensor<3x2xf32>
  %r0 = call @scatter_elements_max(%in0, %in1, %in2) : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> (tensor<3x4xf32>)
  %u0 = tensor.cast %r0 : tensor<3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  call @main_argmax_last() : () -> ()
  call @main_argmin() : () -> ()
  call @main_topk() : () -> ()
  call @main_topk_smallest() : () -> ()
  call @main_cumsum_reverse_exclusive() : () -> ()
  call @main_cumsum() : () -> ()
  call @main_gather_elements() : () -> ()
  call @main_gather_nd() : () -> ()
  call @main_gather_nd_points() : () -> ()
  call @main_scatter_nd_add() : () -> ()
  call @main_scatter_elements_max() : () -> ()
  return
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}
func.func private @printMemrefI64(tensor<*xi64>) attributes {llvm.emit_c_interface}

// CHECK: data =
// CHECK-NEXT: {{\[\[}}2],
// CHECK-NEXT: [3],
// CHECK-NEXT: [3]]
// CHECK: data =
// CHECK-NEXT: [2,  2,  2,  2]
// CHECK: data =
// CHECK-NEXT: {{\[\[}}5,   4,   3],
// CHECK-NEXT: [9,   6,   5]]
// CHECK: data =
// CHECK-NEXT: {{\[\[}}4,   2,   0],
// CHECK-NEXT: [0,   2,   3]]
// CHECK: data =
// CHECK-NEXT: {{\[\[}}3,   1,   4,   1,   3]]
// CHECK: data =
// CHECK-NEXT: {{\[\[}}0,   0,   0,   0,   1]]
// CHECK: data =
// CHECK-NEXT: {{\[\[}}11,   10,   6,   5,   0],
// CHECK-NEXT: [16,   14,   8,   3,   0]]
// CHECK: data =
// CHECK-NEXT: {{\[\[}}3,   1,   4,   1,   5],
// CHECK-NEXT: [12,   3,   10,   6,   8]]
// CHECK: data =
// CHECK-NEXT: {{\[\[}}0,   3],
// CHECK-NEXT: [6,   5],
// CHECK-NEXT: [11,   11]]
// CHECK: data =
// CHECK-NEXT: {{\[\[\[}}0,    1,    2,    3],
// CHECK-NEXT: [8,    9,    10,    11],
// CHECK-NEXT: [8,    9,    10,    11]],
// CHECK-NEXT: {{\[\[}}16,    17,    18,    19],
// CHECK-NEXT: [16,    17,    18,    19],
// CHECK-NEXT: [12,    13,    14,    15]]]
// CHECK: data =
// CHECK-NEXT: [1,  7]
// CHECK: data =
// CHECK-NEXT: {{\[\[}}1,   1,   1,   1,   1],
// CHECK-NEXT: [11,   13,   15,   17,   19],
// CHECK-NEXT: [1,   1,   1,   1,   1],
// CHECK-NEXT: [6,   7,   8,   9,   10]]
// CHECK: data =
// CHECK-NEXT: {{\[\[}}0,   10,   2,   20],
// CHECK-NEXT: [40,   5,   6,   7],
// CHECK-NEXT: [8,   9,   60,   11]]
