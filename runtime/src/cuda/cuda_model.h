// cuda_model.h - a model's GPU side on one device, built once at load and
// shared by its Sessions: the modules of every cuda executable (the cubin
// for the device's architecture, else the PTX through the driver's JIT),
// their kernel functions, and the constants uploaded once.
#ifndef KILN_RUNTIME_SRC_CUDA_CUDA_MODEL_H_
#define KILN_RUNTIME_SRC_CUDA_CUDA_MODEL_H_

#include <memory>
#include <string>
#include <vector>

#include "kiln/runtime.h"
#include "runtime/src/cuda/cuda_device.h"

namespace kiln {

class LoadedArtifact;

// Which code of a GPU executable a device runs.
struct GpuImageChoice {
  bool use_ptx = false;  // JIT the PTX
  size_t cubin = 0;      // else: index into the executable's archs/cubins
  std::string Describe(const std::vector<std::string>& archs) const;  // "cubin sm_90", "PTX (JIT)"
};

// The rules, as a pure function of the facts (unit-tested): the cubin of
// exactly the device's arch; else the newest cubin of the same major
// version and a lower minor one (binary compatible), never an arch-
// specific ("sm_90a") one; else the PTX when its .target is not newer than
// the device and the driver's JIT reads its ISA version; else
// FAILED_PRECONDITION naming the arch, what the artifact has and what to
// do. `where` names the executable.
Status ChooseGpuImage(const std::vector<std::string>& archs, const std::string& ptx_version,
                      const std::string& ptx_target, int cc_major, int cc_minor,
                      int driver_version, const std::string& where, GpuImageChoice* out);

// The highest PTX ISA version ("9.0" as 90) that a driver of CUDA
// `driver_version` (13000) JIT-compiles; and the inverse, the first CUDA
// version reading an ISA version (0 when unknown).
int MaxPtxIsaForDriver(int driver_version);
int DriverForPtxIsa(int isa);

class CudaModel {
 public:
  static Status Load(std::shared_ptr<CudaDevice> device, const LoadedArtifact& artifact,
                     std::unique_ptr<CudaModel>* out);
  ~CudaModel();
  CudaModel(const CudaModel&) = delete;
  CudaModel& operator=(const CudaModel&) = delete;

  const std::shared_ptr<CudaDevice>& device() const { return device_; }
  cuda::CUfunction function(uint32_t executable, uint32_t kernel) const {
    return functions_[executable][kernel];
  }
  // The constants segment on the device (0 when the model has none); a
  // constant's bytes are at the same offsets as in the file's segment.
  cuda::CUdeviceptr constants() const { return constants_; }
  // Per executable (empty for non-cuda ones): what was loaded, e.g.
  // "cubin sm_90".
  const std::vector<std::string>& images() const { return images_; }

 private:
  CudaModel() = default;
  std::shared_ptr<CudaDevice> device_;
  std::vector<cuda::CUmodule> modules_;
  std::vector<std::vector<cuda::CUfunction>> functions_;
  std::vector<std::string> images_;
  cuda::CUdeviceptr constants_ = 0;
};

}  // namespace kiln

#endif  // KILN_RUNTIME_SRC_CUDA_CUDA_MODEL_H_
