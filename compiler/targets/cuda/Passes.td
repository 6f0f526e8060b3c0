//===- Passes.td - The CUDA backend's passes ---------------*- tablegen -*-===//
//
// Owned by the CUDA backend (compiler/targets/cuda), runnable alone in
// kiln-opt.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TARGETS_CUDA_PASSES_TD
#define KILN_TARGETS_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

def CudaCodegen : Pass<"kiln-cuda-codegen", "::mlir::ModuleOp"> {
  let summary = "Generate NVVM kernels (gpu.module) from dispatch functions";
  let description = [{
    Expects a module holding only `kiln.dispatch` functions (the output of
    `kiln-form-dispatches` without the host function). Dispatches without a
    lowering configuration get `{block_size = 256}`. The elementwise ops of
    each dispatch are fused into one `linalg.generic`; a dispatch that then
    holds anything else (a contraction, a conv, a reduction, a rank-0
    result, several loop nests) is not supported yet, and all such
    dispatches are named, with their root ops, in one error.

    A supported dispatch is bufferized (inputs then outputs as memref
    arguments), its loop nest collapsed to one dimension and tiled by the
    block size: a tile is a thread block, one element per thread, so
    consecutive threads touch consecutive elements (coalesced). The
    `gpu.launch` is outlined into a `gpu.module` per dispatch
    (`<dispatch>_kernel`), whose kernel takes the bindings as bare pointers
    in binding order, and lowered to NVVM with the module's `#nvvm.target`
    set to `chip`. Each kernel's grid and block are printed as a
    `kiln.gpu_launches` attribute on the module.

    Example: `kiln-opt --kiln-cuda-codegen=chip=sm_80 dispatches.mlir`
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::cf::ControlFlowDialect", "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect"
  ];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_80\"",
           "The PTX target architecture (the lowest of --cuda-arch)">,
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block for dispatches without a lowering config">,
    Option<"stopAtLaunch", "stop-at-launch", "bool", /*default=*/"false",
           "Stop once each dispatch holds its gpu.launch (before outlining "
           "and NVVM): shows the kernels' structure">,
    Option<"skipContractions", "skip-contractions", "bool",
           /*default=*/"false",
           "Drop contraction dispatches (cuBLASLt's) instead of refusing "
           "them, to reach a model's other kernels">,
    Option<"ptxDir", "ptx-dir", "std::string", /*default=*/"",
           "Also serialize each kernel module to PTX (libdevice from the "
           "CUDA toolkit) and write <ptx-dir>/<module>.ptx">,
  ];
}

#endif // KILN_TARGETS_CUDA_PASSES_TD
