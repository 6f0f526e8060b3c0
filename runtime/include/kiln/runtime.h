// runtime.h - the Kiln runtime's C++ API.
//
//   std::shared_ptr<kiln::Runtime> runtime;
//   kiln::Runtime::Create({}, &runtime);
//   std::shared_ptr<const kiln::Model> model;
//   kiln::Status s = runtime->LoadModel("model.kiln", &model);
//   std::unique_ptr<kiln::Session> session;
//   s = kiln::Session::Create(model, &session);
//   std::vector<kiln::Tensor> outputs;
//   s = session->Run({kiln::Tensor::Borrow(kiln::DType::F32, {1, 3}, data)}, &outputs);
//
// Errors: every fallible call returns a Status; no exception crosses this
// API (running out of memory is RESOURCE_EXHAUSTED) and no bad input (file,
// tensor, argument) aborts the process.
//
// Trust: an artifact is native code that runs with this process's rights.
// Its checksum detects corruption, not tampering; load only artifacts from
// trusted sources.
//
// Ownership and lifetime:
//   - Runtime owns the worker threads. Models and Sessions keep the parts of
//     it they need alive, so the Runtime handle may be dropped first.
//   - Model is immutable after loading and keeps the mapped file and the
//     loaded CPU code. Sessions hold a shared_ptr to their Model.
//   - Session owns its arena (intermediates), allocated once at Create and
//     reused by every Run.
//   - Tensor either owns its buffer (Allocate; copies share that buffer) or
//     borrows the caller's memory (Borrow; the caller keeps it alive and
//     unchanged for the duration of any Run that uses it). A device tensor
//     (BorrowDevice) borrows CUDA device memory the same way: Kiln never
//     frees it and reads or writes it only during Run.
//   - On a GPU (RuntimeOptions::device), the Runtime holds the device's
//     primary context; each Model holds its loaded modules and a device
//     copy of its constants (uploaded once); each Session its own device
//     arena (one allocation), stream, cuBLASLt workspace and CUDA graph.
//
// Thread safety:
//   - Runtime and Model: every const method and LoadModel are safe from any
//     number of threads at once.
//   - Session: one thread at a time (Run, EnableProfiling and GetProfile
//     alike). Use one Session per concurrent caller; many Sessions over one
//     Model may Run at the same time and share the Runtime's thread pool.
#ifndef KILN_RUNTIME_H_
#define KILN_RUNTIME_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kiln/custom_op.h"

namespace kiln {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,    // the caller passed something wrong
  kNotFound = 2,           // a file or a named input/output
  kDataLoss = 3,           // a corrupted or truncated artifact
  kUnimplemented = 4,      // a valid artifact this runtime cannot run
  kFailedPrecondition = 5, // e.g. the CPU lacks features the code needs
  kResourceExhausted = 6,  // memory
  kInternal = 7,           // a kernel failed, or a runtime bug
};

const char* StatusCodeName(StatusCode code);

class Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "INVALID_ARGUMENT: input 'x': ..." or "OK".
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Numbered as the schema's DType (runtime/schema/kiln.fbs).
enum class DType : uint8_t {
  F32 = 0, F16, BF16, F64, I8, I16, I32, I64, U8, U16, U32, U64, Bool
};
size_t DTypeSize(DType dtype);      // bytes per element
const char* DTypeName(DType dtype); // "f32", "i64", "bool", ...

// "[1,3,224,224] f32"
std::string DescribeShape(const std::vector<int64_t>& dims, DType dtype);

class Tensor {
 public:
  Tensor() = default;  // empty: no dims, no data

  // A view of caller memory; the Tensor never frees it.
  static Tensor Borrow(DType dtype, std::vector<int64_t> dims, void* data);
  // A zero-filled, 64-byte aligned buffer owned by the Tensor (and shared by
  // its copies). Fails on negative dims or when memory runs out.
  static Status Allocate(DType dtype, std::vector<int64_t> dims, Tensor* out);

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t element_count() const;
  size_t byte_size() const { return static_cast<size_t>(element_count()) * DTypeSize(dtype_); }
  void* data() const { return data_; }
  template <typename T>
  T* data_as() const { return static_cast<T*>(data_); }
  bool owns_data() const { return storage_ != nullptr; }

