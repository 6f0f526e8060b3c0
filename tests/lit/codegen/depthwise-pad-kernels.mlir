// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=KV4
// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=KV3

// The depthwise kernel with a folded pad (DepthwisePad.h): conv b of
// depthwise-pad.mlir after kiln-cpu-fold-depthwise-pads, 3x3 stride 2,
// pads (top 0, left 1, bottom 1, right 0) on 6 planes of 9x40 -> 4x20.
// The kiln.depthwise_pad generic is not fused into the workgroups and
// goes with its whole-tensor buffer (no alloca is left); the row tiles
// read the unpadded argument: tiles whose loads all lie inside the
// plane's rows and columns use plain loads, the others masked loads
// (lanes outside the row's 40 columns, or whole taps above or below the
// 9 rows, read the pad value) at an integer address (a tile at the top
// left starts before the plane). At stride 2 a load is 2 vectors wide
// and its even lanes are the taps: 32 f32 on AVX-512, 16 on AVX2.

// KV4-LABEL: llvm.func internal @dispatch_3_bounds_impl(
// KV4-NOT: llvm.alloca
// KV4: llvm.inttoptr
// KV4: llvm.intr.masked.load %{{.*}}, %{{.*}}, %{{.*}} {alignment = 4 : i32} : (!llvm.ptr, vector<32xi1>, vector<32xf32>) -> vector<32xf32>
// KV4: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// KV4-NOT: llvm.alloca

// KV3-LABEL: llvm.func internal @dispatch_3_bounds_impl(
// KV3-NOT: llvm.alloca
// KV3: llvm.intr.masked.load %{{.*}}, %{{.*}}, %{{.*}} {alignment = 4 : i32} : (!llvm.ptr, vector<16xi1>, vector<16xf32>) -> vector<16xf32>
// KV3: llvm.intr.fmuladd(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
// KV3-NOT: llvm.alloca

#map = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d4, d2 + d5, d3 + d6)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d4, d2 * 2 + d5, d3 * 2 + d6)>
module {
  func.func private @dispatch_3_bounds(%arg0: tensor<1x6x1x9x40xf32>, %arg1: tensor<6x1x3x3xf32>) -> tensor<1x6x4x20xf32> attributes {kiln.dispatch} {
    %0 = tensor.empty() : tensor<1x6x1x10x41xf32>
    %1 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<1x6x1x10x41xf32>) attrs =  {kiln.depthwise_pad = {input = 0 : i64, pads = array<i64: 0, 1>}} {
    ^bb0(%out: f32):
      %5 = linalg.index 0 : index
      %6 = linalg.index 1 : index
      %7 = linalg.index 2 : index
      %8 = linalg.index 3 : index
      %9 = linalg.index 4 : index
      %c0 = arith.constant 0 : index
      %10 = arith.subi %8, %c0 : index
      %c1 = arith.constant 1 : index
      %11 = arith.subi %9, %c1 : index
      %c40 = arith.constant 40 : index
      %12 = arith.cmpi ult, %11, %c40 : index
      %c9 = arith.constant 9 : index
      %13 = arith.cmpi ult, %10, %c9 : index
      %14 = arith.andi %13, %12 : i1
      %c0_0 = arith.constant 0 : index
      %15 = arith.select %14, %10, %c0_0 : index
      %16 = arith.select %14, %11, %c0_0 : index
      %extracted = tensor.extract %arg0[%5, %6, %7, %15, %16] : tensor<1x6x1x9x40xf32>
      %cst_1 = arith.constant 0.000000e+00 : f32
      %17 = arith.select %14, %extracted, %cst_1 : f32
      linalg.yield %17 : f32
    } -> tensor<1x6x1x10x41xf32>
    %cst = arith.constant 0.000000e+00 : f32
    %2 = tensor.empty() : tensor<1x6x4x20xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<1x6x4x20xf32>) -> tensor<1x6x4x20xf32>
    %4 = linalg.generic {indexing_maps = [#map4, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%1, %arg1 : tensor<1x6x1x10x41xf32>, tensor<6x1x3x3xf32>) outs(%3 : tensor<1x6x4x20xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %5 = arith.mulf %in, %in_0 : f32
      %6 = arith.addf %out, %5 : f32
      linalg.yield %6 : f32
    } -> tensor<1x6x4x20xf32>
    return %4 : tensor<1x6x4x20xf32>
  }}
