// Loads the CUDA driver and cuBLASLt through dlopen. The symbol names are
// those cuda.h maps each call to (CUDA 12 and 13 headers): a call whose
// signature changed keeps its old symbol for old binaries and gets a
// versioned one (cuMemAlloc_v2, cuStreamBeginCapture_v2, ...). Any driver
// of CUDA 12.0 or later exports every name below.
#include "runtime/src/cuda/driver_api.h"

#include <dlfcn.h>


namespace kiln::cuda {
namespace {

struct Override {
  bool active = false;
  const DriverApi* driver = nullptr;
  const CublasLtApi* cublas_lt = nullptr;
  Status driver_failure;
};
Override& TestOverride() {
  static Override o;
  return o;
}

struct Symbol {
  const char* name;
  void** slot;
};

// Fills every slot or names the first symbol the library lacks.
bool Resolve(void* library, const Symbol* symbols, size_t count, std::string* missing) {
  for (size_t i = 0; i < count; ++i) {
    void* p = dlsym(library, symbols[i].name);
    if (p == nullptr) {
      *missing = symbols[i].name;
      return false;
    }
    *symbols[i].slot = p;
  }
  return true;
}

template <typename T>
void** Slot(T* field) {
  return reinterpret_cast<void**>(field);
}

Status LoadDriverOnce(DriverApi* api) {
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace.
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    return Status(StatusCode::kFailedPrecondition,
                  std::string("no CUDA driver: cannot load libcuda.so.1 (") +
                      (why ? why : "not found") +
                      "); this machine has no NVIDIA GPU driver. Install the NVIDIA driver, or "
                      "run on the CPU (--device=cpu, or RuntimeOptions device cpu/auto) with an "
                      "artifact that has a CPU plan (kilnc --target=cpu or --target=cpu,cuda)");
  }
  const Symbol symbols[] = {
      {"cuInit", Slot(&api->cuInit)},
      {"cuDriverGetVersion", Slot(&api->cuDriverGetVersion)},
      {"cuDeviceGetCount", Slot(&api->cuDeviceGetCount)},
      {"cuDeviceGet", Slot(&api->cuDeviceGet)},
      {"cuDeviceGetAttribute", Slot(&api->cuDeviceGetAttribute)},
      {"cuDeviceGetName", Slot(&api->cuDeviceGetName)},
      {"cuDevicePrimaryCtxRetain", Slot(&api->cuDevicePrimaryCtxRetain)},
      {"cuDevicePrimaryCtxRelease_v2", Slot(&api->cuDevicePrimaryCtxRelease)},
      {"cuCtxSetCurrent", Slot(&api->cuCtxSetCurrent)},
      {"cuModuleLoadDataEx", Slot(&api->cuModuleLoadDataEx)},
      {"cuModuleUnload", Slot(&api->cuModuleUnload)},
      {"cuModuleGetFunction", Slot(&api->cuModuleGetFunction)},
      {"cuFuncSetAttribute", Slot(&api->cuFuncSetAttribute)},
      {"cuLaunchKernel", Slot(&api->cuLaunchKernel)},
      {"cuMemAlloc_v2", Slot(&api->cuMemAlloc)},
      {"cuMemFree_v2", Slot(&api->cuMemFree)},
      {"cuMemcpyHtoD_v2", Slot(&api->cuMemcpyHtoD)},
      {"cuMemcpyHtoDAsync_v2", Slot(&api->cuMemcpyHtoDAsync)},
      {"cuMemcpyDtoHAsync_v2", Slot(&api->cuMemcpyDtoHAsync)},
      {"cuMemcpyDtoDAsync_v2", Slot(&api->cuMemcpyDtoDAsync)},
      {"cuStreamCreate", Slot(&api->cuStreamCreate)},
      {"cuStreamSynchronize", Slot(&api->cuStreamSynchronize)},
      {"cuStreamDestroy_v2", Slot(&api->cuStreamDestroy)},
      {"cuStreamBeginCapture_v2", Slot(&api->cuStreamBeginCapture)},
      {"cuStreamEndCapture", Slot(&api->cuStreamEndCapture)},
      {"cuGraphInstantiateWithFlags", Slot(&api->cuGraphInstantiate)},
      {"cuGraphLaunch", Slot(&api->cuGraphLaunch)},
      {"cuGraphExecDestroy", Slot(&api->cuGraphExecDestroy)},
      {"cuGraphDestroy", Slot(&api->cuGraphDestroy)},
      {"cuGetErrorName", Slot(&api->cuGetErrorName)},
      {"cuGetErrorString", Slot(&api->cuGetErrorString)},
  };
  std::string missing;
  if (!Resolve(library, symbols, sizeof symbols / sizeof symbols[0], &missing)) {
    dlclose(library);
    return Status(StatusCode::kFailedPrecondition,
                  "the NVIDIA driver (libcuda.so.1) lacks " + missing +
                      "; it is older than CUDA 12.0, which Kiln needs. Update the NVIDIA driver "
                      "or run on the CPU (--device=cpu)");
  }
  // The library stays loaded for the life of the process: CUDA objects
  // may outlive any one Runtime.
  CUresult r = api->cuInit(0);
  if (r != CUDA_SUCCESS) {
    std::string what = DescribeCudaError(*api, r);
    if (r == CUDA_ERROR_NO_DEVICE)
      return Status(StatusCode::kFailedPrecondition,
                    "no CUDA GPU: the NVIDIA driver is installed but finds no device (" + what +
                        "); run on the CPU (--device=cpu) or check CUDA_VISIBLE_DEVICES");
    return Status(StatusCode::kFailedPrecondition,
                  "the CUDA driver failed to initialize: " + what +
                      "; check the NVIDIA driver installation (nvidia-smi) or run on the CPU "
                      "(--device=cpu)");
  }
  return Status::Ok();
}

Status LoadCublasLtOnce(CublasLtApi* api) {
  // CUDA 13's, then 12's, then an unversioned development link.
  const char* names[] = {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"};
  void* library = nullptr;
  std::string errors;
  for (const char* name : names) {
    library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library != nullptr) break;
    const char* why = dlerror();
    errors += std::string(errors.empty() ? "" : "; ") + (why ? why : name);
  }
  if (library == nullptr)
    return Status(StatusCode::kFailedPrecondition,
                  "this model's GEMMs call cuBLASLt, which cannot be loaded (" + errors +
                      "); install the CUDA toolkit's cuBLAS (libcublasLt.so.13 or .so.12) where "
                      "the dynamic loader finds it (LD_LIBRARY_PATH), or run on the CPU "
                      "(--device=cpu)");
  const Symbol symbols[] = {
      {"cublasLtCreate", Slot(&api->cublasLtCreate)},
      {"cublasLtDestroy", Slot(&api->cublasLtDestroy)},
      {"cublasLtGetVersion", Slot(&api->cublasLtGetVersion)},
      {"cublasLtGetStatusName", Slot(&api->cublasLtGetStatusName)},
      {"cublasLtMatmulDescCreate", Slot(&api->cublasLtMatmulDescCreate)},
      {"cublasLtMatmulDescDestroy", Slot(&api->cublasLtMatmulDescDestroy)},
      {"cublasLtMatmulDescSetAttribute", Slot(&api->cublasLtMatmulDescSetAttribute)},
      {"cublasLtMatrixLayoutCreate", Slot(&api->cublasLtMatrixLayoutCreate)},
      {"cublasLtMatrixLayoutDestroy", Slot(&api->cublasLtMatrixLayoutDestroy)},
      {"cublasLtMatrixLayoutSetAttribute", Slot(&api->cublasLtMatrixLayoutSetAttribute)},
      {"cublasLtMatmulPreferenceCreate", Slot(&api->cublasLtMatmulPreferenceCreate)},
      {"cublasLtMatmulPreferenceDestroy", Slot(&api->cublasLtMatmulPreferenceDestroy)},
      {"cublasLtMatmulPreferenceSetAttribute", Slot(&api->cublasLtMatmulPreferenceSetAttribute)},
      {"cublasLtMatmulAlgoGetHeuristic", Slot(&api->cublasLtMatmulAlgoGetHeuristic)},
      {"cublasLtMatmul", Slot(&api->cublasLtMatmul)},
  };
  std::string missing;
  if (!Resolve(library, symbols, sizeof symbols / sizeof symbols[0], &missing)) {
    dlclose(library);
    return Status(StatusCode::kFailedPrecondition,
                  "the cuBLASLt library found lacks " + missing +
                      "; install cuBLAS from CUDA 12 or 13");
  }
  return Status::Ok();
}

}  // namespace

