//===- Passes.td - The CPU backend's passes ----------------*- tablegen -*-===//
//
// Owned by the CPU backend (compiler/targets/cpu), runnable alone in
// kiln-opt.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TARGETS_CPU_PASSES_TD
#define KILN_TARGETS_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def CpuLoweringConfig : Pass<"kiln-cpu-lowering-config", "::mlir::ModuleOp"> {
  let summary = "Choose a lowering configuration for each dispatch";
  let description = [{
    Attaches `kiln.lowering_config` to every `kiln.dispatch` function that
    has none: the strategy ("contraction" register tiles, "depthwise"
    flat-plane tiles, "loop-order" or "scalar"), the workgroup tile of the
    root op, and for contractions the register tile (rows x f32 lanes),
    chosen from the target CPU's vector width and register count (8x32 on
    AVX-512, 6x16 on AVX2), the K block, and for 16-bit and i8 operands
    the native instruction path (`native`, `pack_b = "panels"`); on AVX2 an
    f32 contraction whose computed B rows are costly to re-read per row
    tile gets `pack_b = "lanes"` (the kernel copies B into lane panels per
    K block). A convolution whose
    columns come from `kiln-cpu-implicit-gemm`'s gather also gets
    `gather_b = "im2col"`, or `gather_b = "rows"` for a narrow one (lane
    tiles inside one output row). LoweringConfig.h lists every field.
    Configurations already present are kept.

    Example: `kiln-opt --kiln-cpu-lowering-config=cpu=x86-64-v3 d.mlir`
  }];
  let options = [
    Option<"cpu", "cpu", "std::string", /*default=*/"\"native\"",
           "Target CPU: native, x86-64-v3, x86-64-v4 or an LLVM CPU name">,
    Option<"codegen", "codegen", "std::string", /*default=*/"\"auto\"",
           "Strategies allowed: auto, loop-order or scalar">,
  ];
}

