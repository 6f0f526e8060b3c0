// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=znver4 %s | FileCheck %s --check-prefix=CONFIG
// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=V4
// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=V3
// RUN: kiln-opt --kiln-cpu-codegen=cpu=znver4 %s | FileCheck %s --check-prefix=KERNEL
// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=KV4
// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=KV3

// Depthwise convolutions (DepthwiseKernel.h), as kilnc forms them for
// onnxruntime's QDQ models: i8 x i8 -> i32, the padded input read at
// (s oh + kh, s ow + kw). int8 ones get the "depthwise" strategy, whole
// channel planes per workgroup (about 1024 outputs' worth when planes are
// small: 5 of 20 14x14 planes, all 19 7x7 ones), on the target's tap-group
// instruction:
// vpdpbusd (znver4: 4 taps per 32-bit lane, P = 4 phases at stride 1 and
// 2 at stride 2, 16 lanes per zmm), vpmaddwd on AVX-512 without VNNI and
// on AVX2. Small planes (14x14, 7x7) take the flat grid (tiles across
// rows), a 56-wide plane row tiles. f32 ones, and bf16 ones with f32
// sums (--precision=bf16), take "fma" tiles: 7x7 planes one flat tile of
// 4 zmm (AVX2: rows of 8 lanes, 4 rows per tile, the last group moved
// back), 28-wide rows tiles of 2 vectors x 4 rows (AVX2: 2 x 2), 14-wide
// rows at stride 2 one vector x 7 rows (AVX2: 2 x 2): about 8 FMA chains
// (4 with 16 registers).

// CONFIG-LABEL: func.func private @dispatch_0(
// CONFIG-SAME: native = "vnni", pixel_tile = 128 : i64, plane = "flat", strategy = "depthwise", workgroup_tile = array<i64: 1, 5, 0, 0>
// CONFIG-LABEL: func.func private @dispatch_1(
// CONFIG-SAME: native = "vnni", pixel_tile = 64 : i64, plane = "flat", strategy = "depthwise", workgroup_tile = array<i64: 1, 19, 0, 0, 0, 0, 0>
// CONFIG-LABEL: func.func private @dispatch_2(
// CONFIG-SAME: native = "vnni", pixel_tile = 64 : i64, plane = "rows", strategy = "depthwise", workgroup_tile = array<i64: 0, 1, 0, 0, 0, 0, 0>
// CONFIG-LABEL: func.func private @dispatch_3(
// CONFIG-SAME: native = "fma", pixel_tile = 64 : i64, plane = "flat", strategy = "depthwise"
// CONFIG-LABEL: func.func private @dispatch_4(
// CONFIG-SAME: native = "fma", pixel_tile = 64 : i64, plane = "flat", strategy = "depthwise", workgroup_tile = array<i64: 0, 8, 0, 0, 0, 0, 0>
// CONFIG-LABEL: func.func private @dispatch_5(
// CONFIG-SAME: native = "fma", pixel_tile = 32 : i64, plane = "rows", strategy = "depthwise", tile_rows = 4 : i64, workgroup_tile = array<i64: 0, 2, 0, 0, 0, 0, 0>
// CONFIG-LABEL: func.func private @dispatch_6(
// CONFIG-SAME: native = "fma", pixel_tile = 16 : i64, plane = "rows", strategy = "depthwise", tile_rows = 7 : i64, workgroup_tile = array<i64: 0, 6, 0, 0, 0, 0, 0>
// CONFIG-LABEL: func.func private @dispatch_7(
// CONFIG-SAME: native = "fma", pixel_tile = 64 : i64, plane = "flat", strategy = "depthwise", workgroup_tile = array<i64: 0, 8, 0, 0, 0, 0, 0>

