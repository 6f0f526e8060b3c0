// Runs the lowered quantize, dequantize and integer matmul/conv and checks
// values computed from the ONNX definitions (NumPy for the sums): round half to even,
// zero point after rounding, saturation to [-128, 127], (q - zp) * s, and
// exact i32 sums of i8 products (127 * 127 * 8 = 129032 does not fit i16).
// RUN: kiln-opt --kiln-to-linalg %s | mlir-opt --one-shot-bufferize="bufferize-function-boundaries" --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata --lower-affine --convert-math-to-llvm --finalize-memref-to-llvm --convert-arith-to-llvm --convert-cf-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_runner_utils.so | FileCheck %s

func.func @quantize(%x: tensor<2x4xf32>, %s: tensor<2xf32>, %zp: tensor<2xi8>) -> tensor<2x4xi8> {
  %q = kiln.quantize %x, %s, %zp {axis = 0 : i64} : tensor<2x4xf32>, tensor<2xf32>, tensor<2xi8>
  return %q : tensor<2x4xi8>
}

func.func @dequantize(%q: tensor<2x4xi8>, %s: tensor<4xf32>, %zp: tensor<4xi8>) -> tensor<2x4xf32> {
  %y = kiln.dequantize %q, %s, %zp {axis = 1 : i64} : tensor<2x4xi8>, tensor<4xf32>, tensor<4xi8>
  return %y : tensor<2x4xf32>
}

func.func @matmul(%a: tensor<2x8xi8>, %b: tensor<8x2xi8>) -> tensor<2x2xi32> {
  %c = kiln.matmul %a, %b : tensor<2x8xi8>, tensor<8x2xi8>
  return %c : tensor<2x2xi32>
}

func.func @conv(%x: tensor<1x1x2x2xi8>, %w: tensor<1x1x2x2xi8>, %b: tensor<1xi32>) -> tensor<1x1x3x3xi32> {
  %y = kiln.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x2xi8>, tensor<1x1x2x2xi8>, tensor<1xi32>
  return %y : tensor<1x1x3x3xi32>
}

func.func @main() {
  // Row 0: scale 1, zero point 10; row 1: scale 0.5, zero point -128.
  %x = arith.constant dense<[[0.5, 1.5, -2.5, 200.0], [-1.0, 1.25, 0.75, -100.0]]> : tensor<2x4xf32>
  %s = arith.constant dense<[1.0, 0.5]> : tensor<2xf32>
  %zp = arith.constant dense<[10, -128]> : tensor<2xi8>
  %q = call @quantize(%x, %s, %zp) : (tensor<2x4xf32>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x4xi8>
  %qw = kiln.cast %q to i32 : tensor<2x4xi8>
  %uq = tensor.cast %qw : tensor<2x4xi32> to tensor<*xi32>
  // CHECK: {{\[}}[10, 12, 8, 127],
  // CHECK-NEXT: [-128, -126, -126, -128]]
  call @printMemrefI32(%uq) : (tensor<*xi32>) -> ()

  %dq = arith.constant dense<[[-128, 127, 5, 0], [1, 2, 3, 4]]> : tensor<2x4xi8>
  %ds = arith.constant dense<[0.5, 0.25, 2.0, 1.0]> : tensor<4xf32>
  %dz = arith.constant dense<[-128, 127, 1, 0]> : tensor<4xi8>
  %y = call @dequantize(%dq, %ds, %dz) : (tensor<2x4xi8>, tensor<4xf32>, tensor<4xi8>) -> tensor<2x4xf32>
  %uy = tensor.cast %y : tensor<2x4xf32> to tensor<*xf32>
  // CHECK: {{\[}}[0, 0, 8, 0],
  // CHECK-NEXT: [64.5, -31.25, 4, 4]]
  call @printMemrefF32(%uy) : (tensor<*xf32>) -> ()

  %a = arith.constant dense<[[127, 127, 127, 127, 127, 127, 127, 127], [-128, 1, -1, 2, -2, 3, -3, 4]]> : tensor<2x8xi8>
  %b = arith.constant dense<[[127, -128], [127, 1], [127, 1], [127, 1], [127, 1], [127, 1], [127, 1], [127, 1]]> : tensor<8x2xi8>
  %c = call @matmul(%a, %b) : (tensor<2x8xi8>, tensor<8x2xi8>) -> tensor<2x2xi32>
  %uc = tensor.cast %c : tensor<2x2xi32> to tensor<*xi32>
  // CHECK: {{\[}}[129032, -15367],
  // CHECK-NEXT: [-15748, 16388]]
  call @printMemrefI32(%uc) : (tensor<*xi32>) -> ()

  %cx = arith.constant dense<[[[[1, 2], [3, 4]]]]> : tensor<1x1x2x2xi8>
  %cw = arith.constant dense<[[[[-128, 1], [2, 127]]]]> : tensor<1x1x2x2xi8>
  %cb = arith.constant dense<[1000]> : tensor<1xi32>
  %cy = call @conv(%cx, %cw, %cb) : (tensor<1x1x2x2xi8>, tensor<1x1x2x2xi8>, tensor<1xi32>) -> tensor<1x1x3x3xi32>
  %ucy = tensor.cast %cy : tensor<1x1x3x3xi32> to tensor<*xi32>
  // Padding contributes 0: the corner outputs see one input element each.
  // CHECK: {{\[}}[1127, 1256, 1004],
  // CHECK-NEXT: [1382, 1388, 752],
  // CHECK-NEXT: [1003, 620, 488]]
  call @printMemrefI32(%ucy) : (tensor<*xi32>) -> ()
  return
}

func.func private @printMemrefI32(tensor<*xi32>) attributes {llvm.emit_c_interface}
func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}
