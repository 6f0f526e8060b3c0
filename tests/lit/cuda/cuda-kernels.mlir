// RUN: kiln-opt --kiln-cuda-codegen=stop-at-launch %s -split-input-file | FileCheck %s

// The kernel shapes of kiln-cuda-codegen, before outlining and NVVM (the
// gpu.launch form). kilnc-cuda-kernels.test checks the PTX of such kernels.

// -----

// Softmax over rows of 1000: one block of 256 threads per row (64 rows);
// the max and the sum are block reductions (strided partials, xor
// shuffles, a partial per warp in shared memory, the first warp's
// shuffles); the row's max and sum live in dynamic shared memory; barriers
// between the three loop nests.

// CHECK: kiln.gpu_launches = {softmax = {block = array<i64: 256, 1, 1>, entry = "", grid = array<i64: 64, 1, 1>, shape = "rows", shared_memory = 160 : i64}}
// CHECK-LABEL: func.func @softmax(
// CHECK: gpu.launch blocks(%[[ROW:.*]], %{{.*}}, %{{.*}}) in {{.*}} threads(%[[TID:.*]], %{{.*}}, %{{.*}}) in {{.*}} dynamic_shared_memory_size
// CHECK: %[[SHM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[MAX:.*]] = memref.view %[[SHM]][%{{.*}}][] : {{.*}} to memref<1xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[WARPS:.*]] = memref.view %[[SHM]][%{{.*}}][] : {{.*}} to memref<32xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for %[[I:.*]] = %[[TID]] to %{{.*}} step %{{.*}} iter_args(%[[P:.*]] = %{{.*}}) -> (f32)
// CHECK:   memref.load %{{.*}}[%[[ROW]], %[[I]]] : memref<64x1000xf32>
// CHECK:   arith.maximumf %[[P]]
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: scf.if
// CHECK:   memref.store %{{.*}}, %[[WARPS]]
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK:   memref.load %[[WARPS]]
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK:   memref.store %{{.*}}, %[[MAX]][
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %[[TID]] to
// CHECK:   memref.load %[[MAX]]
// CHECK:   math.exp
// CHECK:   arith.addf
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %[[TID]] to
// CHECK:   math.exp
// CHECK:   arith.divf
// CHECK:   memref.store %{{.*}}, %{{.*}}[%[[ROW]], %{{.*}}] : memref<64x1000xf32>
// CHECK: gpu.terminator

#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @softmax(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> attributes {kiln.dispatch} {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<64xf32>
  %f0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<64xf32>) -> tensor<64xf32>
  %max = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x1000xf32>) outs(%f0 : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %acc, %in : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %e1 = tensor.empty() : tensor<64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#rows, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %max : tensor<64x1000xf32>, tensor<64xf32>) outs(%f1 : tensor<64xf32>) {
  ^bb0(%in: f32, %mx: f32, %acc: f32):
    %s = arith.subf %in, %mx : f32
    %ex = math.exp %s : f32
    %a = arith.addf %acc, %ex : f32
    linalg.yield %a : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64x1000xf32>
  %r = linalg.generic {indexing_maps = [#rows, #row, #row, #rows], iterator_types = ["parallel", "parallel"]} ins(%x, %max, %sum : tensor<64x1000xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e2 : tensor<64x1000xf32>) {
  ^bb0(%in: f32, %mx: f32, %sm: f32, %o: f32):
    %s = arith.subf %in, %mx : f32
    %ex = math.exp %s : f32
    %d = arith.divf %ex, %sm : f32
    linalg.yield %d : f32
  } -> tensor<64x1000xf32>
  return %r : tensor<64x1000xf32>
}

// -----

// A sum over the outer axis: one thread per column (neighbouring threads
// read neighbouring elements), the reduction loop in the thread, its fill
// folded into the accumulator.

// CHECK: column_sum = {block = array<i64: 64, 1, 1>, entry = "", grid = array<i64: 1, 1, 1>, shape = "flat", shared_memory = 0 : i64}
// CHECK-LABEL: func.func @column_sum(
// CHECK: gpu.launch blocks({{.*}}) threads(%[[TID:[^,]*]],
// CHECK-NOT: linalg.fill
// CHECK: scf.if
// CHECK:   %[[SUM:.*]] = scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (f32)
// CHECK:     memref.load %{{.*}}[%[[R]], %[[TID]]] : memref<1000x64xf32>
// CHECK:   memref.store %[[SUM]], %{{.*}}[%[[TID]]] : memref<64xf32>
// CHECK-NOT: gpu.barrier

func.func @column_sum(%x: tensor<1000x64xf32>) -> tensor<64xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<1000x64xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %acc, %in : f32
    linalg.yield %a : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// A reduction of 4096 i32 to a scalar: one block, a block reduction.

// CHECK: total = {block = array<i64: 256, 1, 1>, entry = "", grid = array<i64: 1, 1, 1>, shape = "one-block", shared_memory = 128 : i64}
// CHECK-LABEL: func.func @total(
// CHECK: arith.addi
// CHECK-COUNT-5: gpu.shuffle  xor %{{.*}} : i32
// CHECK: gpu.barrier
// CHECK-COUNT-5: gpu.shuffle  xor %{{.*}} : i32
// CHECK: memref.store %{{.*}}, %{{.*}}[] : memref<i32>

func.func @total(%x: tensor<4096xi32>) -> tensor<i32> attributes {kiln.dispatch} {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<i32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<i32>) -> tensor<i32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<4096xi32>) outs(%f : tensor<i32>) {
  ^bb0(%in: i32, %acc: i32):
    %a = arith.addi %acc, %in : i32
    linalg.yield %a : i32
  } -> tensor<i32>
  return %r : tensor<i32>
}

