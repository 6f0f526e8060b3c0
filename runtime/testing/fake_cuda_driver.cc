// TEST-ONLY: see fake_cuda_driver.h. Proves orchestration, not numerics.
#include "runtime/testing/fake_cuda_driver.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace kiln::testing {

using namespace cuda;  // NOLINT

namespace {

FakeCudaDriver* g_fake = nullptr;

constexpr int kIllegalAddress = 700;  // CUDA_ERROR_ILLEGAL_ADDRESS

struct FakeFunction {
  std::string entry;
};
struct FakeDesc {
  int trans_a = 0, trans_b = 0, epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  const void* bias = nullptr;
};
struct FakeLayout {
  LtLayout l;
};
struct FakeHandle {};
struct FakePreference {
  uint64_t max_workspace = 0;
  uint32_t alignment[4] = {256, 256, 256, 256};
};

FakeCudaDriver::Stream* StreamOf(CUstream s) { return reinterpret_cast<FakeCudaDriver::Stream*>(s); }

// --- driver entry points ---
CUresult FakeInit(unsigned) { return g_fake->Enter("cuInit"); }
CUresult FakeDriverGetVersion(int* v) {
  if (int r = g_fake->Enter("cuDriverGetVersion")) return r;
  *v = g_fake->driver_version;
  return CUDA_SUCCESS;
}
CUresult FakeDeviceGetCount(int* c) {
  if (int r = g_fake->Enter("cuDeviceGetCount")) return r;
  *c = g_fake->device_count;
  return CUDA_SUCCESS;
}
CUresult FakeDeviceGet(CUdevice* d, int ordinal) {
  if (int r = g_fake->Enter("cuDeviceGet")) return r;
  if (ordinal < 0 || ordinal >= g_fake->device_count) return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}
CUresult FakeDeviceGetAttribute(int* value, int attribute, CUdevice) {
  if (int r = g_fake->Enter("cuDeviceGetAttribute")) return r;
  if (attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) *value = g_fake->cc_major;
  else if (attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR) *value = g_fake->cc_minor;
  else return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}
CUresult FakeDeviceGetName(char* name, int length, CUdevice) {
  if (int r = g_fake->Enter("cuDeviceGetName")) return r;
  std::snprintf(name, static_cast<size_t>(length), "%s", g_fake->device_name.c_str());
  return CUDA_SUCCESS;
}
CUcontext kContext = reinterpret_cast<CUcontext>(0x1000);
CUresult FakePrimaryCtxRetain(CUcontext* c, CUdevice) {
  if (int r = g_fake->Enter("cuDevicePrimaryCtxRetain")) return r;
  *c = kContext;
  return CUDA_SUCCESS;
}
CUresult FakePrimaryCtxRelease(CUdevice) { return g_fake->Enter("cuDevicePrimaryCtxRelease"); }
CUresult FakeCtxSetCurrent(CUcontext) { return g_fake->Enter("cuCtxSetCurrent"); }
CUresult FakeModuleLoadDataEx(CUmodule* m, const void* image, unsigned count, CUjit_option*, void**) {
  if (int r = g_fake->Enter("cuModuleLoadDataEx")) return r;
  const char* text = static_cast<const char*>(image);
  std::string head(text, strnlen(text, 64));
  // PTX comes with JIT options (an error log); a cubin without.
  g_fake->images.push_back((count > 0 ? "ptx:" : "cubin:") + head);
  *m = reinterpret_cast<CUmodule>(g_fake->images.size());
  return CUDA_SUCCESS;
}
CUresult FakeModuleUnload(CUmodule) { return g_fake->Enter("cuModuleUnload"); }
CUresult FakeModuleGetFunction(CUfunction* f, CUmodule, const char* name) {
  if (int r = g_fake->Enter("cuModuleGetFunction")) return r;
  g_fake->functions_.push_back(std::make_unique<std::string>(name));
  *f = reinterpret_cast<CUfunction>(g_fake->functions_.back().get());
  return CUDA_SUCCESS;
}
CUresult FakeFuncSetAttribute(CUfunction, int, int) { return g_fake->Enter("cuFuncSetAttribute"); }
CUresult FakeLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                      unsigned bz, unsigned shared, CUstream stream, void** params, void**) {
  if (int r = g_fake->Enter("cuLaunchKernel")) return r;
  const unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  return g_fake->LaunchKernel(*reinterpret_cast<std::string*>(f), grid, block, shared, stream,
                              params);
}
CUresult FakeMemAlloc(CUdeviceptr* p, size_t bytes) {
  if (int r = g_fake->Enter("cuMemAlloc")) return r;
  return g_fake->Allocate(p, bytes);
}
CUresult FakeMemFree(CUdeviceptr p) {
  if (int r = g_fake->Enter("cuMemFree")) return r;
  return g_fake->Free(p);
}
CUresult FakeMemcpyHtoD(CUdeviceptr target, const void* source, size_t bytes) {
  if (int r = g_fake->Enter("cuMemcpyHtoD")) return r;
  if (!g_fake->InDevice(FakeCudaDriver::Host(target), bytes)) return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(FakeCudaDriver::Host(target), source, bytes);
  return CUDA_SUCCESS;
}
CUresult FakeMemcpyHtoDAsync(CUdeviceptr target, const void* source, size_t bytes, CUstream s) {
  if (int r = g_fake->Enter("cuMemcpyHtoDAsync")) return r;
  if (!g_fake->InDevice(FakeCudaDriver::Host(target), bytes)) return CUDA_ERROR_INVALID_VALUE;
  return g_fake->Enqueue(s, {"HtoD", [=] {
                               std::memcpy(FakeCudaDriver::Host(target), source, bytes);
                               return 0;
                             }});
}
CUresult FakeMemcpyDtoHAsync(void* target, CUdeviceptr source, size_t bytes, CUstream s) {
  if (int r = g_fake->Enter("cuMemcpyDtoHAsync")) return r;
  if (!g_fake->InDevice(FakeCudaDriver::Host(source), bytes)) return CUDA_ERROR_INVALID_VALUE;
  return g_fake->Enqueue(s, {"DtoH", [=] {
                               std::memcpy(target, FakeCudaDriver::Host(source), bytes);
                               return 0;
                             }});
}
CUresult FakeMemcpyDtoDAsync(CUdeviceptr target, CUdeviceptr source, size_t bytes, CUstream s) {
  if (int r = g_fake->Enter("cuMemcpyDtoDAsync")) return r;
  if (!g_fake->InDevice(FakeCudaDriver::Host(target), bytes) ||
      !g_fake->InDevice(FakeCudaDriver::Host(source), bytes))
    return CUDA_ERROR_INVALID_VALUE;
  return g_fake->Enqueue(s, {"DtoD", [=] {
                               std::memmove(FakeCudaDriver::Host(target),
                                            FakeCudaDriver::Host(source), bytes);
                               return 0;
                             }});
}
CUresult FakeStreamCreate(CUstream* s, unsigned) {
  if (int r = g_fake->Enter("cuStreamCreate")) return r;
  g_fake->streams_.push_back(std::make_unique<FakeCudaDriver::Stream>());
  *s = reinterpret_cast<CUstream>(g_fake->streams_.back().get());
  return CUDA_SUCCESS;
}
CUresult FakeStreamSynchronize(CUstream s) {
  if (int r = g_fake->Enter("cuStreamSynchronize")) return r;
  int pending = StreamOf(s)->pending_error;
  return pending;
}
CUresult FakeStreamDestroy(CUstream) { return g_fake->Enter("cuStreamDestroy"); }
CUresult FakeStreamBeginCapture(CUstream s, int mode) {
  if (int r = g_fake->Enter("cuStreamBeginCapture")) return r;
  if (mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) return CUDA_ERROR_INVALID_VALUE;
  StreamOf(s)->capturing = true;
  StreamOf(s)->captured.clear();
  return CUDA_SUCCESS;
}
CUresult FakeStreamEndCapture(CUstream s, CUgraph* graph) {
  FakeCudaDriver::Stream* stream = StreamOf(s);
  std::vector<FakeCudaDriver::Op> ops = std::move(stream->captured);
  stream->captured.clear();
  stream->capturing = false;
  if (int r = g_fake->Enter("cuStreamEndCapture")) return r;
  g_fake->graphs_.push_back(std::make_unique<std::vector<FakeCudaDriver::Op>>(std::move(ops)));
  *graph = reinterpret_cast<CUgraph>(g_fake->graphs_.back().get());
  return CUDA_SUCCESS;
}
CUresult FakeGraphInstantiate(CUgraphExec* exec, CUgraph graph, unsigned long long) {
  if (int r = g_fake->Enter("cuGraphInstantiate")) return r;
  auto* ops = reinterpret_cast<std::vector<FakeCudaDriver::Op>*>(graph);
  g_fake->graphs_.push_back(std::make_unique<std::vector<FakeCudaDriver::Op>>(*ops));
  *exec = reinterpret_cast<CUgraphExec>(g_fake->graphs_.back().get());
  return CUDA_SUCCESS;
}
CUresult FakeGraphLaunch(CUgraphExec exec, CUstream s) {
  if (int r = g_fake->Enter("cuGraphLaunch")) return r;
  // Kernel faults surface at the next synchronization, as on a GPU.
  int r = g_fake->RunOps(*reinterpret_cast<std::vector<FakeCudaDriver::Op>*>(exec), StreamOf(s));
  if (r != 0) StreamOf(s)->pending_error = r;
  return CUDA_SUCCESS;
}
CUresult FakeGraphExecDestroy(CUgraphExec) { return g_fake->Enter("cuGraphExecDestroy"); }
CUresult FakeGraphDestroy(CUgraph) { return g_fake->Enter("cuGraphDestroy"); }
CUresult FakeGetErrorName(CUresult e, const char** name) {
  switch (e) {
    case CUDA_ERROR_OUT_OF_MEMORY: *name = "CUDA_ERROR_OUT_OF_MEMORY"; return 0;
    case CUDA_ERROR_INVALID_VALUE: *name = "CUDA_ERROR_INVALID_VALUE"; return 0;
    case CUDA_ERROR_LAUNCH_FAILED: *name = "CUDA_ERROR_LAUNCH_FAILED"; return 0;
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: *name = "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"; return 0;
    case CUDA_ERROR_NO_DEVICE: *name = "CUDA_ERROR_NO_DEVICE"; return 0;
    case CUDA_ERROR_NOT_FOUND: *name = "CUDA_ERROR_NOT_FOUND"; return 0;
    case kIllegalAddress: *name = "CUDA_ERROR_ILLEGAL_ADDRESS"; return 0;
  }
  return CUDA_ERROR_INVALID_VALUE;
}
CUresult FakeGetErrorString(CUresult e, const char** text) {
  const char* name = nullptr;
  if (FakeGetErrorName(e, &name) != 0) return CUDA_ERROR_INVALID_VALUE;
  *text = "fake driver error";
  return CUDA_SUCCESS;
}

