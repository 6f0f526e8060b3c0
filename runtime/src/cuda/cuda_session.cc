#include "runtime/src/cuda/cuda_session.h"

#include "runtime/src/checked_math.h"
#include "runtime/src/loaded_artifact.h"

namespace kiln {

using namespace cuda;  // NOLINT

namespace {

constexpr uint64_t kBufferAlignment = 256;  // cuMemAlloc's alignment

std::string StepName(size_t index, const std::string& label) {
  return "step " + std::to_string(index) + " '" + label + "'";
}

// The alignment a device address at `offset` from a 256-byte aligned base
// is known to have.
uint32_t AlignmentOf(uint64_t offset) {
  uint32_t a = kBufferAlignment;
  while (a > 1 && offset % a != 0) a /= 2;
  return a;
}

}  // namespace

// One LibraryCall step: its cuBLASLt descriptors, the chosen algorithm
// and the operands' device addresses.
struct CudaSession::Gemm {
  const CublasLtApi* lt = nullptr;
  GemmInfo info;
  LtGemm lt_gemm;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;
  cublasLtMatmulAlgo_t algo{};
  size_t workspace = 0;
  const fb::GemmCall* call = nullptr;
  ~Gemm() {
    if (lt == nullptr) return;
    for (cublasLtMatrixLayout_t l : {a, b, c, d})
      if (l != nullptr) lt->cublasLtMatrixLayoutDestroy(l);
    if (desc != nullptr) lt->cublasLtMatmulDescDestroy(desc);
  }
};

Status CudaSession::Create(const Model& model, std::unique_ptr<CudaSession>* out) {
  const CudaModel& cuda_model = *model.cuda();
  std::unique_ptr<CudaSession> session(new CudaSession());
  session->model_ = &model;
  session->device_ = cuda_model.device();
  const CudaDevice& dev = *session->device_;
  const DriverApi& api = dev.api();
  Status s = dev.Bind();
  if (!s.ok()) return s;

  // One allocation: arena, inputs, outputs, then the workspace.
  const ModelDescription& d = model.description();
  uint64_t offset = 0;
  auto place = [&](uint64_t bytes, uint64_t* at) {
    *at = offset;
    uint64_t rounded = 0;
    return CheckedAlignUp(bytes, kBufferAlignment, &rounded) &&
           CheckedAdd(offset, rounded, &offset);
  };
  session->arena_size_ = d.arena_size;
  uint64_t arena_offset = 0;
  bool fits = place(d.arena_size, &arena_offset);
  for (const TensorInfo& t : d.inputs) {
    session->input_offsets_.push_back(0);
    fits = fits && place(t.byte_size, &session->input_offsets_.back());
  }
  for (const TensorInfo& t : d.outputs) {
    session->output_offsets_.push_back(0);
    fits = fits && place(t.byte_size, &session->output_offsets_.back());
  }
  if (!fits) return Status(StatusCode::kResourceExhausted, "the session's GPU buffers are too large");
  if (!(s = session->PrepareGemms()).ok()) return s;
  if (session->workspace_size_ > 0 && !place(session->workspace_size_, &session->workspace_offset_))
    return Status(StatusCode::kResourceExhausted, "the session's GPU buffers are too large");
  session->memory_size_ = offset;
  if (offset > 0) {
    s = dev.Check(api.cuMemAlloc(&session->memory_, offset),
                  "allocating the session's " + std::to_string(offset) +
                      " bytes of GPU memory (arena " + std::to_string(d.arena_size) +
                      " bytes, inputs and outputs, cuBLASLt workspace " +
                      std::to_string(session->workspace_size_) + ")");
    if (!s.ok()) return s;
  }
  s = dev.Check(api.cuStreamCreate(&session->stream_, CU_STREAM_NON_BLOCKING),
                "creating the session's stream");
  if (s.ok()) s = session->Capture();
  if (!s.ok()) return s;
  *out = std::move(session);
  return Status::Ok();
}

CudaSession::~CudaSession() {
  if (device_ == nullptr || !device_->Bind().ok()) return;
  const DriverApi& api = device_->api();
  if (graph_exec_ != nullptr) api.cuGraphExecDestroy(graph_exec_);
  if (stream_ != nullptr) api.cuStreamDestroy(stream_);
  gemms_.clear();
  if (lt_handle_ != nullptr) lt_->cublasLtDestroy(lt_handle_);
  if (memory_ != 0) api.cuMemFree(memory_);
}

const void* CudaSession::arena_data() const {
  return reinterpret_cast<const void*>(static_cast<uintptr_t>(memory_));
}

CUdeviceptr CudaSession::Address(const fb::Binding& b) const {
  switch (b.space()) {
    case fb::BufferSpace::Arena: return memory_ + b.offset();
    case fb::BufferSpace::Input: return memory_ + input_offsets_[b.index()] + b.offset();
    case fb::BufferSpace::Output: return memory_ + output_offsets_[b.index()] + b.offset();
    case fb::BufferSpace::Constant:
      return model_->cuda()->constants() + model_->artifact().constant(b.index()).offset() +
             b.offset();
  }
  return 0;
}

Status CudaSession::PrepareGemms() {
  const LoadedArtifact& artifact = model_->artifact();
  const fb::Plan& plan = artifact.plan();
  const ModelDescription& d = model_->description();
  gemm_of_step_.assign(plan.steps()->size(), -1);
  const CudaDevice& dev = *device_;
  // Offsets from the (256-byte aligned) start of each buffer, for the
  // alignment the heuristic may assume.
  auto offset_of = [&](const fb::Binding& b) -> uint64_t {
    switch (b.space()) {
      case fb::BufferSpace::Arena: return b.offset();
      case fb::BufferSpace::Input: return input_offsets_[b.index()] + b.offset();
      case fb::BufferSpace::Output: return output_offsets_[b.index()] + b.offset();
      case fb::BufferSpace::Constant:
        return artifact.constant(b.index()).offset() + b.offset();
    }
    return 0;
  };
  for (uint32_t i = 0; i < plan.steps()->size(); ++i) {
    const fb::Step& step = *plan.steps()->Get(i);
    if (step.kind() != fb::StepKind::LibraryCall) continue;
    const std::string where = StepName(i, d.steps[i].label) + " (cublasLt.matmul" +
                              (d.steps[i].node.empty() ? "" : " for '" + d.steps[i].node + "'") +
                              ")";
    if (lt_ == nullptr) {
      Status s = LoadCublasLtApi(&lt_);
      if (!s.ok()) return Status(s.code(), where + ": " + s.message());
      cublasStatus_t r = lt_->cublasLtCreate(&lt_handle_);
      if (r != CUBLAS_STATUS_SUCCESS) {
        lt_handle_ = nullptr;
        return Status(StatusCode::kInternal, where + ": cublasLtCreate failed: " +
                                                 lt_->cublasLtGetStatusName(r) + " on " +
                                                 dev.Describe());
      }
    }
    auto gemm = std::make_unique<Gemm>();
    gemm->lt = lt_;
    gemm->info = d.steps[i].gemm;
    gemm->call = step.library_call()->gemm();
    gemm->lt_gemm = TranslateGemm(gemm->info);
    const LtGemm& g = gemm->lt_gemm;
    const CublasLtApi& lt = *lt_;
    std::string failed;
    auto check = [&](cublasStatus_t r, const char* call) {
      if (r != CUBLAS_STATUS_SUCCESS && failed.empty())
        failed = std::string(call) + " failed: " + lt.cublasLtGetStatusName(r);
    };
    check(lt.cublasLtMatmulDescCreate(&gemm->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
          "cublasLtMatmulDescCreate");
    if (failed.empty()) {
      check(lt.cublasLtMatmulDescSetAttribute(gemm->desc, CUBLASLT_MATMUL_DESC_TRANSA, &g.trans_a,
                                              sizeof g.trans_a),
            "setting TRANSA");
      check(lt.cublasLtMatmulDescSetAttribute(gemm->desc, CUBLASLT_MATMUL_DESC_TRANSB, &g.trans_b,
                                              sizeof g.trans_b),
            "setting TRANSB");
      check(lt.cublasLtMatmulDescSetAttribute(gemm->desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                              &g.epilogue, sizeof g.epilogue),
            "setting EPILOGUE");
    }
    auto layout = [&](const LtLayout& l, cublasLtMatrixLayout_t* out) {
      if (!failed.empty()) return;
      check(lt.cublasLtMatrixLayoutCreate(out, CUDA_R_32F, l.rows, l.cols, l.ld),
            "cublasLtMatrixLayoutCreate");
      if (!failed.empty() || l.batch == 1) return;
      check(lt.cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &l.batch,
                                                sizeof l.batch),
            "setting BATCH_COUNT");
      check(lt.cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                                &l.batch_stride, sizeof l.batch_stride),
            "setting STRIDED_BATCH_OFFSET");
    };
    layout(g.a, &gemm->a);
    layout(g.b, &gemm->b);
    layout(g.c, &gemm->c);
    layout(g.d, &gemm->d);
    if (failed.empty()) {
      cublasLtMatmulPreference_t pref = nullptr;
      check(lt.cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
      if (failed.empty()) {
        uint64_t max_workspace = kMaxWorkspace;
        check(lt.cublasLtMatmulPreferenceSetAttribute(
                  pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_workspace,
                  sizeof max_workspace),
              "setting MAX_WORKSPACE_BYTES");
        // cuBLASLt's A is the step's B and vice versa (gemm_call.h).
        const fb::GemmCall& c = *gemm->call;
        uint32_t align[4] = {AlignmentOf(offset_of(*c.b())), AlignmentOf(offset_of(*c.a())),
                             AlignmentOf(offset_of(gemm->info.has_c() ? *c.c() : *c.d())),
                             AlignmentOf(offset_of(*c.d()))};
        const int attrs[4] = {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                              CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                              CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                              CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
        for (int a = 0; a < 4; ++a)
          check(lt.cublasLtMatmulPreferenceSetAttribute(pref, attrs[a], &align[a], sizeof align[a]),
                "setting MIN_ALIGNMENT");
        cublasLtMatmulHeuristicResult_t result{};
        int returned = 0;
        if (failed.empty())
          check(lt.cublasLtMatmulAlgoGetHeuristic(lt_handle_, gemm->desc, gemm->a, gemm->b,
                                                  gemm->c, gemm->d, pref, 1, &result, &returned),
                "cublasLtMatmulAlgoGetHeuristic");
        if (failed.empty() && returned == 0)
          failed = "cuBLASLt has no algorithm for it";
        gemm->algo = result.algo;
        gemm->workspace = result.workspaceSize;
      }
      if (pref != nullptr) lt.cublasLtMatmulPreferenceDestroy(pref);
    }
    if (!failed.empty()) {
      const GemmInfo& info = gemm->info;
      return Status(StatusCode::kInternal,
                    where + ": " + failed + " (batch " + std::to_string(info.batch) + ", m " +
                        std::to_string(info.m) + ", n " + std::to_string(info.n) + ", k " +
                        std::to_string(info.k) + ", epilogue " + GemmEpilogueName(info.epilogue) +
                        ") on " + dev.Describe());
    }
    if (gemm->workspace > workspace_size_) workspace_size_ = gemm->workspace;
    gemm_of_step_[i] = static_cast<int>(gemms_.size());
    gemms_.push_back(std::move(gemm));
  }
  return Status::Ok();
}

Status CudaSession::Enqueue(size_t i, const std::string& where) {
  const LoadedArtifact& artifact = model_->artifact();
  const fb::Step& step = *artifact.plan().steps()->Get(static_cast<uint32_t>(i));
  const CudaDevice& dev = *device_;
  const DriverApi& api = dev.api();
  switch (step.kind()) {
    case fb::StepKind::Copy: {
      const fb::CopyStep& c = *step.copy();
      if (c.source()->length() == 0) return Status::Ok();
      return dev.Check(api.cuMemcpyDtoDAsync(Address(*c.target()), Address(*c.source()),
                                             c.source()->length(), stream_),
                       where + ": cuMemcpyDtoDAsync");
    }
    case fb::StepKind::Dispatch: {
      const fb::DispatchStep& ds = *step.dispatch();
      const GpuKernelInfo& launch =
          model_->description().executables[ds.executable()].gpu_kernels[ds.kernel()];
      // Parameters: each binding's address, then each push constant as a
      // 32-bit value; the driver copies them at the call.
      std::vector<CUdeviceptr> pointers;
      for (const fb::Binding* b : *ds.bindings()) pointers.push_back(Address(*b));
      std::vector<uint32_t> pushes;
      if (ds.push_constants())
        pushes.assign(ds.push_constants()->begin(), ds.push_constants()->end());
      std::vector<void*> params;
      for (CUdeviceptr& p : pointers) params.push_back(&p);
      for (uint32_t& p : pushes) params.push_back(&p);
      return dev.Check(
          api.cuLaunchKernel(model_->cuda()->function(ds.executable(), ds.kernel()),
                             ds.workgroups()->Get(0), ds.workgroups()->Get(1),
                             ds.workgroups()->Get(2), launch.block[0], launch.block[1],
                             launch.block[2], launch.shared_memory_bytes, stream_, params.data(),
                             nullptr),
          where + ": launching kernel '" + launch.entry + "' (grid " +
              std::to_string(ds.workgroups()->Get(0)) + "x" +
              std::to_string(ds.workgroups()->Get(1)) + "x" +
              std::to_string(ds.workgroups()->Get(2)) + ", block " +
              std::to_string(launch.block[0]) + "x" + std::to_string(launch.block[1]) + "x" +
              std::to_string(launch.block[2]) + ")");
    }
    case fb::StepKind::LibraryCall: {
      Gemm& g = *gemms_[gemm_of_step_[i]];
      const fb::GemmCall& c = *g.call;
      CUdeviceptr d = Address(*c.d());
      CUdeviceptr cc = g.info.has_c() ? Address(*c.c()) : d;
      auto ptr = [](CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); };
      if (g.info.has_bias()) {
        void* bias = ptr(Address(*c.bias()));
        cublasStatus_t r = lt_->cublasLtMatmulDescSetAttribute(
            g.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
        if (r != CUBLAS_STATUS_SUCCESS)
          return Status(StatusCode::kInternal, where + ": setting the bias pointer failed: " +
                                                   lt_->cublasLtGetStatusName(r));
      }
      float alpha = g.info.alpha, beta = g.info.beta;
      cublasStatus_t r = lt_->cublasLtMatmul(
          lt_handle_, g.desc, &alpha, ptr(Address(*c.b())), g.a, ptr(Address(*c.a())), g.b, &beta,
          ptr(cc), g.c, ptr(d), g.d, &g.algo,
          workspace_size_ ? ptr(memory_ + workspace_offset_) : nullptr, workspace_size_, stream_);
      if (r != CUBLAS_STATUS_SUCCESS)
        return Status(StatusCode::kInternal,
                      where + ": cublasLtMatmul failed: " + lt_->cublasLtGetStatusName(r) +
                          " on " + dev.Describe());
      return Status::Ok();
    }
    case fb::StepKind::CustomCall:
      break;
  }
  return Status(StatusCode::kUnimplemented, where + ": this step kind does not run on a GPU");
}

Status CudaSession::Capture() {
  const CudaDevice& dev = *device_;
  const DriverApi& api = dev.api();
  const ModelDescription& d = model_->description();
  Status s = dev.Check(api.cuStreamBeginCapture(stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                       "starting the capture of the plan into a CUDA graph");
  if (!s.ok()) return s;
  for (size_t i = 0; i < d.steps.size() && s.ok(); ++i) {
    std::string where = StepName(i, d.steps[i].label);
    s = Enqueue(i, where);
  }
  CUgraph graph = nullptr;
  // Ends the capture even after a failed step (which invalidates it), so
  // the stream leaves capture mode.
  Status end = dev.Check(api.cuStreamEndCapture(stream_, &graph),
                         "capturing the plan into a CUDA graph");
  if (s.ok()) s = end;
  if (s.ok())
    s = dev.Check(api.cuGraphInstantiate(&graph_exec_, graph, 0),
                  "instantiating the plan's CUDA graph (" + std::to_string(d.steps.size()) +
                      " steps)");
  // The executable graph is independent of the captured one.
  if (graph != nullptr) api.cuGraphDestroy(graph);
  return s;
}

Status CudaSession::Run(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs) {
  const CudaDevice& dev = *device_;
  const DriverApi& api = dev.api();
  const ModelDescription& d = model_->description();
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].on_device() && inputs[i].device_index() != dev.ordinal())
      return Status(StatusCode::kInvalidArgument,
                    "input '" + d.inputs[i].name + "' is on cuda:" +
                        std::to_string(inputs[i].device_index()) + ", but this session runs on " +
                        dev.Describe());
  for (size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].on_device() && outputs[i].device_index() != dev.ordinal())
      return Status(StatusCode::kInvalidArgument,
                    "output '" + d.outputs[i].name + "' is on cuda:" +
                        std::to_string(outputs[i].device_index()) +
                        ", but this session runs on " + dev.Describe());
  Status s = dev.Bind();
  if (!s.ok()) return s;
  auto device_ptr = [](const Tensor& t) {
    return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(t.data()));
  };
  for (size_t i = 0; i < inputs.size() && s.ok(); ++i) {
    uint64_t bytes = d.inputs[i].byte_size;
    if (bytes == 0) continue;
    CUdeviceptr target = memory_ + input_offsets_[i];
    s = dev.Check(inputs[i].on_device()
                      ? api.cuMemcpyDtoDAsync(target, device_ptr(inputs[i]), bytes, stream_)
                      : api.cuMemcpyHtoDAsync(target, inputs[i].data(), bytes, stream_),
                  "copying input '" + d.inputs[i].name + "' to " + dev.Describe());
  }
  if (s.ok())
    s = dev.Check(api.cuGraphLaunch(graph_exec_, stream_),
                  "launching the plan's CUDA graph on " + dev.Describe());
  for (size_t i = 0; i < outputs.size() && s.ok(); ++i) {
    uint64_t bytes = d.outputs[i].byte_size;
    if (bytes == 0) continue;
    CUdeviceptr source = memory_ + output_offsets_[i];
    s = dev.Check(outputs[i].on_device()
                      ? api.cuMemcpyDtoDAsync(device_ptr(outputs[i]), source, bytes, stream_)
                      : api.cuMemcpyDtoHAsync(outputs[i].data(), source, bytes, stream_),
                  "copying output '" + d.outputs[i].name + "' from " + dev.Describe());
  }
  // Waits even after a failed enqueue: nothing may still write into the
  // caller's buffers once Run returns.
  Status sync = dev.Check(api.cuStreamSynchronize(stream_),
                          "running the plan (" + std::to_string(d.steps.size()) +
                              " steps as one CUDA graph) on " + dev.Describe() +
                              "; the graph reports errors for the whole plan, not per step");
  return s.ok() ? sync : s;
}

}  // namespace kiln