// -----

// A pad of a concat: both become gathers (tensor.extract at computed,
// clamped indices, selects for the borders) and fuse into one loop nest.

// CHECK: pad_concat = {block = array<i64: 32, 1, 1>, entry = "", grid = array<i64: 1, 1, 1>, shape = "flat", shared_memory = 0 : i64}
// CHECK-LABEL: func.func @pad_concat(
// CHECK: memref.load %{{.*}} : memref<2x3xf32>
// CHECK: arith.select
// CHECK: memref.load %{{.*}} : memref<2x5xf32>
// CHECK: arith.select
// CHECK: arith.select
// CHECK: memref.store %{{.*}} : memref<4x8xf32>
// CHECK-NOT: memref.alloc

func.func @pad_concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<4x8xf32> attributes {kiln.dispatch} {
  %zero = arith.constant 0.0 : f32
  %c = tensor.concat dim(1) %a, %b : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %p = tensor.pad %c low[1, 0] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<2x8xf32> to tensor<4x8xf32>
  return %p : tensor<4x8xf32>
}

// -----

// A gather (tensor.extract in the body): one thread per output element.

// CHECK: gather = {block = array<i64: 128, 1, 1>, entry = "", grid = array<i64: 1, 1, 1>, shape = "flat"
// CHECK-LABEL: func.func @gather(
// CHECK: %[[ID:.*]] = memref.load %{{.*}} : memref<8xi64>
// CHECK: %[[ROW:.*]] = arith.index_cast %[[ID]] : i64 to index
// CHECK: memref.load %{{.*}}[%[[ROW]], %{{.*}}] : memref<100x16xf32>

func.func @gather(%table: tensor<100x16xf32>, %ids: tensor<8xi64>) -> tensor<8x16xf32> attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<8xi64>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%id: i64, %o: f32):
    %i = arith.index_cast %id : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %table[%i, %j] : tensor<100x16xf32>
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// linalg.transpose is generalized; one thread per output element, the
// innermost output dim fastest (coalesced stores).

// CHECK: transpose = {block = array<i64: 32, 1, 1>, entry = "", grid = array<i64: 1, 1, 1>, shape = "flat"
// CHECK-LABEL: func.func @transpose(
// CHECK: %[[J:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK: %[[I:.*]] = arith.divui
// CHECK: memref.load %{{.*}}[%[[J]], %[[I]]] : memref<3x5xf32>
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<5x3xf32>

func.func @transpose(%x: tensor<3x5xf32>) -> tensor<5x3xf32> attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<5x3xf32>
  %t = linalg.transpose ins(%x : tensor<3x5xf32>) outs(%e : tensor<5x3xf32>) permutation = [1, 0]
  return %t : tensor<5x3xf32>
}

// -----

// Rank 0: one thread of one warp.

// CHECK: scalar = {block = array<i64: 32, 1, 1>, entry = "", grid = array<i64: 1, 1, 1>, shape = "flat"
// CHECK-LABEL: func.func @scalar(
// CHECK: memref.load %{{.*}}[] : memref<f32>
// CHECK: arith.negf
// CHECK: memref.store %{{.*}}, %{{.*}}[] : memref<f32>

