// RUN: kiln-opt %s --kiln-to-linalg --kiln-form-dispatches --kiln-cpu-pack-weights=cpu=x86-64-v4 --kiln-cpu-lowering-config=cpu=x86-64-v4 | FileCheck %s

// A large f32 GEMM over B in lane panels (M >= 256, N >= 512, K >= 512)
// takes 64 x 256 workgroups and K blocks of 256 (LoweringConfig.cpp,
// wideGemm): each workgroup's A block serves 8 lane tiles. Smaller ones
// (here M = 128, a batch-1 BERT FFN) keep 64 x 64 and K blocks of 128.
// CHECK-LABEL: func.func private @dispatch_0(
// CHECK-SAME: reduction_tile = 256 : i64, register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 64, 256, 0>
// CHECK-LABEL: func.func private @dispatch_1(
// CHECK-SAME: reduction_tile = 128 : i64, register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 64, 64, 0>
func.func @main(%x: tensor<512x1024xf32>, %y: tensor<128x1024xf32>) -> (tensor<512x1024xf32>, tensor<128x768xf32>) {
  %w = kiln.constant dense<0.5> : tensor<1024x1024xf32>
  %v = kiln.constant dense<0.25> : tensor<1024x768xf32>
  %0 = kiln.matmul %x, %w : tensor<512x1024xf32>, tensor<1024x1024xf32>
  %1 = kiln.matmul %y, %v : tensor<128x1024xf32>, tensor<1024x768xf32>
  return %0, %1 : tensor<512x1024xf32>, tensor<128x768xf32>
}
