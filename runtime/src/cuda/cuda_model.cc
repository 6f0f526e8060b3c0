#include "runtime/src/cuda/cuda_model.h"

#include <cstdlib>

#include "runtime/src/loaded_artifact.h"

namespace kiln {

using namespace cuda;  // NOLINT

namespace {

// CUDA release -> the PTX ISA version it introduced (PTX ISA manual,
// "Release notes"); a driver JIT-compiles PTX up to its release's ISA.
struct IsaRelease {
  int cuda;  // 12040 = CUDA 12.4
  int isa;   // 84 = ISA 8.4
};
constexpr IsaRelease kIsaReleases[] = {
    {11000, 70}, {11010, 71}, {11020, 72}, {11030, 73}, {11040, 74}, {11050, 75},
    {11060, 76}, {11070, 77}, {11080, 78}, {12000, 80}, {12010, 81}, {12020, 82},
    {12030, 83}, {12040, 84}, {12050, 85}, {12080, 87}, {12090, 88}, {13000, 90},
};

// "8.5" -> 85; "sm_90" -> 90 (with `prefix` "sm_"); -1 when malformed.
int ParseTwoDigits(const std::string& text, const std::string& prefix) {
  if (text.compare(0, prefix.size(), prefix) != 0) return -1;
  std::string rest = text.substr(prefix.size());
  int major = 0, minor = 0;
  if (prefix.empty()) {
    size_t dot = rest.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 >= rest.size()) return -1;
    major = std::atoi(rest.substr(0, dot).c_str());
    minor = std::atoi(rest.substr(dot + 1).c_str());
    return major * 10 + minor;
  }
  if (rest.size() < 2) return -1;
  for (char c : rest)
    if (c < '0' || c > '9') return -1;  // "sm_90a" is arch-specific: not a plain cc
  return std::atoi(rest.c_str());
}

std::string Join(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : ", ") + i;
  return s.empty() ? "none" : s;
}

std::string IsaName(int isa) { return std::to_string(isa / 10) + "." + std::to_string(isa % 10); }

}  // namespace

int MaxPtxIsaForDriver(int driver_version) {
  int isa = 0;
  for (const IsaRelease& r : kIsaReleases)
    if (driver_version >= r.cuda) isa = r.isa;
  // A driver newer than this table reads at least what the table knows.
  return isa;
}

int DriverForPtxIsa(int isa) {
  for (const IsaRelease& r : kIsaReleases)
    if (r.isa >= isa) return r.cuda;
  return 0;
}

std::string GpuImageChoice::Describe(const std::vector<std::string>& archs) const {
  if (use_ptx) return "PTX (JIT)";
  return "cubin " + (cubin < archs.size() ? archs[cubin] : std::string("?"));
}

Status ChooseGpuImage(const std::vector<std::string>& archs, const std::string& ptx_version,
                      const std::string& ptx_target, int cc_major, int cc_minor,
                      int driver_version, const std::string& where, GpuImageChoice* out) {
  const int device_cc = cc_major * 10 + cc_minor;
  const std::string device_arch = "sm_" + std::to_string(device_cc);
  int best = -1, best_cc = -1;
  for (size_t i = 0; i < archs.size(); ++i) {
    int cc = ParseTwoDigits(archs[i], "sm_");
    if (archs[i] == device_arch) {
      best = static_cast<int>(i);
      break;
    }
    // An arch-specific cubin ("sm_90a") runs on exactly that arch; a
    // plain one of the same arch, found later, is preferred.
    if (archs[i] == device_arch + "a") {
      best = static_cast<int>(i);
      best_cc = device_cc + 1;  // above every compatible older cubin
      continue;
    }
    // Same major, older minor: cubins run on later minor versions of the
    // same major architecture (never across majors, never "a" variants).
    if (cc >= 0 && cc / 10 == cc_major && cc % 10 <= cc_minor && cc > best_cc) {
      best = static_cast<int>(i);
      best_cc = cc;
    }
  }
  if (best >= 0) {
    out->use_ptx = false;
    out->cubin = static_cast<size_t>(best);
    return Status::Ok();
  }
  const int target_cc = ParseTwoDigits(ptx_target, "sm_");
  const int isa = ParseTwoDigits(ptx_version, "");
  const std::string has = "it has cubins for " + Join(archs) + " and PTX ISA " + ptx_version +
                          " for " + (ptx_target.empty() ? "an unnamed target" : ptx_target);
  if (target_cc < 0 || isa < 0)
    return Status(StatusCode::kFailedPrecondition,
                  where + " has no cubin for this GPU (" + device_arch + ") and its PTX target '" +
                      ptx_target + "' / version '" + ptx_version +
                      "' cannot be read; recompile with kilnc --target=cuda --cuda-arch=" +
                      device_arch);
  if (target_cc > device_cc)
    return Status(StatusCode::kFailedPrecondition,
                  "this GPU is " + device_arch + ", but " + where + " was built for newer GPUs (" +
                      has + "); recompile with kilnc --target=cuda --cuda-arch=" + device_arch);
  const int max_isa = MaxPtxIsaForDriver(driver_version);
  if (isa > max_isa) {
    int needed = DriverForPtxIsa(isa);
    return Status(StatusCode::kFailedPrecondition,
                  "the NVIDIA driver (CUDA " + CudaVersionName(driver_version) +
                      ", PTX ISA up to " + IsaName(max_isa) + ") is too old for " + where +
                      " on this " + device_arch + " GPU: " + has +
                      "; update the driver" +
                      (needed ? " to CUDA " + CudaVersionName(needed) + " or later" : std::string()) +
                      ", or recompile with kilnc --target=cuda --cuda-arch=" + device_arch);
  }
  out->use_ptx = true;
  out->cubin = 0;
  return Status::Ok();
}

