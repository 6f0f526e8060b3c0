// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=x86-64-v4 %s | FileCheck %s
// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=x86-64-v3 %s | FileCheck %s
// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=x86-64-v4 --kiln-cpu-lowering-config=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=CONFIG512
// RUN: kiln-opt --kiln-cpu-pack-weights=cpu=x86-64-v3 --kiln-cpu-lowering-config=cpu=x86-64-v3 %s | FileCheck %s --check-prefix=CONFIG

// A computed f32 B [K, N] whose rows lie a page or more apart (N * 4 >=
// 4096) is packed at run time into the lane panels a constant B gets at
// compile time ([N/16][K][16], lane-panels.mlir): each call of the
// contraction's dispatch first calls a pack dispatch (one per B type,
// shared), and the contraction reads the panels through
// (n floordiv 16, k, n mod 16). Only where it repays the copy: N a whole
// number of panels, K >= 32 and M >= 64. Below: a 1024-wide B packed (two
// calls, one pack dispatch), then B left alone for 1000 columns (not whole
// panels), 512 (2 KiB rows), 16 rows and a constant B (packed at compile
// time, lane-panels.mlir); a last call on the first B reuses its panels.

// CHECK-DAG: #[[PANEL:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1 floordiv 16, d2, d1 mod 16)>
// CHECK-DAG: #[[GATHER:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, d0 * 16 + d2)>
// CHECK-LABEL: func.func @main(
// CHECK: %[[P0:.*]] = call @pack_lanes_256x1024(%arg1) : (tensor<256x1024xf32>) -> tensor<64x256x16xf32>
// CHECK: %[[R0:.*]] = call @page_rows(%arg0, %[[P0]]) : (tensor<100x256xf32>, tensor<64x256x16xf32>) -> tensor<100x1024xf32>
// CHECK: %[[P1:.*]] = call @pack_lanes_256x1024(%arg2) : (tensor<256x1024xf32>) -> tensor<64x256x16xf32>
// CHECK: call @page_rows(%arg0, %[[P1]])
// CHECK: call @ragged_lanes(%arg0, %arg3) : (tensor<100x256xf32>, tensor<256x1000xf32>) -> tensor<100x1000xf32>
// CHECK: call @short_rows(%arg0, %arg4) : (tensor<100x256xf32>, tensor<256x512xf32>) -> tensor<100x512xf32>
// CHECK: call @few_rows(%{{.*}}, %arg1) : (tensor<16x256xf32>, tensor<256x1024xf32>) -> tensor<16x1024xf32>
// CHECK: call @constant_b(%arg0, %{{.*}}) : (tensor<100x256xf32>, tensor<64x256x16xf32>) -> tensor<100x1024xf32>
// CHECK-NOT: pack_lanes
// CHECK: call @page_rows(%arg0, %[[P0]])
// CHECK-NOT: pack_lanes
// CHECK-LABEL: func.func private @page_rows(
// CHECK-SAME: %{{.*}}: tensor<100x256xf32>, %{{.*}}: tensor<64x256x16xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[PANEL]], #{{.*}}], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-LABEL: func.func private @ragged_lanes(
// CHECK: linalg.matmul
// CHECK-LABEL: func.func private @short_rows(
// CHECK: linalg.matmul
// CHECK-LABEL: func.func private @few_rows(
// CHECK: linalg.matmul
// CHECK-LABEL: func.func private @pack_lanes_256x1024(
// CHECK-SAME: %[[B:.*]]: tensor<256x1024xf32>) -> tensor<64x256x16xf32> attributes {kiln.dispatch}
// CHECK: %[[E:.*]] = tensor.empty() : tensor<64x256x16xf32>
// CHECK: linalg.generic {indexing_maps = [#[[GATHER]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[B]] : tensor<256x1024xf32>) outs(%[[E]] : tensor<64x256x16xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK-NOT: pack_lanes

// The contraction keeps its register tiles and no lane copy (B arrives
// packed); the pack dispatch is data movement, parallel over panels.
// CONFIG512-LABEL: func.func private @page_rows(
// CONFIG512-NOT: pack_b
// CONFIG512-SAME: register_tile = array<i64: 8, 32>, strategy = "contraction"
// CONFIG512-LABEL: func.func private @pack_lanes_256x1024(
// CONFIG512-SAME: strategy = "loop-order"
// CONFIG-LABEL: func.func private @page_rows(
// CONFIG-NOT: pack_b
// CONFIG-SAME: register_tile = array<i64: 6, 16>, strategy = "contraction"
// CONFIG-LABEL: func.func private @ragged_lanes(
// CONFIG-SAME: pack_b = "lanes"
// CONFIG-LABEL: func.func private @pack_lanes_256x1024(
// CONFIG-SAME: strategy = "loop-order"

