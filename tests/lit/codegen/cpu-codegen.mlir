// RUN: kiln-opt --kiln-cpu-codegen=codegen=scalar %s | FileCheck %s --implicit-check-not=malloc --implicit-check-not=@free --implicit-check-not=func.func --implicit-check-not=linalg. --implicit-check-not=memref. --implicit-check-not=bufferization. --implicit-check-not=scf.
// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v4 %s | FileCheck %s --implicit-check-not=malloc --implicit-check-not=@free --implicit-check-not=func.func --implicit-check-not=linalg. --implicit-check-not=memref. --implicit-check-not=bufferization. --implicit-check-not=scf.

// kiln-cpu-codegen turns kiln.dispatch functions into LLVM-dialect kernels
// of the Kiln kernel ABI. Only ABI-level properties are checked here (the
// vectorized loop bodies are free to change): the module-level workgroup
// counts, the kernel implementation signatures (bare pointers per binding,
// then the three workgroup ids), the ABI wrappers, the kernel table, the
// exported query function, and that nothing is left but the LLVM dialect
// and kernels never call malloc/free (scratch is on the stack or, beyond
// its budget, in a scratch binding: cpu-codegen-scratch.mlir).

// Workgroup counts per kernel: the elementwise kernel is split along its
// rows only; the matmul + bias kernel is tiled into 64x64 output tiles,
// 128/64 = 2 by 256/64 = 4 (AVX-512's 8-row register tiles; the CPU is
// pinned so that an AVX2 host, with 6-row tiles, 60-row workgroups and 3
// of them, checks the same module).
// CHECK: module attributes {kiln.workgroups = {dispatch_0 = array<i64: {{[1-9][0-9]*}}, 1, 1>, dispatch_1 = array<i64: 2, 4, 1>}}

// Implementations: inputs, then outputs, as bare `noalias` pointers (the
// plan never binds overlapping buffers to one dispatch), then the
// workgroup ids as i64; internal linkage.
// CHECK: llvm.func internal @dispatch_0_impl(%{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64)
// CHECK-SAME: kiln.kernel = "dispatch_0", kiln.num_inputs = 1 : i64, kiln.num_outputs = 1 : i64
// CHECK: llvm.func internal @dispatch_1_impl(%{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64)
// CHECK-SAME: kiln.kernel = "dispatch_1", kiln.num_inputs = 3 : i64, kiln.num_outputs = 1 : i64, kiln.workgroups = array<i64: 2, 4, 1>

// The ABI wrapper: (kiln_dispatch_state *, wg_x, wg_y, wg_z) -> status.
// Before touching a binding, once per call, it checks the state against
// what the kernel was compiled for: the binding and push-constant counts
// (state fields 4 and 5), every binding size (field 1; dispatch_0's two
// bindings are 32x1024 f32, 131072 bytes), the workgroup grid (field 3) and
// the workgroup ids. A mismatch branches to the last block, which returns
// the KILN_KERNEL_BAD_* code (1 to 4). Then it loads the bindings array,
// one pointer per binding, widens the workgroup ids, calls the
// implementation and returns 0.
// CHECK-LABEL: llvm.func internal @dispatch_0(%arg0: !llvm.ptr, %arg1: i32, %arg2: i32, %arg3: i32) -> i32 {
// CHECK-DAG: llvm.getelementptr %arg0[0, 4] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, ptr, ptr, array<3 x i32>, i32, i32)>
// CHECK-DAG: llvm.getelementptr %arg0[0, 5] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, ptr, ptr, array<3 x i32>, i32, i32)>
// CHECK-DAG: llvm.mlir.constant(2 : i32) : i32
// CHECK: llvm.cond_br %{{.*}}, ^[[FAIL:bb[0-9]+]](%{{.*}} : i32), ^bb1
// CHECK: ^bb1:
// CHECK: llvm.getelementptr %arg0[0, 1]
// CHECK-COUNT-2: llvm.mlir.constant(131072 : i64) : i64
// CHECK: llvm.cond_br %{{.*}}, ^[[FAIL]](%{{.*}} : i32), ^bb2
// CHECK: ^bb2:
// CHECK: llvm.getelementptr %arg0[0, 3, 0]
// CHECK: llvm.cond_br %{{.*}}, ^[[FAIL]](%{{.*}} : i32), ^bb3
// CHECK: ^bb3:
// CHECK: llvm.icmp "uge" %arg1,
// CHECK: llvm.cond_br %{{.*}}, ^[[FAIL]](%{{.*}} : i32), ^bb4
// CHECK: ^bb4:
// CHECK-NEXT: %[[B:.*]] = llvm.load %arg0 : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[S0:.*]] = llvm.getelementptr %[[B]][0]
// CHECK-NEXT: %[[P0:.*]] = llvm.load %[[S0]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[S1:.*]] = llvm.getelementptr %[[B]][1]
// CHECK-NEXT: %[[P1:.*]] = llvm.load %[[S1]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT: %[[X:.*]] = llvm.zext %arg1 : i32 to i64
// CHECK-NEXT: %[[Y:.*]] = llvm.zext %arg2 : i32 to i64
// CHECK-NEXT: %[[Z:.*]] = llvm.zext %arg3 : i32 to i64
// CHECK-NEXT: llvm.call @dispatch_0_impl(%[[P0]], %[[P1]], %[[X]], %[[Y]], %[[Z]])
// CHECK-NEXT: %[[OK:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.return %[[OK]] : i32
// CHECK-NEXT: ^[[FAIL]](%[[CODE:.*]]: i32):
// CHECK-NEXT: llvm.return %[[CODE]] : i32
// CHECK-LABEL: llvm.func internal @dispatch_1(%arg0: !llvm.ptr, %arg1: i32, %arg2: i32, %arg3: i32) -> i32 {
// CHECK-COUNT-4: llvm.getelementptr
// CHECK: llvm.call @dispatch_1_impl(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
// CHECK: llvm.return

