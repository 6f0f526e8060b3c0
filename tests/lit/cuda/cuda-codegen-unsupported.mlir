// RUN: not kiln-opt --kiln-cuda-codegen %s 2>&1 | FileCheck %s

// Dispatches this slice cannot generate (a contraction, a reduction) fail
// the module with one error naming each and its root op; the elementwise
// dispatch beside them is not listed.

// CHECK: error: the cuda target cannot generate 2 of 3 dispatches yet (this slice generates elementwise and broadcast dispatches only; contractions will become cuBLASLt plan steps; kilnc --dump-dispatches names their ONNX nodes):
// CHECK-NEXT: dispatch_0: root linalg.matmul
// CHECK-NEXT: dispatch_2: root linalg.generic[reduction]
// CHECK-NOT: dispatch_1

func.func @dispatch_0(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

func.func @dispatch_1(%a: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @dispatch_2(%a: tensor<4x8xf32>) -> tensor<4xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
