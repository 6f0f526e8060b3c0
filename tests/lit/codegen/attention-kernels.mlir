// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=V4
// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=V3
// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=KV4 --implicit-check-not=malloc --implicit-check-not=expf
// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=KV3 --implicit-check-not=malloc --implicit-check-not=expf

// A dispatch of one kiln.attention takes the "attention" strategy
// (AttentionKernel.h): heads x query-row workgroups, register tiles of 4
// query rows by 64 keys on AVX-512 (4 x 4 zmm score accumulators), 6 by
// 16 on AVX2 (6 x 2 ymm). The kernel's score loop issues one FMA
// per row and key vector per head-size step (unrolled by 4: 32 = 8 x 4),
// its softmax is online (e^x as the vector polynomial, no libm call), and
// P V accumulates into the output rows; nothing is allocated but the
// stack tile of probabilities (4 x 64 floats).

// BERT-like heads: 12 heads of 128 queries and keys, head size 32: 64-row
// workgroups (24 of them; the rows double while 16 or more are left; 48
// rows on AVX2).
// V4-LABEL: func.func private @dispatch_0(
// V4-SAME: kiln.lowering_config = {register_tile = array<i64: 4, 64>, strategy = "attention", workgroup_tile = array<i64: 1, 64>}
// V3-LABEL: func.func private @dispatch_0(
// V3-SAME: kiln.lowering_config = {register_tile = array<i64: 6, 16>, strategy = "attention", workgroup_tile = array<i64: 1, 48>}
// Odd shapes (77 queries, 50 keys, 40 / 24 head sizes; a mask broadcast
// over the heads and queries): 6 heads of 3 32-row workgroups (4 of 24
// rows on AVX2).
// V4-LABEL: func.func private @dispatch_1(
// V4-SAME: kiln.lowering_config = {register_tile = array<i64: 4, 64>, strategy = "attention", workgroup_tile = array<i64: 1, 32>}
// V3-LABEL: func.func private @dispatch_1(
// V3-SAME: kiln.lowering_config = {register_tile = array<i64: 6, 16>, strategy = "attention", workgroup_tile = array<i64: 1, 24>}

// KV4-LABEL: llvm.func internal @dispatch_0_impl(
// KV4: llvm.alloca %{{.*}} x f32 {alignment = 64 : i64} : (i64) -> !llvm.ptr
// Scores: 4 key vectors, then 4 query broadcasts x 4 FMAs, per step.
// KV4-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
// KV4-COUNT-16: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// The online softmax: a row maximum by compares and selects (vmaxps), e^x
// as a polynomial (its exponent rounded by floor), the row sum
// reassociated (a tree, not a chain of scalar adds).
// KV4: llvm.fcmp "ogt" %{{.*}}, %{{.*}} : vector<16xf32>
// KV4: llvm.intr.floor(%{{.*}}) : (vector<16xf32>) -> vector<16xf32>
// KV4: "llvm.intr.vector.reduce.fadd"(%{{.*}}, %{{.*}}) <{fastmathFlags = #llvm.fastmath<reassoc>}> : (f32, vector<16xf32>) -> f32
// P V: 2 output vectors per row (head size 32), 8 FMAs per key.
// KV4-COUNT-8: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// KV4-LABEL: llvm.func internal @dispatch_1_impl(
// Odd head sizes: the key block's tail and the output rows' tail are
// masked.
// KV4: llvm.intr.masked.load
// KV4: llvm.intr.masked.store

// KV3-LABEL: llvm.func internal @dispatch_0_impl(
// KV3-COUNT-2: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<8xf32>
// KV3-COUNT-12: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// KV3: "llvm.intr.vector.reduce.fadd"(%{{.*}}, %{{.*}}) <{fastmathFlags = #llvm.fastmath<reassoc>}> : (f32, vector<8xf32>) -> f32
// KV3-LABEL: llvm.func internal @dispatch_1_impl(
module {
  func.func private @dispatch_0(%q: tensor<12x128x32xf32>, %kt: tensor<12x32x128xf32>, %v: tensor<12x128x32xf32>) -> tensor<12x128x32xf32> attributes {kiln.dispatch} {
    %o = kiln.attention %q, %kt, %v {scale = 0.176776692 : f32} : tensor<12x128x32xf32>, tensor<12x32x128xf32>, tensor<12x128x32xf32> -> tensor<12x128x32xf32>
    return %o : tensor<12x128x32xf32>
  }
  func.func private @dispatch_1(%q: tensor<2x3x77x40xf32>, %kt: tensor<2x3x40x50xf32>, %v: tensor<2x3x50x24xf32>, %m: tensor<2x1x1x50xf32>) -> tensor<2x3x77x24xf32> attributes {kiln.dispatch} {
    %o = kiln.attention %q, %kt, %v mask %m {scale = 0.158113882 : f32} : tensor<2x3x77x40xf32>, tensor<2x3x40x50xf32>, tensor<2x3x50x24xf32>, tensor<2x1x1x50xf32> -> tensor<2x3x77x24xf32>
    return %o : tensor<2x3x77x24xf32>
  }
}
