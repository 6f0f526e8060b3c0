// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=CONFIG
// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v4 --kiln-cpu-codegen %s | FileCheck %s --check-prefix=CODEGEN

// Workgroup counts and the cores: the pool hands workgroups out
// dynamically, so many workgroups balance whatever their number, but a few
// uneven ones do not (3 equal ones on 2 threads take 2/3 of the 1-thread
// time) and one workgroup leaves every other core idle. A contraction worth
// more hand-offs (at least 2^18 multiply-accumulates) with fewer than 8
// workgroups takes one more piece of whole register tiles along its lanes
// while that balances 2 threads better (2 threads would need more than 55%
// of the 1-thread time); a single workgroup whose lanes cannot split takes
// one more piece along its rows. A loop-order dispatch with a small odd
// count takes one more piece of the dim it splits.

// 64 x 49 outputs, K = 576 (a 3x3 conv over 64 channels at 7x7): one
// 64x49 tile before, two now, of 32 and 17 lanes.
// CONFIG-LABEL: func.func private @dispatch_0
// CONFIG-SAME: strategy = "contraction", workgroup_tile = array<i64: 64, 32, 0>
// 56 rows: the same.
// CONFIG-LABEL: func.func private @dispatch_1
// CONFIG-SAME: workgroup_tile = array<i64: 56, 32, 0>
// 144 rows in tiles of 64 are 3 workgroups (8, 8 and 2 row tiles: 2
// threads need 20/36 of the time); halving the lanes makes 6 that 2
// threads share evenly.
// CONFIG-LABEL: func.func private @dispatch_2
// CONFIG-SAME: workgroup_tile = array<i64: 64, 32, 0>
// One register tile of rows: the lanes split (two of 32).
// CONFIG-LABEL: func.func private @dispatch_3
// CONFIG-SAME: workgroup_tile = array<i64: 8, 32, 0>
// Too little work (64 x 49 x 16): one workgroup stays one.
// CONFIG-LABEL: func.func private @dispatch_4
// CONFIG-SAME: workgroup_tile = array<i64: 64, 49, 0>
// A pad splits only along its channels: 16 in tiles of 6 were 3
// workgroups (6, 6, 4); tiles of 4 make 4.
// CONFIG-LABEL: func.func private @dispatch_5
// CONFIG-SAME: strategy = "loop-order", workgroup_tile = array<i64: 0, 4, 0, 0>
// 288 x 49 elementwise: 3 tiles of 96 rows before, 4 of 72 now.
// CONFIG-LABEL: func.func private @dispatch_6
// CONFIG-SAME: strategy = "loop-order", workgroup_tile = array<i64: 72, 0>
// Many workgroups keep their count, odd or not (3 x 7 x 7 = 147).
// CONFIG-LABEL: func.func private @dispatch_7
// CONFIG-SAME: strategy = "loop-order", workgroup_tile = array<i64: 1, 1, 1, 0, 0>
// 32 x 196: 4 workgroups of 64 lanes, the last with 4, stay 4: no lane
// split balances better, and row pieces would each read all of B.
// CONFIG-LABEL: func.func private @dispatch_8
// CONFIG-SAME: workgroup_tile = array<i64: 32, 64, 0>
// One workgroup of one lane tile (64 x 32): the rows split, 32 + 32.
// CONFIG-LABEL: func.func private @dispatch_9
// CONFIG-SAME: workgroup_tile = array<i64: 32, 32, 0>

// CODEGEN: kiln.workgroups = {dispatch_0 = array<i64: 1, 2, 1>, dispatch_1 = array<i64: 1, 2, 1>, dispatch_2 = array<i64: 3, 2, 1>, dispatch_3 = array<i64: 1, 2, 1>, dispatch_4 = array<i64: 1, 1, 1>, dispatch_5 = array<i64: 4, 1, 1>, dispatch_6 = array<i64: 4, 1, 1>, dispatch_7 = array<i64: 3, 7, 7>, dispatch_8 = array<i64: 1, 4, 1>, dispatch_9 = array<i64: 2, 1, 1>}

