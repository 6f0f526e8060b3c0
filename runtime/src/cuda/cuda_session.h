// cuda_session.h - a Session's GPU side: one device allocation (the plan's
// arena, one buffer per input and output, the cuBLASLt workspace), its
// own stream, and the whole plan captured once into a CUDA graph at
// creation. Run copies the inputs in, replays the graph and copies the
// outputs out, all on the session's stream, then waits for it.
//
// Inputs and outputs go through the session's own device buffers so that
// every pointer in the graph is fixed when it is captured (shapes are
// static); caller device tensors are copied device to device.
#ifndef KILN_RUNTIME_SRC_CUDA_CUDA_SESSION_H_
#define KILN_RUNTIME_SRC_CUDA_CUDA_SESSION_H_

#include <memory>
#include <string>
#include <vector>

#include "kiln/runtime.h"
#include "runtime/src/cuda/cuda_model.h"
#include "runtime/src/cuda/gemm_call.h"

namespace kiln {

namespace fb {
struct Binding;
}

class CudaSession {
 public:
  static Status Create(const Model& model, std::unique_ptr<CudaSession>* out);
  ~CudaSession();
  CudaSession(const CudaSession&) = delete;
  CudaSession& operator=(const CudaSession&) = delete;

  // `inputs` and `outputs` were checked by Session::Run (count, dtype,
  // shape, data); device tensors must be on this session's device.
  Status Run(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs);

  size_t arena_size() const { return arena_size_; }
  // The arena's device address.
  const void* arena_data() const;
  // The cuBLASLt workspace, bytes (0 without library calls).
  size_t workspace_size() const { return workspace_size_; }

  // The most workspace a GEMM may use (CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES).
  static constexpr size_t kMaxWorkspace = 32u << 20;

 private:
  struct Gemm;
  CudaSession() = default;
  cuda::CUdeviceptr Address(const fb::Binding& b) const;
  Status PrepareGemms();
  Status Capture();
  Status Enqueue(size_t step_index, const std::string& where);

  const Model* model_ = nullptr;
  std::shared_ptr<CudaDevice> device_;
  const cuda::CublasLtApi* lt_ = nullptr;
  cuda::cublasLtHandle_t lt_handle_ = nullptr;
  std::vector<std::unique_ptr<Gemm>> gemms_;  // per library-call step, plan order
  std::vector<int> gemm_of_step_;             // step -> index into gemms_, -1
  cuda::CUdeviceptr memory_ = 0;
  uint64_t memory_size_ = 0;
  uint64_t arena_size_ = 0;
  std::vector<uint64_t> input_offsets_, output_offsets_;
  uint64_t workspace_offset_ = 0, workspace_size_ = 0;
  cuda::CUstream stream_ = nullptr;
  cuda::CUgraphExec graph_exec_ = nullptr;
};

}  // namespace kiln

#endif  // KILN_RUNTIME_SRC_CUDA_CUDA_SESSION_H_