// --- cuBLASLt entry points ---
cublasStatus_t LtCreate(cublasLtHandle_t* h) {
  if (int r = g_fake->Enter("cublasLtCreate")) return r;
  static FakeHandle handle;
  *h = reinterpret_cast<cublasLtHandle_t>(&handle);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t LtDestroy(cublasLtHandle_t) { return g_fake->Enter("cublasLtDestroy"); }
size_t LtGetVersion() { return 130000; }
const char* LtGetStatusName(cublasStatus_t s) {
  return s == CUBLAS_STATUS_NOT_SUPPORTED ? "CUBLAS_STATUS_NOT_SUPPORTED" : "CUBLAS_STATUS_FAKE_ERROR";
}
cublasStatus_t DescCreate(cublasLtMatmulDesc_t* d, int compute, int scale) {
  if (int r = g_fake->Enter("cublasLtMatmulDescCreate")) return r;
  if (compute != CUBLAS_COMPUTE_32F || scale != CUDA_R_32F) return CUBLAS_STATUS_NOT_SUPPORTED;
  *d = reinterpret_cast<cublasLtMatmulDesc_t>(new FakeDesc());
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t DescDestroy(cublasLtMatmulDesc_t d) {
  delete reinterpret_cast<FakeDesc*>(d);
  return g_fake->Enter("cublasLtMatmulDescDestroy");
}
cublasStatus_t DescSetAttribute(cublasLtMatmulDesc_t d, int attribute, const void* value,
                                size_t size) {
  if (int r = g_fake->Enter("cublasLtMatmulDescSetAttribute")) return r;
  FakeDesc* desc = reinterpret_cast<FakeDesc*>(d);
  if (attribute == CUBLASLT_MATMUL_DESC_BIAS_POINTER && size == sizeof(void*))
    std::memcpy(&desc->bias, value, size);
  else if (size != sizeof(int32_t)) return CUBLAS_STATUS_NOT_SUPPORTED;
  else if (attribute == CUBLASLT_MATMUL_DESC_TRANSA) std::memcpy(&desc->trans_a, value, size);
  else if (attribute == CUBLASLT_MATMUL_DESC_TRANSB) std::memcpy(&desc->trans_b, value, size);
  else if (attribute == CUBLASLT_MATMUL_DESC_EPILOGUE) std::memcpy(&desc->epilogue, value, size);
  else return CUBLAS_STATUS_NOT_SUPPORTED;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t LayoutCreate(cublasLtMatrixLayout_t* l, int type, uint64_t rows, uint64_t cols,
                            int64_t ld) {
  if (int r = g_fake->Enter("cublasLtMatrixLayoutCreate")) return r;
  if (type != CUDA_R_32F || ld < static_cast<int64_t>(rows)) return CUBLAS_STATUS_NOT_SUPPORTED;
  auto* layout = new FakeLayout();
  layout->l.rows = rows;
  layout->l.cols = cols;
  layout->l.ld = ld;
  *l = reinterpret_cast<cublasLtMatrixLayout_t>(layout);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t LayoutDestroy(cublasLtMatrixLayout_t l) {
  delete reinterpret_cast<FakeLayout*>(l);
  return g_fake->Enter("cublasLtMatrixLayoutDestroy");
}
cublasStatus_t LayoutSetAttribute(cublasLtMatrixLayout_t l, int attribute, const void* value,
                                  size_t size) {
  if (int r = g_fake->Enter("cublasLtMatrixLayoutSetAttribute")) return r;
  FakeLayout* layout = reinterpret_cast<FakeLayout*>(l);
  if (attribute == CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT && size == sizeof(int32_t))
    std::memcpy(&layout->l.batch, value, size);
  else if (attribute == CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET && size == sizeof(int64_t))
    std::memcpy(&layout->l.batch_stride, value, size);
  else
    return CUBLAS_STATUS_NOT_SUPPORTED;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t PrefCreate(cublasLtMatmulPreference_t* p) {
  if (int r = g_fake->Enter("cublasLtMatmulPreferenceCreate")) return r;
  *p = reinterpret_cast<cublasLtMatmulPreference_t>(new FakePreference());
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t PrefDestroy(cublasLtMatmulPreference_t p) {
  delete reinterpret_cast<FakePreference*>(p);
  return g_fake->Enter("cublasLtMatmulPreferenceDestroy");
}
cublasStatus_t PrefSetAttribute(cublasLtMatmulPreference_t p, int attribute, const void* value,
                                size_t size) {
  if (int r = g_fake->Enter("cublasLtMatmulPreferenceSetAttribute")) return r;
  FakePreference* pref = reinterpret_cast<FakePreference*>(p);
  if (attribute == CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES && size == 8)
    std::memcpy(&pref->max_workspace, value, 8);
  else if (attribute >= CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES &&
           attribute <= CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES && size == 4)
    std::memcpy(&pref->alignment[attribute - CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES], value, 4);
  else
    return CUBLAS_STATUS_NOT_SUPPORTED;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t Heuristic(cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,
                         cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                         cublasLtMatmulPreference_t p, int requested,
                         cublasLtMatmulHeuristicResult_t* results, int* returned) {
  if (int r = g_fake->Enter("cublasLtMatmulAlgoGetHeuristic")) return r;
  FakePreference* pref = reinterpret_cast<FakePreference*>(p);
  g_fake->max_workspace_preference = pref->max_workspace;
  g_fake->alignment_preferences.assign(pref->alignment, pref->alignment + 4);
  *returned = std::min(requested, g_fake->heuristic_results);
  for (int i = 0; i < *returned; ++i) {
    results[i] = cublasLtMatmulHeuristicResult_t{};
    results[i].algo.data[0] = 42;
    results[i].workspaceSize = std::min<size_t>(g_fake->heuristic_workspace, pref->max_workspace);
  }
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t LtMatmul(cublasLtHandle_t, cublasLtMatmulDesc_t d, const void* alpha, const void* A,
                        cublasLtMatrixLayout_t a, const void* B, cublasLtMatrixLayout_t b,
                        const void* beta, const void* C, cublasLtMatrixLayout_t c, void* D,
                        cublasLtMatrixLayout_t dl, const cublasLtMatmulAlgo_t* algo,
                        void* workspace, size_t workspace_bytes, CUstream stream) {
  if (int r = g_fake->Enter("cublasLtMatmul")) return r;
  if (algo == nullptr || algo->data[0] != 42) return CUBLAS_STATUS_NOT_SUPPORTED;
  const FakeDesc* desc = reinterpret_cast<const FakeDesc*>(d);
  FakeCudaDriver::Matmul m;
  m.trans_a = desc->trans_a;
  m.trans_b = desc->trans_b;
  m.epilogue = desc->epilogue;
  m.bias = desc->bias;
  m.a = reinterpret_cast<FakeLayout*>(a)->l;
  m.b = reinterpret_cast<FakeLayout*>(b)->l;
  m.c = reinterpret_cast<FakeLayout*>(c)->l;
  m.d = reinterpret_cast<FakeLayout*>(dl)->l;
  m.alpha = *static_cast<const float*>(alpha);
  m.beta = *static_cast<const float*>(beta);
  m.A = A;
  m.B = B;
  m.C = C;
  m.D = D;
  m.workspace = workspace;
  m.workspace_bytes = workspace_bytes;
  if (workspace_bytes > 0 && !g_fake->InDevice(workspace, workspace_bytes))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  return g_fake->Enqueue(stream, {"cublasLtMatmul", [m] { return g_fake->RunMatmul(m); }});
}

}  // namespace

FakeCudaDriver::FakeCudaDriver() {
  g_fake = this;
  DriverApi& d = driver_;
  d.cuInit = FakeInit;
  d.cuDriverGetVersion = FakeDriverGetVersion;
  d.cuDeviceGetCount = FakeDeviceGetCount;
  d.cuDeviceGet = FakeDeviceGet;
  d.cuDeviceGetAttribute = FakeDeviceGetAttribute;
  d.cuDeviceGetName = FakeDeviceGetName;
  d.cuDevicePrimaryCtxRetain = FakePrimaryCtxRetain;
  d.cuDevicePrimaryCtxRelease = FakePrimaryCtxRelease;
  d.cuCtxSetCurrent = FakeCtxSetCurrent;
  d.cuModuleLoadDataEx = FakeModuleLoadDataEx;
  d.cuModuleUnload = FakeModuleUnload;
  d.cuModuleGetFunction = FakeModuleGetFunction;
  d.cuFuncSetAttribute = FakeFuncSetAttribute;
  d.cuLaunchKernel = FakeLaunchKernel;
  d.cuMemAlloc = FakeMemAlloc;
  d.cuMemFree = FakeMemFree;
  d.cuMemcpyHtoD = FakeMemcpyHtoD;
  d.cuMemcpyHtoDAsync = FakeMemcpyHtoDAsync;
  d.cuMemcpyDtoHAsync = FakeMemcpyDtoHAsync;
  d.cuMemcpyDtoDAsync = FakeMemcpyDtoDAsync;
  d.cuStreamCreate = FakeStreamCreate;
  d.cuStreamSynchronize = FakeStreamSynchronize;
  d.cuStreamDestroy = FakeStreamDestroy;
  d.cuStreamBeginCapture = FakeStreamBeginCapture;
  d.cuStreamEndCapture = FakeStreamEndCapture;
  d.cuGraphInstantiate = FakeGraphInstantiate;
  d.cuGraphLaunch = FakeGraphLaunch;
  d.cuGraphExecDestroy = FakeGraphExecDestroy;
  d.cuGraphDestroy = FakeGraphDestroy;
  d.cuGetErrorName = FakeGetErrorName;
  d.cuGetErrorString = FakeGetErrorString;
  CublasLtApi& l = cublas_lt_;
  l.cublasLtCreate = LtCreate;
  l.cublasLtDestroy = LtDestroy;
  l.cublasLtGetVersion = LtGetVersion;
  l.cublasLtGetStatusName = LtGetStatusName;
  l.cublasLtMatmulDescCreate = DescCreate;
  l.cublasLtMatmulDescDestroy = DescDestroy;
  l.cublasLtMatmulDescSetAttribute = DescSetAttribute;
  l.cublasLtMatrixLayoutCreate = LayoutCreate;
  l.cublasLtMatrixLayoutDestroy = LayoutDestroy;
  l.cublasLtMatrixLayoutSetAttribute = LayoutSetAttribute;
  l.cublasLtMatmulPreferenceCreate = PrefCreate;
  l.cublasLtMatmulPreferenceDestroy = PrefDestroy;
  l.cublasLtMatmulPreferenceSetAttribute = PrefSetAttribute;
  l.cublasLtMatmulAlgoGetHeuristic = Heuristic;
  l.cublasLtMatmul = LtMatmul;
  SetDriverApiForTesting(&driver_, &cublas_lt_);
}

FakeCudaDriver::~FakeCudaDriver() {
  ClearDriverApiForTesting();
  for (auto& [p, size] : allocations_) std::free(reinterpret_cast<void*>(p));
  g_fake = nullptr;
}

void FakeCudaDriver::RemoveCublasLt() { SetDriverApiForTesting(&driver_, nullptr); }

void FakeCudaDriver::FailCall(const std::string& function, int result, int nth) {
  failures_[function].push_back({nth, result});
}

void FakeCudaDriver::FailKernelAtReplay(const std::string& entry, int result) {
  replay_failures_[entry] = result;
}

void FakeCudaDriver::AddKernel(const std::string& entry, uint32_t pointers, uint32_t push,
                               HostKernel run) {
  kernels_[entry] = {pointers, push, std::move(run)};
}

int FakeCudaDriver::Count(const std::string& function) const {
  int n = 0;
  for (const std::string& c : calls) n += c == function;
  return n;
}

uint64_t FakeCudaDriver::live_bytes() const {
  uint64_t n = 0;
  for (const auto& [p, size] : allocations_) n += size;
  return n;
}

int FakeCudaDriver::Enter(const char* function) {
  calls.push_back(function);
  auto it = failures_.find(function);
  if (it == failures_.end()) return 0;
  for (auto& [countdown, result] : it->second)
    if (countdown > 0 && --countdown == 0) return result;
  return 0;
}

int FakeCudaDriver::Enqueue(CUstream s, Op op) {
  Stream* stream = StreamOf(s);
  if (stream == nullptr) return CUDA_ERROR_INVALID_VALUE;  // Kiln never uses the null stream
  if (stream->capturing) {
    stream->captured.push_back(std::move(op));
    return 0;
  }
  int r = op.run();
  if (r != 0) stream->pending_error = r;
  return 0;
}

int FakeCudaDriver::RunOps(const std::vector<Op>& ops, Stream* stream) {
  for (const Op& op : ops)
    if (int r = op.run()) return r;
  (void)stream;
  return 0;
}

bool FakeCudaDriver::InDevice(const void* p, size_t bytes) const {
  uintptr_t address = reinterpret_cast<uintptr_t>(p);
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin()) return false;
  --it;
  return address >= it->first && address + bytes <= it->first + it->second;
}

int FakeCudaDriver::Allocate(CUdeviceptr* out, size_t bytes) {
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  if (live_bytes() + bytes > memory_limit) return CUDA_ERROR_OUT_OF_MEMORY;
  void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (p == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  std::memset(p, 0xCD, bytes);  // garbage, as fresh device memory would be
  allocations_[reinterpret_cast<uintptr_t>(p)] = bytes;
  *out = reinterpret_cast<uintptr_t>(p);
  return CUDA_SUCCESS;
}

int FakeCudaDriver::Free(CUdeviceptr p) {
  auto it = allocations_.find(static_cast<uintptr_t>(p));
  if (it == allocations_.end()) return CUDA_ERROR_INVALID_VALUE;
  std::free(reinterpret_cast<void*>(it->first));
  allocations_.erase(it);
  return CUDA_SUCCESS;
}

int FakeCudaDriver::LaunchKernel(const std::string& entry, const unsigned grid[3],
                                 const unsigned block[3], unsigned shared, CUstream stream,
                                 void** params) {
  auto it = kernels_.find(entry);
  if (it == kernels_.end()) return CUDA_ERROR_NOT_FOUND;
  if (static_cast<uint64_t>(block[0]) * block[1] * block[2] > 1024 || grid[0] == 0 ||
      grid[1] == 0 || grid[2] == 0)
    return CUDA_ERROR_INVALID_VALUE;
  // The driver copies the parameters at the call; so does the fake.
  Launch launch;
  launch.entry = entry;
  for (int a = 0; a < 3; ++a) {
    launch.grid[a] = grid[a];
    launch.block[a] = block[a];
  }
  launch.shared_bytes = shared;
  for (uint32_t i = 0; i < it->second.pointers; ++i)
    launch.pointers.push_back(Host(*static_cast<CUdeviceptr*>(params[i])));
  for (uint32_t i = 0; i < it->second.push; ++i)
    launch.push_constants.push_back(*static_cast<uint32_t*>(params[it->second.pointers + i]));
  return Enqueue(stream, {"kernel " + entry, [this, launch] {
                            for (void* p : launch.pointers)
                              if (!InDevice(p, 1)) return kIllegalAddress;
                            auto failure = replay_failures_.find(launch.entry);
                            if (failure != replay_failures_.end()) return failure->second;
                            launches.push_back(launch);
                            const KernelSpec& spec = kernels_[launch.entry];
                            if (spec.run) spec.run(launch);
                            return 0;
                          }});
}

int FakeCudaDriver::RunMatmul(const Matmul& m) {
  // Column-major: element (r, c) of a layout is at r + c * ld; op(A) is
  // rows(D) x k, op(B) is k x cols(D).
  const uint64_t rows = m.d.rows, cols = m.d.cols;
  const uint64_t k = m.trans_a == CUBLAS_OP_N ? m.a.cols : m.a.rows;
  const float* A = static_cast<const float*>(m.A);
  const float* B = static_cast<const float*>(m.B);
  const float* C = static_cast<const float*>(m.C);
  const float* bias = static_cast<const float*>(m.bias);
  float* D = static_cast<float*>(m.D);
  for (int32_t batch = 0; batch < m.d.batch; ++batch) {
    const float* a = A + batch * m.a.batch_stride;
    const float* b = B + batch * m.b.batch_stride;
    const float* c = C + batch * m.c.batch_stride;
    float* d = D + batch * m.d.batch_stride;
    for (uint64_t j = 0; j < cols; ++j)
      for (uint64_t i = 0; i < rows; ++i) {
        double sum = 0;
        for (uint64_t p = 0; p < k; ++p) {
          float av = m.trans_a == CUBLAS_OP_N ? a[i + p * m.a.ld] : a[p + i * m.a.ld];
          float bv = m.trans_b == CUBLAS_OP_N ? b[p + j * m.b.ld] : b[j + p * m.b.ld];
          sum += static_cast<double>(av) * bv;
        }
        float v = m.alpha * static_cast<float>(sum);
        if (m.beta != 0) v += m.beta * c[i + j * m.c.ld];
        if (m.epilogue & CUBLASLT_EPILOGUE_BIAS) v += bias[i];
        if (m.epilogue & CUBLASLT_EPILOGUE_RELU) v = v > 0 ? v : 0;
        if (m.epilogue & CUBLASLT_EPILOGUE_GELU)
          v = 0.5f * v * (1.0f + std::tanh(0.7978845608f * (v + 0.044715f * v * v * v)));
        d[i + j * m.d.ld] = v;
      }
  }
  matmuls.push_back(m);
  return 0;
}

ScopedNoCudaDriver::ScopedNoCudaDriver(const Status& failure) {
  SetDriverApiForTesting(nullptr, nullptr, failure);
}
ScopedNoCudaDriver::~ScopedNoCudaDriver() { ClearDriverApiForTesting(); }

}  // namespace kiln::testing
