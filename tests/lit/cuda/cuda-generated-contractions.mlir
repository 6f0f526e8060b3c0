// RUN: kiln-opt --kiln-cuda-codegen="stop-at-launch=true" %s | FileCheck %s

// Generated contraction kernels: dispatches kiln-cuda-library-calls marks
// kiln.cuda.generated_contraction because no cuBLASLt call computes them
// (library-calls-generated.mlir) become loop nests like any other: one
// thread per output element, the reduction loop in the thread. One case
// per kind.

// The launches: every one flat (one thread per output), except the
// recurrence (one thread runs the loop; its state in shared memory).
// CHECK-LABEL: module attributes {kiln.gpu_launches = {
// CHECK-SAME: accumulate = {block = array<i64: 256, 1, 1>, entry = "", grid = array<i64: 8, 1, 1>, shape = "flat", shared_memory = 0 : i64}
// CHECK-SAME: depthwise = {block = array<i64: 160, 1, 1>, entry = "", grid = array<i64: 1, 1, 1>, shape = "flat", shared_memory = 0 : i64}
// CHECK-SAME: f64 = {block = array<i64: 32, 1, 1>, entry = "", grid = array<i64: 1, 1, 1>, shape = "flat", shared_memory = 0 : i64}
// CHECK-SAME: int8 = {block = array<i64: 32, 1, 1>, entry = "", grid = array<i64: 1, 1, 1>, shape = "flat", shared_memory = 0 : i64}
// CHECK-SAME: recurrence = {block = array<i64: 1, 1, 1>, entry = "", grid = array<i64: 1, 1, 1>, shape = "serial", shared_memory = 256 : i64}
// CHECK-SAME: two_k = {block = array<i64: 32, 1, 1>, entry = "", grid = array<i64: 1, 1, 1>, shape = "flat", shared_memory = 0 : i64}

#dwIn = affine_map<(n, c, h, w, kh, kw) -> (n, c, 0, h + kh, w + kw)>
#dwW = affine_map<(n, c, h, w, kh, kw) -> (c, kh, kw)>
#dwOut = affine_map<(n, c, h, w, kh, kw) -> (n, c, h, w)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
#a2 = affine_map<(m, n, k0, k1) -> (m, k0, k1)>
#b2 = affine_map<(m, n, k0, k1) -> (k0, k1, n)>
#d2 = affine_map<(m, n, k0, k1) -> (m, n)>

// A depthwise 3x3 conv, pad 1, bias and ReLU6 (mobilenet_v2's): the pad
// is a bounds check on each tap (the input read at a clamped index, the pad
// value selected outside), the 9 taps a loop in the thread, and the bias
// and ReLU6 apply to the sum in a register: one store, no intermediate.
// CHECK-LABEL: func.func @depthwise(
// CHECK-SAME: %[[X:.*]]: memref<1x4x6x6xf32>, %[[W:.*]]: memref<4x3x3xf32>, %[[B:.*]]: memref<4xf32>, %[[Y:.*]]: memref<1x4x6x6xf32>
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch
// CHECK: scf.if
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK: memref.load %[[W]]
// CHECK: %[[IN:.*]] = arith.cmpi ult
// CHECK: %[[AT:.*]] = arith.select %[[IN]]
// CHECK: %[[V:.*]] = memref.load %[[X]][%{{.*}}, %{{.*}}, %[[AT]], %{{.*}}]
// CHECK: %[[P:.*]] = arith.select %{{.*}}, %[[V]], %{{.*}} : f32
// CHECK: arith.mulf %[[P]]
// CHECK: scf.yield
// CHECK: %[[BIAS:.*]] = memref.load %[[B]]
// CHECK: arith.addf %[[SUM]], %[[BIAS]]
// CHECK: arith.maximumf
// CHECK: %[[R:.*]] = arith.minimumf
// CHECK: memref.store %[[R]], %[[Y]]
// CHECK-NOT: memref.store
// CHECK: gpu.terminator
func.func @depthwise(%arg0: tensor<1x4x6x6xf32>, %arg1: tensor<4x3x3xf32>, %bias: tensor<4xf32>) -> tensor<1x4x6x6xf32> attributes {kiln.dispatch, kiln.cuda.generated_contraction} {
  %cst = arith.constant 0.000000e+00 : f32
  %six = arith.constant 6.000000e+00 : f32
  %p = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %cst : f32
  } : tensor<1x4x6x6xf32> to tensor<1x4x8x8xf32>
  %e = tensor.expand_shape %p [[0], [1, 2], [3], [4]] output_shape [1, 4, 1, 8, 8] : tensor<1x4x8x8xf32> into tensor<1x4x1x8x8xf32>
  %0 = tensor.empty() : tensor<1x4x6x6xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %2 = linalg.generic {indexing_maps = [#dwIn, #dwW, #dwOut], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%e, %arg1 : tensor<1x4x1x8x8xf32>, tensor<4x3x3xf32>) outs(%1 : tensor<1x4x6x6xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %3 = arith.mulf %in, %in_0 : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<1x4x6x6xf32>
  %5 = tensor.empty() : tensor<1x4x6x6xf32>
  %6 = linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2, %bias : tensor<1x4x6x6xf32>, tensor<4xf32>) outs(%5 : tensor<1x4x6x6xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %7 = arith.addf %in, %b : f32
    %8 = arith.maximumf %7, %cst : f32
    %9 = arith.minimumf %8, %six : f32
    linalg.yield %9 : f32
  } -> tensor<1x4x6x6xf32>
  return %6 : tensor<1x4x6x6xf32>
}

