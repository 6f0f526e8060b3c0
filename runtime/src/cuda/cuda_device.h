// cuda_device.h - one CUDA device as a Runtime uses it: the driver table,
// the device's primary context and its facts (compute capability, driver
// version). Shared (shared_ptr) by the Runtime, its Models and Sessions,
// so the context outlives every object that allocated in it.
#ifndef KILN_RUNTIME_SRC_CUDA_CUDA_DEVICE_H_
#define KILN_RUNTIME_SRC_CUDA_CUDA_DEVICE_H_

#include <memory>
#include <string>

#include "kiln/runtime.h"
#include "runtime/src/cuda/driver_api.h"

namespace kiln {

class CudaDevice {
 public:
  // Loads the driver (LoadDriverApi) and retains device `ordinal`'s
  // primary context. FAILED_PRECONDITION with what to do when there is no
  // driver or no device; INVALID_ARGUMENT when `ordinal` is past the last
  // device.
  static Status Open(int ordinal, std::shared_ptr<CudaDevice>* out);
  ~CudaDevice();
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  const cuda::DriverApi& api() const { return *api_; }
  int ordinal() const { return ordinal_; }
  int cc_major() const { return cc_major_; }
  int cc_minor() const { return cc_minor_; }
  int driver_version() const { return driver_version_; }  // 13000 = CUDA 13.0
  const std::string& name() const { return name_; }
  // "sm_90"
  std::string arch() const;
  // "cuda:0 (NVIDIA H200, sm_90, driver CUDA 13.0)"
  std::string Describe() const;

  // Makes this device's context current on the calling thread; every
  // entry point that calls the driver does so first (threads start with
  // no current context).
  Status Bind() const;
  // OK, or a Status for a failed driver call: RESOURCE_EXHAUSTED for
  // out-of-memory (with what to do), INTERNAL otherwise; the message is
  // "<what>: <CUDA_ERROR_NAME (description)>".
  Status Check(cuda::CUresult result, const std::string& what) const;

 private:
  CudaDevice() = default;
  const cuda::DriverApi* api_ = nullptr;
  int ordinal_ = 0;
  cuda::CUdevice device_ = 0;
  cuda::CUcontext context_ = nullptr;
  int cc_major_ = 0, cc_minor_ = 0, driver_version_ = 0;
  std::string name_;
};

// "13.0" for 13000.
std::string CudaVersionName(int version);

}  // namespace kiln

#endif  // KILN_RUNTIME_SRC_CUDA_CUDA_DEVICE_H_