  // A view of CUDA device memory on device `device_index` (cuda:N): `data`
  // is the CUdeviceptr value. Only a Session running on that GPU accepts
  // it (device-to-device copies into and out of the session's buffers, no
  // host round trip); a CPU session refuses it. The Tensor never frees it.
  static Tensor BorrowDevice(DType dtype, std::vector<int64_t> dims, void* data, int device_index);
  // -1 for host memory, N for cuda:N.
  int device_index() const { return device_index_; }
  bool on_device() const { return device_index_ >= 0; }

 private:
  DType dtype_ = DType::F32;
  std::vector<int64_t> dims_;
  void* data_ = nullptr;
  int device_index_ = -1;
  std::shared_ptr<void> storage_;
};

struct NamedTensor {
  std::string name;
  Tensor tensor;
};

// One input or output of a model's signature.
struct TensorInfo {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> dims;
  std::vector<std::string> dim_names;  // "" where the model gave none
  size_t byte_size = 0;
};

// What `kiln inspect` shows; filled from a verified artifact.
enum class BindingAccess : uint8_t { kRead = 0, kWrite = 1, kReadWrite = 2 };
struct KernelBindingInfo {
  uint64_t size = 0;  // exact byte length the kernel was compiled for
  BindingAccess access = BindingAccess::kRead;
};
struct KernelInfo {
  std::string name;
  uint32_t binding_count = 0;
  uint32_t push_constant_count = 0;
  std::vector<KernelBindingInfo> bindings;  // binding_count entries
  uint32_t workgroups[3] = {1, 1, 1};       // the grid it was compiled for
};
// Launch facts of one kernel of a GPU ("cuda") executable.
struct GpuKernelInfo {
  std::string entry;             // the PTX .entry name
  uint32_t module = 0;           // index into the executable's PTX modules
  uint32_t block[3] = {1, 1, 1}; // threads per block
  uint32_t shared_memory_bytes = 0;
};
struct ExecutableInfo {
  std::string target, format, cpu;
  // target "cuda" only: cubin architectures, the PTX's ISA version and
  // .target, the number of PTX modules, and per kernel (parallel to
  // `kernels`, whose workgroups are the grid) its launch facts.
  std::vector<std::string> gpu_archs;
  std::string ptx_version, ptx_target;
  size_t gpu_module_count = 0;
  std::vector<GpuKernelInfo> gpu_kernels;
  std::vector<std::string> required_features;
  std::vector<std::string> missing_features;  // of those, what this CPU lacks
  size_t code_size = 0;
  std::vector<KernelInfo> kernels;
};
// A GEMM as a LibraryCall step describes it (kiln.fbs GemmCall): row-major
// D[b] = epilogue(alpha * op(A[b]) x op(B[b]) + beta * C[b]); strides and
// leading dimensions in elements.
struct GemmInfo {
  enum class Epilogue : uint8_t { kNone = 0, kBias, kRelu, kBiasRelu, kGelu, kBiasGelu };
  DType dtype = DType::F32, compute = DType::F32;
  uint64_t batch = 1, m = 0, n = 0, k = 0;
  bool transpose_a = false, transpose_b = false;
  uint64_t lda = 0, ldb = 0, ldc = 0, ldd = 0;
  uint64_t batch_stride_a = 0, batch_stride_b = 0, batch_stride_c = 0, batch_stride_d = 0;
  float alpha = 1.0f, beta = 0.0f;
  Epilogue epilogue = Epilogue::kNone;
  bool has_c() const { return beta != 0.0f; }
  bool has_bias() const {
    return epilogue == Epilogue::kBias || epilogue == Epilogue::kBiasRelu ||
           epilogue == Epilogue::kBiasGelu;
  }
};
const char* GemmEpilogueName(GemmInfo::Epilogue epilogue);  // "none", "bias+relu", ...

struct StepInfo {
  enum class Kind { kDispatch, kCopy, kCustomCall, kLibraryCall } kind = Kind::kDispatch;
  std::string label;
  uint32_t executable = 0, kernel = 0;  // dispatch only
  uint32_t workgroups[3] = {1, 1, 1};   // dispatch only
  uint64_t copy_bytes = 0;              // copy only
  std::string custom_op;                // custom call only: "com.example.Swish"
  std::string node;                     // custom or library call: the model node(s)
  std::string library, function;        // library call only: "cublasLt", "matmul"
  GemmInfo gemm;                        // library call "matmul" only
};
struct ModelDescription {
  uint32_t format_version = 0;
  std::string producer, source_name;
  uint64_t file_size = 0;
  std::vector<TensorInfo> inputs, outputs;
  size_t constant_count = 0;
  uint64_t constant_bytes = 0;  // sum of the constants' sizes
  std::vector<ExecutableInfo> executables;
  std::string plan_target;
  std::vector<StepInfo> steps;
  // The external custom ops the plan calls (each once, in plan order); a
  // Runtime loads the model only when it has a kernel for each.
  std::vector<std::string> custom_ops;
  uint64_t arena_size = 0;
  uint64_t intermediate_bytes = 0;
};

