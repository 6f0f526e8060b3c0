// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v4 %s | FileCheck %s --implicit-check-not=malloc --implicit-check-not=@free --implicit-check-not=memref.

// Scratch beyond the per-workgroup stack budget (128 KiB) comes from a
// scratch binding: one more `!llvm.ptr {llvm.noalias}` argument, the
// kernel's last binding, of per-workgroup bytes x workgroup count
// (`kiln.scratch_bytes`), which the host plan places in the arena. Each
// scratch buffer is a memref.view of it at
//   (wg_x + cx * (wg_y + cy * wg_z)) * per-workgroup bytes + offset,
// which the LLVM dialect shows as an i8 getelementptr on the binding.
// Small scratch stays on the stack; nothing calls malloc. (The CPU is
// pinned: on AVX2 a contraction here would also copy its B into a stack
// lane panel, copy-lanes.mlir.)

// Workgroup counts.
// CHECK: module attributes {kiln.workgroups = {dispatch_0 = array<i64: 1, 1, 1>, dispatch_1 = array<i64: 8, 1, 1>, dispatch_2 = array<i64: 13, 1, 1>, dispatch_3 = array<i64: 32, 1, 1>}}

// dispatch_0: one workgroup, 512 KiB of scratch (refused before the
// scratch binding: "needs 524288 bytes of scratch inside one workgroup"):
// 3 inputs, 1 output, then the scratch binding.
// CHECK-LABEL: llvm.func internal @dispatch_0_impl(%arg0: !llvm.ptr {llvm.noalias}, %arg1: !llvm.ptr {llvm.noalias}, %arg2: !llvm.ptr {llvm.noalias}, %arg3: !llvm.ptr {llvm.noalias}, %arg4: !llvm.ptr {llvm.noalias}, %arg5: i64, %arg6: i64, %arg7: i64)
// CHECK-SAME: kiln.scratch_bytes = 524288 : i64
// CHECK-NOT: llvm.alloca
// CHECK: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NOT: llvm.alloca
// CHECK: llvm.return

// dispatch_1: 8 workgroups, two 256 KiB buffers each: 512 KiB per
// workgroup, 4 MiB in all; the second buffer at +256 KiB.
// CHECK-LABEL: llvm.func internal @dispatch_1_impl(%arg0: !llvm.ptr {llvm.noalias}, %arg1: !llvm.ptr {llvm.noalias}, %arg2: !llvm.ptr {llvm.noalias}, %arg3: i64, %arg4: i64, %arg5: i64)
// CHECK-SAME: kiln.scratch_bytes = 4194304 : i64
// CHECK-NOT: llvm.alloca
// CHECK-DAG: %[[OFF1:.*]] = llvm.mlir.constant(262144 : index) : i64
// CHECK-DAG: %[[PER1:.*]] = llvm.mlir.constant(524288 : index) : i64
// CHECK-DAG: %[[CX1:.*]] = llvm.mlir.constant(8 : index) : i64
// CHECK: %[[YZ1:.*]] = llvm.add %arg4, %arg5 : i64
// CHECK: %[[YZX1:.*]] = llvm.mul %[[YZ1]], %[[CX1]] : i64
// CHECK: %[[LIN1:.*]] = llvm.add %arg3, %[[YZX1]] : i64
// CHECK: %[[BASE1:.*]] = llvm.mul %[[LIN1]], %[[PER1]] : i64
// CHECK-NOT: llvm.alloca
// CHECK: llvm.getelementptr %{{.*}}[%[[BASE1]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NOT: llvm.alloca
// CHECK: %[[SECOND1:.*]] = llvm.add %[[BASE1]], %[[OFF1]] : i64
// CHECK-NOT: llvm.alloca
// CHECK: llvm.getelementptr %{{.*}}[%[[SECOND1]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NOT: llvm.alloca
// CHECK: llvm.return

// dispatch_2: the last of 13 workgroups has a partial tile, so the scratch
// tile has a dynamic size; its upper bound (8 rows, 256 KiB) sizes the
// slice: 13 x 256 KiB.
// CHECK-LABEL: llvm.func internal @dispatch_2_impl(%arg0: !llvm.ptr {llvm.noalias}, %arg1: !llvm.ptr {llvm.noalias}, %arg2: !llvm.ptr {llvm.noalias}, %arg3: i64, %arg4: i64, %arg5: i64)
// CHECK-SAME: kiln.scratch_bytes = 3407872 : i64
// CHECK-NOT: llvm.alloca
// CHECK: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK-NOT: llvm.alloca
// CHECK: llvm.return

// dispatch_3: 2-row tiles need 64 KiB, within the stack budget: no
// scratch binding, a stack alloca.
// CHECK-LABEL: llvm.func internal @dispatch_3_impl(%arg0: !llvm.ptr {llvm.noalias}, %arg1: !llvm.ptr {llvm.noalias}, %arg2: i64, %arg3: i64, %arg4: i64)
// CHECK-NOT: kiln.scratch_bytes
// CHECK: llvm.alloca %{{.*}} x f32 {alignment = 64 : i64}

