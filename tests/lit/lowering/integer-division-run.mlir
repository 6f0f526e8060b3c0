// Integer division and remainder never trap. x86's idiv raises SIGFPE for
// a zero divisor and for INT_MIN / -1; the lowering makes the divisor safe
// first and defines the results ONNX leaves open: x / 0 = 0, x % 0 = x,
// x / -1 = -x (INT_MIN / -1 wraps to INT_MIN), x % -1 = 0. Ordinary
// divisors truncate toward zero and the remainder takes the dividend's sign.
// RUN: kiln-opt --kiln-to-linalg %s | mlir-opt --one-shot-bufferize="bufferize-function-boundaries" --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine --finalize-memref-to-llvm --convert-arith-to-llvm --convert-cf-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_runner_utils.so | FileCheck %s

func.func @div(%x: tensor<6xi32>, %y: tensor<6xi32>) -> tensor<6xi32> {
  %q = kiln.div %x, %y : tensor<6xi32>, tensor<6xi32>
  return %q : tensor<6xi32>
}

func.func @rem(%x: tensor<6xi32>, %y: tensor<6xi32>) -> tensor<6xi32> {
  %r = kiln.rem %x, %y : tensor<6xi32>, tensor<6xi32>
  return %r : tensor<6xi32>
}

func.func @main() {
  %x = arith.constant dense<[7, -7, 5, -2147483648, 9, -2147483648]> : tensor<6xi32>
  %y = arith.constant dense<[2, 2, 0, -1, -1, 0]> : tensor<6xi32>
  %q = call @div(%x, %y) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  %uq = tensor.cast %q : tensor<6xi32> to tensor<*xi32>
  call @printMemrefI32(%uq) : (tensor<*xi32>) -> ()
  %r = call @rem(%x, %y) : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  %ur = tensor.cast %r : tensor<6xi32> to tensor<*xi32>
  call @printMemrefI32(%ur) : (tensor<*xi32>) -> ()
  return
}

func.func private @printMemrefI32(tensor<*xi32>) attributes {llvm.emit_c_interface}

// CHECK: data =
// CHECK-NEXT: [3,  -3,  0,  -2147483648,  -9,  0]
// CHECK: data =
// CHECK-NEXT: [1,  -1,  5,  0,  0,  -2147483648]