// Per kernel, its bindings as compiled: {size, access (0 read, 1 write),
// reserved}.
// CHECK-LABEL: llvm.mlir.global internal constant @dispatch_0_bindings() {{.*}} : !llvm.array<2 x struct<(i64, i32, i32)>>
// CHECK-LABEL: llvm.mlir.global internal constant @dispatch_1_bindings() {{.*}} : !llvm.array<4 x struct<(i64, i32, i32)>>
// CHECK-DAG: llvm.mlir.constant(32768 : i64)
// CHECK-DAG: llvm.mlir.constant(65536 : i64)
// CHECK-DAG: llvm.mlir.constant(1024 : i64)
// CHECK-DAG: llvm.mlir.constant(131072 : i64)

// The kernel table (ABI version 2): {name, function, binding count, push
// constants, bindings, workgroup grid, reserved} per kernel, in dispatch
// order.
// CHECK: llvm.mlir.global internal constant @dispatch_0_name("dispatch_0\00")
// CHECK: llvm.mlir.global internal constant @dispatch_1_name("dispatch_1\00")
// CHECK-LABEL: llvm.mlir.global internal constant @kiln_kernel_table() {{.*}} : !llvm.array<2 x struct<(ptr, ptr, i32, i32, ptr, array<3 x i32>, i32)>>
// CHECK: llvm.mlir.addressof @dispatch_0_name
// CHECK: llvm.mlir.addressof @dispatch_0 :
// CHECK: llvm.mlir.constant(2 : i32)
// CHECK: llvm.mlir.addressof @dispatch_0_bindings
// CHECK: llvm.mlir.addressof @dispatch_1_name
// CHECK: llvm.mlir.addressof @dispatch_1 :
// CHECK: llvm.mlir.constant(4 : i32)
// CHECK: llvm.mlir.addressof @dispatch_1_bindings
// CHECK-LABEL: llvm.mlir.global internal constant @kiln_library() {{.*}} : !llvm.struct<(i32, i32, ptr)>
// CHECK: llvm.mlir.addressof @kiln_kernel_table

// The one exported symbol: returns the library for ABI version 2, null
// otherwise.
// CHECK-LABEL: llvm.func @kiln_cpu_library_query(%arg0: i32) -> !llvm.ptr {
// CHECK: %[[V:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: %[[SAME:.*]] = llvm.icmp "eq" %arg0, %[[V]] : i32
// CHECK: %[[LIB:.*]] = llvm.mlir.addressof @kiln_library : !llvm.ptr
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[R:.*]] = llvm.select %[[SAME]], %[[LIB]], %[[NULL]] : i1, !llvm.ptr
// CHECK: llvm.return %[[R]] : !llvm.ptr

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// An elementwise kernel (32x1024, 128 KiB per buffer).
func.func private @dispatch_0(%arg0: tensor<32x1024xf32>) -> tensor<32x1024xf32> attributes {kiln.dispatch} {
  %0 = tensor.empty() : tensor<32x1024xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<32x1024xf32>) outs(%0 : tensor<32x1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2 = math.tanh %in : f32
    linalg.yield %2 : f32
  } -> tensor<32x1024xf32>
  return %1 : tensor<32x1024xf32>
}

// matmul + bias, as kiln-form-dispatches groups them.
func.func private @dispatch_1(%arg0: tensor<128x64xf32>, %arg1: tensor<64x256xf32>, %arg2: tensor<256xf32>) -> tensor<128x256xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<128x256xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<128x256xf32>) -> tensor<128x256xf32>
  %2 = linalg.matmul ins(%arg0, %arg1 : tensor<128x64xf32>, tensor<64x256xf32>) outs(%1 : tensor<128x256xf32>) -> tensor<128x256xf32>
  %3 = tensor.empty() : tensor<128x256xf32>
  %4 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%2, %arg2 : tensor<128x256xf32>, tensor<256xf32>) outs(%3 : tensor<128x256xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.addf %in, %in_0 : f32
    linalg.yield %5 : f32
  } -> tensor<128x256xf32>
  return %4 : tensor<128x256xf32>
}
