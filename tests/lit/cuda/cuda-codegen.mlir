// RUN: kiln-opt --kiln-cuda-codegen=chip=sm_80 %s -split-input-file | FileCheck %s

// A broadcast add + exp over 64x300: the iteration space is collapsed to
// 19200 elements and tiled by 256 threads per block (75 blocks), one
// element per thread; the kernel takes the bindings as bare pointers in
// binding order (inputs, then the output) even though the generic reads
// its operands in another order.

#id = affine_map<(d0, d1) -> (d0, d1)>
#bc = affine_map<(d0, d1) -> (d1)>
func.func @dispatch_0(%a: tensor<64x300xf32>, %b: tensor<300xf32>) -> tensor<64x300xf32> attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<64x300xf32>
  %r = linalg.generic {indexing_maps = [#bc, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%b, %a : tensor<300xf32>, tensor<64x300xf32>) outs(%e : tensor<64x300xf32>) {
  ^bb0(%y: f32, %x: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = math.exp %s : f32
    linalg.yield %t : f32
  } -> tensor<64x300xf32>
  return %r : tensor<64x300xf32>
}

// CHECK: module attributes {gpu.container_module, kiln.gpu_launches = {dispatch_0 = {block = array<i64: 256, 1, 1>, entry = "dispatch_0_kernel", grid = array<i64: 75, 1, 1>, shape = "flat", shared_memory = 0 : i64}
// CHECK: func.func @dispatch_0(%[[A:.*]]: memref<64x300xf32>, %[[B:.*]]: memref<300xf32>, %[[OUT:.*]]: memref<64x300xf32>)
// CHECK-SAME: kiln.lowering_config = {block_size = 256 : i64}
// CHECK-DAG: %[[C75:.*]] = arith.constant 75 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: gpu.launch_func @dispatch_0_kernel::@dispatch_0_kernel blocks in (%[[C75]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) args(%[[A]] : memref<64x300xf32>, %[[B]] : memref<300xf32>, %[[OUT]] : memref<64x300xf32>)
// CHECK: gpu.module @dispatch_0_kernel [#nvvm.target<O = 3, chip = "sm_80">]
// CHECK: llvm.func @__nv_expf(f32) -> f32
// CHECK: llvm.func @dispatch_0_kernel(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-SAME: gpu.kernel
// CHECK-SAME: nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>
// CHECK: nvvm.read.ptx.sreg.ctaid.x
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: llvm.icmp "ult"
// CHECK: llvm.call @__nv_expf
// CHECK: llvm.store

// -----

// Six elements get one block of one warp; a set lowering config is kept
// (here block_size 64 for a 4x100 tensor: 400 elements, 4 per thread with
// vector loads, 100 threads: 2 blocks).

func.func @dispatch_0(%a: tensor<2x3xf32>) -> tensor<2x3xf32> attributes {kiln.dispatch} {
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %x : f32
    linalg.yield %m : f32
  } -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

func.func @dispatch_1(%a: tensor<4x100xi32>) -> tensor<4x100xi32> attributes {kiln.dispatch, kiln.lowering_config = {block_size = 64 : i64}} {
  %e = tensor.empty() : tensor<4x100xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x100xi32>) outs(%e : tensor<4x100xi32>) {
  ^bb0(%x: i32, %o: i32):
    %m = arith.addi %x, %x : i32
    linalg.yield %m : i32
  } -> tensor<4x100xi32>
  return %r : tensor<4x100xi32>
}

// CHECK: // -----
// CHECK: dispatch_0 = {block = array<i64: 32, 1, 1>, entry = "dispatch_0_kernel", grid = array<i64: 1, 1, 1>, shape = "flat", shared_memory = 0 : i64}
// CHECK-SAME: dispatch_1 = {block = array<i64: 64, 1, 1>, entry = "dispatch_1_kernel", grid = array<i64: 2, 1, 1>, shape = "flat-vector4", shared_memory = 0 : i64}
// CHECK: gpu.module @dispatch_0_kernel
// CHECK: llvm.func @dispatch_0_kernel(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-SAME: nvvm.maxntid = array<i32: 32, 1, 1>
// CHECK: llvm.fmul
// CHECK: gpu.module @dispatch_1_kernel
// CHECK: llvm.func @dispatch_1_kernel(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-SAME: nvvm.maxntid = array<i32: 64, 1, 1>
// CHECK: llvm.add %{{.*}} : i32