Status CudaModel::Load(std::shared_ptr<CudaDevice> device, const LoadedArtifact& artifact,
                       std::unique_ptr<CudaModel>* out) {
  std::unique_ptr<CudaModel> model(new CudaModel());
  model->device_ = device;
  const CudaDevice& dev = *device;
  const DriverApi& api = dev.api();
  Status s = dev.Bind();
  if (!s.ok()) return s;
  const ModelDescription& d = artifact.description();
  model->functions_.resize(d.executables.size());
  model->images_.resize(d.executables.size());
  for (size_t e = 0; e < d.executables.size(); ++e) {
    const ExecutableInfo& info = d.executables[e];
    if (info.target != "cuda") continue;
    std::string where = "executable " + std::to_string(e);
    GpuImageChoice choice;
    s = ChooseGpuImage(info.gpu_archs, info.ptx_version, info.ptx_target, dev.cc_major(),
                       dev.cc_minor(), dev.driver_version(), where, &choice);
    if (!s.ok()) return s;
    model->images_[e] = choice.Describe(info.gpu_archs);
    const fb::GpuExecutable& g = *artifact.model().executables()->Get(e)->gpu();
    std::vector<CUmodule> modules;
    for (uint32_t m = 0; m < g.modules()->size(); ++m) {
      const fb::GpuModule& module = *g.modules()->Get(m);
      std::string module_where = where + " module " + std::to_string(m);
      CUmodule handle = nullptr;
      CUresult r;
      char log[4096] = {};
      if (choice.use_ptx) {
        // The driver wants NUL-terminated PTX text; the artifact stores
        // none.
        std::string ptx(reinterpret_cast<const char*>(module.ptx()->data()), module.ptx()->size());
        CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
        void* values[] = {log, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof log - 1))};
        r = api.cuModuleLoadDataEx(&handle, ptx.c_str(), 2, options, values);
      } else {
        r = api.cuModuleLoadDataEx(&handle, module.cubins()->Get(choice.cubin)->data()->data(), 0,
                                   nullptr, nullptr);
      }
      if (r != CUDA_SUCCESS) {
        std::string what = "loading " + module_where + " (" + model->images_[e] + ") on " +
                           dev.Describe();
        if (log[0]) what += " [JIT log: " + std::string(log) + "]";
        for (CUmodule loaded : modules) api.cuModuleUnload(loaded);
        if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || r == CUDA_ERROR_INVALID_PTX ||
            r == CUDA_ERROR_NO_BINARY_FOR_GPU)
          return Status(StatusCode::kFailedPrecondition,
                        what + ": " + DescribeCudaError(api, r) +
                            "; update the NVIDIA driver or recompile with kilnc --target=cuda "
                            "--cuda-arch=" + dev.arch());
        return dev.Check(r, what);
      }
      modules.push_back(handle);
    }
    model->modules_.insert(model->modules_.end(), modules.begin(), modules.end());
    for (size_t k = 0; k < info.gpu_kernels.size(); ++k) {
      const GpuKernelInfo& launch = info.gpu_kernels[k];
      CUfunction f = nullptr;
      s = dev.Check(api.cuModuleGetFunction(&f, modules[launch.module], launch.entry.c_str()),
                    where + " kernel '" + launch.entry + "' (module " +
                        std::to_string(launch.module) + ")");
      // Above 48 KiB of dynamic shared memory a kernel must opt in.
      if (s.ok() && launch.shared_memory_bytes > 48 * 1024)
        s = dev.Check(api.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                             static_cast<int>(launch.shared_memory_bytes)),
                      where + " kernel '" + launch.entry + "' asks for " +
                          std::to_string(launch.shared_memory_bytes) +
                          " bytes of shared memory");
      if (!s.ok()) return s;
      model->functions_[e].push_back(f);
    }
  }
  uint64_t constant_bytes = artifact.constants_size();
  if (constant_bytes > 0) {
    s = dev.Check(api.cuMemAlloc(&model->constants_, constant_bytes),
                  "allocating " + std::to_string(constant_bytes) + " bytes for the constants");
    if (s.ok())
      s = dev.Check(api.cuMemcpyHtoD(model->constants_, artifact.constants(), constant_bytes),
                    "uploading the constants");
    if (!s.ok()) return s;
  }
  *out = std::move(model);
  return Status::Ok();
}

CudaModel::~CudaModel() {
  if (device_ == nullptr) return;
  const DriverApi& api = device_->api();
  if (!device_->Bind().ok()) return;
  if (constants_ != 0) api.cuMemFree(constants_);
  for (CUmodule m : modules_) api.cuModuleUnload(m);
}

}  // namespace kiln
