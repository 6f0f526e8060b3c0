//===- CudaBackend.cpp - The NVIDIA GPU target backend --------------------===//
#include "compiler/targets/cuda/CudaBackend.h"

#include "compiler/targets/cuda/CudaArch.h"
#include "compiler/targets/cuda/GpuKernelCodegen.h"
#include "compiler/targets/cuda/LibraryCalls.h"
#include "compiler/targets/cuda/PtxEmitter.h"

#include "llvm/ADT/StringMap.h"

namespace mlir::kiln::cuda {

namespace {

class CudaBackend : public TargetBackend {
public:
  CudaBackend(CudaBackendOptions options, CudaToolkit toolkit)
      : options(std::move(options)), toolkit(std::move(toolkit)),
        chip(ptxChip(this->options.archs)) {}

  llvm::StringRef name() const override { return "cuda"; }

  LogicalResult formLibraryCalls(ModuleOp module) override {
    return cuda::formLibraryCalls(module);
  }

  LogicalResult configureDispatches(ModuleOp dispatches) override {
    cuda::configureDispatches(dispatches, options.blockSize);
    return success();
  }

  FailureOr<SmallVector<KernelInfo>>
  generateKernels(ModuleOp dispatches) override {
    FailureOr<SmallVector<GpuKernelInfo>> generated =
        cuda::generateKernels(dispatches, chip);
    if (failed(generated))
      return failure();
    launches = std::move(*generated);
    SmallVector<KernelInfo> table;
    for (const GpuKernelInfo &launch : launches)
      table.push_back(launch.kernel);
    return table;
  }

  FailureOr<::kiln::artifact::ExecutableSpec>
  emitExecutable(ModuleOp kernels, ArrayRef<KernelInfo> table,
                 std::string &error) override {
    FailureOr<std::vector<PtxModule>> modules = emitPtx(kernels, toolkit.root);
    if (failed(modules)) {
      error = "PTX generation failed";
      return failure();
    }
    if (table.size() != launches.size()) {
      error = "the cuda kernel table has " + std::to_string(table.size()) +
              " entries for " + std::to_string(launches.size()) +
              " generated kernels";
      return failure();
    }
    namespace art = ::kiln::artifact;
    art::ExecutableSpec executable;
    executable.target = "cuda";
    executable.format = "ptx+cubin";
    executable.hasGpu = true;
    art::GpuExecutableSpec &gpu = executable.gpu;
    gpu.archs = options.archs;
    gpu.ptxTarget = chip;
    llvm::StringMap<uint32_t> moduleIndex;
    for (PtxModule &module : *modules) {
      std::string version = ptxVersion(module.ptx);
      if (gpu.ptxVersion.empty() || version > gpu.ptxVersion)
        gpu.ptxVersion = version;
      art::GpuModuleSpec spec;
      for (const std::string &arch : options.archs) {
        art::GpuCubinSpec cubin;
        cubin.arch = arch;
        std::string ptxasError;
        if (!assembleCubin(toolkit.ptxas, module.ptx, arch, cubin.data,
                           ptxasError)) {
          error = "kernel module '" + module.name + "': " + ptxasError;
          return failure();
        }
        spec.cubins.push_back(std::move(cubin));
      }
      spec.ptx = std::move(module.ptx);
      moduleIndex[module.name] = gpu.modules.size();
      gpu.modules.push_back(std::move(spec));
    }
    for (auto [k, launch] : llvm::zip(table, launches)) {
      art::KernelSpec kernel;
      kernel.name = k.name;
      kernel.bindingCount = k.bindingCount;
      for (auto [i, size] : llvm::enumerate(k.bindingSizes))
        kernel.bindings.push_back({size, i < k.numInputs
                                             ? art::Access::Read
                                             : art::Access::Write});
      for (int d = 0; d < 3; ++d)
        kernel.workgroups[d] = static_cast<uint32_t>(k.workgroups[d]);
      executable.kernels.push_back(std::move(kernel));
      auto found = moduleIndex.find(launch.module);
      if (found == moduleIndex.end()) {
        error = "kernel '" + k.name + "' has no PTX module '" +
                launch.module + "'";
        return failure();
      }
      art::GpuKernelSpec gpuKernel;
      gpuKernel.entry = launch.entry;
      gpuKernel.module = found->second;
      for (int d = 0; d < 3; ++d)
        gpuKernel.block[d] = static_cast<uint32_t>(launch.block[d]);
      gpuKernel.sharedMemoryBytes = launch.sharedMemoryBytes;
      gpu.kernels.push_back(std::move(gpuKernel));
    }
    return executable;
  }

private:
  CudaBackendOptions options;
  CudaToolkit toolkit;
  std::string chip;
  // From generateKernels, for emitExecutable (same order as the table).
  SmallVector<GpuKernelInfo> launches;
};

} // namespace

FailureOr<std::unique_ptr<TargetBackend>>
createCudaBackend(const CudaBackendOptions &options, std::string &error) {
  if (options.archs.empty()) {
    error = "--cuda-arch names no architecture";
    return failure();
  }
  std::optional<CudaToolkit> toolkit = findCudaToolkit(error);
  if (!toolkit)
    return failure();
  return std::unique_ptr<TargetBackend>(
      std::make_unique<CudaBackend>(options, std::move(*toolkit)));
}

} // namespace mlir::kiln::cuda
