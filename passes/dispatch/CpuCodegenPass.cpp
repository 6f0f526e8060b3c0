//===- CpuCodegenPass.cpp - kiln-cpu-codegen ------------------------------===//
//
// The kernel generator of compiler/cpu as a pass, so that kiln-opt can run
// it alone on dispatch functions.
//
//===----------------------------------------------------------------------===//
#include "compiler/cpu/KernelCodegen.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::kiln {

#define GEN_PASS_DEF_CPUCODEGEN
#include "passes/Passes.h.inc"

namespace {

class CpuCodegenPass : public impl::CpuCodegenBase<CpuCodegenPass> {
public:
  using impl::CpuCodegenBase<CpuCodegenPass>::CpuCodegenBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<SmallVector<cpu::KernelInfo>> kernels =
        cpu::generateKernels(module, vectorize);
    if (failed(kernels))
      return signalPassFailure();
    Builder builder(module.getContext());
    SmallVector<NamedAttribute> counts;
    for (const cpu::KernelInfo &kernel : *kernels)
      counts.push_back(builder.getNamedAttr(
          kernel.name, builder.getDenseI64ArrayAttr(kernel.workgroups)));
    module->setAttr("kiln.workgroups", builder.getDictionaryAttr(counts));
  }
};

} // namespace
} // namespace mlir::kiln
