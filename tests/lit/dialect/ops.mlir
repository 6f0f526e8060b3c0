// RUN: kiln-opt %s | FileCheck %s
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt %s --mlir-print-op-generic | kiln-opt | FileCheck %s

// Round trip of every Kiln op. Most ops infer their result type, so the
// custom form does not print it: each function returns the op's result
// under the type that inference must produce, and the verifier rejects the
// `return` if the inferred type differs. The CHECK lines match the function
// signatures and the `return` types as well.

//===----------------------------------------------------------------------===//
// Constants and custom calls
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @constant_f32(
// CHECK-SAME: -> tensor<2x2xf32>
// CHECK: %[[C:.*]] = kiln.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK: return %[[C]] : tensor<2x2xf32>
func.func @constant_f32() -> tensor<2x2xf32> {
  %0 = kiln.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// CHECK-LABEL: func.func @constant_element_types(
// CHECK: kiln.constant dense<1.500000e+00> : tensor<4xf16>
// CHECK: kiln.constant dense<-2.000000e+00> : tensor<2x3xbf16>
// CHECK: kiln.constant dense<[-128, 0, 127]> : tensor<3xi8>
// CHECK: kiln.constant dense<7> : tensor<i32>
// CHECK: kiln.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
// CHECK: kiln.constant dense<[true, false]> : tensor<2xi1>
// CHECK: kiln.constant dense<> : tensor<0x3xf32>
// CHECK: return %{{.*}} : tensor<4xf16>, tensor<2x3xbf16>, tensor<3xi8>, tensor<i32>, tensor<4xi64>, tensor<2xi1>, tensor<0x3xf32>
func.func @constant_element_types() -> (tensor<4xf16>, tensor<2x3xbf16>, tensor<3xi8>, tensor<i32>, tensor<4xi64>, tensor<2xi1>, tensor<0x3xf32>) {
  %0 = kiln.constant dense<1.5> : tensor<4xf16>
  %1 = kiln.constant dense<-2.0> : tensor<2x3xbf16>
  %2 = kiln.constant dense<[-128, 0, 127]> : tensor<3xi8>
  %3 = kiln.constant dense<7> : tensor<i32>
  %4 = kiln.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  %5 = kiln.constant dense<[true, false]> : tensor<2xi1>
  %6 = kiln.constant dense<> : tensor<0x3xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf16>, tensor<2x3xbf16>, tensor<3xi8>, tensor<i32>, tensor<4xi64>, tensor<2xi1>, tensor<0x3xf32>
}

// Large weights are stored as resources.
// CHECK-LABEL: func.func @constant_resource(
// CHECK: %[[W:.*]] = kiln.constant dense_resource<weights> : tensor<2xf32>
// CHECK: return %[[W]] : tensor<2xf32>
func.func @constant_resource() -> tensor<2xf32> {
  %0 = kiln.constant dense_resource<weights> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// CHECK-LABEL: func.func @custom_call(
// CHECK: %[[A:.*]] = kiln.custom_call "my_ops.swish"(%arg0) {config = {beta = 1.500000e+00 : f32}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[B:.*]]:2 = kiln.custom_call "my_ops.split"(%[[A]], %arg1) : (tensor<4x8xf32>, tensor<?xi64>) -> (tensor<2x8xf32>, tensor<?x8xf32>)
// CHECK: kiln.custom_call "my_ops.print"(%[[B]]#0) {has_side_effects} : (tensor<2x8xf32>) -> ()
// CHECK: %[[C:.*]] = kiln.custom_call "my_ops.seed"() : () -> tensor<i64>
// CHECK: return %[[B]]#1, %[[C]] : tensor<?x8xf32>, tensor<i64>
func.func @custom_call(%x: tensor<4x8xf32>, %sizes: tensor<?xi64>) -> (tensor<?x8xf32>, tensor<i64>) {
  %0 = kiln.custom_call "my_ops.swish"(%x) {config = {beta = 1.5 : f32}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1:2 = kiln.custom_call "my_ops.split"(%0, %sizes) : (tensor<4x8xf32>, tensor<?xi64>) -> (tensor<2x8xf32>, tensor<?x8xf32>)
  kiln.custom_call "my_ops.print"(%1#0) {has_side_effects} : (tensor<2x8xf32>) -> ()
  %2 = kiln.custom_call "my_ops.seed"() : () -> tensor<i64>
  return %1#1, %2 : tensor<?x8xf32>, tensor<i64>
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

// The numeric unary ops take floats and integers.
// CHECK-LABEL: func.func @unary_numeric(
// CHECK: %[[A:.*]] = kiln.abs %arg0 : tensor<2x?xf32>
// CHECK: %[[B:.*]] = kiln.neg %arg1 : tensor<4xf16>
// CHECK: %[[C:.*]] = kiln.sign %arg2 : tensor<4xbf16>
// CHECK: %[[D:.*]] = kiln.relu %arg3 : tensor<3xi8>
// CHECK: %[[E:.*]] = kiln.abs %arg4 : tensor<?xi32>
// CHECK: %[[F:.*]] = kiln.neg %arg5 : tensor<i64>
// CHECK: %[[G:.*]] = kiln.sign %arg4 : tensor<?xi32>
// CHECK: %[[H:.*]] = kiln.relu %arg0 : tensor<2x?xf32>
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]], %[[G]], %[[H]] : tensor<2x?xf32>, tensor<4xf16>, tensor<4xbf16>, tensor<3xi8>, tensor<?xi32>, tensor<i64>, tensor<?xi32>, tensor<2x?xf32>
func.func @unary_numeric(%f32: tensor<2x?xf32>, %f16: tensor<4xf16>, %bf16: tensor<4xbf16>, %i8: tensor<3xi8>, %i32: tensor<?xi32>, %i64: tensor<i64>)
    -> (tensor<2x?xf32>, tensor<4xf16>, tensor<4xbf16>, tensor<3xi8>, tensor<?xi32>, tensor<i64>, tensor<?xi32>, tensor<2x?xf32>) {
  %0 = kiln.abs %f32 : tensor<2x?xf32>
  %1 = kiln.neg %f16 : tensor<4xf16>
  %2 = kiln.sign %bf16 : tensor<4xbf16>
  %3 = kiln.relu %i8 : tensor<3xi8>
  %4 = kiln.abs %i32 : tensor<?xi32>
  %5 = kiln.neg %i64 : tensor<i64>
  %6 = kiln.sign %i32 : tensor<?xi32>
  %7 = kiln.relu %f32 : tensor<2x?xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x?xf32>, tensor<4xf16>, tensor<4xbf16>, tensor<3xi8>, tensor<?xi32>, tensor<i64>, tensor<?xi32>, tensor<2x?xf32>
}

// CHECK-LABEL: func.func @unary_float(
// CHECK: %[[V0:.*]] = kiln.sigmoid %arg0 : tensor<2x3xf32>
// CHECK: %[[V1:.*]] = kiln.tanh %[[V0]] : tensor<2x3xf32>
// CHECK: %[[V2:.*]] = kiln.exp %[[V1]] : tensor<2x3xf32>
// CHECK: %[[V3:.*]] = kiln.log %[[V2]] : tensor<2x3xf32>
// CHECK: %[[V4:.*]] = kiln.sqrt %[[V3]] : tensor<2x3xf32>
// CHECK: %[[V5:.*]] = kiln.rsqrt %[[V4]] : tensor<2x3xf32>
// CHECK: %[[V6:.*]] = kiln.reciprocal %[[V5]] : tensor<2x3xf32>
// CHECK: %[[V7:.*]] = kiln.erf %[[V6]] : tensor<2x3xf32>
// CHECK: %[[V8:.*]] = kiln.floor %[[V7]] : tensor<2x3xf32>
// CHECK: %[[V9:.*]] = kiln.ceil %[[V8]] : tensor<2x3xf32>
// CHECK: %[[V10:.*]] = kiln.round %[[V9]] : tensor<2x3xf32>
// CHECK: %[[V11:.*]] = kiln.sin %[[V10]] : tensor<2x3xf32>
// CHECK: %[[V12:.*]] = kiln.cos %[[V11]] : tensor<2x3xf32>
// CHECK: return %[[V12]] : tensor<2x3xf32>
func.func @unary_float(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.sigmoid %x : tensor<2x3xf32>
  %1 = kiln.tanh %0 : tensor<2x3xf32>
  %2 = kiln.exp %1 : tensor<2x3xf32>
  %3 = kiln.log %2 : tensor<2x3xf32>
  %4 = kiln.sqrt %3 : tensor<2x3xf32>
  %5 = kiln.rsqrt %4 : tensor<2x3xf32>
  %6 = kiln.reciprocal %5 : tensor<2x3xf32>
  %7 = kiln.erf %6 : tensor<2x3xf32>
  %8 = kiln.floor %7 : tensor<2x3xf32>
  %9 = kiln.ceil %8 : tensor<2x3xf32>
  %10 = kiln.round %9 : tensor<2x3xf32>
  %11 = kiln.sin %10 : tensor<2x3xf32>
  %12 = kiln.cos %11 : tensor<2x3xf32>
  return %12 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @unary_float_narrow_dynamic(
// CHECK: %[[A:.*]] = kiln.exp %arg0 : tensor<?x?xf16>
// CHECK: %[[B:.*]] = kiln.sigmoid %arg1 : tensor<8x?xbf16>
// CHECK: %[[C:.*]] = kiln.rsqrt %[[B]] : tensor<8x?xbf16>
// CHECK: return %[[A]], %[[C]] : tensor<?x?xf16>, tensor<8x?xbf16>
func.func @unary_float_narrow_dynamic(%a: tensor<?x?xf16>, %b: tensor<8x?xbf16>) -> (tensor<?x?xf16>, tensor<8x?xbf16>) {
  %0 = kiln.exp %a : tensor<?x?xf16>
  %1 = kiln.sigmoid %b : tensor<8x?xbf16>
  %2 = kiln.rsqrt %1 : tensor<8x?xbf16>
  return %0, %2 : tensor<?x?xf16>, tensor<8x?xbf16>
}

// CHECK-LABEL: func.func @not(
// CHECK: %[[N:.*]] = kiln.not %arg0 : tensor<4x?xi1>
// CHECK: return %[[N]] : tensor<4x?xi1>
func.func @not(%x: tensor<4x?xi1>) -> tensor<4x?xi1> {
  %0 = kiln.not %x : tensor<4x?xi1>
  return %0 : tensor<4x?xi1>
}

// The default approximation is not printed.
// CHECK-LABEL: func.func @gelu(
// CHECK: %[[A:.*]] = kiln.gelu %arg0 : tensor<2x768xf32>
// CHECK: %[[B:.*]] = kiln.gelu %[[A]] {approximate = 1 : i32} : tensor<2x768xf32>
// CHECK: %[[C:.*]] = kiln.gelu %arg1 : tensor<?x768xf16>
// CHECK: return %[[B]], %[[C]] : tensor<2x768xf32>, tensor<?x768xf16>
func.func @gelu(%x: tensor<2x768xf32>, %y: tensor<?x768xf16>) -> (tensor<2x768xf32>, tensor<?x768xf16>) {
  %0 = kiln.gelu %x {approximate = 0 : i32} : tensor<2x768xf32>
  %1 = kiln.gelu %0 {approximate = 1 : i32} : tensor<2x768xf32>
  %2 = kiln.gelu %y : tensor<?x768xf16>
  return %1, %2 : tensor<2x768xf32>, tensor<?x768xf16>
}

// CHECK-LABEL: func.func @clip(
// CHECK: %[[A:.*]] = kiln.clip %arg0 {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<1x32xf32>
// CHECK: %[[B:.*]] = kiln.clip %[[A]] {min = -1.000000e+00 : f64} : tensor<1x32xf32>
// CHECK: %[[C:.*]] = kiln.clip %[[B]] {max = 1.000000e+00 : f64} : tensor<1x32xf32>
// CHECK: %[[D:.*]] = kiln.clip %[[C]] : tensor<1x32xf32>
// CHECK: %[[E:.*]] = kiln.clip %arg1 {max = 1.000000e+02 : f64, min = -1.000000e+02 : f64} : tensor<?xi8>
// CHECK: %[[F:.*]] = kiln.clip %arg2 {max = 2.000000e+00 : f64, min = 2.000000e+00 : f64} : tensor<3xbf16>
// CHECK: return %[[D]], %[[E]], %[[F]] : tensor<1x32xf32>, tensor<?xi8>, tensor<3xbf16>
func.func @clip(%x: tensor<1x32xf32>, %i: tensor<?xi8>, %b: tensor<3xbf16>) -> (tensor<1x32xf32>, tensor<?xi8>, tensor<3xbf16>) {
  %0 = kiln.clip %x {min = 0.0, max = 6.0} : tensor<1x32xf32>
  %1 = kiln.clip %0 {min = -1.0} : tensor<1x32xf32>
  %2 = kiln.clip %1 {max = 1.0} : tensor<1x32xf32>
  %3 = kiln.clip %2 : tensor<1x32xf32>
  %4 = kiln.clip %i {min = -100.0, max = 100.0} : tensor<?xi8>
  %5 = kiln.clip %b {min = 2.0, max = 2.0} : tensor<3xbf16>
  return %3, %4, %5 : tensor<1x32xf32>, tensor<?xi8>, tensor<3xbf16>
}

// cast keeps the shape and takes the element type from `to`.
// CHECK-LABEL: func.func @cast(
// CHECK: %[[A:.*]] = kiln.cast %arg0 to i64 : tensor<4x?xf32>
// CHECK: %[[B:.*]] = kiln.cast %arg0 to f16 : tensor<4x?xf32>
// CHECK: %[[C:.*]] = kiln.cast %[[B]] to bf16 : tensor<4x?xf16>
// CHECK: %[[D:.*]] = kiln.cast %arg1 to f32 : tensor<3xi1>
// CHECK: %[[E:.*]] = kiln.cast %arg2 to i1 : tensor<i8>
// CHECK: %[[F:.*]] = kiln.cast %arg2 to i32 : tensor<i8>
// CHECK: %[[G:.*]] = kiln.cast %arg1 to i1 : tensor<3xi1>
// CHECK: return %[[A]], %[[C]], %[[D]], %[[E]], %[[F]], %[[G]] : tensor<4x?xi64>, tensor<4x?xbf16>, tensor<3xf32>, tensor<i1>, tensor<i32>, tensor<3xi1>
func.func @cast(%x: tensor<4x?xf32>, %m: tensor<3xi1>, %i: tensor<i8>)
    -> (tensor<4x?xi64>, tensor<4x?xbf16>, tensor<3xf32>, tensor<i1>, tensor<i32>, tensor<3xi1>) {
  %0 = kiln.cast %x to i64 : tensor<4x?xf32>
  %1 = kiln.cast %x to f16 : tensor<4x?xf32>
  %2 = kiln.cast %1 to bf16 : tensor<4x?xf16>
  %3 = kiln.cast %m to f32 : tensor<3xi1>
  %4 = kiln.cast %i to i1 : tensor<i8>
  %5 = kiln.cast %i to i32 : tensor<i8>
  %6 = kiln.cast %m to i1 : tensor<3xi1>
  return %0, %2, %3, %4, %5, %6 : tensor<4x?xi64>, tensor<4x?xbf16>, tensor<3xf32>, tensor<i1>, tensor<i32>, tensor<3xi1>
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary_same_shape(
// CHECK: %[[V0:.*]] = kiln.add %arg0, %arg1 : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK: %[[V1:.*]] = kiln.sub %[[V0]], %arg1 : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK: %[[V2:.*]] = kiln.mul %[[V1]], %arg1 : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK: %[[V3:.*]] = kiln.div %[[V2]], %arg1 : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK: %[[V4:.*]] = kiln.rem %[[V3]], %arg1 : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK: %[[V5:.*]] = kiln.pow %[[V4]], %arg1 : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK: %[[V6:.*]] = kiln.max %[[V5]], %arg1 : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK: %[[V7:.*]] = kiln.min %[[V6]], %arg1 : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK: return %[[V7]] : tensor<2x3xf32>
func.func @binary_same_shape(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.add %x, %y : tensor<2x3xf32>, tensor<2x3xf32>
  %1 = kiln.sub %0, %y : tensor<2x3xf32>, tensor<2x3xf32>
  %2 = kiln.mul %1, %y : tensor<2x3xf32>, tensor<2x3xf32>
  %3 = kiln.div %2, %y : tensor<2x3xf32>, tensor<2x3xf32>
  %4 = kiln.rem %3, %y : tensor<2x3xf32>, tensor<2x3xf32>
  %5 = kiln.pow %4, %y : tensor<2x3xf32>, tensor<2x3xf32>
  %6 = kiln.max %5, %y : tensor<2x3xf32>, tensor<2x3xf32>
  %7 = kiln.min %6, %y : tensor<2x3xf32>, tensor<2x3xf32>
  return %7 : tensor<2x3xf32>
}

// NumPy broadcasting: right-aligned, size-1 dims stretch, a static size
// wins over `?`, and `?` against 1 or `?` stays `?`.
// CHECK-LABEL: func.func @binary_broadcast(
// CHECK: %[[A:.*]] = kiln.add %arg0, %arg1 : tensor<2x3xf32>, tensor<3xf32>
// CHECK: %[[B:.*]] = kiln.sub %arg2, %arg3 : tensor<4x1x5xf16>, tensor<3x1xf16>
// CHECK: %[[C:.*]] = kiln.mul %arg4, %arg5 : tensor<?x3xbf16>, tensor<4x1xbf16>
// CHECK: %[[D:.*]] = kiln.div %arg6, %arg7 : tensor<?x1xi32>, tensor<1x?xi32>
// CHECK: %[[E:.*]] = kiln.rem %arg8, %arg9 : tensor<i64>, tensor<2x2xi64>
// CHECK: %[[F:.*]] = kiln.pow %arg10, %arg10 : tensor<0x3xi8>, tensor<0x3xi8>
// CHECK: %[[G:.*]] = kiln.max %arg6, %arg6 : tensor<?x1xi32>, tensor<?x1xi32>
// CHECK: %[[H:.*]] = kiln.min %arg1, %arg0 : tensor<3xf32>, tensor<2x3xf32>
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]], %[[G]], %[[H]] : tensor<2x3xf32>, tensor<4x3x5xf16>, tensor<4x3xbf16>, tensor<?x?xi32>, tensor<2x2xi64>, tensor<0x3xi8>, tensor<?x1xi32>, tensor<2x3xf32>
func.func @binary_broadcast(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<4x1x5xf16>, %d: tensor<3x1xf16>,
                            %e: tensor<?x3xbf16>, %f: tensor<4x1xbf16>, %g: tensor<?x1xi32>, %h: tensor<1x?xi32>,
                            %i: tensor<i64>, %j: tensor<2x2xi64>, %k: tensor<0x3xi8>)
    -> (tensor<2x3xf32>, tensor<4x3x5xf16>, tensor<4x3xbf16>, tensor<?x?xi32>, tensor<2x2xi64>, tensor<0x3xi8>, tensor<?x1xi32>, tensor<2x3xf32>) {
  %0 = kiln.add %a, %b : tensor<2x3xf32>, tensor<3xf32>
  %1 = kiln.sub %c, %d : tensor<4x1x5xf16>, tensor<3x1xf16>
  %2 = kiln.mul %e, %f : tensor<?x3xbf16>, tensor<4x1xbf16>
  %3 = kiln.div %g, %h : tensor<?x1xi32>, tensor<1x?xi32>
  %4 = kiln.rem %i, %j : tensor<i64>, tensor<2x2xi64>
  %5 = kiln.pow %k, %k : tensor<0x3xi8>, tensor<0x3xi8>
  %6 = kiln.max %g, %g : tensor<?x1xi32>, tensor<?x1xi32>
  %7 = kiln.min %b, %a : tensor<3xf32>, tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x3xf32>, tensor<4x3x5xf16>, tensor<4x3xbf16>, tensor<?x?xi32>, tensor<2x2xi64>, tensor<0x3xi8>, tensor<?x1xi32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @binary_logical(
// CHECK: %[[A:.*]] = kiln.and %arg0, %arg1 : tensor<4x1xi1>, tensor<5xi1>
// CHECK: %[[B:.*]] = kiln.or %[[A]], %arg1 : tensor<4x5xi1>, tensor<5xi1>
// CHECK: %[[C:.*]] = kiln.xor %[[B]], %arg2 : tensor<4x5xi1>, tensor<?x1xi1>
// CHECK: return %[[C]] : tensor<4x5xi1>
func.func @binary_logical(%a: tensor<4x1xi1>, %b: tensor<5xi1>, %c: tensor<?x1xi1>) -> tensor<4x5xi1> {
  %0 = kiln.and %a, %b : tensor<4x1xi1>, tensor<5xi1>
  %1 = kiln.or %0, %b : tensor<4x5xi1>, tensor<5xi1>
  %2 = kiln.xor %1, %c : tensor<4x5xi1>, tensor<?x1xi1>
  return %2 : tensor<4x5xi1>
}

// compare gives i1 of the broadcast shape, for every element type.
// CHECK-LABEL: func.func @compare(
// CHECK: %[[EQ:.*]] = kiln.compare eq, %arg0, %arg1 : tensor<4xf32>, tensor<4xf32>
// CHECK: %[[NE:.*]] = kiln.compare ne, %arg2, %arg3 : tensor<2x1xi64>, tensor<3xi64>
// CHECK: %[[LT:.*]] = kiln.compare lt, %arg4, %arg4 : tensor<?xf16>, tensor<?xf16>
// CHECK: %[[LE:.*]] = kiln.compare le, %arg5, %arg5 : tensor<2xbf16>, tensor<2xbf16>
// CHECK: %[[GT:.*]] = kiln.compare gt, %arg6, %arg7 : tensor<3xi8>, tensor<i8>
// CHECK: %[[GE:.*]] = kiln.compare ge, %arg8, %arg8 : tensor<1x?xi32>, tensor<1x?xi32>
// CHECK: %[[B:.*]] = kiln.compare eq, %arg9, %arg9 : tensor<2xi1>, tensor<2xi1>
// CHECK: return %[[EQ]], %[[NE]], %[[LT]], %[[LE]], %[[GT]], %[[GE]], %[[B]] : tensor<4xi1>, tensor<2x3xi1>, tensor<?xi1>, tensor<2xi1>, tensor<3xi1>, tensor<1x?xi1>, tensor<2xi1>
func.func @compare(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<2x1xi64>, %d: tensor<3xi64>, %e: tensor<?xf16>,
                   %f: tensor<2xbf16>, %g: tensor<3xi8>, %h: tensor<i8>, %i: tensor<1x?xi32>, %j: tensor<2xi1>)
    -> (tensor<4xi1>, tensor<2x3xi1>, tensor<?xi1>, tensor<2xi1>, tensor<3xi1>, tensor<1x?xi1>, tensor<2xi1>) {
  %0 = kiln.compare eq, %a, %b : tensor<4xf32>, tensor<4xf32>
  %1 = kiln.compare ne, %c, %d : tensor<2x1xi64>, tensor<3xi64>
  %2 = kiln.compare lt, %e, %e : tensor<?xf16>, tensor<?xf16>
  %3 = kiln.compare le, %f, %f : tensor<2xbf16>, tensor<2xbf16>
  %4 = kiln.compare gt, %g, %h : tensor<3xi8>, tensor<i8>
  %5 = kiln.compare ge, %i, %i : tensor<1x?xi32>, tensor<1x?xi32>
  %6 = kiln.compare eq, %j, %j : tensor<2xi1>, tensor<2xi1>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xi1>, tensor<2x3xi1>, tensor<?xi1>, tensor<2xi1>, tensor<3xi1>, tensor<1x?xi1>, tensor<2xi1>
}

// All three operands of select broadcast together.
// CHECK-LABEL: func.func @select(
// CHECK: %[[A:.*]] = kiln.select %arg0, %arg1, %arg2 : tensor<4xi1>, tensor<4xf32>, tensor<f32>
// CHECK: %[[B:.*]] = kiln.select %arg3, %arg4, %arg5 : tensor<2x1x1xi1>, tensor<3x1xi64>, tensor<?xi64>
// CHECK: %[[C:.*]] = kiln.select %arg0, %arg0, %arg0 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
// CHECK: return %[[A]], %[[B]], %[[C]] : tensor<4xf32>, tensor<2x3x?xi64>, tensor<4xi1>
func.func @select(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<f32>, %c2: tensor<2x1x1xi1>, %a: tensor<3x1xi64>, %b: tensor<?xi64>)
    -> (tensor<4xf32>, tensor<2x3x?xi64>, tensor<4xi1>) {
  %0 = kiln.select %c, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<f32>
  %1 = kiln.select %c2, %a, %b : tensor<2x1x1xi1>, tensor<3x1xi64>, tensor<?xi64>
  %2 = kiln.select %c, %c, %c : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
  return %0, %1, %2 : tensor<4xf32>, tensor<2x3x?xi64>, tensor<4xi1>
}

//===----------------------------------------------------------------------===//
// Contractions and windows
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul_2d(
// CHECK: %[[M:.*]] = kiln.matmul %arg0, %arg1 : tensor<128x64xf32>, tensor<64x256xf32>
// CHECK: return %[[M]] : tensor<128x256xf32>
func.func @matmul_2d(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>) -> tensor<128x256xf32> {
  %0 = kiln.matmul %a, %b : tensor<128x64xf32>, tensor<64x256xf32>
  return %0 : tensor<128x256xf32>
}

// Batch dims broadcast.
// CHECK-LABEL: func.func @matmul_batched(
// CHECK: %[[A:.*]] = kiln.matmul %arg0, %arg1 : tensor<8x128x64xf16>, tensor<64x256xf16>
// CHECK: %[[B:.*]] = kiln.matmul %arg2, %arg3 : tensor<2x1x4x5xbf16>, tensor<3x5x6xbf16>
// CHECK: %[[C:.*]] = kiln.matmul %arg4, %arg5 : tensor<?x?x16xf32>, tensor<?x16x?xf32>
// CHECK: return %[[A]], %[[B]], %[[C]] : tensor<8x128x256xf16>, tensor<2x3x4x6xbf16>, tensor<?x?x?xf32>
func.func @matmul_batched(%a: tensor<8x128x64xf16>, %b: tensor<64x256xf16>, %c: tensor<2x1x4x5xbf16>, %d: tensor<3x5x6xbf16>,
                          %e: tensor<?x?x16xf32>, %f: tensor<?x16x?xf32>)
    -> (tensor<8x128x256xf16>, tensor<2x3x4x6xbf16>, tensor<?x?x?xf32>) {
  %0 = kiln.matmul %a, %b : tensor<8x128x64xf16>, tensor<64x256xf16>
  %1 = kiln.matmul %c, %d : tensor<2x1x4x5xbf16>, tensor<3x5x6xbf16>
  %2 = kiln.matmul %e, %f : tensor<?x?x16xf32>, tensor<?x16x?xf32>
  return %0, %1, %2 : tensor<8x128x256xf16>, tensor<2x3x4x6xbf16>, tensor<?x?x?xf32>
}

// Rank-1 operands are promoted and the added dimension removed again.
// CHECK-LABEL: func.func @matmul_vectors(
// CHECK: %[[VM:.*]] = kiln.matmul %arg0, %arg1 : tensor<5xf32>, tensor<5x7xf32>
// CHECK: %[[MV:.*]] = kiln.matmul %arg1, %arg2 : tensor<5x7xf32>, tensor<7xf32>
// CHECK: %[[VV:.*]] = kiln.matmul %arg0, %arg0 : tensor<5xf32>, tensor<5xf32>
// CHECK: %[[BV:.*]] = kiln.matmul %arg3, %arg4 : tensor<3x4x5xi32>, tensor<5xi32>
// CHECK: %[[VB:.*]] = kiln.matmul %arg5, %arg6 : tensor<4xi8>, tensor<2x4x?xi8>
// CHECK: return %[[VM]], %[[MV]], %[[VV]], %[[BV]], %[[VB]] : tensor<7xf32>, tensor<5xf32>, tensor<f32>, tensor<3x4xi32>, tensor<2x?xi32>
func.func @matmul_vectors(%v: tensor<5xf32>, %m: tensor<5x7xf32>, %w: tensor<7xf32>, %bi: tensor<3x4x5xi32>, %vi: tensor<5xi32>,
                          %v8: tensor<4xi8>, %b8: tensor<2x4x?xi8>)
    -> (tensor<7xf32>, tensor<5xf32>, tensor<f32>, tensor<3x4xi32>, tensor<2x?xi32>) {
  %0 = kiln.matmul %v, %m : tensor<5xf32>, tensor<5x7xf32>
  %1 = kiln.matmul %m, %w : tensor<5x7xf32>, tensor<7xf32>
  %2 = kiln.matmul %v, %v : tensor<5xf32>, tensor<5xf32>
  %3 = kiln.matmul %bi, %vi : tensor<3x4x5xi32>, tensor<5xi32>
  %4 = kiln.matmul %v8, %b8 : tensor<4xi8>, tensor<2x4x?xi8>
  return %0, %1, %2, %3, %4 : tensor<7xf32>, tensor<5xf32>, tensor<f32>, tensor<3x4xi32>, tensor<2x?xi32>
}

// CHECK-LABEL: func.func @conv_1d(
// CHECK: %[[A:.*]] = kiln.conv %arg0, %arg1 : tensor<1x3x10xf32>, tensor<4x3x3xf32>
// CHECK: %[[B:.*]] = kiln.conv %arg0, %arg1, %arg2 {dilations = array<i64: 2>, pads = array<i64: 1, 2>, strides = array<i64: 3>} : tensor<1x3x10xf32>, tensor<4x3x3xf32>, tensor<4xf32>
// CHECK: return %[[A]], %[[B]] : tensor<1x4x8xf32>, tensor<1x4x3xf32>
func.func @conv_1d(%x: tensor<1x3x10xf32>, %w: tensor<4x3x3xf32>, %b: tensor<4xf32>) -> (tensor<1x4x8xf32>, tensor<1x4x3xf32>) {
  %0 = kiln.conv %x, %w : tensor<1x3x10xf32>, tensor<4x3x3xf32>
  // (10 + 1 + 2 - (2 * (3 - 1) + 1)) / 3 + 1 = 3
  %1 = kiln.conv %x, %w, %b {strides = array<i64: 3>, dilations = array<i64: 2>, pads = array<i64: 1, 2>}
       : tensor<1x3x10xf32>, tensor<4x3x3xf32>, tensor<4xf32>
  return %0, %1 : tensor<1x4x8xf32>, tensor<1x4x3xf32>
}

// CHECK-LABEL: func.func @conv_2d(
// CHECK: %[[A:.*]] = kiln.conv %arg0, %arg1, %arg2 {pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>
// CHECK: %[[B:.*]] = kiln.conv %arg0, %arg1 {strides = array<i64: 1, 2>} : tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>
// CHECK: return %[[A]], %[[B]] : tensor<1x64x112x112xf32>, tensor<1x64x218x109xf32>
func.func @conv_2d(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>, %b: tensor<64xf32>)
    -> (tensor<1x64x112x112xf32>, tensor<1x64x218x109xf32>) {
  %0 = kiln.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>}
       : tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>
  %1 = kiln.conv %x, %w {strides = array<i64: 1, 2>, groups = 1 : i64}
       : tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>
  return %0, %1 : tensor<1x64x112x112xf32>, tensor<1x64x218x109xf32>
}

// CHECK-LABEL: func.func @conv_3d(
// CHECK: %[[A:.*]] = kiln.conv %arg0, %arg1, %arg2 {pads = array<i64: 1, 1, 1, 1, 1, 1>} : tensor<2x4x8x16x16xf16>, tensor<8x4x3x3x3xf16>, tensor<8xf16>
// CHECK: return %[[A]] : tensor<2x8x8x16x16xf16>
func.func @conv_3d(%x: tensor<2x4x8x16x16xf16>, %w: tensor<8x4x3x3x3xf16>, %b: tensor<8xf16>) -> tensor<2x8x8x16x16xf16> {
  %0 = kiln.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1, 1, 1>}
       : tensor<2x4x8x16x16xf16>, tensor<8x4x3x3x3xf16>, tensor<8xf16>
  return %0 : tensor<2x8x8x16x16xf16>
}

// Grouped and depthwise (groups == channels) convolutions.
// CHECK-LABEL: func.func @conv_groups(
// CHECK: %[[G:.*]] = kiln.conv %arg0, %arg1 {groups = 2 : i64} : tensor<1x8x6x6xbf16>, tensor<6x4x3x3xbf16>
// CHECK: %[[D:.*]] = kiln.conv %arg0, %arg2, %arg3 {groups = 8 : i64, pads = array<i64: 1, 1, 1, 1>} : tensor<1x8x6x6xbf16>, tensor<8x1x3x3xbf16>, tensor<8xbf16>
// CHECK: return %[[G]], %[[D]] : tensor<1x6x4x4xbf16>, tensor<1x8x6x6xbf16>
func.func @conv_groups(%x: tensor<1x8x6x6xbf16>, %w: tensor<6x4x3x3xbf16>, %dw: tensor<8x1x3x3xbf16>, %db: tensor<8xbf16>)
    -> (tensor<1x6x4x4xbf16>, tensor<1x8x6x6xbf16>) {
  %0 = kiln.conv %x, %w {groups = 2 : i64} : tensor<1x8x6x6xbf16>, tensor<6x4x3x3xbf16>
  %1 = kiln.conv %x, %dw, %db {groups = 8 : i64, pads = array<i64: 1, 1, 1, 1>}
       : tensor<1x8x6x6xbf16>, tensor<8x1x3x3xbf16>, tensor<8xbf16>
  return %0, %1 : tensor<1x6x4x4xbf16>, tensor<1x8x6x6xbf16>
}

// Dynamic input dims give dynamic output dims; the channels come from the
// filter.
// CHECK-LABEL: func.func @conv_dynamic(
// CHECK: %[[A:.*]] = kiln.conv %arg0, %arg1, %arg2 : tensor<?x3x?x32xf32>, tensor<16x3x3x3xf32>, tensor<?xf32>
// CHECK: %[[B:.*]] = kiln.conv %arg0, %arg3 : tensor<?x3x?x32xf32>, tensor<?x3x5x5xf32>
// CHECK: return %[[A]], %[[B]] : tensor<?x16x?x30xf32>, tensor<?x?x?x28xf32>
func.func @conv_dynamic(%x: tensor<?x3x?x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<?xf32>, %w2: tensor<?x3x5x5xf32>)
    -> (tensor<?x16x?x30xf32>, tensor<?x?x?x28xf32>) {
  %0 = kiln.conv %x, %w, %b : tensor<?x3x?x32xf32>, tensor<16x3x3x3xf32>, tensor<?xf32>
  %1 = kiln.conv %x, %w2 : tensor<?x3x?x32xf32>, tensor<?x3x5x5xf32>
  return %0, %1 : tensor<?x16x?x30xf32>, tensor<?x?x?x28xf32>
}

// CHECK-LABEL: func.func @max_pool(
// CHECK: %[[A:.*]] = kiln.max_pool %arg0 {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x64x112x112xf32>
// CHECK: %[[B:.*]] = kiln.max_pool %arg1 {kernel_shape = array<i64: 2>} : tensor<2x4x9xf16>
// CHECK: %[[C:.*]] = kiln.max_pool %arg1 {ceil_mode = true, kernel_shape = array<i64: 2>, strides = array<i64: 2>} : tensor<2x4x9xf16>
// CHECK: %[[D:.*]] = kiln.max_pool %arg2 {dilations = array<i64: 2, 1, 1>, kernel_shape = array<i64: 2, 2, 2>} : tensor<?x3x?x8x8xbf16>
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]] : tensor<1x64x56x56xf32>, tensor<2x4x8xf16>, tensor<2x4x5xf16>, tensor<?x3x?x7x7xbf16>
func.func @max_pool(%x: tensor<1x64x112x112xf32>, %y: tensor<2x4x9xf16>, %z: tensor<?x3x?x8x8xbf16>)
    -> (tensor<1x64x56x56xf32>, tensor<2x4x8xf16>, tensor<2x4x5xf16>, tensor<?x3x?x7x7xbf16>) {
  %0 = kiln.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}
       : tensor<1x64x112x112xf32>
  %1 = kiln.max_pool %y {kernel_shape = array<i64: 2>, ceil_mode = false} : tensor<2x4x9xf16>
  // ceil((9 - 2) / 2) + 1 = 5; floor mode would give 4.
  %2 = kiln.max_pool %y {kernel_shape = array<i64: 2>, strides = array<i64: 2>, ceil_mode = true} : tensor<2x4x9xf16>
  %3 = kiln.max_pool %z {kernel_shape = array<i64: 2, 2, 2>, dilations = array<i64: 2, 1, 1>} : tensor<?x3x?x8x8xbf16>
  return %0, %1, %2, %3 : tensor<1x64x56x56xf32>, tensor<2x4x8xf16>, tensor<2x4x5xf16>, tensor<?x3x?x7x7xbf16>
}

// CHECK-LABEL: func.func @avg_pool(
// CHECK: %[[A:.*]] = kiln.avg_pool %arg0 {kernel_shape = array<i64: 7, 7>} : tensor<1x512x7x7xf32>
// CHECK: %[[B:.*]] = kiln.avg_pool %arg0 {count_include_pad = true, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x512x7x7xf32>
// CHECK: %[[C:.*]] = kiln.avg_pool %arg1 {ceil_mode = true, kernel_shape = array<i64: 3>, strides = array<i64: 2>} : tensor<1x2x6xf32>
// CHECK: return %[[A]], %[[B]], %[[C]] : tensor<1x512x1x1xf32>, tensor<1x512x7x7xf32>, tensor<1x2x3xf32>
func.func @avg_pool(%x: tensor<1x512x7x7xf32>, %y: tensor<1x2x6xf32>) -> (tensor<1x512x1x1xf32>, tensor<1x512x7x7xf32>, tensor<1x2x3xf32>) {
  %0 = kiln.avg_pool %x {kernel_shape = array<i64: 7, 7>} : tensor<1x512x7x7xf32>
  %1 = kiln.avg_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = true}
       : tensor<1x512x7x7xf32>
  // ceil((6 - 3) / 2) + 1 = 3: the last window starts at 4 < 6, so it stays.
  %2 = kiln.avg_pool %y {kernel_shape = array<i64: 3>, strides = array<i64: 2>, ceil_mode = true} : tensor<1x2x6xf32>
  return %0, %1, %2 : tensor<1x512x1x1xf32>, tensor<1x512x7x7xf32>, tensor<1x2x3xf32>
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

// keepdims defaults to true; an empty axes list reduces every dimension.
// CHECK-LABEL: func.func @reduce(
// CHECK: %[[V0:.*]] = kiln.reduce sum %arg0 : tensor<2x8x768xf32>
// CHECK: %[[V1:.*]] = kiln.reduce mean %arg0 {axes = array<i64: -1>} : tensor<2x8x768xf32>
// CHECK: %[[V2:.*]] = kiln.reduce max %arg0 {axes = array<i64: 0, 2>, keepdims = false} : tensor<2x8x768xf32>
// CHECK: %[[V3:.*]] = kiln.reduce min %arg0 {keepdims = false} : tensor<2x8x768xf32>
// CHECK: %[[V4:.*]] = kiln.reduce prod %arg1 {axes = array<i64: 0>, keepdims = false} : tensor<3xi64>
// CHECK: %[[V5:.*]] = kiln.reduce l1 %arg2 {axes = array<i64: 1>} : tensor<?x?x4xf16>
// CHECK: %[[V6:.*]] = kiln.reduce l2 %arg2 {axes = array<i64: -3, 2>, keepdims = false} : tensor<?x?x4xf16>
// CHECK: %[[V7:.*]] = kiln.reduce log_sum %arg3 {axes = array<i64: 1>} : tensor<4x5xbf16>
// CHECK: %[[V8:.*]] = kiln.reduce log_sum_exp %arg3 {axes = array<i64: 1>, keepdims = false} : tensor<4x5xbf16>
// CHECK: %[[V9:.*]] = kiln.reduce sum_square %arg4 {axes = array<i64: 0>} : tensor<6x2xi8>
// CHECK: %[[V10:.*]] = kiln.reduce sum %arg5 {axes = array<i64: 1>, keepdims = false} : tensor<2x3xi32>
// CHECK: return %[[V0]], %[[V1]], %[[V2]], %[[V3]], %[[V4]], %[[V5]], %[[V6]], %[[V7]], %[[V8]], %[[V9]], %[[V10]] : tensor<1x1x1xf32>, tensor<2x8x1xf32>, tensor<8xf32>, tensor<f32>, tensor<i64>, tensor<?x1x4xf16>, tensor<?xf16>, tensor<4x1xbf16>, tensor<4xbf16>, tensor<1x2xi8>, tensor<2xi32>
func.func @reduce(%x: tensor<2x8x768xf32>, %s: tensor<3xi64>, %d: tensor<?x?x4xf16>, %b: tensor<4x5xbf16>, %i: tensor<6x2xi8>, %j: tensor<2x3xi32>)
    -> (tensor<1x1x1xf32>, tensor<2x8x1xf32>, tensor<8xf32>, tensor<f32>, tensor<i64>, tensor<?x1x4xf16>, tensor<?xf16>,
        tensor<4x1xbf16>, tensor<4xbf16>, tensor<1x2xi8>, tensor<2xi32>) {
  %0 = kiln.reduce sum %x : tensor<2x8x768xf32>
  %1 = kiln.reduce mean %x {axes = array<i64: -1>, keepdims = true} : tensor<2x8x768xf32>
  %2 = kiln.reduce max %x {axes = array<i64: 0, 2>, keepdims = false} : tensor<2x8x768xf32>
  %3 = kiln.reduce min %x {keepdims = false} : tensor<2x8x768xf32>
  %4 = kiln.reduce prod %s {axes = array<i64: 0>, keepdims = false} : tensor<3xi64>
  %5 = kiln.reduce l1 %d {axes = array<i64: 1>} : tensor<?x?x4xf16>
  %6 = kiln.reduce l2 %d {axes = array<i64: -3, 2>, keepdims = false} : tensor<?x?x4xf16>
  %7 = kiln.reduce log_sum %b {axes = array<i64: 1>} : tensor<4x5xbf16>
  %8 = kiln.reduce log_sum_exp %b {axes = array<i64: 1>, keepdims = false} : tensor<4x5xbf16>
  %9 = kiln.reduce sum_square %i {axes = array<i64: 0>} : tensor<6x2xi8>
  %10 = kiln.reduce sum %j {axes = array<i64: 1>, keepdims = false} : tensor<2x3xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<1x1x1xf32>, tensor<2x8x1xf32>, tensor<8xf32>, tensor<f32>, tensor<i64>,
      tensor<?x1x4xf16>, tensor<?xf16>, tensor<4x1xbf16>, tensor<4xbf16>, tensor<1x2xi8>, tensor<2xi32>
}

// CHECK-LABEL: func.func @softmax(
// CHECK: %[[A:.*]] = kiln.softmax %arg0 : tensor<2x12x64x64xf32>
// CHECK: %[[B:.*]] = kiln.softmax %[[A]] {axis = 1 : i64} : tensor<2x12x64x64xf32>
// CHECK: %[[C:.*]] = kiln.log_softmax %arg1 {axis = 1 : i64} : tensor<?x10xf16>
// CHECK: %[[D:.*]] = kiln.log_softmax %arg2 : tensor<3xbf16>
// CHECK: return %[[B]], %[[C]], %[[D]] : tensor<2x12x64x64xf32>, tensor<?x10xf16>, tensor<3xbf16>
func.func @softmax(%x: tensor<2x12x64x64xf32>, %y: tensor<?x10xf16>, %z: tensor<3xbf16>) -> (tensor<2x12x64x64xf32>, tensor<?x10xf16>, tensor<3xbf16>) {
  %0 = kiln.softmax %x {axis = -1 : i64} : tensor<2x12x64x64xf32>
  %1 = kiln.softmax %0 {axis = 1 : i64} : tensor<2x12x64x64xf32>
  %2 = kiln.log_softmax %y {axis = 1 : i64} : tensor<?x10xf16>
  %3 = kiln.log_softmax %z : tensor<3xbf16>
  return %1, %2, %3 : tensor<2x12x64x64xf32>, tensor<?x10xf16>, tensor<3xbf16>
}

// CHECK-LABEL: func.func @layer_norm(
// CHECK: %[[A:.*]] = kiln.layer_norm %arg0, %arg1, %arg2 {epsilon = 9.99999996E-13 : f32} : tensor<2x128x768xf32>, tensor<768xf32>, tensor<768xf32>
// CHECK: %[[B:.*]] = kiln.layer_norm %[[A]], %arg3 {axis = 1 : i64} : tensor<2x128x768xf32>, tensor<1x768xf32>
// CHECK: %[[C:.*]] = kiln.layer_norm %arg4, %arg5 : tensor<?x?x64xf16>, tensor<64xf16>
// CHECK: return %[[B]], %[[C]] : tensor<2x128x768xf32>, tensor<?x?x64xf16>
func.func @layer_norm(%x: tensor<2x128x768xf32>, %g: tensor<768xf32>, %b: tensor<768xf32>, %g2: tensor<1x768xf32>,
                      %y: tensor<?x?x64xf16>, %g3: tensor<64xf16>) -> (tensor<2x128x768xf32>, tensor<?x?x64xf16>) {
  %0 = kiln.layer_norm %x, %g, %b {axis = -1 : i64, epsilon = 1.0e-12 : f32}
       : tensor<2x128x768xf32>, tensor<768xf32>, tensor<768xf32>
  %1 = kiln.layer_norm %0, %g2 {axis = 1 : i64} : tensor<2x128x768xf32>, tensor<1x768xf32>
  %2 = kiln.layer_norm %y, %g3 : tensor<?x?x64xf16>, tensor<64xf16>
  return %1, %2 : tensor<2x128x768xf32>, tensor<?x?x64xf16>
}

// CHECK-LABEL: func.func @batch_norm(
// CHECK: %[[A:.*]] = kiln.batch_norm %arg0, %arg1, %arg1, %arg1, %arg1 {epsilon = 1.000000e-03 : f32} : tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
// CHECK: %[[B:.*]] = kiln.batch_norm %arg2, %arg3, %arg3, %arg3, %arg3 : tensor<?x?xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>
// CHECK: return %[[A]], %[[B]] : tensor<1x64x56x56xf32>, tensor<?x?xbf16>
func.func @batch_norm(%x: tensor<1x64x56x56xf32>, %p: tensor<64xf32>, %y: tensor<?x?xbf16>, %q: tensor<8xbf16>)
    -> (tensor<1x64x56x56xf32>, tensor<?x?xbf16>) {
  %0 = kiln.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-3 : f32}
       : tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
  %1 = kiln.batch_norm %y, %q, %q, %q, %q {epsilon = 1.0e-5 : f32}
       : tensor<?x?xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>
  return %0, %1 : tensor<1x64x56x56xf32>, tensor<?x?xbf16>
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reshape(
// CHECK: %[[A:.*]] = kiln.reshape %arg0 {shape = array<i64: 2, 12, 64>} : tensor<2x768xf32>
// CHECK: %[[B:.*]] = kiln.reshape %arg0 {shape = array<i64: -1, 64>} : tensor<2x768xf32>
// CHECK: %[[C:.*]] = kiln.reshape %arg1 {shape = array<i64: 4, -1>} : tensor<?x4xi64>
// CHECK: %[[D:.*]] = kiln.reshape %arg2 {shape = array<i64>} : tensor<1x1xi1>
// CHECK: %[[E:.*]] = kiln.reshape %arg3 {shape = array<i64: 3, 0>} : tensor<0x5xi8>
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]] : tensor<2x12x64xf32>, tensor<?x64xf32>, tensor<4x?xi64>, tensor<i1>, tensor<3x0xi8>
func.func @reshape(%x: tensor<2x768xf32>, %y: tensor<?x4xi64>, %z: tensor<1x1xi1>, %e: tensor<0x5xi8>)
    -> (tensor<2x12x64xf32>, tensor<?x64xf32>, tensor<4x?xi64>, tensor<i1>, tensor<3x0xi8>) {
  %0 = kiln.reshape %x {shape = array<i64: 2, 12, 64>} : tensor<2x768xf32>
  %1 = kiln.reshape %x {shape = array<i64: -1, 64>} : tensor<2x768xf32>
  %2 = kiln.reshape %y {shape = array<i64: 4, -1>} : tensor<?x4xi64>
  %3 = kiln.reshape %z {shape = array<i64>} : tensor<1x1xi1>
  %4 = kiln.reshape %e {shape = array<i64: 3, 0>} : tensor<0x5xi8>
  return %0, %1, %2, %3, %4 : tensor<2x12x64xf32>, tensor<?x64xf32>, tensor<4x?xi64>, tensor<i1>, tensor<3x0xi8>
}

// CHECK-LABEL: func.func @transpose(
// CHECK: %[[A:.*]] = kiln.transpose %arg0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x128x12x64xf32>
// CHECK: %[[B:.*]] = kiln.transpose %arg1 {perm = array<i64: 2, 0, 1>} : tensor<?x3x4xi1>
// CHECK: %[[C:.*]] = kiln.transpose %arg2 {perm = array<i64>} : tensor<f16>
// CHECK: return %[[A]], %[[B]], %[[C]] : tensor<2x12x128x64xf32>, tensor<4x?x3xi1>, tensor<f16>
func.func @transpose(%x: tensor<2x128x12x64xf32>, %y: tensor<?x3x4xi1>, %z: tensor<f16>) -> (tensor<2x12x128x64xf32>, tensor<4x?x3xi1>, tensor<f16>) {
  %0 = kiln.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<2x128x12x64xf32>
  %1 = kiln.transpose %y {perm = array<i64: 2, 0, 1>} : tensor<?x3x4xi1>
  %2 = kiln.transpose %z {perm = array<i64>} : tensor<f16>
  return %0, %1, %2 : tensor<2x12x128x64xf32>, tensor<4x?x3xi1>, tensor<f16>
}

// A static size refines a `?` outside the axis; a `?` on the axis makes
// the sum dynamic.
// CHECK-LABEL: func.func @concat(
// CHECK: %[[A:.*]] = kiln.concat %arg0, %arg1 {axis = 1 : i64} : tensor<1x3xf32>, tensor<1x5xf32>
// CHECK: %[[B:.*]] = kiln.concat %arg2, %arg3, %arg2 {axis = -1 : i64} : tensor<?x2xi64>, tensor<4x?xi64>, tensor<?x2xi64>
// CHECK: %[[C:.*]] = kiln.concat %arg4 {axis = 0 : i64} : tensor<3xi1>
// CHECK: %[[D:.*]] = kiln.concat %arg5, %arg5 {axis = 0 : i64} : tensor<2x?xbf16>, tensor<2x?xbf16>
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]] : tensor<1x8xf32>, tensor<4x?xi64>, tensor<3xi1>, tensor<4x?xbf16>
func.func @concat(%a: tensor<1x3xf32>, %b: tensor<1x5xf32>, %c: tensor<?x2xi64>, %d: tensor<4x?xi64>, %e: tensor<3xi1>, %f: tensor<2x?xbf16>)
    -> (tensor<1x8xf32>, tensor<4x?xi64>, tensor<3xi1>, tensor<4x?xbf16>) {
  %0 = kiln.concat %a, %b {axis = 1 : i64} : tensor<1x3xf32>, tensor<1x5xf32>
  %1 = kiln.concat %c, %d, %c {axis = -1 : i64} : tensor<?x2xi64>, tensor<4x?xi64>, tensor<?x2xi64>
  %2 = kiln.concat %e {axis = 0 : i64} : tensor<3xi1>
  %3 = kiln.concat %f, %f {axis = 0 : i64} : tensor<2x?xbf16>, tensor<2x?xbf16>
  return %0, %1, %2, %3 : tensor<1x8xf32>, tensor<4x?xi64>, tensor<3xi1>, tensor<4x?xbf16>
}

// CHECK-LABEL: func.func @slice(
// CHECK: %[[A:.*]] = kiln.slice %arg0 {ends = array<i64: 4, 7>, starts = array<i64: 0, 1>, steps = array<i64: 1, 2>} : tensor<4x8xf32>
// CHECK: %[[B:.*]] = kiln.slice %arg0 {ends = array<i64: -1, 0>, starts = array<i64: 3, 7>, steps = array<i64: -1, -3>} : tensor<4x8xf32>
// CHECK: %[[C:.*]] = kiln.slice %arg1 {ends = array<i64: 5, 2>, starts = array<i64: 1, 2>, steps = array<i64: 2, 1>} : tensor<?x6xi32>
// CHECK: return %[[A]], %[[B]], %[[C]] : tensor<4x3xf32>, tensor<4x3xf32>, tensor<?x0xi32>
func.func @slice(%x: tensor<4x8xf32>, %y: tensor<?x6xi32>) -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<?x0xi32>) {
  %0 = kiln.slice %x {starts = array<i64: 0, 1>, ends = array<i64: 4, 7>, steps = array<i64: 1, 2>} : tensor<4x8xf32>
  // Reversal: rows 3, 2, 1, 0 and columns 7, 4, 1.
  %1 = kiln.slice %x {starts = array<i64: 3, 7>, ends = array<i64: -1, 0>, steps = array<i64: -1, -3>} : tensor<4x8xf32>
  %2 = kiln.slice %y {starts = array<i64: 1, 2>, ends = array<i64: 5, 2>, steps = array<i64: 2, 1>} : tensor<?x6xi32>
  return %0, %1, %2 : tensor<4x3xf32>, tensor<4x3xf32>, tensor<?x0xi32>
}

