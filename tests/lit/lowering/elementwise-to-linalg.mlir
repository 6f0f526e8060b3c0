// RUN: kiln-opt --kiln-to-linalg %s | FileCheck %s

// Every elementwise Kiln op becomes one all-parallel linalg.generic over the
// result shape whose body computes the op on scalars; operands are read
// through NumPy broadcasting maps. kiln.constant becomes arith.constant.

// CHECK-DAG: #[[$ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$MID1:.*]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-DAG: #[[$LAST1:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[$SCALAR2:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[$SCALAR1:.*]] = affine_map<(d0) -> ()>

//===----------------------------------------------------------------------===//
// Unary ops: float and integer forms
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @abs
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%arg0 : tensor<4x8xf32>) outs(%[[E0]] : tensor<4x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[R:.*]] = math.absf %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: math.absi %{{.*}} : i32
func.func @abs(%f: tensor<4x8xf32>, %i: tensor<4x8xi32>) -> (tensor<4x8xf32>, tensor<4x8xi32>) {
  %0 = kiln.abs %f : tensor<4x8xf32>
  %1 = kiln.abs %i : tensor<4x8xi32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xi32>
}

// Integer negation is 0 - x.
// CHECK-LABEL: func.func @neg
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: arith.negf %{{.*}} : f32
// CHECK: ^bb0(%[[IN:.*]]: i64, %{{.*}}: i64):
// CHECK-NEXT: arith.subi %[[ZERO]], %[[IN]] : i64
func.func @neg(%f: tensor<4xf32>, %i: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xi64>) {
  %0 = kiln.neg %f : tensor<4xf32>
  %1 = kiln.neg %i : tensor<4xi64>
  return %0, %1 : tensor<4xf32>, tensor<4xi64>
}

// sign(x): 1 if x > 0, -1 if x < 0, else 0; a float NaN passes through.
// CHECK-LABEL: func.func @sign
// CHECK-DAG: %[[IM1:.*]] = arith.constant -1 : i32
// CHECK-DAG: %[[I1:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[I0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[FM1:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-DAG: %[[F1:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[F0:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[POS:.*]] = arith.cmpf ogt, %[[X]], %[[F0]] : f32
// CHECK-NEXT: %[[NEG:.*]] = arith.cmpf olt, %[[X]], %[[F0]] : f32
// CHECK-NEXT: %[[S0:.*]] = arith.select %[[NEG]], %[[FM1]], %[[F0]] : f32
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK-NEXT: %[[S1:.*]] = arith.select %[[NAN]], %[[X]], %[[S0]] : f32
// CHECK-NEXT: %[[S2:.*]] = arith.select %[[POS]], %[[F1]], %[[S1]] : f32
// CHECK-NEXT: linalg.yield %[[S2]] : f32
// CHECK: ^bb0(%[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: %[[IPOS:.*]] = arith.cmpi sgt, %[[Y]], %[[I0]] : i32
// CHECK-NEXT: %[[INEG:.*]] = arith.cmpi slt, %[[Y]], %[[I0]] : i32
// CHECK-NEXT: %[[T0:.*]] = arith.select %[[INEG]], %[[IM1]], %[[I0]] : i32
// CHECK-NEXT: %[[T1:.*]] = arith.select %[[IPOS]], %[[I1]], %[[T0]] : i32
// CHECK-NEXT: linalg.yield %[[T1]] : i32
func.func @sign(%f: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = kiln.sign %f : tensor<4xf32>
  %1 = kiln.sign %i : tensor<4xi32>
  return %0, %1 : tensor<4xf32>, tensor<4xi32>
}

// CHECK-LABEL: func.func @relu
// CHECK-DAG: %[[I0:.*]] = arith.constant 0 : i8
// CHECK-DAG: %[[F0:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: arith.maxnumf %{{.*}}, %[[F0]] : f32
// CHECK: arith.maxsi %{{.*}}, %[[I0]] : i8
func.func @relu(%f: tensor<4xf32>, %i: tensor<4xi8>) -> (tensor<4xf32>, tensor<4xi8>) {
  %0 = kiln.relu %f : tensor<4xf32>
  %1 = kiln.relu %i : tensor<4xi8>
  return %0, %1 : tensor<4xf32>, tensor<4xi8>
}