// Verifies an artifact completely (header, checksum, FlatBuffer, semantics)
// without loading its code, so it works on machines that cannot run it.
Status DescribeModelFile(const std::string& path, ModelDescription* out);

// What Session::GetProfile reports for one plan step.
struct StepProfile {
  StepInfo::Kind kind = StepInfo::Kind::kDispatch;
  std::string label;         // as in the artifact: "dispatch_3: linalg.matmul+linalg.generic"
  std::string name;          // the label before ": " (all of it when there is none)
  std::string ops;           // the label after ": ", ops joined by '+'; "" when absent
  uint64_t workgroups = 0;   // x * y * z for a dispatch; 0 for a copy or custom call
  uint64_t calls = 0;        // times the step ran in the profiled Runs
  uint64_t total_ns = 0;     // its wall time summed over those calls
};

// Per-step times of a Session's successful Runs since profiling was
// enabled. A Run that fails adds nothing.
struct SessionProfile {
  uint64_t runs = 0;
  uint64_t run_ns = 0;             // wall time of those Runs, entry to return
  std::vector<StepProfile> steps;  // one per plan step, in plan order
};

// One row of SummarizeProfile: the steps that share a name (a kernel the
// plan calls several times), times summed.
struct ProfileEntry {
  StepInfo::Kind kind = StepInfo::Kind::kDispatch;
  std::string name, ops;
  uint64_t workgroups = 0;     // per call; 0 for copies and when the calls differ
  bool workgroups_vary = false;
  uint64_t calls_per_run = 0;
  double ms_per_run = 0;
  double share = 0;            // percent of SessionProfile::run_ns
};
// Groups the steps by name and sorts the groups by time, longest first.
// `outside_ms_per_run` (optional) receives the time of the Runs spent
// outside every step: checking tensors, allocating outputs. Fails when the
// profile holds no run.
Status SummarizeProfile(const SessionProfile& profile, std::vector<ProfileEntry>* out,
                        double* outside_ms_per_run = nullptr);

class Model;
class ThreadPool;
class CustomOpRegistry;
class CudaDevice;
class CudaModel;
class FileBytes;

// Where a Runtime runs models.
struct Device {
  enum class Kind : uint8_t {
    // A GPU when the driver finds one (cuda:0) and the artifact has a cuda
    // plan; else the CPU plan. No GPU is never an error here.
    kAuto = 0,
    kCpu = 1,
    // GPU `index` (cuda:N); Runtime::Create fails when there is none, and
    // loading fails for an artifact without a cuda plan.
    kCuda = 2,
  };
  Kind kind = Kind::kAuto;
  int index = 0;
  // "auto", "cpu", "cuda" (cuda:0) or "cuda:N"; INVALID_ARGUMENT otherwise.
  static Status Parse(const std::string& text, Device* out);
  std::string ToString() const;  // as Parse reads it
};

struct RuntimeOptions {
  // Threads that run workgroups, counting each calling thread; 0 means
  // std::thread::hardware_concurrency().
  int num_threads = 0;
  Device device;
};

class Runtime : public std::enable_shared_from_this<Runtime> {
 public:
  static Status Create(const RuntimeOptions& options, std::shared_ptr<Runtime>* out);
  ~Runtime();

  // Maps the file read-only and verifies it before using any of it; the
  // weights are used in place from the mapping.
  Status LoadModel(const std::string& path, std::shared_ptr<const Model>* out) const;
  // Copies `size` bytes from `data`; the caller may free them afterwards.
  Status LoadModelFromMemory(const void* data, size_t size,
                             std::shared_ptr<const Model>* out) const;