// CHECK-LABEL: func.func @gather(
// CHECK: %[[A:.*]] = kiln.gather %arg0, %arg1 : tensor<30522x768xf32>, tensor<1x128xi64>
// CHECK: %[[B:.*]] = kiln.gather %arg2, %arg3 {axis = 1 : i64} : tensor<2x5x?xf16>, tensor<i32>
// CHECK: %[[C:.*]] = kiln.gather %arg2, %arg4 {axis = -1 : i64} : tensor<2x5x?xf16>, tensor<?xi64>
// CHECK: return %[[A]], %[[B]], %[[C]] : tensor<1x128x768xf32>, tensor<2x?xf16>, tensor<2x5x?xf16>
func.func @gather(%table: tensor<30522x768xf32>, %ids: tensor<1x128xi64>, %d: tensor<2x5x?xf16>, %i: tensor<i32>, %j: tensor<?xi64>)
    -> (tensor<1x128x768xf32>, tensor<2x?xf16>, tensor<2x5x?xf16>) {
  %0 = kiln.gather %table, %ids {axis = 0 : i64} : tensor<30522x768xf32>, tensor<1x128xi64>
  %1 = kiln.gather %d, %i {axis = 1 : i64} : tensor<2x5x?xf16>, tensor<i32>
  %2 = kiln.gather %d, %j {axis = -1 : i64} : tensor<2x5x?xf16>, tensor<?xi64>
  return %0, %1, %2 : tensor<1x128x768xf32>, tensor<2x?xf16>, tensor<2x5x?xf16>
}