// V4-LABEL: func.func private @dispatch_0(
// V4-SAME: native = "pmaddwd", pixel_tile = 64 : i64, plane = "flat", strategy = "depthwise"
// V4-LABEL: func.func private @dispatch_1(
// V4-SAME: native = "pmaddwd", pixel_tile = 16 : i64, plane = "rows", strategy = "depthwise"
// V4-LABEL: func.func private @dispatch_2(
// V4-SAME: native = "pmaddwd", pixel_tile = 64 : i64, plane = "rows", strategy = "depthwise"
// V4-LABEL: func.func private @dispatch_4(
// V4-SAME: native = "fma", pixel_tile = 64 : i64, plane = "flat", strategy = "depthwise"
// V4-LABEL: func.func private @dispatch_5(
// V4-SAME: native = "fma", pixel_tile = 32 : i64, plane = "rows", strategy = "depthwise", tile_rows = 4 : i64
// V4-LABEL: func.func private @dispatch_6(
// V4-SAME: native = "fma", pixel_tile = 16 : i64, plane = "rows", strategy = "depthwise", tile_rows = 7 : i64

// V3-LABEL: func.func private @dispatch_0(
// V3-SAME: native = "pmaddwd", pixel_tile = 16 : i64, plane = "rows", strategy = "depthwise"
// V3-LABEL: func.func private @dispatch_1(
// V3-SAME: native = "pmaddwd", pixel_tile = 8 : i64, plane = "rows", strategy = "depthwise"
// V3-LABEL: func.func private @dispatch_2(
// V3-SAME: native = "pmaddwd", pixel_tile = 32 : i64, plane = "rows", strategy = "depthwise"
// V3-LABEL: func.func private @dispatch_4(
// V3-SAME: native = "fma", pixel_tile = 8 : i64, plane = "rows", strategy = "depthwise", tile_rows = 4 : i64, workgroup_tile = array<i64: 0, 8, 0, 0, 0, 0, 0>
// V3-LABEL: func.func private @dispatch_5(
// V3-SAME: native = "fma", pixel_tile = 16 : i64, plane = "rows", strategy = "depthwise", tile_rows = 2 : i64
// V3-LABEL: func.func private @dispatch_6(
// V3-SAME: native = "fma", pixel_tile = 16 : i64, plane = "rows", strategy = "depthwise", tile_rows = 2 : i64
// V3-LABEL: func.func private @dispatch_7(
// V3-SAME: native = "fma", pixel_tile = 8 : i64, plane = "rows", strategy = "depthwise", tile_rows = 4 : i64

