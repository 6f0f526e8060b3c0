// RUN: kiln-opt --kiln-cpu-codegen=cpu=x86-64-v3 %s | FileCheck %s

// 16-bit A on the convert path is widened to f32 in a stack panel once per
// K block. With several lane tiles in the workgroup (here 4 of 16 lanes)
// the whole workgroup's rows are widened once, before the lane tiles
// (a [128][128] f32 panel, 64 KiB at most), not once per row tile in
// every lane tile; the row tiles then broadcast from panel row m0 + i.
// With one lane tile, or a panel over 64 KiB, each row tile widens its
// own rows ([6][K]).

// CHECK-LABEL: llvm.func internal @group_rows_impl(
// CHECK: %[[N:.*]] = llvm.mlir.constant(16384 : index) : i64
// CHECK: llvm.alloca %[[N]] x f32 {alignment = 64 : i64}
// The K block's widening loop over the 128 rows comes first:
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> vector<8xi16>
// CHECK: llvm.zext %{{.*}} : vector<8xi16> to vector<8xi32>
// CHECK: llvm.store %{{.*}} : vector<8xf32>, !llvm.ptr
// then the register tiles, which convert no A element:
// CHECK: llvm.intr.fmuladd
// CHECK-NOT: vector<8xi16> to vector<8xi32>
// CHECK: llvm.return
func.func private @group_rows(%a: tensor<128x128xbf16>, %b: tensor<128x512xbf16>) -> tensor<128x512xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<128x512xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<128x512xf32>) -> tensor<128x512xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<128x128xbf16>, tensor<128x512xbf16>) outs(%1 : tensor<128x512xf32>) -> tensor<128x512xf32>
  return %2 : tensor<128x512xf32>
}

// One lane tile (N = 16): the row tile's own [6][128] panel.
// CHECK-LABEL: llvm.func internal @one_lane_tile_impl(
// CHECK-NOT: llvm.mlir.constant(16384 : index)
// CHECK: %[[R:.*]] = llvm.mlir.constant(768 : index) : i64
// CHECK: llvm.alloca %[[R]] x f32 {alignment = 64 : i64}
// CHECK: llvm.return
func.func private @one_lane_tile(%a: tensor<128x128xbf16>, %b: tensor<128x16xbf16>) -> tensor<128x16xf32> attributes {kiln.dispatch} {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<128x16xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<128x16xf32>) -> tensor<128x16xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<128x128xbf16>, tensor<128x16xbf16>) outs(%1 : tensor<128x16xf32>) -> tensor<128x16xf32>
  return %2 : tensor<128x16xf32>
}
