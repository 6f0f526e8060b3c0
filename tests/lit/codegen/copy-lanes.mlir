// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=AVX2
// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=AVX512
// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=KERNEL --implicit-check-not=memref.alloc

// f32 B computed at run time, copied by the kernel into a contiguous lane
// panel per K block and lane tile (`pack_b = "lanes"`, AVX2 only), which
// every row tile of the workgroup then reads: chosen where re-reading B's
// rows in every row tile is costly, a new page per k (rows >= 4 KiB
// apart) or rows off the 64-byte lines (a 14x14 or 7x7 conv input), and
// with at least 8 row tiles and K >= 32 to repay the copy; such
// workgroups are taller (up to 256 rows). AVX-512 never copies.

// A 1024-wide B: 4 KiB rows.
// AVX2-LABEL: func.func private @page_rows
// AVX2-SAME: pack_b = "lanes", reduction_tile = 256 : i64, register_tile = array<i64: 6, 16>, strategy = "contraction", workgroup_tile = array<i64: 258, 64, 0>
// AVX512-LABEL: func.func private @page_rows
// AVX512-NOT: pack_b
// AVX512-SAME: strategy = "contraction"
func.func private @page_rows(%a: tensor<300x512xf32>, %b: tensor<512x1024xf32>) -> tensor<300x1024xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<300x1024xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<300x1024xf32>) -> tensor<300x1024xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<300x512xf32>, tensor<512x1024xf32>) outs(%1 : tensor<300x1024xf32>) -> tensor<300x1024xf32>
  return %2 : tensor<300x1024xf32>
}

// A 1x1 conv on a 14x14 plane: 784-byte rows, off the lines.
// AVX2-LABEL: func.func private @misaligned_rows
// AVX2-SAME: pack_b = "lanes"
func.func private @misaligned_rows(%w: tensor<256x64xf32>, %x: tensor<1x64x196xf32>) -> tensor<1x256x196xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<1x256x196xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x256x196xf32>) -> tensor<1x256x196xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(n, m, p, k) -> (m, k)>, affine_map<(n, m, p, k) -> (n, k, p)>, affine_map<(n, m, p, k) -> (n, m, p)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%w, %x : tensor<256x64xf32>, tensor<1x64x196xf32>) outs(%1 : tensor<1x256x196xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x256x196xf32>
  return %2 : tensor<1x256x196xf32>
}

// 28x28: 3136-byte rows on whole lines and under a page: no copy.
// AVX2-LABEL: func.func private @aligned_rows
// AVX2-NOT: pack_b
// AVX2-SAME: strategy = "contraction"
func.func private @aligned_rows(%w: tensor<256x64xf32>, %x: tensor<1x64x784xf32>) -> tensor<1x256x784xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<1x256x784xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x256x784xf32>) -> tensor<1x256x784xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(n, m, p, k) -> (m, k)>, affine_map<(n, m, p, k) -> (n, k, p)>, affine_map<(n, m, p, k) -> (n, m, p)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%w, %x : tensor<256x64xf32>, tensor<1x64x784xf32>) outs(%1 : tensor<1x256x784xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x256x784xf32>
  return %2 : tensor<1x256x784xf32>
}

// Too few rows (5 row tiles) or too short a K (16) to repay the copy.
// AVX2-LABEL: func.func private @few_rows
// AVX2-NOT: pack_b
// AVX2-SAME: strategy = "contraction"
// AVX2-LABEL: func.func private @short_k
// AVX2-NOT: pack_b
// AVX2-SAME: strategy = "contraction"
func.func private @few_rows(%a: tensor<30x512xf32>, %b: tensor<512x1024xf32>) -> tensor<30x1024xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<30x1024xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<30x1024xf32>) -> tensor<30x1024xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<30x512xf32>, tensor<512x1024xf32>) outs(%1 : tensor<30x1024xf32>) -> tensor<30x1024xf32>
  return %2 : tensor<30x1024xf32>
}
func.func private @short_k(%a: tensor<300x16xf32>, %b: tensor<16x1024xf32>) -> tensor<300x1024xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<300x1024xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<300x1024xf32>) -> tensor<300x1024xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<300x16xf32>, tensor<16x1024xf32>) outs(%1 : tensor<300x1024xf32>) -> tensor<300x1024xf32>
  return %2 : tensor<300x1024xf32>
}

// The kernel (a hand-set config): per K block and lane tile, 64 rows of B
// are copied into a 64 x 16 f32 stack panel (masked on the 200-lane edge:
// zeros past the valid lanes), then each row tile loads its B vector from
// the panel with a plain load, six broadcasts and twelve FMAs per k.
// KERNEL-LABEL: llvm.func internal @dispatch_copy_impl(
// KERNEL: llvm.alloca %{{.*}} x f32 {alignment = 64 : i64}
// KERNEL: llvm.intr.masked.load %{{.*}} : (!llvm.ptr, vector<16xi1>, vector<16xf32>) -> vector<16xf32>
// KERNEL: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
// KERNEL: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
// KERNEL-COUNT-6: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
func.func private @dispatch_copy(%a: tensor<130x128xf32>, %b: tensor<128x200xf32>) -> tensor<130x200xf32> attributes {kiln.dispatch, kiln.lowering_config = {pack_b = "lanes", reduction_tile = 64 : i64, register_tile = array<i64: 6, 16>, strategy = "contraction", workgroup_tile = array<i64: 66, 64, 0>}} {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<130x200xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<130x200xf32>) -> tensor<130x200xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<130x128xf32>, tensor<128x200xf32>) outs(%1 : tensor<130x200xf32>) -> tensor<130x200xf32>
  return %2 : tensor<130x200xf32>
}