// Two reduction dims: one loop over both (24 = 8 x 3) in the thread.
// CHECK-LABEL: func.func @two_k(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c24{{.*}} step
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @two_k(%arg0: tensor<4x8x3xf32>, %arg1: tensor<8x3x5xf32>) -> tensor<4x5xf32> attributes {kiln.dispatch, kiln.cuda.generated_contraction} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4x5xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x5xf32>) -> tensor<4x5xf32>
  %2 = linalg.generic {indexing_maps = [#a2, #b2, #d2], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%arg0, %arg1 : tensor<4x8x3xf32>, tensor<8x3x5xf32>) outs(%1 : tensor<4x5xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %3 = arith.mulf %in, %in_0 : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<4x5xf32>
  return %2 : tensor<4x5xf32>
}

// f64: the same loop in f64.
// CHECK-LABEL: func.func @f64(
// CHECK: scf.for {{.*}} -> (f64)
// CHECK: arith.mulf {{.*}} : f64
func.func @f64(%arg0: tensor<4x8xf64>, %arg1: tensor<8x2xf64>) -> tensor<4x2xf64> attributes {kiln.dispatch, kiln.cuda.generated_contraction} {
  %cst = arith.constant 0.000000e+00 : f64
  %0 = tensor.empty() : tensor<4x2xf64>
  %1 = linalg.fill ins(%cst : f64) outs(%0 : tensor<4x2xf64>) -> tensor<4x2xf64>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<4x8xf64>, tensor<8x2xf64>) outs(%1 : tensor<4x2xf64>) -> tensor<4x2xf64>
  return %2 : tensor<4x2xf64>
}

// int8: i8 x i8 products accumulated in i32.
// CHECK-LABEL: func.func @int8(
// CHECK: scf.for {{.*}} -> (i32)
// CHECK: arith.extsi {{.*}} : i8 to i32
// CHECK: arith.extsi {{.*}} : i8 to i32
// CHECK: arith.muli {{.*}} : i32
// CHECK: arith.addi {{.*}} : i32
func.func @int8(%arg0: tensor<4x8xi8>, %arg1: tensor<8x2xi8>) -> tensor<4x2xi32> attributes {kiln.dispatch, kiln.cuda.generated_contraction} {
  %c0 = arith.constant 0 : i32
  %0 = tensor.empty() : tensor<4x2xi32>
  %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<4x2xi32>) -> tensor<4x2xi32>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<4x8xi8>, tensor<8x2xi8>) outs(%1 : tensor<4x2xi32>) -> tensor<4x2xi32>
  return %2 : tensor<4x2xi32>
}

// Accumulating onto an input (non-zero init): the loop starts from the
// input's element; no copy of it into the output first (one nest, not a
// copy and a reduction in two).
// CHECK-LABEL: func.func @accumulate(
// CHECK-SAME: %[[A:.*]]: memref<32x128xf32>, %[[BM:.*]]: memref<128x64xf32>, %[[C:.*]]: memref<32x64xf32>, %[[D:.*]]: memref<32x64xf32>
// CHECK: %[[INIT:.*]] = memref.load %[[C]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (f32)
// CHECK-NOT: memref.store {{.*}} %[[D]]
// CHECK: scf.yield
// CHECK: memref.store {{.*}}, %[[D]]
func.func @accumulate(%arg0: tensor<32x128xf32>, %arg1: tensor<128x64xf32>, %arg2: tensor<32x64xf32>) -> tensor<32x64xf32> attributes {kiln.dispatch, kiln.cuda.generated_contraction} {
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<32x128xf32>, tensor<128x64xf32>) outs(%arg2 : tensor<32x64xf32>) -> tensor<32x64xf32>
  return %2 : tensor<32x64xf32>
}

// A contraction inside the dispatch's loop (a recurrence): one thread runs
// the loop; the buffer outside the loop lives in the block's shared memory
// (reached through a generic pointer), the one allocated per iteration on
// the thread's stack.
// CHECK-LABEL: func.func @recurrence(
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size
// CHECK: %[[BASE:.*]] = gpu.dynamic_shared_memory
// CHECK: %[[VIEW:.*]] = memref.view %[[BASE]]
// CHECK: memref.memory_space_cast %[[VIEW]] : memref<1x64xf32, #gpu.address_space<workgroup>> to memref<1x64xf32>
// CHECK: scf.for
// CHECK: memref.alloca() : memref<1x64xf32>
func.func @recurrence(%arg0: tensor<1x64xf32>, %arg1: tensor<64x64xf32>) -> tensor<1x64xf32> attributes {kiln.dispatch, kiln.cuda.generated_contraction} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %cst = arith.constant 0.000000e+00 : f32
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%state = %arg0) -> (tensor<1x64xf32>) {
    %0 = tensor.empty() : tensor<1x64xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x64xf32>) -> tensor<1x64xf32>
    %2 = linalg.matmul ins(%state, %arg1 : tensor<1x64xf32>, tensor<64x64xf32>) outs(%1 : tensor<1x64xf32>) -> tensor<1x64xf32>
    scf.yield %2 : tensor<1x64xf32>
  }
  return %r : tensor<1x64xf32>
}