// 3x3 at stride 1 on the flat grid of a 16-wide input: per tile 2 blocks
// x 4 phases of 16 lanes; per filter row one weight quad (w0, w1, w2, 0)
// broadcast, and per block and phase one 64-byte load of the input at
// s (f0 + p) + kh * 16, flipped to unsigned (xor 0x80) and fed to one
// vpdpbusd: 3 x 8 of them for 128 pixels (both the unmasked and the
// masked last tile). The phases are interleaved back (two shuffle levels),
// the tile lands in the grid, each row's 14 pixels are copied out. No
// shuffle builds the tap quads, no i32 multiply, nothing on the heap.
// KERNEL-LABEL: llvm.func internal @dispatch_0_impl(
// KERNEL-NOT: llvm.call @malloc
// KERNEL: llvm.alloca %{{.*}} x i32 {alignment = 64 : i64}
// KERNEL: llvm.mul %{{.*}} : i32
// KERNEL-COUNT-24: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// KERNEL: llvm.shufflevector %{{.*}}, %{{.*}} [0, 16, 1, 17, 2, 18,
// KERNEL: llvm.shufflevector %{{.*}}, %{{.*}} [0, 16, 1, 17, 2, 18,
// KERNEL: llvm.shufflevector %{{.*}}, %{{.*}} [0, 32, 1, 33, 2, 34,
// The masked last tile masks only the loads that may pass the plane's end
// (the last ones); the first read inside it even from the last tile.
// KERNEL-COUNT-20: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// KERNEL: llvm.intr.masked.load %{{.*}} -> vector<64xi8>
// KERNEL-COUNT-4: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// KERNEL-NOT: llvm.mul %{{.*}} : vector<
// KERNEL-LABEL: llvm.func internal @dispatch_1_impl(
// Stride 2: two phases per block, one interleave.
// KERNEL-COUNT-6: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// KERNEL: llvm.shufflevector %{{.*}}, %{{.*}} [0, 16, 1, 17, 2, 18,
// KERNEL-NOT: llvm.shufflevector %{{.*}}, %{{.*}} [0, 32, 1, 33
// KERNEL-LABEL: llvm.func internal @dispatch_2_impl(
// Row tiles store straight into the output, the row's end masked.
// KERNEL-NOT: llvm.alloca
// KERNEL: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// KERNEL: llvm.intr.masked.store %{{.*}} : vector<64xi32>, vector<64xi1> into !llvm.ptr
// The hand-set f32 grid: one FMA per tap and vector.
// KERNEL-LABEL: llvm.func internal @dispatch_3_impl(
// KERNEL-COUNT-36: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// KERNEL-LABEL: llvm.func internal @dispatch_4_impl(
// The chosen f32 grid of the 7x7 planes: one tile of 4 vectors per plane,
// 9 taps each, the loads in bounds statically (no masked path left but
// the last vectors' loads).
// KERNEL-COUNT-36: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// KERNEL-NOT: llvm.intr.fmuladd
// KERNEL-LABEL: llvm.func internal @dispatch_5_impl(
// f32 at stride 2: a 32-lane load and the even lanes (vpermt2ps) per tap,
// 4 rows x 2 vectors per tile (plain and masked last tile): 2 x 72 FMAs.
// KERNEL: llvm.shufflevector %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<32xf32>
// KERNEL-COUNT-144: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// KERNEL-LABEL: llvm.func internal @dispatch_6_impl(
// bf16 at stride 2: 32 bf16 read as 16 i32 lanes shifted left by 16 are
// the even elements as f32; no permute, no plane copy.
// KERNEL-NOT: llvm.alloca
// KERNEL-NOT: llvm.shufflevector %{{.*}}, %{{.*}} [0, 2, 4, 6
// KERNEL: llvm.bitcast %{{.*}} : vector<32xbf16> to vector<16xi32>
// KERNEL: llvm.shl %{{.*}}, %{{.*}} : vector<16xi32>
// KERNEL: llvm.bitcast %{{.*}} : vector<16xi32> to vector<16xf32>
// KERNEL: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// KERNEL-NOT: llvm.shufflevector %{{.*}}, %{{.*}} [0, 2, 4, 6
// KERNEL-LABEL: llvm.func internal @dispatch_7_impl(
// bf16 at stride 1: each plane widened once into a stack f32 copy (the
// 81 elements: 5 vectors, the last masked), then the f32 grid. (On znver4,
// which has AVX512-BF16, the widening is LLVM's fpext, which it lowers to
// the same zero-extend and shift; KernelCodegen expands bf16 conversions
// into integer operations only on CPUs without it.)
// KERNEL: llvm.alloca %{{.*}} x f32 {alignment = 64 : i64}
// KERNEL: llvm.alloca %{{.*}} x f32 {alignment = 64 : i64}
// KERNEL: llvm.fpext %{{.*}} : vector<16xbf16> to vector<16xf32>
// KERNEL: llvm.intr.masked.load %{{.*}} -> vector<16xi16>
// KERNEL-COUNT-36: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>

// KV4-LABEL: llvm.func internal @dispatch_0_impl(
// KV4-NOT: vpdpbusd
// KV4: llvm.call_intrinsic "llvm.x86.avx512.pmaddw.d.512"(%{{.*}}, %{{.*}}) : (vector<32xi16>, vector<32xi16>) -> vector<16xi32>
// KV4-NOT: llvm.call @malloc
// KV4-LABEL: llvm.func internal @dispatch_1_impl(
// KV4-LABEL: llvm.func internal @dispatch_5_impl(
// KV4: llvm.shufflevector %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<32xf32>
// KV4: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>

