//===- CpuPasses.cpp - kiln-cpu-lowering-config, kiln-cpu-codegen ---------===//
//
// The CPU backend's steps as passes, so that kiln-opt runs each alone.
//
//===----------------------------------------------------------------------===//
#include "compiler/targets/cpu/ChannelsLastPad.h"
#include "compiler/targets/cpu/CpuBackend.h"
#include "compiler/targets/cpu/DataTiling.h"
#include "compiler/targets/cpu/DepthwisePad.h"
#include "compiler/targets/cpu/ImplicitGemm.h"
#include "compiler/targets/cpu/KernelCodegen.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
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
#include "mlir/Pass/Pass.h"

namespace mlir::kiln::cpu {

#define GEN_PASS_DECL
#define GEN_PASS_DEF_CPULOWERINGCONFIG
#define GEN_PASS_DEF_CPUCODEGEN
#define GEN_PASS_DEF_CPUPACKWEIGHTS
#define GEN_PASS_DEF_CPUIMPLICITGEMM
#define GEN_PASS_DEF_CPUFOLDDEPTHWISEPADS
#define GEN_PASS_DEF_CPUFOLDCHANNELSLASTPADS
#define GEN_PASS_REGISTRATION
#include "compiler/targets/cpu/Passes.h.inc"

namespace {

FailureOr<TargetChoice> configure(ModuleOp module, StringRef cpu,
                                  StringRef codegen) {
  std::optional<ConfigOptions> options = parseConfigOptions(codegen);
  if (!options)
    return module.emitError("unknown codegen '")
           << codegen << "' (expected auto, loop-order or scalar)";
  std::string error;
  FailureOr<TargetChoice> target = resolveTarget(cpu.str(), error);
  if (failed(target))
    return module.emitError(error);
  configureDispatches(module, *target, *options);
  return target;
}

// Resolves the pass's `cpu` option and runs `step` on the module for that
// target; an unknown CPU is reported on the module.
LogicalResult withTarget(ModuleOp module, StringRef cpu,
                         LogicalResult (*step)(ModuleOp,
                                               const TargetChoice &)) {
  std::string error;
  FailureOr<TargetChoice> target = resolveTarget(cpu.str(), error);
  if (failed(target))
    return module.emitError(error);
  return step(module, *target);
}

class CpuPackWeightsPass
    : public impl::CpuPackWeightsBase<CpuPackWeightsPass> {
public:
  using impl::CpuPackWeightsBase<CpuPackWeightsPass>::CpuPackWeightsBase;
  void runOnOperation() override {
    if (failed(withTarget(getOperation(), cpu, packConstantWeights)))
      signalPassFailure();
  }
};

class CpuImplicitGemmPass
    : public impl::CpuImplicitGemmBase<CpuImplicitGemmPass> {
public:
  using impl::CpuImplicitGemmBase<CpuImplicitGemmPass>::CpuImplicitGemmBase;
  void runOnOperation() override {
    if (failed(withTarget(getOperation(), cpu, formImplicitGemms)))
      signalPassFailure();
  }
};

class CpuFoldChannelsLastPadsPass
    : public impl::CpuFoldChannelsLastPadsBase<CpuFoldChannelsLastPadsPass> {
public:
  using impl::CpuFoldChannelsLastPadsBase<
      CpuFoldChannelsLastPadsPass>::CpuFoldChannelsLastPadsBase;
  void runOnOperation() override {
    if (failed(foldChannelsLastPads(getOperation())))
      signalPassFailure();
  }
};

class CpuFoldDepthwisePadsPass
    : public impl::CpuFoldDepthwisePadsBase<CpuFoldDepthwisePadsPass> {
public:
  using impl::CpuFoldDepthwisePadsBase<
      CpuFoldDepthwisePadsPass>::CpuFoldDepthwisePadsBase;
  void runOnOperation() override {
    if (failed(withTarget(getOperation(), cpu, foldDepthwisePads)))
      signalPassFailure();
  }
};

class CpuLoweringConfigPass
    : public impl::CpuLoweringConfigBase<CpuLoweringConfigPass> {
public:
  using impl::CpuLoweringConfigBase<
      CpuLoweringConfigPass>::CpuLoweringConfigBase;
  void runOnOperation() override {
    if (failed(configure(getOperation(), cpu, codegen)))
      signalPassFailure();
  }
};

class CpuCodegenPass : public impl::CpuCodegenBase<CpuCodegenPass> {
public:
  using impl::CpuCodegenBase<CpuCodegenPass>::CpuCodegenBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetChoice> target = configure(module, cpu, codegen);
    if (failed(target))
      return signalPassFailure();
    FailureOr<SmallVector<KernelInfo>> kernels =
        generateKernels(module, *target);
    if (failed(kernels))
      return signalPassFailure();
    Builder builder(module.getContext());
    SmallVector<NamedAttribute> counts;
    for (const KernelInfo &kernel : *kernels)
      counts.push_back(builder.getNamedAttr(
          kernel.name, builder.getDenseI64ArrayAttr(kernel.workgroups)));
    module->setAttr("kiln.workgroups", builder.getDictionaryAttr(counts));
  }
};

} // namespace

void registerCpuBackendPasses() { registerCpuPasses(); }

} // namespace mlir::kiln::cpu