func.func private @dispatch_0(%a: tensor<64x576xf32>, %b: tensor<576x49xf32>) -> tensor<64x49xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<64x49xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64x49xf32>) -> tensor<64x49xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<64x576xf32>, tensor<576x49xf32>) outs(%1 : tensor<64x49xf32>) -> tensor<64x49xf32>
  return %2 : tensor<64x49xf32>
}

func.func private @dispatch_1(%a: tensor<56x576xf32>, %b: tensor<576x49xf32>) -> tensor<56x49xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<56x49xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<56x49xf32>) -> tensor<56x49xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<56x576xf32>, tensor<576x49xf32>) outs(%1 : tensor<56x49xf32>) -> tensor<56x49xf32>
  return %2 : tensor<56x49xf32>
}

func.func private @dispatch_2(%a: tensor<144x256xf32>, %b: tensor<256x49xf32>) -> tensor<144x49xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<144x49xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<144x49xf32>) -> tensor<144x49xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<144x256xf32>, tensor<256x49xf32>) outs(%1 : tensor<144x49xf32>) -> tensor<144x49xf32>
  return %2 : tensor<144x49xf32>
}

func.func private @dispatch_3(%a: tensor<8x1024xf32>, %b: tensor<1024x64xf32>) -> tensor<8x64xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<8x64xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<8x1024xf32>, tensor<1024x64xf32>) outs(%1 : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %2 : tensor<8x64xf32>
}

func.func private @dispatch_4(%a: tensor<64x16xf32>, %b: tensor<16x49xf32>) -> tensor<64x49xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<64x49xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64x49xf32>) -> tensor<64x49xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<64x16xf32>, tensor<16x49xf32>) outs(%1 : tensor<64x49xf32>) -> tensor<64x49xf32>
  return %2 : tensor<64x49xf32>
}

func.func private @dispatch_5(%a: tensor<1x16x28x28xf32>) -> tensor<1x16x30x30xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.pad %a low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %cst : f32
  } : tensor<1x16x28x28xf32> to tensor<1x16x30x30xf32>
  return %0 : tensor<1x16x30x30xf32>
}

#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func private @dispatch_6(%a: tensor<288x49xf32>) -> tensor<288x49xf32> attributes {kiln.dispatch} {
  %0 = tensor.empty() : tensor<288x49xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<288x49xf32>) outs(%0 : tensor<288x49xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2 = math.exp %in : f32
    linalg.yield %2 : f32
  } -> tensor<288x49xf32>
  return %1 : tensor<288x49xf32>
}

#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func private @dispatch_7(%a: tensor<3x7x7x112x112xf32>) -> tensor<3x7x7x112x112xf32> attributes {kiln.dispatch} {
  %0 = tensor.empty() : tensor<3x7x7x112x112xf32>
  %1 = linalg.generic {indexing_maps = [#id5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<3x7x7x112x112xf32>) outs(%0 : tensor<3x7x7x112x112xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2 = math.exp %in : f32
    linalg.yield %2 : f32
  } -> tensor<3x7x7x112x112xf32>
  return %1 : tensor<3x7x7x112x112xf32>
}

func.func private @dispatch_8(%a: tensor<32x192xf32>, %b: tensor<192x196xf32>) -> tensor<32x196xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<32x196xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<32x196xf32>) -> tensor<32x196xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<32x192xf32>, tensor<192x196xf32>) outs(%1 : tensor<32x196xf32>) -> tensor<32x196xf32>
  return %2 : tensor<32x196xf32>
}

func.func private @dispatch_9(%a: tensor<64x576xf32>, %b: tensor<576x32xf32>) -> tensor<64x32xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<64x32xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64x32xf32>) -> tensor<64x32xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<64x576xf32>, tensor<576x32xf32>) outs(%1 : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %2 : tensor<64x32xf32>
}
