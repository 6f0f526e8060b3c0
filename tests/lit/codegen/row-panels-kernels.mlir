// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=CONFIG
// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=KERNEL --implicit-check-not=memref.alloc

// Register tiles over an A in row panels (row-panels.mlir packs it):
// [ceil(M/8)][K][8] read through (m floordiv 8, k, m mod 8). The config is
// the one an unpacked A gets (8 x 32 on AVX-512), and the kernel the same
// vector FMAs with nothing on the heap (36 rows: a ragged last tile). The
// values are checked against onnxruntime by //tests/e2e:codegen_numerics
// (convs of 37, 50 and 70 output channels) and implicit_gemm_e2e, whose
// filters take row panels.

// CONFIG-LABEL: func.func private @conv_1x1(
// CONFIG-SAME: register_tile = array<i64: 8, 32>, strategy = "contraction"

// KERNEL-LABEL: llvm.func internal @conv_1x1_impl(
// KERNEL-COUNT-8: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>

#a = affine_map<(n, m, p, k) -> (m floordiv 8, k, m mod 8)>
#b = affine_map<(n, m, p, k) -> (n, k, p)>
#c = affine_map<(n, m, p, k) -> (n, m, p)>
func.func private @conv_1x1(%w: tensor<5x64x8xf32>, %x: tensor<1x64x200xf32>) -> tensor<1x36x200xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<1x36x200xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x36x200xf32>) -> tensor<1x36x200xf32>
  %2 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%w, %x : tensor<5x64x8xf32>, tensor<1x64x200xf32>) outs(%1 : tensor<1x36x200xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %3 = arith.mulf %in, %in_0 : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<1x36x200xf32>
  return %2 : tensor<1x36x200xf32>
}
