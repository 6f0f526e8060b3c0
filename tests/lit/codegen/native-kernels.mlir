// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=znver4 %s | FileCheck %s --check-prefix=CONFIG
// RUN: kiln-opt --kiln-cpu-codegen=cpu=znver4 %s | FileCheck %s --check-prefix=KERNEL
// RUN: not kiln-opt --kiln-cpu-codegen=cpu=x86-64-v4 %s 2>&1 | FileCheck %s --check-prefix=NOVNNI

// Contractions whose B the data tiling packed (pack-weights.mlir) run on
// the target's dot-product instructions. The config reports the path:
// "vnni" for i8 K quads (vpdpbusd), "dpbf16" for bf16 K pairs
// (vdpbf16ps). Per k group a tile loads one B vector of its columns x g
// packed elements (here 32 columns x 4 bytes), broadcasts a g-element
// group of A per row as one 32-bit pattern (flipped to unsigned with
// xor 0x80808080 for vpdpbusd) and issues one instruction per row and
// zmm register: 8 rows x 2 registers = 16 per step, i32 (or f32)
// accumulators kept across K.

// CONFIG-LABEL: func.func private @dispatch_0(
// CONFIG-SAME: native = "vnni", operand_type = i8, reduction_tile = 0 : i64, register_tile = array<i64: 8, 32>, strategy = "contraction"
// CONFIG-LABEL: func.func private @dispatch_1(
// CONFIG-SAME: native = "dpbf16", operand_type = bf16, reduction_tile = 0 : i64, register_tile = array<i64: 8, 32>, strategy = "contraction"

// KERNEL-LABEL: llvm.func internal @dispatch_0_impl(
// KERNEL: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<128xi8>
// KERNEL: llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> vector<4xi8>
// KERNEL: llvm.xor %{{.*}}, %{{.*}} : vector<16xi32>
// KERNEL-COUNT-16: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// KERNEL-COUNT-16: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<16xi32>, !llvm.ptr
// K = 130 is not a multiple of 4: the last group loads A masked.
// KERNEL: llvm.intr.masked.load %{{.*}} : (!llvm.ptr, vector<4xi1>, vector<4xi8>) -> vector<4xi8>
// KERNEL-LABEL: llvm.func internal @dispatch_1_impl(
// (bf16 memory accesses are i16 loads bitcast to bf16: see
// tests/lit/precision/bf16-arith-in-f32.test.)
// KERNEL: %[[PB:.*]] = llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> vector<64xi16>
// KERNEL-NEXT: llvm.bitcast %[[PB]] : vector<64xi16> to vector<64xbf16>
// KERNEL: %[[PA:.*]] = llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> vector<2xi16>
// KERNEL-NEXT: llvm.bitcast %[[PA]] : vector<2xi16> to vector<2xbf16>
// KERNEL-COUNT-16: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<32xbf16>, vector<32xbf16>) -> vector<16xf32>

// Packed layouts need the instruction: x86-64-v4 has AVX-512 but no VNNI.
// NOVNNI: error: 'linalg.generic' op reads B packed for the 'vnni' path, which CPU 'x86-64-v4' has no instruction for
module {
  func.func private @dispatch_0(%a: tensor<64x130xi8>, %b: tensor<33x256x4xi8>, %corr: tensor<256xi32>) -> tensor<64x256xi32> attributes {kiln.dispatch} {
    %0 = tensor.empty() : tensor<64x256xi32>
    %1 = linalg.generic {indexing_maps = [affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%corr : tensor<256xi32>) outs(%0 : tensor<64x256xi32>) {
    ^bb0(%in: i32, %out: i32):
      linalg.yield %in : i32
    } -> tensor<64x256xi32>
    %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k floordiv 4, n, k mod 4)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<64x130xi8>, tensor<33x256x4xi8>) outs(%1 : tensor<64x256xi32>) {
    ^bb0(%x: i8, %y: i8, %acc: i32):
      %c128 = arith.constant -128 : i8
      %f = arith.xori %x, %c128 : i8
      %xu = arith.extui %f : i8 to i32
      %ys = arith.extsi %y : i8 to i32
      %p = arith.muli %xu, %ys : i32
      %s = arith.addi %acc, %p : i32
      linalg.yield %s : i32
    } -> tensor<64x256xi32>
    return %2 : tensor<64x256xi32>
  }
  func.func private @dispatch_1(%a: tensor<64x128xbf16>, %b: tensor<64x256x2xbf16>) -> tensor<64x256xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<64x256xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64x256xf32>) -> tensor<64x256xf32>
    %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k floordiv 2, n, k mod 2)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<64x128xbf16>, tensor<64x256x2xbf16>) outs(%1 : tensor<64x256xf32>) {
    ^bb0(%x: bf16, %y: bf16, %acc: f32):
      %xf = arith.extf %x : bf16 to f32
      %yf = arith.extf %y : bf16 to f32
      %p = arith.mulf %xf, %yf : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    } -> tensor<64x256xf32>
    return %2 : tensor<64x256xf32>
  }
}