// CHECK-LABEL: func.func @pad(
// CHECK: %[[A:.*]] = kiln.pad %arg0 {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : tensor<1x3x8x8xf32>
// CHECK: %[[B:.*]] = kiln.pad %arg0 {pads = array<i64: 0, 0, 1, 2, 0, 0, 3, 4>, value = -1.000000e+00 : f64} : tensor<1x3x8x8xf32>
// CHECK: %[[C:.*]] = kiln.pad %arg0 {mode = 1 : i32, pads = array<i64: 0, 0, 7, 0, 0, 0, 0, 7>} : tensor<1x3x8x8xf32>
// CHECK: %[[D:.*]] = kiln.pad %arg1 {mode = 2 : i32, pads = array<i64: 2, 3, 2, 3>} : tensor<?x1xi64>
// CHECK: %[[E:.*]] = kiln.pad %arg2 {pads = array<i64: -1, 2, -2, 0>} : tensor<4x4xi1>
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]] : tensor<1x3x10x10xf32>, tensor<1x3x12x14xf32>, tensor<1x3x15x15xf32>, tensor<?x7xi64>, tensor<1x6xi1>
func.func @pad(%x: tensor<1x3x8x8xf32>, %y: tensor<?x1xi64>, %z: tensor<4x4xi1>)
    -> (tensor<1x3x10x10xf32>, tensor<1x3x12x14xf32>, tensor<1x3x15x15xf32>, tensor<?x7xi64>, tensor<1x6xi1>) {
  %0 = kiln.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = 0.0} : tensor<1x3x8x8xf32>
  %1 = kiln.pad %x {pads = array<i64: 0, 0, 1, 2, 0, 0, 3, 4>, mode = 0 : i32, value = -1.0} : tensor<1x3x8x8xf32>
  // reflect: at most size - 1 on each side.
  %2 = kiln.pad %x {pads = array<i64: 0, 0, 7, 0, 0, 0, 0, 7>, mode = 1 : i32} : tensor<1x3x8x8xf32>
  // edge repeats a single element as often as asked.
  %3 = kiln.pad %y {pads = array<i64: 2, 3, 2, 3>, mode = 2 : i32} : tensor<?x1xi64>
  // Negative pads crop.
  %4 = kiln.pad %z {pads = array<i64: -1, 2, -2, 0>} : tensor<4x4xi1>
  return %0, %1, %2, %3, %4 : tensor<1x3x10x10xf32>, tensor<1x3x12x14xf32>, tensor<1x3x15x15xf32>, tensor<?x7xi64>, tensor<1x6xi1>
}

