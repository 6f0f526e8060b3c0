// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=V4
// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=V3
// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=KV4
// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=KV3

// Max pools (as kiln-to-linalg forms them: the padded input read at
// (s oh + kh, s ow + kw), a window operand the body does not read) run on
// the depthwise kernel's plane walk with a max per tap ("max" tiles,
// DepthwiseKernel.h): whole channel planes per workgroup (two of these
// 28x28 ones, about 1024 outputs), tiles of 4 output rows x 32 pixels, vector loads of
// the taps, and the pool's own op (maximumf here, NaN-propagating) on
// whole vectors. At stride 2 an f32 tap vector is the even lanes of a
// double-width load (one shuffle); a bf16 one is the low halves of 32-bit
// lanes shifted left by 16 (no shuffle), rounded back (exactly) where it
// is stored. Before, LLVM kept the output-row loop scalar.

// V4-LABEL: func.func private @dispatch_0(
// V4-SAME: native = "max", pixel_tile = 32 : i64, plane = "rows", strategy = "depthwise", tile_rows = 4 : i64, workgroup_tile = array<i64: 0, 2, 0, 0, 0, 0>
// V3-LABEL: func.func private @dispatch_0(
// V3-SAME: native = "max"{{.*}}strategy = "depthwise"

// KV4-LABEL: llvm.func internal @dispatch_0_impl(
// KV4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<32xf32>
// KV4: llvm.shufflevector %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30] : vector<32xf32>
// KV4: llvm.intr.maximum(%{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// KV4: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
// KV4-LABEL: llvm.func internal @dispatch_1_impl(
// KV4: llvm.load %{{.*}} -> vector<32xi16>
// KV4: llvm.shl %{{.*}}, %{{.*}} : vector<16xi32>
// KV4: llvm.intr.maximum(%{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// KV4: llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : vector<16xi16>, !llvm.ptr
// KV3-LABEL: llvm.func internal @dispatch_0_impl(
// KV3: llvm.intr.maximum(%{{.*}}, %{{.*}}) : (vector<8xf32>, vector<8xf32>) -> vector<8xf32>
func.func private @dispatch_0(%x: tensor<1x4x57x57xf32>) -> tensor<1x4x28x28xf32> attributes {kiln.dispatch} {
  %ninf = arith.constant 0xFF800000 : f32
  %window = tensor.empty() : tensor<3x3xf32>
  %0 = tensor.empty() : tensor<1x4x28x28xf32>
  %1 = linalg.fill ins(%ninf : f32) outs(%0 : tensor<1x4x28x28xf32>) -> tensor<1x4x28x28xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(n, c, h, w, kh, kw) -> (n, c, h * 2 + kh, w * 2 + kw)>, affine_map<(n, c, h, w, kh, kw) -> (kh, kw)>, affine_map<(n, c, h, w, kh, kw) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %window : tensor<1x4x57x57xf32>, tensor<3x3xf32>) outs(%1 : tensor<1x4x28x28xf32>) {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %m = arith.maximumf %out, %in : f32
    linalg.yield %m : f32
  } -> tensor<1x4x28x28xf32>
  return %2 : tensor<1x4x28x28xf32>
}
func.func private @dispatch_1(%x: tensor<1x4x57x57xbf16>) -> tensor<1x4x28x28xbf16> attributes {kiln.dispatch} {
  %ninf = arith.constant 0xFF80 : bf16
  %window = tensor.empty() : tensor<3x3xbf16>
  %0 = tensor.empty() : tensor<1x4x28x28xbf16>
  %1 = linalg.fill ins(%ninf : bf16) outs(%0 : tensor<1x4x28x28xbf16>) -> tensor<1x4x28x28xbf16>
  %2 = linalg.generic {indexing_maps = [affine_map<(n, c, h, w, kh, kw) -> (n, c, h * 2 + kh, w * 2 + kw)>, affine_map<(n, c, h, w, kh, kw) -> (kh, kw)>, affine_map<(n, c, h, w, kh, kw) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %window : tensor<1x4x57x57xbf16>, tensor<3x3xbf16>) outs(%1 : tensor<1x4x28x28xbf16>) {
  ^bb0(%in: bf16, %w: bf16, %out: bf16):
    %m = arith.maximumf %out, %in : bf16
    linalg.yield %m : bf16
  } -> tensor<1x4x28x28xbf16>
  return %2 : tensor<1x4x28x28xbf16>
}