func.func @scalar(%x: tensor<f32>) -> tensor<f32> attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%x : tensor<f32>) outs(%e : tensor<f32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// An elementwise chain over 65536 floats: 4 per thread, vector loads and
// stores with 16-byte alignment when every binding is 16-byte aligned
// (checked in the kernel), 4 scalar points otherwise.

// CHECK: chain = {block = array<i64: 256, 1, 1>, entry = "", grid = array<i64: 64, 1, 1>, shape = "flat-vector4", shared_memory = 0 : i64}
// CHECK-LABEL: func.func @chain(
// CHECK-COUNT-3: memref.extract_aligned_pointer_as_index
// CHECK: scf.if %[[ALIGNED:.*]] {
// CHECK:   vector.load %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<65536xf32>, vector<4xf32>
// CHECK:   vector.load %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<65536xf32>, vector<4xf32>
// CHECK:   arith.addf %{{.*}} : vector<4xf32>
// CHECK:   math.tanh %{{.*}} : vector<4xf32>
// CHECK:   vector.store %{{.*}}, %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<65536xf32>, vector<4xf32>
// CHECK: } else {
// CHECK-COUNT-4: memref.store %{{.*}} : memref<64x1024xf32>

func.func @chain(%x: tensor<64x1024xf32>, %y: tensor<64x1024xf32>) -> tensor<64x1024xf32> attributes {kiln.dispatch} {
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<64x1024xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<64x1024xf32>, tensor<64x1024xf32>) outs(%e : tensor<64x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.mulf %s, %half : f32
    %t = math.tanh %m : f32
    linalg.yield %t : f32
  } -> tensor<64x1024xf32>
  return %r : tensor<64x1024xf32>
}

// -----

// Two loop nests that do not read each other's results: one launch, each
// nest guarded by its own extent.

// CHECK: two_outputs = {block = array<i64: 32, 1, 1>, entry = "", grid = array<i64: 1, 1, 1>, shape = "flat"
// CHECK-LABEL: func.func @two_outputs(
// CHECK: scf.if
// CHECK:   arith.negf
// CHECK:   memref.store %{{.*}} : memref<4x6xf32>
// CHECK: scf.if
// CHECK:   memref.store %{{.*}} : memref<6x4xf32>

func.func @two_outputs(%x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<6x4xf32>) attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<4x6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<4x6xf32>
  %e2 = tensor.empty() : tensor<6x4xf32>
  %t = linalg.transpose ins(%x : tensor<4x6xf32>) outs(%e2 : tensor<6x4xf32>) permutation = [1, 0]
  return %r, %t : tensor<4x6xf32>, tensor<6x4xf32>
}

// -----

// ScatterND's ordered updates (an scf.for over tensors): one thread runs
// the dispatch; the input binding is copied to the block's shared memory
// (the one thread is the whole block; reached through a generic pointer),
// never written.

// CHECK: scatter = {block = array<i64: 1, 1, 1>, entry = "", grid = array<i64: 1, 1, 1>, shape = "serial", shared_memory = 48 : i64}
// CHECK-LABEL: func.func @scatter(
// CHECK-SAME: %[[IN:[^:]*]]: memref<3x4xf32>, %{{[^:]*}}: memref<2x1xi64>, %[[OUT:[^:]*]]: memref<3x4xf32>)
// CHECK: %[[COPY:.*]] = memref.memory_space_cast %{{.*}} : memref<3x4xf32, #gpu.address_space<workgroup>> to memref<3x4xf32>
// CHECK-NOT: memref.store %{{.*}}, %[[IN]]
// CHECK: memref.store %{{.*}}, %[[COPY]]
// CHECK: memref.store %{{.*}}, %[[OUT]]

func.func @scatter(%arg0: tensor<3x4xf32>, %arg1: tensor<2x1xi64>) -> tensor<3x4xf32> attributes {kiln.dispatch} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %cst = arith.constant 1.000000e+00 : f32
  %c4 = arith.constant 4 : index
  %0 = scf.for %arg2 = %c0 to %c2 step %c1 iter_args(%arg3 = %arg0) -> (tensor<3x4xf32>) {
    %1 = scf.for %arg4 = %c0 to %c4 step %c1 iter_args(%arg5 = %arg3) -> (tensor<3x4xf32>) {
      %extracted = tensor.extract %arg1[%arg2, %c0] : tensor<2x1xi64>
      %2 = arith.index_cast %extracted : i64 to index
      %3 = arith.cmpi slt, %2, %c0 : index
      %4 = arith.addi %2, %c3 : index
      %5 = arith.select %3, %4, %2 : index
      %extracted_0 = tensor.extract %arg5[%5, %arg4] : tensor<3x4xf32>
      %6 = arith.addf %extracted_0, %cst : f32
      %inserted = tensor.insert %6 into %arg5[%5, %arg4] : tensor<3x4xf32>
      scf.yield %inserted : tensor<3x4xf32>
    }
    scf.yield %1 : tensor<3x4xf32>
  }
  return %0 : tensor<3x4xf32>
}
