//===- CudaPasses.cpp - kiln-cuda-codegen ---------------------------------===//
//
// The CUDA backend's kernel generation as a pass, so that kiln-opt runs it
// alone (no CUDA toolkit needed: it stops at NVVM).
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/cuda/CudaBackend.h"
#include "compiler/targets/cuda/GpuKernelCodegen.h"

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
#include "mlir/Pass/Pass.h"

namespace mlir::kiln::cuda {

#define GEN_PASS_DECL
#define GEN_PASS_DEF_CUDACODEGEN
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
        generateKernels(module, chip);
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
               builder.getNamedAttr("entry",
                                    builder.getStringAttr(k.entry))})));
    module->setAttr("kiln.gpu_launches", builder.getDictionaryAttr(launches));
  }
};

} // namespace

void registerCudaBackendPasses() { registerCudaPasses(); }

} // namespace mlir::kiln::cuda
