//===- CudaPasses.cpp - kiln-cuda-codegen ---------------------------------===//
//
// The CUDA backend's kernel generation as a pass, so that kiln-opt runs it
// alone (no CUDA toolkit needed: it stops at NVVM).
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/cuda/CudaArch.h"
#include "compiler/targets/cuda/CudaBackend.h"
#include "compiler/targets/cuda/GpuKernelCodegen.h"
#include "compiler/targets/cuda/LibraryCalls.h"
#include "dialects/kiln/KilnDialect.h"
#include "compiler/targets/cuda/PtxEmitter.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::kiln::cuda {

#define GEN_PASS_DECL
#define GEN_PASS_DEF_CUDACODEGEN
#define GEN_PASS_DEF_CUDALIBRARYCALLS
#define GEN_PASS_REGISTRATION
#include "compiler/targets/cuda/Passes.h.inc"

namespace {

class CudaCodegenPass : public impl::CudaCodegenBase<CudaCodegenPass> {
public:
  using impl::CudaCodegenBase<CudaCodegenPass>::CudaCodegenBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (blockSize <= 0 || blockSize > 1024 || blockSize % 32 != 0) {
      module.emitError("block-size must be a multiple of 32 in [32, 1024]");
      return signalPassFailure();
    }
    configureDispatches(module, blockSize);
    FailureOr<SmallVector<GpuKernelInfo>> kernels =
        generateKernels(module, chip, {stopAtLaunch, skipContractions});
    if (failed(kernels))
      return signalPassFailure();
    Builder builder(module.getContext());
    SmallVector<NamedAttribute> launches;
    for (const GpuKernelInfo &k : *kernels)
      launches.push_back(builder.getNamedAttr(
          k.kernel.name,
          builder.getDictionaryAttr(
              {builder.getNamedAttr(
                   "grid", builder.getDenseI64ArrayAttr(k.kernel.workgroups)),
               builder.getNamedAttr("block",
                                    builder.getDenseI64ArrayAttr(k.block)),
               builder.getNamedAttr("entry", builder.getStringAttr(k.entry)),
               builder.getNamedAttr("shared_memory", builder.getI64IntegerAttr(
                                                         k.sharedMemoryBytes)),
               builder.getNamedAttr("shape",
                                    builder.getStringAttr(k.shape))})));
    module->setAttr("kiln.gpu_launches", builder.getDictionaryAttr(launches));
    if (!ptxDir.empty() && failed(writePtx(module)))
      return signalPassFailure();
  }

  // Serializes every gpu.module (as kilnc does) and writes
  // <ptx-dir>/<module>.ptx, for tests that run ptxas on each.
  LogicalResult writePtx(ModuleOp module) {
    std::string error;
    std::optional<CudaToolkit> toolkit = findCudaToolkit(error);
    if (!toolkit)
      return module.emitError(error);
    FailureOr<std::vector<PtxModule>> ptx = emitPtx(module, toolkit->root);
    if (failed(ptx))
      return failure();
    if (std::error_code ec = llvm::sys::fs::create_directories(ptxDir))
      return module.emitError("cannot create ")
             << ptxDir << ": " << ec.message();
    for (const PtxModule &m : *ptx) {
      std::string path = ptxDir + "/" + m.name + ".ptx";
      std::error_code ec;
      llvm::raw_fd_ostream os(path, ec);
      if (ec)
        return module.emitError("cannot write ")
               << path << ": " << ec.message();
      os << m.ptx;
    }
    return success();
  }
};

class CudaLibraryCallsPass
    : public impl::CudaLibraryCallsBase<CudaLibraryCallsPass> {
public:
  using impl::CudaLibraryCallsBase<CudaLibraryCallsPass>::CudaLibraryCallsBase;

  void runOnOperation() override {
    if (failed(formLibraryCalls(getOperation())))
      signalPassFailure();
  }
};

} // namespace

void registerCudaBackendPasses() { registerCudaPasses(); }

} // namespace mlir::kiln::cuda
