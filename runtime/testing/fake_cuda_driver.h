// fake_cuda_driver.h - TEST-ONLY stand-in for the CUDA driver API and
// cuBLASLt tables (runtime/src/cuda/driver_api.h). It runs nothing on a
// GPU: "device memory" is host memory, a "kernel launch" calls a host
// function the test registers (or only records the launch), stream
// capture records operations into a fake graph that cuGraphLaunch replays,
// and cublasLtMatmul evaluates cuBLASLt's documented column-major
// semantics on the host.
//
// Tests built on it prove the runtime's ORCHESTRATION only: which calls it
// makes, in what order, with which sizes, pointers and parameters, and how
// it reports failures. They are never evidence of GPU numerics; only
// tests/gpu/device_check.sh on a real GPU is.
#ifndef KILN_RUNTIME_TESTING_FAKE_CUDA_DRIVER_H_
#define KILN_RUNTIME_TESTING_FAKE_CUDA_DRIVER_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/src/cuda/driver_api.h"
#include "runtime/src/cuda/gemm_call.h"

namespace kiln::testing {

class FakeCudaDriver {
 public:
  // A kernel launch as the fake saw it; pointers are the host addresses
  // behind the fake device pointers.
  struct Launch {
    std::string entry;
    uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    uint32_t shared_bytes = 0;
    std::vector<void*> pointers;
    std::vector<uint32_t> push_constants;
  };
  // A cublasLtMatmul call: the descriptor's and layouts' attributes.
  struct Matmul {
    int trans_a = 0, trans_b = 0, epilogue = 0;
    LtLayout a, b, c, d;
    float alpha = 0, beta = 0;
    const void *A = nullptr, *B = nullptr, *C = nullptr, *bias = nullptr;
    void* D = nullptr;
    void* workspace = nullptr;
    size_t workspace_bytes = 0;
  };
  using HostKernel = std::function<void(const Launch&)>;

  // Installs this fake as the process's driver and cuBLASLt (one at a
  // time); the destructor uninstalls it.
  FakeCudaDriver();
  ~FakeCudaDriver();
  FakeCudaDriver(const FakeCudaDriver&) = delete;
  FakeCudaDriver& operator=(const FakeCudaDriver&) = delete;

  // Device facts, read when the runtime asks.
  int device_count = 1;
  int cc_major = 9, cc_minor = 0;
  int driver_version = 13000;
  std::string device_name = "Fake GPU";
  uint64_t memory_limit = 1ull << 30;  // allocations past it: out of memory
  size_t heuristic_workspace = 1 << 20;
  int heuristic_results = 1;

  // Makes cuBLASLt unavailable (as if the library were missing).
  void RemoveCublasLt();
  // The `nth` (1-based) next call of `function` ("cuLaunchKernel",
  // "cuMemAlloc", "cublasLtMatmul", ...) returns `result` without acting.
  void FailCall(const std::string& function, int result, int nth = 1);
  // Replays of the graph fail in kernel `entry` (an asynchronous fault):
  // the launch returns success and the next cuStreamSynchronize `result`.
  void FailKernelAtReplay(const std::string& entry, int result);
  // A kernel's parameters: `pointers` device pointers then `push`
  // 32-bit values. Any entry loads; launching an unregistered one fails
  // with CUDA_ERROR_NOT_FOUND.
  void AddKernel(const std::string& entry, uint32_t pointers, uint32_t push,
                 HostKernel run = nullptr);

  // What happened.
  std::vector<std::string> calls;     // every call, by function name, in order
  std::vector<Launch> launches;       // kernels run (each replay again)
  std::vector<Matmul> matmuls;        // GEMMs run (each replay again)
  std::vector<std::string> images;    // modules loaded: "cubin:<bytes>" or "ptx:<text>"
  std::vector<std::string> jit_images;
  uint64_t max_workspace_preference = 0;
  std::vector<uint32_t> alignment_preferences;  // A, B, C, D of the last heuristic
  int Count(const std::string& function) const;
  uint64_t live_bytes() const;
  size_t live_allocations() const { return allocations_.size(); }
  // The host memory behind a fake device pointer.
  static void* Host(cuda::CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

  // Internal (the C entry points).
  struct Op {
    std::string what;
    std::function<int()> run;
  };
  struct Stream {
    bool capturing = false;
    std::vector<Op> captured;
    int pending_error = 0;
  };
  int Enter(const char* function);
  int Enqueue(cuda::CUstream stream, Op op);
  int RunOps(const std::vector<Op>& ops, Stream* stream);
  bool InDevice(const void* p, size_t bytes) const;
  int Allocate(cuda::CUdeviceptr* out, size_t bytes);
  int Free(cuda::CUdeviceptr p);
  int LaunchKernel(const std::string& entry, const unsigned grid[3], const unsigned block[3],
                   unsigned shared, cuda::CUstream stream, void** params);
  int RunMatmul(const Matmul& m);

  struct KernelSpec {
    uint32_t pointers = 0, push = 0;
    HostKernel run;
  };
  std::map<std::string, KernelSpec> kernels_;
  std::map<std::string, std::vector<std::pair<int, int>>> failures_;  // function -> (countdown, result)
  std::map<std::string, int> replay_failures_;
  std::map<uintptr_t, size_t> allocations_;
  std::vector<std::unique_ptr<Stream>> streams_;
  std::vector<std::unique_ptr<std::vector<Op>>> graphs_;
  std::vector<std::unique_ptr<std::string>> functions_;
  cuda::DriverApi driver_{};
  cuda::CublasLtApi cublas_lt_{};
};

// Installs "no driver" (LoadDriverApi fails with `failure`) for its
// lifetime, as on a machine without libcuda.so.1.
class ScopedNoCudaDriver {
 public:
  explicit ScopedNoCudaDriver(const Status& failure);
  ~ScopedNoCudaDriver();
};

}  // namespace kiln::testing

#endif  // KILN_RUNTIME_TESTING_FAKE_CUDA_DRIVER_H_
