#include "runtime/src/cuda/cuda_device.h"

namespace kiln {

using namespace cuda;  // NOLINT: the driver's names read best unqualified

std::string CudaVersionName(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

Status CudaDevice::Open(int ordinal, std::shared_ptr<CudaDevice>* out) {
  const DriverApi* api = nullptr;
  Status s = LoadDriverApi(&api);
  if (!s.ok()) return s;
  std::shared_ptr<CudaDevice> d(new CudaDevice());
  d->api_ = api;
  d->ordinal_ = ordinal;
  int count = 0;
  CUresult r = api->cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS || count == 0)
    return Status(StatusCode::kFailedPrecondition,
                  "no CUDA GPU: the NVIDIA driver finds no device" +
                      (r != CUDA_SUCCESS ? " (" + DescribeCudaError(*api, r) + ")" : std::string()) +
                      "; run on the CPU (--device=cpu) or check CUDA_VISIBLE_DEVICES");
  if (ordinal < 0 || ordinal >= count)
    return Status(StatusCode::kInvalidArgument,
                  "device cuda:" + std::to_string(ordinal) + " requested, but this machine has " +
                      std::to_string(count) + " CUDA device(s) (cuda:0" +
                      (count > 1 ? " to cuda:" + std::to_string(count - 1) : std::string()) + ")");
  if ((s = d->Check(api->cuDeviceGet(&d->device_, ordinal), "cuDeviceGet")).ok() &&
      (s = d->Check(api->cuDeviceGetAttribute(&d->cc_major_,
                                              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                              d->device_),
                    "cuDeviceGetAttribute"))
          .ok() &&
      (s = d->Check(api->cuDeviceGetAttribute(&d->cc_minor_,
                                              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                              d->device_),
                    "cuDeviceGetAttribute"))
          .ok() &&
      (s = d->Check(api->cuDriverGetVersion(&d->driver_version_), "cuDriverGetVersion")).ok()) {
    char name[256] = {};
    if (api->cuDeviceGetName(name, sizeof name - 1, d->device_) == CUDA_SUCCESS) d->name_ = name;
    s = d->Check(api->cuDevicePrimaryCtxRetain(&d->context_, d->device_),
                 "retaining the primary context of cuda:" + std::to_string(ordinal));
  }
  if (!s.ok()) return s;
  *out = std::move(d);
  return Status::Ok();
}

CudaDevice::~CudaDevice() {
  if (context_ != nullptr) api_->cuDevicePrimaryCtxRelease(device_);
}

std::string CudaDevice::arch() const {
  return "sm_" + std::to_string(cc_major_) + std::to_string(cc_minor_);
}

std::string CudaDevice::Describe() const {
  return "cuda:" + std::to_string(ordinal_) + " (" + (name_.empty() ? "unnamed GPU" : name_) +
         ", " + arch() + ", driver CUDA " + CudaVersionName(driver_version_) + ")";
}

Status CudaDevice::Bind() const { return Check(api_->cuCtxSetCurrent(context_), "cuCtxSetCurrent"); }

Status CudaDevice::Check(CUresult result, const std::string& what) const {
  if (result == CUDA_SUCCESS) return Status::Ok();
  std::string message = what + ": " + DescribeCudaError(*api_, result);
  if (result == CUDA_ERROR_OUT_OF_MEMORY)
    return Status(StatusCode::kResourceExhausted,
                  message + " on cuda:" + std::to_string(ordinal_) +
                      "; free GPU memory (other processes, fewer sessions) or use a smaller batch");
  return Status(StatusCode::kInternal, message);
}

}  // namespace kiln
