//===- Passes.td - The CUDA backend's passes ---------------*- tablegen -*-===//
//
// Owned by the CUDA backend (compiler/targets/cuda), runnable alone in
// kiln-opt.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TARGETS_CUDA_PASSES_TD
#define KILN_TARGETS_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

def CudaLibraryCalls : Pass<"kiln-cuda-library-calls", "::mlir::ModuleOp"> {
  let summary = "Turn contraction dispatches into cuBLASLt GEMM calls "
                "(kiln.gemm_call on the host)";
  let description = [{
    Expects the output of `kiln-form-dispatches` (the host function and its
    `kiln.dispatch` functions). Every dispatch whose root is a contraction
    that one strided-batched GEMM computes (`linalg.matmul`,
    `linalg.batch_matmul`, a mul-add `linalg.generic` with one reduction
    loop whose operands are row-major matrices, each batched over the
    result's leading dims or broadcast over all of them: MatMul, Gemm and
    convs lowered through im2col) is split at every call site into a
    `kiln.gemm_call` on the host and, when needed, a residual dispatch
    `<dispatch>_epilogue` for the elementwise consumer that cuBLASLt cannot
    apply. A consumer that is exactly `alpha * acc (+ beta * C) (+ bias per
    column)` followed by nothing, ReLU or tanh-GELU becomes the call's
    alpha, C/beta and epilogue instead, and the dispatch disappears. A host
    operand produced by a dispatch that only swaps the last two dims
    (`linalg.transpose`) is read in place with `transpose_a/b`.

    A dispatch holding a contraction no such GEMM computes (other element
    types than f32, two k dims, an operand broadcast over some batch dims
    only, a non-zero initial value, a depthwise/grouped/transposed conv
    read through window maps, a contraction inside the dispatch's loop)
    stays as it is, marked `kiln.cuda.generated_contraction` and given a
    `kiln.kernel_note` saying why: kiln-cuda-codegen generates it (one
    thread per output element, the reduction in the thread). Then every
    call of a dispatch that only pads its argument with a constant, whose
    result feeds only other dispatch calls (directly or through host
    reshapes), moves into those dispatches (`<dispatch>_padded`). Other
    dispatches are left alone.

    Example: `kiln-opt --kiln-cuda-library-calls dispatches.mlir`
  }];
  let dependentDialects = [
    "::mlir::kiln::KilnDialect", "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"
  ];
}

def CudaCodegen : Pass<"kiln-cuda-codegen", "::mlir::ModuleOp"> {
  let summary = "Generate NVVM kernels (gpu.module) from dispatch functions";
  let description = [{
    Expects a module holding only `kiln.dispatch` functions (the output of
    `kiln-form-dispatches` without the host function). Dispatches without a
    lowering configuration get `{block_size = 256}`. Data movement becomes
    gather generics and elementwise ops fuse (docs/design.md, "The CUDA
    back end"); a dispatch that then holds a contraction or convolution
    without the `kiln.cuda.generated_contraction` mark (cuBLASLt's), a
    dynamic shape, a tensor constant or an unsupported op is refused, and
    all such dispatches are named, with their reasons, in one error.

    A supported dispatch is bufferized (inputs then outputs as memref
    arguments) and its loop nests become one `gpu.launch` in one of the
    emitter's shapes (flat: one thread per output element, reductions in
    the thread; rows; one block; serial). The
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
