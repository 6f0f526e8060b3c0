//===- CpuBackend.cpp - The x86-64 target backend -------------------------===//
#include "compiler/targets/cpu/CpuBackend.h"

#include "compiler/targets/cpu/ChannelsLastPad.h"
#include "compiler/targets/cpu/DataTiling.h"
#include "compiler/targets/cpu/DepthwisePad.h"
#include "compiler/targets/cpu/ImplicitGemm.h"

#include "compiler/targets/cpu/KernelCodegen.h"
#include "compiler/targets/cpu/ObjectEmitter.h"

namespace mlir::kiln::cpu {

namespace {

class CpuBackend : public TargetBackend {
public:
  CpuBackend(TargetChoice target, ConfigOptions config)
      : target(std::move(target)), config(config) {}

  llvm::StringRef name() const override { return "cpu"; }

  LogicalResult packConstants(ModuleOp module) override {
    // Packed layouts are read by the register-tile kernels only; with
    // --codegen=loop-order or scalar the weights stay as they are.
    if (!config.registerTiles)
      return success();
    // K x K convolutions read their input directly (implicit GEMM): the
    // pad and im2col dispatches go, the contraction gathers its B panels.
    if (failed(formImplicitGemms(module, target)))
      return failure();
    // Depthwise convs read their input unpadded: the pad dispatch goes,
    // the depthwise kernel's loads take the padding as bounds.
    if (failed(foldDepthwisePads(module, target)))
      return failure();
    // Channels-last convs likewise: the register tiles take the padding
    // as kh loop bounds and zero edge rows.
    if (failed(foldChannelsLastPads(module)))
      return failure();
    return packConstantWeights(module, target);
  }

  LogicalResult configureDispatches(ModuleOp dispatches) override {
    cpu::configureDispatches(dispatches, target, config);
    return success();
  }

  FailureOr<SmallVector<KernelInfo>>
  generateKernels(ModuleOp dispatches) override {
    return cpu::generateKernels(dispatches, target);
  }

  FailureOr<::kiln::artifact::ExecutableSpec>
  emitExecutable(ModuleOp kernels, ArrayRef<KernelInfo> table,
                 std::string &error) override {
    FailureOr<std::vector<uint8_t>> object =
        emitSharedObject(kernels, target, error);
    if (failed(object))
      return failure();
    ::kiln::artifact::ExecutableSpec executable;
    executable.cpu = target.cpu;
    executable.requiredFeatures = target.required;
    executable.blob = std::move(*object);
    for (const KernelInfo &k : table) {
      ::kiln::artifact::KernelSpec kernel;
      kernel.name = k.name;
      kernel.bindingCount = k.bindingCount;
      using ::kiln::artifact::Access;
      for (auto [i, size] : llvm::enumerate(k.bindingSizes)) {
        Access access = i < k.numInputs ? Access::Read : Access::Write;
        if (k.scratchBytes && i + 1 == k.bindingSizes.size())
          access = Access::ReadWrite;
        kernel.bindings.push_back({size, access});
      }
      for (int d = 0; d < 3; ++d)
        kernel.workgroups[d] = static_cast<uint32_t>(k.workgroups[d]);
      executable.kernels.push_back(std::move(kernel));
    }
    return executable;
  }

private:
  TargetChoice target;
  ConfigOptions config;
};

} // namespace

FailureOr<std::unique_ptr<TargetBackend>>
createCpuBackend(const CpuBackendOptions &options, std::string &error) {
  FailureOr<TargetChoice> target = resolveTarget(options.cpu, error);
  if (failed(target))
    return failure();
  return std::unique_ptr<TargetBackend>(
      std::make_unique<CpuBackend>(std::move(*target), options.config));
}

} // namespace mlir::kiln::cpu