  // External custom-op kernels (kiln/custom_op.h documents the kernel ABI).
  // A model that calls custom ops loads only when this Runtime has a
  // kernel for each (FAILED_PRECONDITION naming the missing ones
  // otherwise); it resolves them at load, so registering later changes
  // nothing for models already loaded. A name registers once: a second
  // registration is INVALID_ARGUMENT. Safe from any thread, also while
  // other threads load models.
  //
  // `kernel` is called with `user_data` for every call of op `name`; both
  // must stay valid while any model that uses them lives.
  Status RegisterCustomOp(const std::string& name, kiln_custom_kernel_fn kernel,
                          void* user_data = nullptr);
  // dlopens the shared object at `path` and registers every op of the table
  // its kiln_custom_op_library_query returns (all or none). The library
  // stays loaded while this Runtime or a model using one of its ops lives.
  // Loading a library runs its code: load only trusted ones.
  Status RegisterCustomOpLibrary(const std::string& path);
  // The names registered so far, sorted.
  std::vector<std::string> custom_op_names() const;

  int num_threads() const;
  // The GPU this Runtime runs cuda plans on ("cuda:0 (NVIDIA H200, sm_90,
  // driver CUDA 13.0)"), or "" when it has none (device cpu, or auto on a
  // machine without a usable GPU).
  std::string gpu() const;

 private:
  Runtime() = default;
  Status MakeModel(std::unique_ptr<FileBytes> bytes, std::shared_ptr<const Model>* out) const;
  std::shared_ptr<ThreadPool> pool_;
  std::shared_ptr<CustomOpRegistry> custom_ops_;
  Device device_;
  std::shared_ptr<CudaDevice> gpu_;
  std::string no_gpu_reason_;  // device auto without a GPU: why
};

class LoadedArtifact;

class Model {
 public:
  ~Model();
  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;
  // -1 when there is no such name.
  int FindInput(const std::string& name) const;
  int FindOutput(const std::string& name) const;
  const ModelDescription& description() const;

  // "cpu", or the GPU the model runs on ("cuda:0 (...)") with the code
  // loaded for it ("cuda:0 (NVIDIA H200, sm_90, ...), cubin sm_90").
  std::string device() const;

  // Internal: constructed by Runtime::LoadModel*.
  Model(std::unique_ptr<LoadedArtifact> artifact, std::shared_ptr<ThreadPool> pool,
        std::unique_ptr<CudaModel> cuda = nullptr);
  const LoadedArtifact& artifact() const { return *artifact_; }
  ThreadPool& pool() const { return *pool_; }
  const CudaModel* cuda() const { return cuda_.get(); }

 private:
  std::unique_ptr<LoadedArtifact> artifact_;
  std::shared_ptr<ThreadPool> pool_;
  std::unique_ptr<CudaModel> cuda_;
};

class SessionState;

class Session {
 public:
  // Allocates the arena and resolves every constant and arena binding once.
  static Status Create(std::shared_ptr<const Model> model, std::unique_ptr<Session>* out);
  ~Session();

  // Inputs in signature order, each with the declared dtype and shape and a
  // non-null data pointer. On a GPU, host tensors are copied in and out
  // and device tensors (Tensor::BorrowDevice, same device) copied device to
  // device; allocated outputs are host tensors. The CPU refuses device
  // tensors. `outputs` either is empty (the session allocates
  // one Tensor per output) or holds one Tensor per output in signature
  // order whose buffers (declared dtype and shape) receive the results.
  // Output buffers must not share a byte with any input or with each other
  // (INVALID_ARGUMENT naming the pair); inputs may alias each other.
  Status Run(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs);
  // The same by name: every input exactly once, in any order. `outputs`
  // either is empty (filled with every output, in signature order) or names
  // every output once, with caller buffers as above.
  Status Run(const std::vector<NamedTensor>& inputs, std::vector<NamedTensor>* outputs);

  // Per-step timing, off by default; a GPU session refuses it
  // (FAILED_PRECONDITION: its plan runs as one CUDA graph). While it is on, Run reads the clock
  // once per step and once more per Run, and keeps the sums in the Session;
  // while it is off, Run pays one predictable branch per step.
  // EnableProfiling(true) clears what was gathered before; (false) stops
  // gathering and keeps it for GetProfile.
  Status EnableProfiling(bool enable);
  bool profiling_enabled() const;
  // Copies what was gathered into `out` (which the caller owns). Fails
  // with kFailedPrecondition if profiling was never enabled.
  Status GetProfile(SessionProfile* out) const;

  const Model& model() const { return *model_; }
  size_t arena_size() const;
  // For tests: where the arena lives (stable across runs).
  const void* arena_data() const;

 private:
  Session(std::shared_ptr<const Model> model, std::unique_ptr<SessionState> state);
  std::shared_ptr<const Model> model_;
  std::unique_ptr<SessionState> state_;
};

}  // namespace kiln

#endif  // KILN_RUNTIME_H_
