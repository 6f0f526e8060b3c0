// RUN: kiln-opt %s --kiln-graph-cleanup | FileCheck %s

// Folders of the indexing ops on constant inputs.

// Constants fold: the first maximum of each row, and the last minimum (ties in row 1).
// CHECK-LABEL: func.func @arg_reduce_fold(
// CHECK-NOT: kiln.arg_reduce
// CHECK-DAG: kiln.constant dense<[1, 0]> : tensor<2xi64>
// CHECK-DAG: kiln.constant dense<{{\[\[}}0], [2]]> : tensor<2x1xi64>
func.func @arg_reduce_fold() -> (tensor<2xi64>, tensor<2x1xi64>) {
  %c = kiln.constant dense<[[1, 7, 7], [9, 3, 3]]> : tensor<2x3xi32>
  %0 = kiln.arg_reduce max %c {axis = 1 : i64, keepdims = false} : tensor<2x3xi32>
  %1 = kiln.arg_reduce min %c {axis = 1 : i64, select_last_index = true} : tensor<2x3xi32>
  return %0, %1 : tensor<2xi64>, tensor<2x1xi64>
}

// CHECK-LABEL: func.func @cumsum_fold(
// CHECK-NOT: kiln.cumsum
// CHECK-DAG: kiln.constant dense<[1, 3, 6]> : tensor<3xi64>
// CHECK-DAG: kiln.constant dense<[5, 3, 0]> : tensor<3xi64>
func.func @cumsum_fold() -> (tensor<3xi64>, tensor<3xi64>) {
  %c = kiln.constant dense<[1, 2, 3]> : tensor<3xi64>
  %0 = kiln.cumsum %c {axis = 0 : i64} : tensor<3xi64>
  %1 = kiln.cumsum %c {axis = 0 : i64, exclusive = true, reverse = true} : tensor<3xi64>
  return %0, %1 : tensor<3xi64>, tensor<3xi64>
}