// The contraction's kernel over the panels is lane-panels-kernels.mlir's;
// the pack is a loop-order copy whose 16-element inner dim is contiguous on
// both sides (LLVM vectorizes it).

module {
  func.func @main(%a: tensor<100x256xf32>, %b: tensor<256x1024xf32>, %b2: tensor<256x1024xf32>, %c: tensor<256x1000xf32>, %d: tensor<256x512xf32>) -> (tensor<100x1024xf32>, tensor<100x1024xf32>, tensor<100x1000xf32>, tensor<100x512xf32>, tensor<16x1024xf32>, tensor<100x1024xf32>, tensor<100x1024xf32>) {
    %r0 = call @page_rows(%a, %b) : (tensor<100x256xf32>, tensor<256x1024xf32>) -> tensor<100x1024xf32>
    %r1 = call @page_rows(%a, %b2) : (tensor<100x256xf32>, tensor<256x1024xf32>) -> tensor<100x1024xf32>
    %r2 = call @ragged_lanes(%a, %c) : (tensor<100x256xf32>, tensor<256x1000xf32>) -> tensor<100x1000xf32>
    %r3 = call @short_rows(%a, %d) : (tensor<100x256xf32>, tensor<256x512xf32>) -> tensor<100x512xf32>
    %a16 = tensor.extract_slice %a[0, 0] [16, 256] [1, 1] : tensor<100x256xf32> to tensor<16x256xf32>
    %r4 = call @few_rows(%a16, %b) : (tensor<16x256xf32>, tensor<256x1024xf32>) -> tensor<16x1024xf32>
    %w = arith.constant dense<0.5> : tensor<256x1024xf32>
    %r5 = call @constant_b(%a, %w) : (tensor<100x256xf32>, tensor<256x1024xf32>) -> tensor<100x1024xf32>
    %r6 = call @page_rows(%a, %b) : (tensor<100x256xf32>, tensor<256x1024xf32>) -> tensor<100x1024xf32>
    return %r0, %r1, %r2, %r3, %r4, %r5, %r6 : tensor<100x1024xf32>, tensor<100x1024xf32>, tensor<100x1000xf32>, tensor<100x512xf32>, tensor<16x1024xf32>, tensor<100x1024xf32>, tensor<100x1024xf32>
  }
  func.func private @page_rows(%a: tensor<100x256xf32>, %b: tensor<256x1024xf32>) -> tensor<100x1024xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<100x1024xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<100x1024xf32>) -> tensor<100x1024xf32>
    %2 = linalg.matmul ins(%a, %b : tensor<100x256xf32>, tensor<256x1024xf32>) outs(%1 : tensor<100x1024xf32>) -> tensor<100x1024xf32>
    return %2 : tensor<100x1024xf32>
  }
  func.func private @ragged_lanes(%a: tensor<100x256xf32>, %b: tensor<256x1000xf32>) -> tensor<100x1000xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<100x1000xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<100x1000xf32>) -> tensor<100x1000xf32>
    %2 = linalg.matmul ins(%a, %b : tensor<100x256xf32>, tensor<256x1000xf32>) outs(%1 : tensor<100x1000xf32>) -> tensor<100x1000xf32>
    return %2 : tensor<100x1000xf32>
  }
  func.func private @short_rows(%a: tensor<100x256xf32>, %b: tensor<256x512xf32>) -> tensor<100x512xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<100x512xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<100x512xf32>) -> tensor<100x512xf32>
    %2 = linalg.matmul ins(%a, %b : tensor<100x256xf32>, tensor<256x512xf32>) outs(%1 : tensor<100x512xf32>) -> tensor<100x512xf32>
    return %2 : tensor<100x512xf32>
  }
  func.func private @few_rows(%a: tensor<16x256xf32>, %b: tensor<256x1024xf32>) -> tensor<16x1024xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<16x1024xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<16x1024xf32>) -> tensor<16x1024xf32>
    %2 = linalg.matmul ins(%a, %b : tensor<16x256xf32>, tensor<256x1024xf32>) outs(%1 : tensor<16x1024xf32>) -> tensor<16x1024xf32>
    return %2 : tensor<16x1024xf32>
  }
  func.func private @constant_b(%a: tensor<100x256xf32>, %b: tensor<256x1024xf32>) -> tensor<100x1024xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<100x1024xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<100x1024xf32>) -> tensor<100x1024xf32>
    %2 = linalg.matmul ins(%a, %b : tensor<100x256xf32>, tensor<256x1024xf32>) outs(%1 : tensor<100x1024xf32>) -> tensor<100x1024xf32>
    return %2 : tensor<100x1024xf32>
  }
}
