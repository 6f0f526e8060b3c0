// RUN: kiln-opt --kiln-cpu-codegen=cpu=sapphirerapids %s | FileCheck %s --check-prefix=KERNEL
// RUN: kiln-opt --kiln-cpu-codegen=cpu=sapphirerapids %s | mlir-translate --mlir-to-llvmir -o %t.ll
// RUN: llc -O2 -mcpu=sapphirerapids -relocation-model=pic -filetype=obj %t.ll -o %t.o
// RUN: llvm-objdump -d --no-show-raw-insn %t.o | FileCheck %s --check-prefix=ASM

// AMX tile kernels (AmxKernel.h) for the packed dispatches of
// amx-kernels.mlir. Per K step of a 2x2 block: two A tiles, two B tiles
// (1 KiB each, contiguous in B's tile panels), four tile multiplies; the
// accumulators start at tilezero (the fill is folded), are carried across
// K and stored once. N = 24 in dispatch_1: its second column tile reads
// the zero-padded panel and is stored through a stack tile, 8 columns
// per row with masked stores. A bf16 K of 48 is not a whole
// number of 32-element tile rows and keeps vdpbf16ps (dispatch_2).

// KERNEL-LABEL: llvm.func internal @dispatch_0_impl(
// KERNEL-COUNT-4: llvm.call_intrinsic "llvm.x86.tilezero.internal"
// KERNEL-COUNT-4: llvm.call_intrinsic "llvm.x86.tileloadd64.internal"
// KERNEL-COUNT-4: llvm.call_intrinsic "llvm.x86.tdpbssd.internal"
// KERNEL-COUNT-4: llvm.call_intrinsic "llvm.x86.tilestored64.internal"
// KERNEL-LABEL: llvm.func internal @dispatch_1_impl(
// KERNEL-COUNT-4: llvm.call_intrinsic "llvm.x86.tdpbf16ps.internal"
// KERNEL: llvm.call_intrinsic "llvm.x86.tilestored64.internal"
// KERNEL: llvm.intr.masked.store
// KERNEL-LABEL: llvm.func internal @dispatch_2_impl(
// KERNEL-NOT: x86.tile
// KERNEL: llvm.x86.avx512bf16.dpbf16ps.512

// A computed B (dispatch_3, i8): each 32-column block of it is packed
// into tile-panel rows, four k rows of 32 bytes interleaved into quads
// (two rounds of shuffles), then read as 16 x 64-byte B tiles.
// KERNEL-LABEL: llvm.func internal @dispatch_3_impl(
// KERNEL: llvm.shufflevector %{{.*}}, %{{.*}} [0, 32, 1, 33
// KERNEL: llvm.shufflevector %{{.*}}, %{{.*}} [0, 1, 64, 65
// KERNEL: llvm.call_intrinsic "llvm.x86.tdpbssd.internal"

// One tile configuration per kernel call, and the tiles released on
// return.
// ASM: ldtilecfg
// ASM: tdpbssd %tmm{{[0-7]}}, %tmm{{[0-7]}}, %tmm{{[0-7]}}
// ASM: tilerelease
// ASM: ldtilecfg
// ASM: tdpbf16ps %tmm{{[0-7]}}, %tmm{{[0-7]}}, %tmm{{[0-7]}}
// ASM: tilerelease
module {
  func.func private @dispatch_0(%a: tensor<64x128xi8>, %b: tensor<4x32x16x4xi8>) -> tensor<64x64xi32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<64x64xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<64x64xi32>) -> tensor<64x64xi32>
    %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n floordiv 16, k floordiv 4, n mod 16, k mod 4)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<64x128xi8>, tensor<4x32x16x4xi8>) outs(%1 : tensor<64x64xi32>) {
    ^bb0(%x: i8, %y: i8, %acc: i32):
      %xs = arith.extsi %x : i8 to i32
      %ys = arith.extsi %y : i8 to i32
      %p = arith.muli %xs, %ys : i32
      %s = arith.addi %acc, %p : i32
      linalg.yield %s : i32
    } -> tensor<64x64xi32>
    return %2 : tensor<64x64xi32>
  }
  func.func private @dispatch_1(%a: tensor<40x64xbf16>, %b: tensor<2x32x16x2xbf16>) -> tensor<40x24xf32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<40x24xf32>
    %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<40x24xf32>) -> tensor<40x24xf32>
    %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n floordiv 16, k floordiv 2, n mod 16, k mod 2)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<40x64xbf16>, tensor<2x32x16x2xbf16>) outs(%1 : tensor<40x24xf32>) {
    ^bb0(%x: bf16, %y: bf16, %acc: f32):
      %xf = arith.extf %x : bf16 to f32
      %yf = arith.extf %y : bf16 to f32
      %p = arith.mulf %xf, %yf : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    } -> tensor<40x24xf32>
    return %2 : tensor<40x24xf32>
  }
  func.func private @dispatch_2(%a: tensor<40x48xbf16>, %b: tensor<24x24x2xbf16>) -> tensor<40x24xf32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<40x24xf32>
    %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<40x24xf32>) -> tensor<40x24xf32>
    %2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k floordiv 2, n, k mod 2)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<40x48xbf16>, tensor<24x24x2xbf16>) outs(%1 : tensor<40x24xf32>) {
    ^bb0(%x: bf16, %y: bf16, %acc: f32):
      %xf = arith.extf %x : bf16 to f32
      %yf = arith.extf %y : bf16 to f32
      %p = arith.mulf %xf, %yf : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    } -> tensor<40x24xf32>
    return %2 : tensor<40x24xf32>
  }
  // A convolution as GEMM (B computed: packed by the kernel).
  func.func private @dispatch_3(%w: tensor<32x64xi8>, %cols: tensor<1x64x40xi8>) -> tensor<1x32x40xi32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<1x32x40xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<1x32x40xi32>) -> tensor<1x32x40xi32>
    %2 = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (m, k)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%w, %cols : tensor<32x64xi8>, tensor<1x64x40xi8>) outs(%1 : tensor<1x32x40xi32>) {
    ^bb0(%x: i8, %y: i8, %acc: i32):
      %xs = arith.extsi %x : i8 to i32
      %ys = arith.extsi %y : i8 to i32
      %p = arith.muli %xs, %ys : i32
      %s = arith.addi %acc, %p : i32
      linalg.yield %s : i32
    } -> tensor<1x32x40xi32>
    return %2 : tensor<1x32x40xi32>
  }
}
