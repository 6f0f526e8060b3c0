//===- LoweringConfig.h - How one dispatch becomes a CPU kernel -*- C++ -*-===//
//
// Every dispatch carries a lowering configuration, a dictionary attribute
// `kiln.lowering_config` on its function:
//
//   {strategy = "contraction",
//    workgroup_tile = array<i64: 64, 64>,   // per loop of the root op
//    register_tile = array<i64: 8, 32>,     // rows x f32 lanes per tile
//    reduction_tile = 128}                  // K block (0 = whole K)
//
// A contraction of 16-bit operands (kiln-mixed-precision) or i8 ones
// (integer contractions) also says so and which kernel path it takes:
// `operand_type = i8, native = "vnni"` (vpdpbusd on K-quad-packed B),
// `native = "pmaddwd"` (i8 widened to i16, K-pair-packed B),
// `operand_type = bf16, native = "dpbf16"` (vdpbf16ps on K-pair-packed
// B), or `native = "convert"` (operands widened in registers, f32 FMAs or
// i32 multiply-adds). For a constant B the path follows from the
// dispatch's IR (B's packed layout, DataTiling.h) and the attribute
// reports it; for a computed B (a convolution's im2col columns) the
// attribute chooses it, `native = "vnni", pack_b = "panels"`: the kernel
// packs B itself, one K block x register tile at a time. For a convolution
// whose columns come from a gather generic (ImplicitGemm.h, f32),
// `gather_b = "im2col"` has the kernel gather its B panels from the conv
// input itself: no im2col buffer, no pad (implicit GEMM).
//
// Strategies:
//  - "contraction": the dispatch's contraction (matmul, batch matmul, conv
//    as GEMM) runs as register tiles of `mr` output rows by `nr` lanes,
//    whose accumulators stay in vector registers across the whole K loop
//    (ContractionKernel.h);
//  - "loop-order": reductions get their innermost parallel dim innermost
//    so LLVM's loop vectorizer emits vector code (LoopOrder.h);
//  - "depthwise": a depthwise convolution runs as DepthwiseKernel.h's
//    flat-plane tiles, `{native = "vnni" | "pmaddwd" | "fma", pixel_tile =
//    N, plane = "rows" | "flat"[, tile_rows = R]}`;
//  - "attention": a dispatch of one kiln.attention runs as
//    AttentionKernel.h's online-softmax kernel, `workgroup_tile = [1, R]`
//    (heads x query rows), `register_tile = [rows, keys]` (query rows x
//    keys per block);
//  - "scalar": loops as lowered (a reference for debugging).
// The root op is the one producing the dispatch's first result; it is
// tiled into workgroups by `workgroup_tile` (0 = not split), its producers
// fused into each tile.
//
// The CPU backend chooses the configuration from the target (vector width
// and register count); lit tests and plugins may set one by hand, and the
// code generator then uses it as given.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGETS_CPU_LOWERINGCONFIG_H
#define KILN_COMPILER_TARGETS_CPU_LOWERINGCONFIG_H

#include "compiler/targets/cpu/CpuTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::kiln::cpu {

enum class Strategy { Contraction, LoopOrder, Scalar, Depthwise, Attention };

llvm::StringRef strategyName(Strategy strategy);

struct LoweringConfig {
  Strategy strategy = Strategy::LoopOrder;
  SmallVector<int64_t> workgroupTile;
  // Contraction: output rows and f32 lanes of one register tile.
  // Attention: query rows and keys (whole vectors) per register tile.
  int64_t tileRows = 0;
  int64_t tileLanes = 0;
  // Contraction only: K block kept in L1 per register-tile pass (0: all).
  int64_t reductionTile = 0;
  // Contraction only: A and B's element type when not f32, and the kernel
  // path (ContractionKernel.h's nativePath), both reported in the
  // attribute; the kernel reads both from the IR.
  Type operandType;
  std::string native;
  // Contraction only: B is packed by the kernel, one K block x register
  // tile panel at a time, for the `native` path (`pack_b = "panels"` in
  // the attribute; ContractionKernel.h's canPackPanels). Chosen for i8 and
  // bf16 contractions whose B is computed (the im2col columns of a
  // convolution), which the data tiling cannot pack ahead of time.
  bool packPanels = false;
  // Contraction only, f32: B (computed: a 1x1 convolution's input, an
  // activation matmul) is copied by the kernel into a contiguous panel
  // per K block and lane tile that every row tile reads (`pack_b =
  // "lanes"`; ContractionKernel.h's copiesLanePanel). Chosen on AVX2.
  bool copyLanes = false;
  // Depthwise only (DepthwiseKernel.h): output pixels per tile, and whether
  // tiles span the rows of the flat plane; the path is in `native`.
  int64_t pixelTile = 0;
  bool flatPlane = false;
  // Depthwise only: output rows per tile when tiles walk rows (`tile_rows`
  // in the attribute, written when above 1): more independent FMA chains
  // for f32, and input rows the rows share are loaded once.
  int64_t pixelRows = 1;
  // Contraction only: B is a convolution's im2col columns, computed by a
  // gather generic (ImplicitGemm.h), and the kernel gathers each K block x
  // lane tile panel of B straight from the conv input, padding as bounds
  // checks, instead of reading a column buffer (`gather_b = "im2col"`).
  // Without it the gather is fused into each workgroup tile as a
  // tile-sized column buffer.
  bool gatherB = false;
  // Contraction with gatherB only: each lane tile covers part of one
  // output row (`gather_b = "rows"`): one contiguous run of the input per
  // panel row, the left/right padding a lane mask, rows above or below the
  // plane skipped; no per-tile segment table (ImplicitGemm.h,
  // worthGatheringRows). Column strides 1 and 2.
  bool gatherRows = false;

  DictionaryAttr toAttr(MLIRContext *context) const;
  // Reads the attribute of `dispatch`; errors are reported on it.
  static FailureOr<LoweringConfig> read(func::FuncOp dispatch);
};

// Which strategies `--codegen` allows: "auto" (contraction tiles where they
// apply, loop order elsewhere), "loop-order" or "scalar".
struct ConfigOptions {
  bool registerTiles = true;
  bool loopOrder = true;
};

// Parses `--codegen` / the passes' `codegen=` option: auto, loop-order or
// scalar. Returns nullopt for anything else.
std::optional<ConfigOptions> parseConfigOptions(llvm::StringRef codegen);

// The configuration the backend picks for `dispatch` on `target`.
LoweringConfig chooseLoweringConfig(func::FuncOp dispatch,
                                    const TargetChoice &target,
                                    const ConfigOptions &options);

// Attaches a chosen configuration to every dispatch function in `module`
// that has none.
void configureDispatches(ModuleOp module, const TargetChoice &target,
                         const ConfigOptions &options);

// The op a dispatch's workgroups are tiled by: the producer of its first
// result, when it is a linalg op, a pad, or the last insert of a concat.
Operation *workgroupRoot(func::FuncOp dispatch);

// A concat as dispatch formation leaves it: a chain of static, unit-stride,
// same-rank tensor.insert_slice ops into one tensor.empty, each piece
// spanning the whole result on every dim but `axis`.
struct ConcatChain {
  SmallVector<tensor::InsertSliceOp> inserts; // first piece first
  int64_t axis = -1; // -1: every piece spans the whole result
};
// The chain ending in `last`, or nullopt if `last` is not such a concat.
std::optional<ConcatChain> matchConcat(Operation *last);

} // namespace mlir::kiln::cpu

#endif // KILN_COMPILER_TARGETS_CPU_LOWERINGCONFIG_H
