// RUN: kiln-opt --kiln-cpu-codegen=codegen=scalar %s | FileCheck %s

// Regression: a dispatch whose output is larger than the 256 KiB kernel
// stack limit must compile, since each workgroup only touches a 4x1024
// tile. The untiled original left behind by workgroup tiling once got a
// whole-tensor scratch buffer in bufferization ("needs 1048576 bytes of
// scratch inside one workgroup"); dead ops are now removed right after
// tiling.

// CHECK: module attributes {kiln.workgroups = {dispatch_0 = array<i64: {{[1-9][0-9]*}}, 1, 1>}}
// CHECK: llvm.func internal @dispatch_0(%arg0: !llvm.ptr, %arg1: i32, %arg2: i32, %arg3: i32) -> i32
// CHECK: llvm.func @kiln_cpu_library_query
func.func private @dispatch_0(%arg0: tensor<256x1024xf32>) -> tensor<256x1024xf32> attributes {kiln.dispatch} {
  %0 = tensor.empty() : tensor<256x1024xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<256x1024xf32>) outs(%0 : tensor<256x1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2 = math.tanh %in : f32
    linalg.yield %2 : f32
  } -> tensor<256x1024xf32>
  return %1 : tensor<256x1024xf32>
}
