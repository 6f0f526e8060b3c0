// RUN: not kiln-opt --kiln-cpu-codegen=cpu=cooperlake %s 2>&1 | FileCheck %s

// A hand-set AMX configuration on a CPU without AMX (cooperlake has
// AVX512-BF16 and VNNI, no tile unit) is an error naming the CPU and the
// missing extension, not a kernel that dies of SIGILL.

// CHECK: error: 'linalg.generic' op the lowering config asks for AMX tiles, {{.*}} and CPU 'cooperlake' with AMX-BF16
func.func private @dispatch_0(%a: tensor<32x64xbf16>, %b: tensor<2x32x16x2xbf16>) -> tensor<32x32xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "amx", operand_type = bf16, reduction_tile = 0 : i64, register_tile = array<i64: 32, 32>, strategy = "contraction", workgroup_tile = array<i64: 32, 32, 0>}} {
  %c0 = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<32x32xf32>
  %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<32x32xf32>) -> tensor<32x32xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n floordiv 16, k floordiv 2, n mod 16, k mod 2)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<32x64xbf16>, tensor<2x32x16x2xbf16>) outs(%1 : tensor<32x32xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  return %2 : tensor<32x32xf32>
}