// sigmoid(x) = 1 / (1 + exp(-x)).
// CHECK-LABEL: func.func @sigmoid
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[X]] : f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[N]] : f32
// CHECK-NEXT: %[[D:.*]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.divf %[[ONE]], %[[D]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @sigmoid(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.sigmoid %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// One generic per op (fusion is the dispatch former's job); each reads the
// previous one's result. round is round-half-to-even; reciprocal is 1 / x.
// CHECK-LABEL: func.func @unary_float
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[V0:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x3xf32>)
// CHECK: math.tanh
// CHECK: %[[V1:.*]] = linalg.generic {{.*}} ins(%[[V0]] : tensor<2x3xf32>)
// CHECK: math.exp
// CHECK: %[[V2:.*]] = linalg.generic {{.*}} ins(%[[V1]] : tensor<2x3xf32>)
// CHECK: math.log
// CHECK: %[[V3:.*]] = linalg.generic {{.*}} ins(%[[V2]] : tensor<2x3xf32>)
// CHECK: math.sqrt
// CHECK: %[[V4:.*]] = linalg.generic {{.*}} ins(%[[V3]] : tensor<2x3xf32>)
// CHECK: math.rsqrt
// CHECK: %[[V5:.*]] = linalg.generic {{.*}} ins(%[[V4]] : tensor<2x3xf32>)
// CHECK: math.erf
// CHECK: %[[V6:.*]] = linalg.generic {{.*}} ins(%[[V5]] : tensor<2x3xf32>)
// CHECK: math.floor
// CHECK: %[[V7:.*]] = linalg.generic {{.*}} ins(%[[V6]] : tensor<2x3xf32>)
// CHECK: math.ceil
// CHECK: %[[V8:.*]] = linalg.generic {{.*}} ins(%[[V7]] : tensor<2x3xf32>)
// CHECK: math.roundeven
// CHECK: %[[V9:.*]] = linalg.generic {{.*}} ins(%[[V8]] : tensor<2x3xf32>)
// CHECK: math.sin
// CHECK: %[[V10:.*]] = linalg.generic {{.*}} ins(%[[V9]] : tensor<2x3xf32>)
// CHECK: math.cos
// CHECK: %[[V11:.*]] = linalg.generic {{.*}} ins(%[[V10]] : tensor<2x3xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: arith.divf %[[ONE]], %[[X]] : f32
// CHECK: return %[[V11]]
func.func @unary_float(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = kiln.tanh %x : tensor<2x3xf32>
  %1 = kiln.exp %0 : tensor<2x3xf32>
  %2 = kiln.log %1 : tensor<2x3xf32>
  %3 = kiln.sqrt %2 : tensor<2x3xf32>
  %4 = kiln.rsqrt %3 : tensor<2x3xf32>
  %5 = kiln.erf %4 : tensor<2x3xf32>
  %6 = kiln.floor %5 : tensor<2x3xf32>
  %7 = kiln.ceil %6 : tensor<2x3xf32>
  %8 = kiln.round %7 : tensor<2x3xf32>
  %9 = kiln.sin %8 : tensor<2x3xf32>
  %10 = kiln.cos %9 : tensor<2x3xf32>
  %11 = kiln.reciprocal %10 : tensor<2x3xf32>
  return %11 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @not
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: arith.xori %{{.*}}, %[[TRUE]] : i1
func.func @not(%x: tensor<4xi1>) -> tensor<4xi1> {
  %0 = kiln.not %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// Exact GELU: x * 0.5 * (1 + erf(x / sqrt(2))); tanh form:
// x * 0.5 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
// CHECK-LABEL: func.func @gelu
// CHECK-DAG: %[[SQRT2PI:.*]] = arith.constant 0.797884583 : f32
// CHECK-DAG: %[[COEF:.*]] = arith.constant 4.471500e-02 : f32
// CHECK-DAG: %[[RSQRT2:.*]] = arith.constant 0.707106769 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.mulf %[[X]], %[[RSQRT2]] : f32
// CHECK-NEXT: %[[ERF:.*]] = math.erf %[[S]] : f32
// CHECK-NEXT: %[[P:.*]] = arith.addf %[[ONE]], %[[ERF]] : f32
// CHECK-NEXT: %[[CDF:.*]] = arith.mulf %[[HALF]], %[[P]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.mulf %[[X]], %[[CDF]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: ^bb0(%[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[Y]], %[[Y]] : f32
// CHECK-NEXT: %[[CUBE:.*]] = arith.mulf %[[Y]], %[[SQ]] : f32
// CHECK-NEXT: %[[C3:.*]] = arith.mulf %[[COEF]], %[[CUBE]] : f32
// CHECK-NEXT: %[[POLY:.*]] = arith.addf %[[Y]], %[[C3]] : f32
// CHECK-NEXT: %[[ARG:.*]] = arith.mulf %[[SQRT2PI]], %[[POLY]] : f32
// CHECK-NEXT: %[[TANH:.*]] = math.tanh %[[ARG]] : f32
// CHECK-NEXT: %[[TP:.*]] = arith.addf %[[ONE]], %[[TANH]] : f32
// CHECK-NEXT: %[[TCDF:.*]] = arith.mulf %[[HALF]], %[[TP]] : f32
// CHECK-NEXT: %[[TR:.*]] = arith.mulf %[[Y]], %[[TCDF]] : f32
// CHECK-NEXT: linalg.yield %[[TR]] : f32
// CHECK-NOT: math.erf
func.func @gelu(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %0 = kiln.gelu %x : tensor<2x8xf32>
  %1 = kiln.gelu %x {approximate = 1 : i32} : tensor<2x8xf32>
  return %0, %1 : tensor<2x8xf32>, tensor<2x8xf32>
}

// min is applied first (max(x, min)), then max (min(., max)); a missing
// bound emits nothing, no bound at all is a copy.
// CHECK-LABEL: func.func @clip
// CHECK-DAG: %[[I100:.*]] = arith.constant 100 : i8
// CHECK-DAG: %[[IM100:.*]] = arith.constant -100 : i8
// CHECK-DAG: %[[F1:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[FM1:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-DAG: %[[F6:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-DAG: %[[F0:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: ^bb0(%[[A:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[LO:.*]] = arith.maximumf %[[A]], %[[F0]] : f32
// CHECK-NEXT: %[[HI:.*]] = arith.minimumf %[[LO]], %[[F6]] : f32
// CHECK-NEXT: linalg.yield %[[HI]] : f32
// CHECK: ^bb0(%[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[BLO:.*]] = arith.maximumf %[[B]], %[[FM1]] : f32
// CHECK-NEXT: linalg.yield %[[BLO]] : f32
// CHECK: ^bb0(%[[C:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[CHI:.*]] = arith.minimumf %[[C]], %[[F1]] : f32
// CHECK-NEXT: linalg.yield %[[CHI]] : f32
// CHECK: ^bb0(%[[D:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[D]] : f32
// CHECK: ^bb0(%[[E:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT: %[[ELO:.*]] = arith.maxsi %[[E]], %[[IM100]] : i8
// CHECK-NEXT: %[[EHI:.*]] = arith.minsi %[[ELO]], %[[I100]] : i8
// CHECK-NEXT: linalg.yield %[[EHI]] : i8
func.func @clip(%x: tensor<8xf32>, %i: tensor<8xi8>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi8>) {
  %0 = kiln.clip %x {min = 0.0, max = 6.0} : tensor<8xf32>
  %1 = kiln.clip %x {min = -1.0} : tensor<8xf32>
  %2 = kiln.clip %x {max = 1.0} : tensor<8xf32>
  %3 = kiln.clip %x : tensor<8xf32>
  %4 = kiln.clip %i {min = -100.0, max = 100.0} : tensor<8xi8>
  return %0, %1, %2, %3, %4 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi8>
}

// Every cast path: float -> int truncates (fptosi), float narrowing and
// widening, f16 <-> bf16 through f32, i1 -> number is unsigned, number -> i1
// tests for non-zero (une for floats, so NaN is true), integer widening is
// signed except from i1, narrowing truncates, and a same-type cast copies.
// CHECK-LABEL: func.func @cast
// CHECK-DAG: %[[I0:.*]] = arith.constant 0 : i8
// CHECK-DAG: %[[F0:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: outs(%{{.*}} : tensor<4xi64>)
// CHECK: arith.fptosi %{{.*}} : f32 to i64
// CHECK: outs(%{{.*}} : tensor<4xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: outs(%{{.*}} : tensor<4xbf16>)
// CHECK: %[[WIDE:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT: arith.truncf %[[WIDE]] : f32 to bf16
// CHECK: arith.uitofp %{{.*}} : i1 to f32
// CHECK: arith.sitofp %{{.*}} : i8 to f32
// CHECK: arith.cmpf une, %{{.*}}, %[[F0]] : f32
// CHECK: arith.cmpi ne, %{{.*}}, %[[I0]] : i8
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: arith.extui %{{.*}} : i1 to i32
// CHECK: arith.trunci %{{.*}} : i64 to i8
// CHECK: ^bb0(%[[SAME:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[SAME]] : f32
func.func @cast(%f: tensor<4xf32>, %h: tensor<4xf16>, %m: tensor<4xi1>, %i: tensor<4xi8>, %l: tensor<4xi64>)
    -> (tensor<4xi64>, tensor<4xf16>, tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<4xf32>) {
  %0 = kiln.cast %f to i64 : tensor<4xf32>
  %1 = kiln.cast %f to f16 : tensor<4xf32>
  %2 = kiln.cast %h to f32 : tensor<4xf16>
  %3 = kiln.cast %h to bf16 : tensor<4xf16>
  %4 = kiln.cast %m to f32 : tensor<4xi1>
  %5 = kiln.cast %i to f32 : tensor<4xi8>
  %6 = kiln.cast %f to i1 : tensor<4xf32>
  %7 = kiln.cast %i to i1 : tensor<4xi8>
  %8 = kiln.cast %i to i32 : tensor<4xi8>
  %9 = kiln.cast %m to i32 : tensor<4xi1>
  %10 = kiln.cast %l to i8 : tensor<4xi64>
  %11 = kiln.cast %f to f32 : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11 : tensor<4xi64>, tensor<4xf16>, tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Binary ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary_float
// CHECK: linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%arg0, %arg1 : tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK: ^bb0(%[[L:.*]]: f32, %[[R:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: arith.addf %[[L]], %[[R]] : f32
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.divf
// CHECK: arith.remf
// CHECK: math.powf
// CHECK: arith.maximumf
// CHECK: arith.minimumf
func.func @binary_float(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
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

// Integer division and remainder are signed (truncating, C fmod sign), on
// a divisor made safe first (0 and -1 would trap; integer-division-run.mlir
// checks the values).
// CHECK-LABEL: func.func @binary_int
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: arith.subi %{{.*}}, %{{.*}} : i32
// CHECK: arith.muli %{{.*}}, %{{.*}} : i32
// CHECK: %[[SAFE:.*]] = arith.select %{{.*}}, %c1_i32, %{{.*}} : i32
// CHECK: arith.divsi %{{.*}}, %[[SAFE]] : i32
// CHECK: %[[SAFE2:.*]] = arith.select %{{.*}}, %c1_i32, %{{.*}} : i32
// CHECK: arith.remsi %{{.*}}, %[[SAFE2]] : i32
// CHECK: math.ipowi %{{.*}}, %{{.*}} : i32
// CHECK: arith.maxsi %{{.*}}, %{{.*}} : i32
// CHECK: arith.minsi %{{.*}}, %{{.*}} : i32
func.func @binary_int(%x: tensor<2x3xi32>, %y: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %0 = kiln.add %x, %y : tensor<2x3xi32>, tensor<2x3xi32>
  %1 = kiln.sub %0, %y : tensor<2x3xi32>, tensor<2x3xi32>
  %2 = kiln.mul %1, %y : tensor<2x3xi32>, tensor<2x3xi32>
  %3 = kiln.div %2, %y : tensor<2x3xi32>, tensor<2x3xi32>
  %4 = kiln.rem %3, %y : tensor<2x3xi32>, tensor<2x3xi32>
  %5 = kiln.pow %4, %y : tensor<2x3xi32>, tensor<2x3xi32>
  %6 = kiln.max %5, %y : tensor<2x3xi32>, tensor<2x3xi32>
  %7 = kiln.min %6, %y : tensor<2x3xi32>, tensor<2x3xi32>
  return %7 : tensor<2x3xi32>
}

// Broadcasting: missing leading dims are dropped from the operand's map,
// size-1 dims that stretch read index 0, rank-0 operands read ().
// CHECK-LABEL: func.func @broadcast
// CHECK: linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%arg0, %arg1 : tensor<2x3xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[$MID1]], #[[$LAST1]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%arg2, %arg3 : tensor<4x1x5xf32>, tensor<3x1xf32>) outs(%{{.*}} : tensor<4x3x5xf32>)
// CHECK: arith.subf
// CHECK: linalg.generic {indexing_maps = [#[[$SCALAR2]], #[[$ID2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%arg4, %arg0 : tensor<f32>, tensor<2x3xf32>)
// CHECK: arith.mulf
func.func @broadcast(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<4x1x5xf32>, %d: tensor<3x1xf32>, %s: tensor<f32>) -> (tensor<2x3xf32>, tensor<4x3x5xf32>, tensor<2x3xf32>) {
  %0 = kiln.add %a, %b : tensor<2x3xf32>, tensor<3xf32>
  %1 = kiln.sub %c, %d : tensor<4x1x5xf32>, tensor<3x1xf32>
  %2 = kiln.mul %s, %a : tensor<f32>, tensor<2x3xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<4x3x5xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: func.func @logical
// CHECK: arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: arith.ori %{{.*}}, %{{.*}} : i1
// CHECK: arith.xori %{{.*}}, %{{.*}} : i1
func.func @logical(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  %0 = kiln.and %a, %b : tensor<4xi1>, tensor<4xi1>
  %1 = kiln.or %0, %b : tensor<4xi1>, tensor<4xi1>
  %2 = kiln.xor %1, %b : tensor<4xi1>, tensor<4xi1>
  return %2 : tensor<4xi1>
}

//===----------------------------------------------------------------------===//
// Compare and select
//===----------------------------------------------------------------------===//

// Float compares are ordered except ne, which is true on NaN.
// CHECK-LABEL: func.func @compare_float
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: i1):
// CHECK-NEXT: arith.cmpf oeq
// CHECK: arith.cmpf une
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf ole
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oge
// CHECK: return %{{.*}} : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
func.func @compare_float(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = kiln.compare eq, %a, %b : tensor<4xf32>, tensor<4xf32>
  %1 = kiln.compare ne, %a, %b : tensor<4xf32>, tensor<4xf32>
  %2 = kiln.compare lt, %a, %b : tensor<4xf32>, tensor<4xf32>
  %3 = kiln.compare le, %a, %b : tensor<4xf32>, tensor<4xf32>
  %4 = kiln.compare gt, %a, %b : tensor<4xf32>, tensor<4xf32>
  %5 = kiln.compare ge, %a, %b : tensor<4xf32>, tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// Integers compare signed.
// CHECK-LABEL: func.func @compare_int
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK: arith.cmpi ne, %{{.*}}, %{{.*}} : i32
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK: arith.cmpi sle, %{{.*}}, %{{.*}} : i32
// CHECK: arith.cmpi sgt, %{{.*}}, %{{.*}} : i32
// CHECK: arith.cmpi sge, %{{.*}}, %{{.*}} : i32
func.func @compare_int(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = kiln.compare eq, %a, %b : tensor<4xi32>, tensor<4xi32>
  %1 = kiln.compare ne, %a, %b : tensor<4xi32>, tensor<4xi32>
  %2 = kiln.compare lt, %a, %b : tensor<4xi32>, tensor<4xi32>
  %3 = kiln.compare le, %a, %b : tensor<4xi32>, tensor<4xi32>
  %4 = kiln.compare gt, %a, %b : tensor<4xi32>, tensor<4xi32>
  %5 = kiln.compare ge, %a, %b : tensor<4xi32>, tensor<4xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// Booleans compare unsigned: false < true.
// CHECK-LABEL: func.func @compare_bool
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i1
// CHECK: arith.cmpi ule, %{{.*}}, %{{.*}} : i1
// CHECK: arith.cmpi ugt, %{{.*}}, %{{.*}} : i1
// CHECK: arith.cmpi uge, %{{.*}}, %{{.*}} : i1
func.func @compare_bool(%a: tensor<4xi1>, %b: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = kiln.compare lt, %a, %b : tensor<4xi1>, tensor<4xi1>
  %1 = kiln.compare le, %a, %b : tensor<4xi1>, tensor<4xi1>
  %2 = kiln.compare gt, %a, %b : tensor<4xi1>, tensor<4xi1>
  %3 = kiln.compare ge, %a, %b : tensor<4xi1>, tensor<4xi1>
  return %0, %1, %2, %3 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// CHECK-LABEL: func.func @select
// CHECK: linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]], #[[$SCALAR1]], #[[$ID1]]], iterator_types = ["parallel"]}
// CHECK-SAME: ins(%arg0, %arg1, %arg2 : tensor<4xi1>, tensor<4xf32>, tensor<f32>)
// CHECK: ^bb0(%[[C:.*]]: i1, %[[T:.*]]: f32, %[[F:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[R:.*]] = arith.select %[[C]], %[[T]], %[[F]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @select(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<f32>) -> tensor<4xf32> {
  %0 = kiln.select %c, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<f32>
  return %0 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @constant
// CHECK: %[[A:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK: %[[B:.*]] = arith.constant dense<[1, 2, 3]> : tensor<3xi64>
// CHECK: return %[[A]], %[[B]]
// CHECK-NOT: kiln.
func.func @constant() -> (tensor<2x2xf32>, tensor<3xi64>) {
  %0 = kiln.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %1 = kiln.constant dense<[1, 2, 3]> : tensor<3xi64>
  return %0, %1 : tensor<2x2xf32>, tensor<3xi64>
}
