// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=CONFIG
// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=KERNEL --implicit-check-not=malloc
// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=KERNEL --implicit-check-not=malloc

// Transposes that move the innermost dim run as 16 x 16 register blocks
// (TransposeKernel.h): 16 row loads, a shuffle network, 16 row stores.
// Their workgroup tiles on the two swapped dims are whole blocks that
// divide the dim, or the whole dim (56 columns: whole, not 28). Edges are
// partial blocks with masked loads (56 = 3 x 16 + 8 columns) or masked
// stores; transposes whose blocks would be mostly padding (50 x 37) and
// row-preserving ones (0, 2, 1, 3) stay loops.

// CONFIG-LABEL: func.func private @dispatch_0(
// CONFIG-SAME: workgroup_tile = array<i64: 0, 1, 32, 0>
// CONFIG-LABEL: func.func private @dispatch_1(
// CONFIG-SAME: workgroup_tile = array<i64: 0, 2, 0, 0>
// CONFIG-LABEL: func.func private @dispatch_2(
// CONFIG-SAME: workgroup_tile = array<i64: 1, 25, 0, 0>

// BERT's K^T split heads: whole blocks only.
// KERNEL-LABEL: llvm.func internal @dispatch_0_impl(
// KERNEL-COUNT-16: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<16xf32>
// KERNEL: llvm.shufflevector
// KERNEL-COUNT-16: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<16xf32>, !llvm.ptr
// KERNEL-NOT: llvm.intr.masked
// KERNEL-LABEL: llvm.func internal @dispatch_1_impl(
// KERNEL: llvm.shufflevector
// KERNEL: llvm.intr.masked.load
// 50 x 37 planes: loops, no shuffles.
// KERNEL-LABEL: llvm.func internal @dispatch_2_impl(
// KERNEL-NOT: llvm.shufflevector
// KERNEL-LABEL: llvm.func internal @dispatch_3_impl(
// KERNEL-NOT: llvm.shufflevector
// KERNEL-LABEL: llvm.func internal @dispatch_0(
module {
  func.func private @dispatch_0(%arg0: tensor<1x128x12x64xf32>) -> tensor<1x12x64x128xf32> attributes {kiln.dispatch} {
    %0 = tensor.empty() : tensor<1x12x64x128xf32>
    %t = linalg.transpose ins(%arg0 : tensor<1x128x12x64xf32>) outs(%0 : tensor<1x12x64x128xf32>) permutation = [0, 2, 3, 1]
    return %t : tensor<1x12x64x128xf32>
  }
  func.func private @dispatch_1(%arg0: tensor<1x64x56x56xf32>) -> tensor<1x56x56x64xf32> attributes {kiln.dispatch} {
    %0 = tensor.empty() : tensor<1x56x56x64xf32>
    %t = linalg.transpose ins(%arg0 : tensor<1x64x56x56xf32>) outs(%0 : tensor<1x56x56x64xf32>) permutation = [0, 2, 3, 1]
    return %t : tensor<1x56x56x64xf32>
  }
  func.func private @dispatch_2(%arg0: tensor<3x37x5x50xf32>) -> tensor<3x50x5x37xf32> attributes {kiln.dispatch} {
    %0 = tensor.empty() : tensor<3x50x5x37xf32>
    %t = linalg.transpose ins(%arg0 : tensor<3x37x5x50xf32>) outs(%0 : tensor<3x50x5x37xf32>) permutation = [0, 3, 2, 1]
    return %t : tensor<3x50x5x37xf32>
  }
  func.func private @dispatch_3(%arg0: tensor<1x128x12x64xf32>) -> tensor<1x12x128x64xf32> attributes {kiln.dispatch} {
    %0 = tensor.empty() : tensor<1x12x128x64xf32>
    %t = linalg.transpose ins(%arg0 : tensor<1x128x12x64xf32>) outs(%0 : tensor<1x12x128x64xf32>) permutation = [0, 2, 1, 3]
    return %t : tensor<1x12x128x64xf32>
  }
}