// KV3-LABEL: llvm.func internal @dispatch_0_impl(
// KV3-NOT: vpdpbusd
// KV3: llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"(%{{.*}}, %{{.*}}) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// KV3-NOT: llvm.call @malloc
// KV3-LABEL: llvm.func internal @dispatch_1_impl(
// AVX2: 8-lane FMAs, 2 rows x 2 vectors per tile at stride 2.
// KV3-LABEL: llvm.func internal @dispatch_5_impl(
// KV3: llvm.shufflevector %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14] : vector<16xf32>
// KV3-COUNT-36: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// KV3-LABEL: llvm.func internal @dispatch_6_impl(
// KV3: llvm.shl %{{.*}}, %{{.*}} : vector<8xi32>
// KV3: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>

#x1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d4, d2 + d5, d3 + d6)>
#x2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d4, d2 * 2 + d5, d3 * 2 + d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
module {
  func.func private @dispatch_0(%x: tensor<2x20x1x16x16xi8>, %w: tensor<20x1x3x3xi8>, %b: tensor<20xi32>, %s: tensor<20xf32>) -> tensor<2x20x14x14xf32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<2x20x14x14xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<2x20x14x14xi32>) -> tensor<2x20x14x14xi32>
    %2 = linalg.generic {indexing_maps = [#x1, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<2x20x1x16x16xi8>, tensor<20x1x3x3xi8>) outs(%1 : tensor<2x20x14x14xi32>) {
    ^bb0(%in: i8, %in_2: i8, %out: i32):
      %5 = arith.extsi %in : i8 to i32
      %6 = arith.extsi %in_2 : i8 to i32
      %7 = arith.muli %5, %6 : i32
      %8 = arith.addi %out, %7 : i32
      linalg.yield %8 : i32
    } -> tensor<2x20x14x14xi32>
    %3 = tensor.empty() : tensor<2x20x14x14xf32>
    %4 = linalg.generic {indexing_maps = [#id, #ch, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2, %b, %s : tensor<2x20x14x14xi32>, tensor<20xi32>, tensor<20xf32>) outs(%3 : tensor<2x20x14x14xf32>) {
    ^bb0(%in: i32, %in_2: i32, %in_3: f32, %out: f32):
      %5 = arith.addi %in, %in_2 : i32
      %6 = arith.sitofp %5 : i32 to f32
      %7 = arith.mulf %6, %in_3 : f32
      linalg.yield %7 : f32
    } -> tensor<2x20x14x14xf32>
    return %4 : tensor<2x20x14x14xf32>
  }
  func.func private @dispatch_1(%x: tensor<2x19x1x15x15xi8>, %w: tensor<19x1x3x3xi8>) -> tensor<2x19x7x7xi32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<2x19x7x7xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<2x19x7x7xi32>) -> tensor<2x19x7x7xi32>
    %2 = linalg.generic {indexing_maps = [#x2, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<2x19x1x15x15xi8>, tensor<19x1x3x3xi8>) outs(%1 : tensor<2x19x7x7xi32>) {
    ^bb0(%in: i8, %in_2: i8, %out: i32):
      %5 = arith.extsi %in : i8 to i32
      %6 = arith.extsi %in_2 : i8 to i32
      %7 = arith.muli %5, %6 : i32
      %8 = arith.addi %out, %7 : i32
      linalg.yield %8 : i32
    } -> tensor<2x19x7x7xi32>
    return %2 : tensor<2x19x7x7xi32>
  }
  func.func private @dispatch_2(%x: tensor<1x8x1x58x58xi8>, %w: tensor<8x1x3x3xi8>) -> tensor<1x8x56x56xi32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0 : i32
    %0 = tensor.empty() : tensor<1x8x56x56xi32>
    %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<1x8x56x56xi32>) -> tensor<1x8x56x56xi32>
    %2 = linalg.generic {indexing_maps = [#x1, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x1x58x58xi8>, tensor<8x1x3x3xi8>) outs(%1 : tensor<1x8x56x56xi32>) {
    ^bb0(%in: i8, %in_2: i8, %out: i32):
      %5 = arith.extsi %in : i8 to i32
      %6 = arith.extsi %in_2 : i8 to i32
      %7 = arith.muli %5, %6 : i32
      %8 = arith.addi %out, %7 : i32
      linalg.yield %8 : i32
    } -> tensor<1x8x56x56xi32>
    return %2 : tensor<1x8x56x56xi32>
  }
  func.func private @dispatch_3(%x: tensor<1x8x1x9x9xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x7x7xf32> attributes {kiln.dispatch, kiln.lowering_config = {native = "fma", pixel_tile = 64 : i64, plane = "flat", strategy = "depthwise", workgroup_tile = array<i64: 0, 1, 0, 0, 0, 0, 0>}} {
    %c0 = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<1x8x7x7xf32>
    %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
    %2 = linalg.generic {indexing_maps = [#x1, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x1x9x9xf32>, tensor<8x1x3x3xf32>) outs(%1 : tensor<1x8x7x7xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %7 = arith.mulf %in, %in_2 : f32
      %8 = arith.addf %out, %7 : f32
      linalg.yield %8 : f32
    } -> tensor<1x8x7x7xf32>
    return %2 : tensor<1x8x7x7xf32>
  }
  func.func private @dispatch_4(%x: tensor<1x8x1x9x9xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x7x7xf32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<1x8x7x7xf32>
    %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
    %2 = linalg.generic {indexing_maps = [#x1, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x1x9x9xf32>, tensor<8x1x3x3xf32>) outs(%1 : tensor<1x8x7x7xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %7 = arith.mulf %in, %in_2 : f32
      %8 = arith.addf %out, %7 : f32
      linalg.yield %8 : f32
    } -> tensor<1x8x7x7xf32>
    return %2 : tensor<1x8x7x7xf32>
  }
  func.func private @dispatch_5(%x: tensor<1x12x1x57x57xf32>, %w: tensor<12x1x3x3xf32>) -> tensor<1x12x28x28xf32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<1x12x28x28xf32>
    %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<1x12x28x28xf32>) -> tensor<1x12x28x28xf32>
    %2 = linalg.generic {indexing_maps = [#x2, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x12x1x57x57xf32>, tensor<12x1x3x3xf32>) outs(%1 : tensor<1x12x28x28xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %7 = arith.mulf %in, %in_2 : f32
      %8 = arith.addf %out, %7 : f32
      linalg.yield %8 : f32
    } -> tensor<1x12x28x28xf32>
    return %2 : tensor<1x12x28x28xf32>
  }
  func.func private @dispatch_6(%x: tensor<1x12x1x29x29xbf16>, %w: tensor<12x1x3x3xbf16>) -> tensor<1x12x14x14xf32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<1x12x14x14xf32>
    %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<1x12x14x14xf32>) -> tensor<1x12x14x14xf32>
    %2 = linalg.generic {indexing_maps = [#x2, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x12x1x29x29xbf16>, tensor<12x1x3x3xbf16>) outs(%1 : tensor<1x12x14x14xf32>) {
    ^bb0(%in: bf16, %in_2: bf16, %out: f32):
      %5 = arith.extf %in : bf16 to f32
      %6 = arith.extf %in_2 : bf16 to f32
      %7 = arith.mulf %5, %6 : f32
      %8 = arith.addf %out, %7 : f32
      linalg.yield %8 : f32
    } -> tensor<1x12x14x14xf32>
    return %2 : tensor<1x12x14x14xf32>
  }
  func.func private @dispatch_7(%x: tensor<1x8x1x9x9xbf16>, %w: tensor<8x1x3x3xbf16>) -> tensor<1x8x7x7xf32> attributes {kiln.dispatch} {
    %c0 = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<1x8x7x7xf32>
    %1 = linalg.fill ins(%c0 : f32) outs(%0 : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
    %2 = linalg.generic {indexing_maps = [#x1, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x8x1x9x9xbf16>, tensor<8x1x3x3xbf16>) outs(%1 : tensor<1x8x7x7xf32>) {
    ^bb0(%in: bf16, %in_2: bf16, %out: f32):
      %5 = arith.extf %in : bf16 to f32
      %6 = arith.extf %in_2 : bf16 to f32
      %7 = arith.mulf %5, %6 : f32
      %8 = arith.addf %out, %7 : f32
      linalg.yield %8 : f32
    } -> tensor<1x8x7x7xf32>
    return %2 : tensor<1x8x7x7xf32>
  }
}
