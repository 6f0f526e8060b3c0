// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=CONFIG
// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v4 --kiln-cpu-codegen %s | FileCheck %s --check-prefix=CODEGEN

// A concat (a chain of insert_slices into one empty tensor, as dispatch
// formation leaves it) splits into workgroups over every dim but its axis;
// each workgroup copies its tile of every piece. Tiles divide their dims.

// CONFIG-LABEL: func.func private @dispatch_0
// CONFIG-SAME: workgroup_tile = array<i64: 0, 0, 2, 0>
// CONFIG-LABEL: func.func private @dispatch_1
// CONFIG-SAME: workgroup_tile = array<i64: 0, 512>
// Too small to split: one workgroup.
// CONFIG-LABEL: func.func private @dispatch_2
// CONFIG-SAME: workgroup_tile = array<i64: 0, 0>

// Two whole rows a workgroup (28/2 = 14), innermost rows kept whole for
// long contiguous copies; 4096/512 = 8 column blocks when the innermost dim
// is the only one to split.
// CODEGEN: kiln.workgroups = {dispatch_0 = array<i64: 14, 1, 1>, dispatch_1 = array<i64: 8, 1, 1>, dispatch_2 = array<i64: 1, 1, 1>}

func.func private @dispatch_0(%a: tensor<1x64x28x28xf32>, %b: tensor<1x64x28x28xf32>) -> tensor<1x128x28x28xf32> attributes {kiln.dispatch} {
  %0 = tensor.empty() : tensor<1x128x28x28xf32>
  %1 = tensor.insert_slice %a into %0[0, 0, 0, 0] [1, 64, 28, 28] [1, 1, 1, 1] : tensor<1x64x28x28xf32> into tensor<1x128x28x28xf32>
  %2 = tensor.insert_slice %b into %1[0, 64, 0, 0] [1, 64, 28, 28] [1, 1, 1, 1] : tensor<1x64x28x28xf32> into tensor<1x128x28x28xf32>
  return %2 : tensor<1x128x28x28xf32>
}

func.func private @dispatch_1(%a: tensor<3x4096xf32>, %b: tensor<5x4096xf32>) -> tensor<8x4096xf32> attributes {kiln.dispatch} {
  %0 = tensor.empty() : tensor<8x4096xf32>
  %1 = tensor.insert_slice %a into %0[0, 0] [3, 4096] [1, 1] : tensor<3x4096xf32> into tensor<8x4096xf32>
  %2 = tensor.insert_slice %b into %1[3, 0] [5, 4096] [1, 1] : tensor<5x4096xf32> into tensor<8x4096xf32>
  return %2 : tensor<8x4096xf32>
}

func.func private @dispatch_2(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> attributes {kiln.dispatch} {
  %0 = tensor.empty() : tensor<2x8xf32>
  %1 = tensor.insert_slice %a into %0[0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x8xf32>
  %2 = tensor.insert_slice %b into %1[0, 3] [2, 5] [1, 1] : tensor<2x5xf32> into tensor<2x8xf32>
  return %2 : tensor<2x8xf32>
}
