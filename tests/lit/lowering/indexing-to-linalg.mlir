// RUN: kiln-opt --kiln-to-linalg %s | FileCheck %s

// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROWS:.*]] = affine_map<(d0, d1) -> (d0)>

// One reduction carrying (value, index); keepdims expands the result.
// CHECK-LABEL: func.func @arg_max
// CHECK: %[[LOWEST:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[VALUES:.*]] = linalg.fill ins(%[[LOWEST]] : f32) outs(%{{.*}} : tensor<3xf32>)
// CHECK: %[[INDICES:.*]] = linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<3xi64>)
// CHECK: %[[R:.*]]:2 = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROWS]], #[[$ROWS]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: outs(%[[VALUES]], %[[INDICES]] : tensor<3xf32>, tensor<3xi64>)
// CHECK: arith.cmpf ogt
// CHECK: linalg.index 1 : index
// CHECK: tensor.expand_shape %[[R]]#1 {{\[\[}}0, 1]] output_shape [3, 1] : tensor<3xi64> into tensor<3x1xi64>
func.func @arg_max(%x: tensor<3x4xf32>) -> tensor<3x1xi64> {
  %i = kiln.arg_reduce max %x {axis = 1 : i64, keepdims = true} : tensor<3x4xf32>
  return %i : tensor<3x1xi64>
}

// k selection reductions in an scf.for; each pick goes in with insert_slice.
// CHECK-LABEL: func.func @top_k
// CHECK: scf.for %[[J:[a-z0-9]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[V:.*]] = %{{.*}}, %[[I:.*]] = %{{.*}}, %[[PREV:.*]] = %{{.*}}, %[[PREVI:.*]] = %{{.*}}) -> (tensor<2x3xf32>, tensor<2x3xi64>, tensor<2xf32>, tensor<2xi64>)
// CHECK: %[[PICK:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}}, %[[PREV]], %[[PREVI]] : tensor<2x5xf32>, tensor<2xf32>, tensor<2xi64>)
// CHECK: tensor.insert_slice %[[PICK]]#0 into %[[V]][0, %[[J]]] [2, 1] [1, 1]
// CHECK: tensor.insert_slice %[[PICK]]#1 into %[[I]][0, %[[J]]] [2, 1] [1, 1]
// CHECK: linalg.copy ins(%[[PICK]]#0 : tensor<2xf32>) outs(%[[PREV]] : tensor<2xf32>)
func.func @top_k(%x: tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %v, %i = kiln.top_k %x {k = 3 : i64, axis = -1 : i64} : tensor<2x5xf32>
  return %v, %i : tensor<2x3xf32>, tensor<2x3xi64>
}