// The wrappers load one more binding pointer for the scratch binding.
// CHECK-LABEL: llvm.func internal @dispatch_0(
// CHECK-COUNT-5: llvm.getelementptr
// CHECK: llvm.call @dispatch_0_impl(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
// CHECK-LABEL: llvm.func internal @dispatch_1(
// CHECK-COUNT-3: llvm.getelementptr
// CHECK: llvm.call @dispatch_1_impl(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()

// The kernel table counts the scratch binding.
// CHECK-LABEL: llvm.mlir.global internal constant @kiln_kernel_table()
// CHECK: llvm.mlir.addressof @dispatch_0 :
// CHECK: llvm.mlir.constant(5 : i32)
// CHECK: llvm.mlir.addressof @dispatch_1 :
// CHECK: llvm.mlir.constant(3 : i32)
// CHECK: llvm.mlir.addressof @dispatch_2 :
// CHECK: llvm.mlir.constant(3 : i32)
// CHECK: llvm.mlir.addressof @dispatch_3 :
// CHECK: llvm.mlir.constant(2 : i32)

#id = affine_map<(d0, d1) -> (d0, d1)>

// One workgroup (the matmul's init is an input, so it is not split): the
// matmul accumulates into a 512 KiB copy of %arg2, as the input projection
// of a recurrent layer does.
func.func private @dispatch_0(%arg0: tensor<64x64xf32>, %arg1: tensor<64x2048xf32>, %arg2: tensor<64x2048xf32>) -> tensor<64x2048xf32> attributes {kiln.dispatch} {
  %0 = linalg.matmul ins(%arg0, %arg1 : tensor<64x64xf32>, tensor<64x2048xf32>) outs(%arg2 : tensor<64x2048xf32>) -> tensor<64x2048xf32>
  return %0 : tensor<64x2048xf32>
}

// 8 workgroups of 8 rows; the tiles of the two producers (8x8192 f32,
// 256 KiB each) are scratch.
func.func private @dispatch_1(%arg0: tensor<64x8192xf32>) -> tensor<64x8192xf32> attributes {kiln.dispatch, kiln.lowering_config = {strategy = "loop-order", workgroup_tile = array<i64: 8, 0>}} {
  %e0 = tensor.empty() : tensor<64x8192xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<64x8192xf32>) outs(%e0 : tensor<64x8192xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2 = math.exp %in : f32
    linalg.yield %2 : f32
  } -> tensor<64x8192xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<64x8192xf32>) outs(%e0 : tensor<64x8192xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2 = math.sqrt %in : f32
    linalg.yield %2 : f32
  } -> tensor<64x8192xf32>
  %3 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%1, %arg0 : tensor<64x8192xf32>, tensor<64x8192xf32>) outs(%e0 : tensor<64x8192xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %2 = arith.mulf %a, %b : f32
    linalg.yield %2 : f32
  } -> tensor<64x8192xf32>
  return %3 : tensor<64x8192xf32>
}

// 13 workgroups of 8 rows over 100 rows: the producer's tile is
// tensor<?x8192xf32>, at most 8 rows.
func.func private @dispatch_2(%arg0: tensor<100x8192xf32>) -> tensor<100x8192xf32> attributes {kiln.dispatch, kiln.lowering_config = {strategy = "loop-order", workgroup_tile = array<i64: 8, 0>}} {
  %e0 = tensor.empty() : tensor<100x8192xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<100x8192xf32>) outs(%e0 : tensor<100x8192xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2 = math.exp %in : f32
    linalg.yield %2 : f32
  } -> tensor<100x8192xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%0, %arg0 : tensor<100x8192xf32>, tensor<100x8192xf32>) outs(%e0 : tensor<100x8192xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %2 = arith.mulf %a, %b : f32
    linalg.yield %2 : f32
  } -> tensor<100x8192xf32>
  return %1 : tensor<100x8192xf32>
}

// 2-row tiles: 64 KiB of scratch, on the stack.
func.func private @dispatch_3(%arg0: tensor<64x8192xf32>) -> tensor<64x8192xf32> attributes {kiln.dispatch, kiln.lowering_config = {strategy = "loop-order", workgroup_tile = array<i64: 2, 0>}} {
  %e0 = tensor.empty() : tensor<64x8192xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<64x8192xf32>) outs(%e0 : tensor<64x8192xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2 = math.exp %in : f32
    linalg.yield %2 : f32
  } -> tensor<64x8192xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%0, %arg0 : tensor<64x8192xf32>, tensor<64x8192xf32>) outs(%e0 : tensor<64x8192xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %2 = arith.mulf %a, %b : f32
    linalg.yield %2 : f32
  } -> tensor<64x8192xf32>
  return %1 : tensor<64x8192xf32>
}
