// cublas_gemm_bench - the reference for device_check.sh's GEMM figure: an
// N x N x N f32 GEMM (compute 32F, no TF32) called directly through
// cuBLASLt, timed like `kiln bench` times Kiln's plan. It reaches the
// driver and cuBLASLt through the runtime's own dlopen tables
// (runtime/src/cuda/driver_api.h), so it builds without the CUDA toolkit.
//
//   cublas_gemm_bench [N] [iterations]      (default 4096, 50)
//
// Prints "cublasLt f32 N=4096: 12.345 ms, 11.13 TFLOP/s" and exits 0, or
// one line saying why it cannot run (exit 1; "no GPU" where there is none).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/src/cuda/cuda_device.h"
#include "runtime/src/cuda/driver_api.h"

using namespace kiln;        // NOLINT
using namespace kiln::cuda;  // NOLINT

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "cublas_gemm_bench: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4096;
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 50;
  if (n == 0 || n > 32768 || iterations <= 0) return Fail("usage: cublas_gemm_bench [N] [iterations]");
  std::shared_ptr<CudaDevice> device;
  Status s = CudaDevice::Open(0, &device);
  if (!s.ok()) return Fail(s.message());
  const CublasLtApi* lt = nullptr;
  if (!(s = LoadCublasLtApi(&lt)).ok()) return Fail(s.message());
  const DriverApi& api = device->api();
  if (!(s = device->Bind()).ok()) return Fail(s.message());
  const size_t bytes = n * n * sizeof(float);
  const size_t workspace_bytes = 32u << 20;
  CUdeviceptr a = 0, b = 0, d = 0, workspace = 0;
  CUstream stream = nullptr;
  if (!(s = device->Check(api.cuMemAlloc(&a, bytes), "cuMemAlloc")).ok() ||
      !(s = device->Check(api.cuMemAlloc(&b, bytes), "cuMemAlloc")).ok() ||
      !(s = device->Check(api.cuMemAlloc(&d, bytes), "cuMemAlloc")).ok() ||
      !(s = device->Check(api.cuMemAlloc(&workspace, workspace_bytes), "cuMemAlloc")).ok() ||
      !(s = device->Check(api.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate"))
           .ok())
    return Fail(s.message());
  // Finite inputs (the values do not matter for the time).
  std::vector<float> host(n * n);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>((i * 7919) % 17) / 17.0f;
  api.cuMemcpyHtoD(a, host.data(), bytes);
  api.cuMemcpyHtoD(b, host.data(), bytes);

  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t layout = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  if (lt->cublasLtCreate(&handle) != 0 ||
      lt->cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F) != 0 ||
      lt->cublasLtMatrixLayoutCreate(&layout, CUDA_R_32F, n, n, static_cast<int64_t>(n)) != 0 ||
      lt->cublasLtMatmulPreferenceCreate(&pref) != 0)
    return Fail("creating the cuBLASLt descriptors failed");
  uint64_t max_workspace = workspace_bytes;
  lt->cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                           &max_workspace, sizeof max_workspace);
  cublasLtMatmulHeuristicResult_t result{};
  int returned = 0;
  if (lt->cublasLtMatmulAlgoGetHeuristic(handle, desc, layout, layout, layout, layout, pref, 1,
                                         &result, &returned) != 0 ||
      returned == 0)
    return Fail("cuBLASLt has no algorithm for an f32 GEMM of size " + std::to_string(n));
  const float alpha = 1.0f, beta = 0.0f;
  auto ptr = [](CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); };
  auto run = [&] {
    return lt->cublasLtMatmul(handle, desc, &alpha, ptr(a), layout, ptr(b), layout, &beta, ptr(d),
                              layout, ptr(d), layout, &result.algo, ptr(workspace),
                              workspace_bytes, stream);
  };
  for (int i = 0; i < 5; ++i)
    if (int r = run()) return Fail(std::string("cublasLtMatmul: ") + lt->cublasLtGetStatusName(r));
  if (!(s = device->Check(api.cuStreamSynchronize(stream), "warm-up")).ok()) return Fail(s.message());
  // Per call, synchronized, like one `kiln bench` iteration; the median.
  std::vector<double> ms;
  for (int i = 0; i < iterations; ++i) {
    auto start = std::chrono::steady_clock::now();
    run();
    if (!(s = device->Check(api.cuStreamSynchronize(stream), "GEMM")).ok()) return Fail(s.message());
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  double median = ms[ms.size() / 2];
  double tflops = 2.0 * static_cast<double>(n) * n * n / (median * 1e-3) / 1e12;
  std::printf("cublasLt f32 N=%llu on %s: %.4f ms, %.2f TFLOP/s\n",
              static_cast<unsigned long long>(n), device->Describe().c_str(), median, tflops);
  lt->cublasLtMatmulPreferenceDestroy(pref);
  lt->cublasLtMatrixLayoutDestroy(layout);
  lt->cublasLtMatmulDescDestroy(desc);
  lt->cublasLtDestroy(handle);
  api.cuStreamDestroy(stream);
  for (CUdeviceptr p : {a, b, d, workspace}) api.cuMemFree(p);
  return 0;
}
