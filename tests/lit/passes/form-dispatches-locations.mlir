// RUN: kiln-opt --kiln-form-dispatches --mlir-print-debuginfo --mlir-print-local-scope %s | FileCheck %s

// Dispatch formation keeps the location of every op it fuses (an elementwise
// producer fused into its consumer keeps both ONNX node names), and each call
// is located at all of its group's ops, so `kilnc --dump-dispatches` and
// kiln-compare can name the dispatch that computes an ONNX node.

#map = affine_map<(d0) -> (d0)>
func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %a : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8xf32> loc("Add_0")
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%0 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8xf32> loc("Relu_1")
  return %1 : tensor<8xf32>
}

// CHECK-LABEL: func.func @main
// CHECK: call @dispatch_0(%{{.*}}) : (tensor<8xf32>) -> tensor<8xf32> loc(fused[{{.*}}"Relu_1", "Add_0"])
// CHECK: func.func private @dispatch_0
// CHECK: linalg.generic
// CHECK: } -> tensor<8xf32> loc(fused["Relu_1", "Add_0"])
