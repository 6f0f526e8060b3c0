// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=CONFIG
// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=KERNEL --implicit-check-not=memref.alloc --implicit-check-not=llvm.alloca

// Register tiles over a B in f32 lane panels (lane-panels.mlir packs it):
// [ceil(N/16)][K][16] read through (n floordiv 16, k, n mod 16). Per k a
// tile loads its panel row (16 f32, two ymm in LLVM) with a plain load,
// broadcasts one A element per row and issues rows x 2 FMAs; its panel
// and first lane are computed once per tile, not per k. The right edge
// of dispatch_0 (N = 200: 8 valid lanes of the last panel) loads masked,
// so nothing past the last panel is read. Workgroups start at any
// multiple of the tile lanes: the kernel reads the whole packed B at the
// workgroup's first column + n (dispatch_1: 1 x 64 tiles of a batch-1
// layer, four panels per k).

// CONFIG-LABEL: func.func private @dispatch_0(
// CONFIG-SAME: reduction_tile = 256 : i64, register_tile = array<i64: 6, 16>, strategy = "contraction", workgroup_tile = array<i64: 60, 64, 0>
// CONFIG-LABEL: func.func private @dispatch_1(
// CONFIG-SAME: register_tile = array<i64: 1, 64>, strategy = "contraction"

// KERNEL-LABEL: llvm.func internal @dispatch_0_impl(
// The panel and lane of the tile: unsigned (no signed floordiv, whose
// selects LLVM left in the k loop), once per tile.
// KERNEL-NOT: llvm.sdiv
// KERNEL: llvm.udiv
// KERNEL-NEXT: llvm.urem
// KERNEL: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
// KERNEL-COUNT-6: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// KERNEL: llvm.intr.masked.load %{{.*}} : (!llvm.ptr, vector<8xi1>, vector<8xf32>) -> vector<8xf32>
// KERNEL-LABEL: llvm.func internal @dispatch_1_impl(
// KERNEL-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
// KERNEL: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<64xf32>, vector<64xf32>, vector<64xf32>) -> vector<64xf32>
module {
  func.func private @dispatch_0(%a: tensor<130x600xf32>, %b: tensor<13x600x16xf32>) -> tensor<130x200xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<130x200xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<130x200xf32>) -> tensor<130x200xf32>
    %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n floordiv 16, k, n mod 16)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<130x600xf32>, tensor<13x600x16xf32>) outs(%1 : tensor<130x200xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    } -> tensor<130x200xf32>
    return %2 : tensor<130x200xf32>
  }
  func.func private @dispatch_1(%a: tensor<1x512xf32>, %b: tensor<64x512x16xf32>) -> tensor<1x1024xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<1x1024xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x1024xf32>) -> tensor<1x1024xf32>
    %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n floordiv 16, k, n mod 16)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1x512xf32>, tensor<64x512x16xf32>) outs(%1 : tensor<1x1024xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    } -> tensor<1x1024xf32>
    return %2 : tensor<1x1024xf32>
  }
}