def CpuPackWeights : Pass<"kiln-cpu-pack-weights", "::mlir::ModuleOp"> {
  let summary = "Pack constant contraction weights into the layout of the "
                "target's dot-product instructions (data tiling)";
  let description = [{
    Runs on a whole module after dispatch formation (the host function and
    its dispatches). A contraction whose B operand (the weights: `[K, N]`,
    lanes along N) is a dispatch argument that every call passes a
    constant for gets B repacked at compile time into the layout the
    target's native instruction reads, and the dispatch's generic reads it
    through `(k floordiv g, n, k mod g)`:
      - i8 with AVX512-VNNI / AVX-VNNI: K quads `[K/4][N][4]` (K
        zero-padded), A flipped to unsigned in the body and the
        accumulators started at `-128 * colsum(B)` (one more constant,
        `tensor<N x i32>`, passed after the others);
      - i8 with AVX2 but no VNNI: K pairs `[K/2][N][2]` (sign-extended to
        i16 and summed by pmaddwd);
      - bf16 with AVX512-BF16: K pairs `[K/2][N][2]` (vdpbf16ps);
      - f32 on AVX2 and AVX-512: lane panels `[ceil(N/16)][K][16]` (N
        zero-padded), read through `(n floordiv 16, k, n mod 16)`, for the
        contractions at the top level of their dispatch (not inside a
        loop).
    An f32 B computed at run time whose rows lie a page or more apart
    (N * 4 >= 4096, N a multiple of 16, K >= 32, M >= 64) gets the same
    lane panels from a pack dispatch (`pack_lanes_KxN`, a linalg copy)
    that each call of the contraction's dispatch calls first. A constant
    f32 A (a convolution's filter, the broadcast operand) of at least 4 R
    rows is stored in row panels `[ceil(M/R)][K][R]` read through
    `(m floordiv R, k, m mod R)`, R = 8 on AVX-512 and 6 on AVX2.
    Everything else (no native instruction, other computed B) is left
    alone.

    Example: `kiln-opt --kiln-cpu-pack-weights=cpu=znver4 model.mlir`
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
  let options = [
    Option<"cpu", "cpu", "std::string", /*default=*/"\"native\"",
           "Target CPU: native, x86-64-v3, x86-64-v4 or an LLVM CPU name">,
  ];
}

def CpuImplicitGemm : Pass<"kiln-cpu-implicit-gemm", "::mlir::ModuleOp"> {
  let summary = "Convolutions read their input directly: no pad and im2col "
                "dispatches (implicit GEMM)";
  let description = [{
    Runs on a whole module after dispatch formation (the host function and
    its dispatches). Each call of an f32 conv-as-GEMM contraction dispatch
    whose B is the collapsed result of an im2col dispatch (reading a zero
    pad dispatch's result, or any tensor) calls a copy of the dispatch
    that takes the unpadded input instead and computes B with a gather
    generic marked `kiln.conv_gather` (padding as bounds checks). The pad
    and im2col dispatches go when nothing else calls them. The lowering
    configuration then says `gather_b = "im2col"` and the contraction
    kernel gathers its B panels from the input (ImplicitGemm.h). Only
    convolutions where that pays on the target are rewritten: at least 64
    output channels and few output rows per lane tile (worthGathering),
    or fewer channels, column stride 1 or 2 and output rows that fill
    their lane tiles (at stride 1 on AVX2 at least 28 wide;
    worthGatheringRows: `gather_b = "rows"`, one run of the input per lane
    tile and panel row).

    Example: `kiln-opt --kiln-cpu-implicit-gemm=cpu=x86-64-v4 model.mlir`
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
  let options = [
    Option<"cpu", "cpu", "std::string", /*default=*/"\"native\"",
           "Target CPU: native, x86-64-v3, x86-64-v4 or an LLVM CPU name">,
  ];
}

def CpuFoldChannelsLastPads
    : Pass<"kiln-cpu-fold-channels-last-pads", "::mlir::ModuleOp"> {
  let summary = "Channels-last convolutions read their input unpadded: no "
                "pad dispatch (padding as bounds in the register tiles)";
  let description = [{
    Runs on a whole module after dispatch formation (the host function and
    its dispatches). Each call of a channels-last convolution dispatch
    (kiln.conv_nhwc's 7-loop contraction) whose input is the result of a
    zero-pad dispatch of dims 1 and 2 calls a copy of the dispatch that
    takes the unpadded input instead and computes the padded one with a
    generic marked `kiln.channels_last_pad` (exact for every strategy).
    Register tiles leave that generic unfused and read the unpadded input
    themselves: each output row's kh loop runs over the filter rows inside
    the plane, and the tile rows that can reach past the left or right
    edge read zeros there (ChannelsLastPad.h). The pad dispatch goes when
    nothing else calls it.

    Example: `kiln-opt --kiln-cpu-fold-channels-last-pads m.mlir`
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def CpuFoldDepthwisePads
    : Pass<"kiln-cpu-fold-depthwise-pads", "::mlir::ModuleOp"> {
  let summary = "Depthwise convolutions read their input unpadded: no pad "
                "dispatch (padding as bounds in the depthwise kernel)";
  let description = [{
    Runs on a whole module after dispatch formation (the host function and
    its dispatches). Each call of a depthwise convolution dispatch whose
    input is the result of a constant-pad dispatch (spatial dims only)
    calls a copy of the dispatch that takes the unpadded input instead and
    computes the padded one with a generic marked `kiln.depthwise_pad`
    (exact for every strategy). With `strategy = "depthwise"` the kernel
    leaves that generic unfused and reads the unpadded input itself: loads
    masked to the row's columns, rows above or below the plane masked off,
    interior tiles unmasked (DepthwisePad.h). The pad dispatch goes when
    nothing else calls it. Only dispatches that get row tiles
    (`plane = "rows"`) are rewritten, and 8- or 16-bit planes only on
    AVX-512 targets (masked byte and word loads).

    Example: `kiln-opt --kiln-cpu-fold-depthwise-pads=cpu=x86-64-v4 m.mlir`
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
  let options = [
    Option<"cpu", "cpu", "std::string", /*default=*/"\"native\"",
           "Target CPU: native, x86-64-v3, x86-64-v4 or an LLVM CPU name">,
  ];
}

def CpuCodegen : Pass<"kiln-cpu-codegen", "::mlir::ModuleOp"> {
  let summary = "Generate x86-64 kernels (LLVM dialect) from dispatch functions";
  let description = [{
    Expects a module holding only `kiln.dispatch` functions (the output of
    `kiln-form-dispatches` without the host function). Dispatches without a
    lowering configuration get one as `kiln-cpu-lowering-config` would
    choose it for `cpu`. Each becomes a kernel of the Kiln CPU ABI: its
    root op tiled into workgroups, its contraction run as register tiles
    (or reductions ordered for LLVM's loop vectorizer), bufferized without
    heap allocations, and lowered to the LLVM dialect with a
    `kiln_dispatch_state` wrapper; `kiln_cpu_library_query` returns the
    kernel table. Each kernel's workgroup counts are printed as a
    `kiln.workgroups` attribute on the module.

    Example: `kiln-opt --kiln-cpu-codegen=cpu=x86-64-v4 dispatches.mlir`
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::cf::ControlFlowDialect", "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect", "::mlir::amx::AMXDialect"
  ];
  let options = [
    Option<"cpu", "cpu", "std::string", /*default=*/"\"native\"",
           "Target CPU for dispatches without a lowering config">,
    Option<"codegen", "codegen", "std::string", /*default=*/"\"auto\"",
           "Strategies allowed when choosing configs: auto, loop-order or scalar">,
  ];
}

#endif // KILN_TARGETS_CPU_PASSES_TD