// CHECK-LABEL: func.func @cumsum_reverse_exclusive
// CHECK: scf.for %[[J:[a-z0-9]+]] = {{.*}} iter_args(%[[OUT:.*]] = %{{.*}}, %[[SUM:.*]] = %{{.*}}) -> (tensor<2x5xf32>, tensor<2xf32>)
// CHECK: %[[POS:.*]] = arith.subi %{{.*}}, %[[J]] : index
// CHECK: %[[ROW:.*]] = tensor.extract_slice %{{.*}}[0, %[[POS]]] [2, 1] [1, 1] : tensor<2x5xf32> to tensor<2xf32>
// CHECK: %[[NEXT:.*]] = linalg.generic {{.*}} ins(%[[SUM]], %[[ROW]] : tensor<2xf32>, tensor<2xf32>)
// CHECK: tensor.insert_slice %[[SUM]] into %[[OUT]][0, %[[POS]]] [2, 1] [1, 1]
// CHECK: linalg.copy ins(%[[NEXT]] : tensor<2xf32>) outs(%[[SUM]] : tensor<2xf32>)
func.func @cumsum_reverse_exclusive(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %y = kiln.cumsum %x {axis = 1 : i64, exclusive = true, reverse = true} : tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// CHECK-LABEL: func.func @gather_elements
// CHECK-SAME: (%[[DATA:.*]]: tensor<3x4xf32>, %[[IDS:.*]]: tensor<3x2xi64>)
// CHECK: linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]]], {{.*}}} ins(%[[IDS]] : tensor<3x2xi64>)
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: %[[COL:.*]] = arith.select
// CHECK: tensor.extract %[[DATA]][%[[ROW]], %[[COL]]] : tensor<3x4xf32>
func.func @gather_elements(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>) -> tensor<3x2xf32> {
  %y = kiln.gather_elements %x, %i {axis = 1 : i64} : tensor<3x4xf32>, tensor<3x2xi64>
  return %y : tensor<3x2xf32>
}

// CHECK-LABEL: func.func @gather_nd
// CHECK-SAME: (%[[DATA:.*]]: tensor<2x3x4xf32>, %[[IDS:.*]]: tensor<2x5x1xi64>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x5x4xf32>)
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK: %[[N:.*]] = linalg.index 1 : index
// CHECK: %[[K:.*]] = linalg.index 2 : index
// CHECK: tensor.extract %[[IDS]][%[[B]], %[[N]], %{{.*}}] : tensor<2x5x1xi64>
// CHECK: %[[ROW:.*]] = arith.select
// CHECK: tensor.extract %[[DATA]][%[[B]], %[[ROW]], %[[K]]] : tensor<2x3x4xf32>
func.func @gather_nd(%x: tensor<2x3x4xf32>, %i: tensor<2x5x1xi64>) -> tensor<2x5x4xf32> {
  %y = kiln.gather_nd %x, %i {batch_dims = 1 : i64} : tensor<2x3x4xf32>, tensor<2x5x1xi64>
  return %y : tensor<2x5x4xf32>
}

// A loop nest over the updates carrying the result.
// CHECK-LABEL: func.func @scatter_nd_add
// CHECK-SAME: (%[[DATA:.*]]: tensor<4x5xf32>, %[[IDS:.*]]: tensor<2x1xi64>, %[[UPD:.*]]: tensor<2x5xf32>)
// CHECK: scf.for %[[N:[a-z0-9]+]] = {{.*}} iter_args(%{{.*}} = %[[DATA]]) -> (tensor<4x5xf32>)
// CHECK: scf.for %[[K:[a-z0-9]+]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<4x5xf32>)
// CHECK: %[[U:.*]] = tensor.extract %[[UPD]][%[[N]], %[[K]]]
// CHECK: tensor.extract %[[IDS]][%[[N]], %{{.*}}]
// CHECK: %[[ROW:.*]] = arith.select
// CHECK: %[[OLD:.*]] = tensor.extract %[[ACC]][%[[ROW]], %[[K]]]
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[U]] : f32
// CHECK: tensor.insert %[[NEW]] into %[[ACC]][%[[ROW]], %[[K]]]
func.func @scatter_nd_add(%x: tensor<4x5xf32>, %i: tensor<2x1xi64>, %u: tensor<2x5xf32>) -> tensor<4x5xf32> {
  %y = kiln.scatter_nd add %x, %i, %u : tensor<4x5xf32>, tensor<2x1xi64>, tensor<2x5xf32>
  return %y : tensor<4x5xf32>
}

// CHECK-LABEL: func.func @scatter_elements
// CHECK: scf.for %[[R:[a-z0-9]+]] =
// CHECK: scf.for %[[C:[a-z0-9]+]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK: %[[U:.*]] = tensor.extract %{{.*}}[%[[R]], %[[C]]] : tensor<3x2xf32>
// CHECK: %[[COL:.*]] = arith.select
// CHECK: tensor.insert %[[U]] into %[[ACC]][%[[R]], %[[COL]]] : tensor<3x4xf32>
func.func @scatter_elements(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) -> tensor<3x4xf32> {
  %y = kiln.scatter_elements none %x, %i, %u {axis = 1 : i64} : tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>
  return %y : tensor<3x4xf32>
}