// An empty dimension may be left unpadded in reflect and edge mode.
// CHECK-LABEL: func.func @pad_empty_dim(
// CHECK: %[[A:.*]] = kiln.pad %arg0 {mode = 1 : i32, pads = array<i64: 0, 1, 0, 1>} : tensor<0x8xf32>
// CHECK: %[[B:.*]] = kiln.pad %arg0 {mode = 2 : i32, pads = array<i64: 0, 3, 0, 0>} : tensor<0x8xf32>
// CHECK: return %[[A]], %[[B]] : tensor<0x10xf32>, tensor<0x11xf32>
func.func @pad_empty_dim(%x: tensor<0x8xf32>) -> (tensor<0x10xf32>, tensor<0x11xf32>) {
  %0 = kiln.pad %x {pads = array<i64: 0, 1, 0, 1>, mode = 1 : i32} : tensor<0x8xf32>
  %1 = kiln.pad %x {pads = array<i64: 0, 3, 0, 0>, mode = 2 : i32} : tensor<0x8xf32>
  return %0, %1 : tensor<0x10xf32>, tensor<0x11xf32>
}

// CHECK-LABEL: func.func @broadcast(
// CHECK: %[[A:.*]] = kiln.broadcast %arg0 {shape = array<i64: 4, 3>} : tensor<3xf32>
// CHECK: %[[B:.*]] = kiln.broadcast %arg1 {shape = array<i64: 2, -1, 5>} : tensor<?x1xi8>
// CHECK: %[[C:.*]] = kiln.broadcast %arg2 {shape = array<i64: 2, 2>} : tensor<i1>
// CHECK: %[[D:.*]] = kiln.broadcast %arg0 {shape = array<i64: 3>} : tensor<3xf32>
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]] : tensor<4x3xf32>, tensor<2x?x5xi8>, tensor<2x2xi1>, tensor<3xf32>
func.func @broadcast(%x: tensor<3xf32>, %y: tensor<?x1xi8>, %z: tensor<i1>) -> (tensor<4x3xf32>, tensor<2x?x5xi8>, tensor<2x2xi1>, tensor<3xf32>) {
  %0 = kiln.broadcast %x {shape = array<i64: 4, 3>} : tensor<3xf32>
  %1 = kiln.broadcast %y {shape = array<i64: 2, -1, 5>} : tensor<?x1xi8>
  %2 = kiln.broadcast %z {shape = array<i64: 2, 2>} : tensor<i1>
  %3 = kiln.broadcast %x {shape = array<i64: 3>} : tensor<3xf32>
  return %0, %1, %2, %3 : tensor<4x3xf32>, tensor<2x?x5xi8>, tensor<2x2xi1>, tensor<3xf32>
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F00000040"
    }
  }
#-}