Status LoadDriverApi(const DriverApi** out) {
  const Override& o = TestOverride();
  if (o.active) {
    if (o.driver == nullptr) return o.driver_failure;
    *out = o.driver;
    return Status::Ok();
  }
  // A function-local static is initialized once, thread-safely (and,
  // unlike std::call_once, without TLS: no new DT_NEEDED entry).
  static DriverApi api;
  static const Status status = LoadDriverOnce(&api);
  if (!status.ok()) return status;
  *out = &api;
  return Status::Ok();
}

Status LoadCublasLtApi(const CublasLtApi** out) {
  const Override& o = TestOverride();
  if (o.active) {
    if (o.cublas_lt == nullptr)
      return Status(StatusCode::kFailedPrecondition,
                    "this model's GEMMs call cuBLASLt, which cannot be loaded (test: none)");
    *out = o.cublas_lt;
    return Status::Ok();
  }
  static CublasLtApi api;
  static const Status status = LoadCublasLtOnce(&api);
  if (!status.ok()) return status;
  *out = &api;
  return Status::Ok();
}

void SetDriverApiForTesting(const DriverApi* driver, const CublasLtApi* cublas_lt,
                            const Status& driver_failure) {
  Override& o = TestOverride();
  o.active = true;
  o.driver = driver;
  o.cublas_lt = cublas_lt;
  o.driver_failure = driver_failure;
}

void ClearDriverApiForTesting() { TestOverride() = Override(); }

std::string DescribeCudaError(const DriverApi& api, CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.cuGetErrorName == nullptr || api.cuGetErrorName(result, &name) != CUDA_SUCCESS ||
      name == nullptr)
    return "CUDA error " + std::to_string(result);
  std::string s = name;
  if (api.cuGetErrorString != nullptr && api.cuGetErrorString(result, &text) == CUDA_SUCCESS &&
      text != nullptr)
    s += std::string(" (") + text + ")";
  return s;
}

}  // namespace kiln::cuda
