// RUN: kiln-opt --kiln-cuda-codegen %s -verify-diagnostics
// RUN: not kiln-opt --kiln-cuda-codegen %s 2>&1 | FileCheck %s

// Dispatches the CUDA kernel codegen does not generate fail the module with
// one error that names each and why, in dispatch order: a contraction that
// kiln-cuda-library-calls did not mark for a generated kernel, a dynamic
// shape, a tensor constant, and intermediates that do not fit in a thread
// block's shared memory (8 rows of 20000 floats, kept because the exp has
// two consumers). The supported dispatch beside
// them (dispatch_1) is not listed.

// CHECK: error: the cuda target cannot generate 4 of 5 dispatches (kilnc --dump-dispatches names their ONNX nodes):
// CHECK-NEXT: dispatch_0: root linalg.matmul (a contraction: becomes a cuBLASLt library call, or a generated kernel once kiln-cuda-library-calls marks its dispatch)
// CHECK-NEXT: dispatch_2: a dynamic shape
// CHECK-NEXT: dispatch_3: root arith.constant (a tensor constant)
// CHECK-NEXT: dispatch_4: intermediates of 80144 bytes per thread block (more than 48 KiB of shared memory)
// CHECK-NOT: dispatch_1

// expected-error @+1 {{the cuda target cannot generate 4 of 5 dispatches (kilnc --dump-dispatches names their ONNX nodes):}}
module {
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

func.func @dispatch_2(%a: tensor<?x4xf32>) -> tensor<?x4xf32> attributes {kiln.dispatch} {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%d) : tensor<?x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

func.func @dispatch_3(%a: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.dispatch} {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %c : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %n = arith.mulf %x, %y : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @dispatch_4(%x: tensor<8x20000xf32>) -> tensor<8x20000xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x20000xf32>
  %exp = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x20000xf32>) outs(%e0 : tensor<8x20000xf32>) {
  ^bb0(%in: f32, %o: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<8x20000xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<8x20000xf32>) outs(%f1 : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %acc, %in : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8x20000xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%exp, %sum : tensor<8x20000xf32>, tensor<8xf32>) outs(%e2 : tensor<8x20000xf32>) {
  ^bb0(%in: f32, %s: f32, %o: f32):
    %d = arith.divf %in, %s : f32
    linalg.yield %d : f32
  } -> tensor<8x20000xf32>
  return %r : tensor<8x20000xf32>
}
}
