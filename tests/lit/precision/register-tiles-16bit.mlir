// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=CONFIG
// RUN: kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v4 --kiln-cpu-codegen=cpu=x86-64-v4 %s | FileCheck %s --check-prefix=KERNEL

// Contractions of 16-bit operands with f32 accumulators (what the lowering
// makes of kiln-mixed-precision's matmuls) run as register tiles too: the
// config says which path ("convert": 16-bit values widened to f32, f32
// FMAs). The kernel widens each K block x 32-lane panel of B once per
// lane tile (one vector<32xbf16> or vector<32xf16> load per k, bf16:
// zero-extend and shift by 16; f16: fpext, i.e. vcvtph2ps) into an f32
// stack panel that every row tile of the workgroup reads, and A, 16
// elements per conversion, into a second f32 panel: here all 64 rows of
// the workgroup once per K block, before its two lane tiles (not each row
// tile's 8 rows in every lane tile; widen-group-rows.mlir); the inner loop is then the f32 one (an f32 B vector,
// a broadcast f32 A scalar, 8 x vector<32xf32> FMAs), with no per-FMA
// scalar 16-bit load and conversion of A.
// Mixed operand types are not register-tiled.

// CONFIG-LABEL: func.func private @dispatch_0(
// CONFIG-SAME: kiln.lowering_config = {native = "convert", operand_type = bf16, reduction_tile = 0 : i64, register_tile = array<i64: 8, 32>, strategy = "contraction", workgroup_tile = array<i64: 64, 64>}
// CONFIG-LABEL: func.func private @dispatch_1(
// CONFIG-SAME: kiln.lowering_config = {native = "convert", operand_type = f16, reduction_tile = 0 : i64, register_tile = array<i64: 8, 32>, strategy = "contraction"
// CONFIG-LABEL: func.func private @dispatch_2(
// CONFIG-SAME: kiln.lowering_config = {strategy = "loop-order"

// KERNEL-LABEL: llvm.func internal @dispatch_0_impl(
// (bf16 memory accesses are i16 ones with bitcasts, which LLVM folds: see
// bf16-arith-in-f32.test.)
// The A panel: 16 elements of a row per conversion, all rows first.
// KERNEL: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> vector<16xi16>
// KERNEL: llvm.store %{{.*}} : vector<16xf32>, !llvm.ptr
// The B panel: 32 lanes per k, widened and stored as f32.
// KERNEL: %[[B:.*]] = llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> vector<32xi16>
// KERNEL-NEXT: %[[BB:.*]] = llvm.bitcast %[[B]] : vector<32xi16> to vector<32xbf16>
// KERNEL-NEXT: %[[BI:.*]] = llvm.bitcast %[[BB]] : vector<32xbf16> to vector<32xi16>
// KERNEL-NEXT: %[[BZ:.*]] = llvm.zext %[[BI]] : vector<32xi16> to vector<32xi32>
// KERNEL-NEXT: %[[BS:.*]] = llvm.shl %[[BZ]], %{{.*}} : vector<32xi32>
// KERNEL-NEXT: %[[BF:.*]] = llvm.bitcast %[[BS]] : vector<32xi32> to vector<32xf32>
// KERNEL: llvm.store %[[BF]], %{{.*}} : vector<32xf32>, !llvm.ptr
// Edge lane tiles: masked 16-bit loads, zeros past the valid lanes.
// KERNEL: llvm.intr.masked.load %{{.*}} : (!llvm.ptr, vector<32xi1>, vector<32xi16>) -> vector<32xi16>
// The inner loop reads f32 panels only.
// KERNEL: %[[BP:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<32xf32>
// KERNEL-NOT: i16
// KERNEL: llvm.load %{{.*}} : !llvm.ptr -> f32
// KERNEL-NOT: i16
// KERNEL-COUNT-8: llvm.intr.fmuladd(%{{.*}}, %[[BP]], %{{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// KERNEL-LABEL: llvm.func internal @dispatch_1_impl(
// KERNEL: %[[A:.*]] = llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> vector<16xf16>
// KERNEL-NEXT: %[[AF:.*]] = llvm.fpext %[[A]] : vector<16xf16> to vector<16xf32>
// KERNEL: llvm.store %[[AF]], %{{.*}} : vector<16xf32>, !llvm.ptr
// KERNEL: %[[H:.*]] = llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> vector<32xf16>
// KERNEL-NEXT: %[[HF:.*]] = llvm.fpext %[[H]] : vector<32xf16> to vector<32xf32>
// KERNEL: llvm.store %[[HF]], %{{.*}} : vector<32xf32>, !llvm.ptr
// KERNEL: %[[HP:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<32xf32>
// KERNEL-NOT: f16
// KERNEL-COUNT-8: llvm.intr.fmuladd(%{{.*}}, %[[HP]], %{{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
module {
  func.func private @dispatch_0(%a: tensor<64x128xbf16>, %b: tensor<128x256xbf16>) -> tensor<64x256xbf16> attributes {kiln.dispatch} {
    %cst = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<64x256xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64x256xf32>) -> tensor<64x256xf32>
    %2 = linalg.matmul ins(%a, %b : tensor<64x128xbf16>, tensor<128x256xbf16>) outs(%1 : tensor<64x256xf32>) -> tensor<64x256xf32>
    %3 = tensor.empty() : tensor<64x256xbf16>
    %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<64x256xf32>) outs(%3 : tensor<64x256xbf16>) {
    ^bb0(%in: f32, %out: bf16):
      %5 = arith.truncf %in : f32 to bf16
      linalg.yield %5 : bf16
    } -> tensor<64x256xbf16>
    return %4 : tensor<64x256xbf16>
  }
  func.func private @dispatch_1(%a: tensor<64x128xf16>, %b: tensor<128x256xf16>) -> tensor<64x256xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<64x256xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64x256xf32>) -> tensor<64x256xf32>
    %2 = linalg.matmul ins(%a, %b : tensor<64x128xf16>, tensor<128x256xf16>) outs(%1 : tensor<64x256xf32>) -> tensor<64x256xf32>
    return %2 : tensor<64x256xf32>
  }
  func.func private @dispatch_2(%a: tensor<64x128xbf16>, %b: tensor<128x256xf32>) -> tensor<64x256xf32> attributes {kiln.dispatch} {
    %cst = arith.constant 0.0 : f32
    %0 = tensor.empty() : tensor<64x256xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<64x256xf32>) -> tensor<64x256xf32>
    %2 = linalg.matmul ins(%a, %b : tensor<64x128xbf16>, tensor<128x256xf32>) outs(%1 : tensor<64x256xf32>) -> tensor<64x256xf32>
    return %2 : tensor<64x256xf32>
  }
}
