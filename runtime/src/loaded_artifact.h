// loaded_artifact.h - a verified .kiln artifact and, when loaded for
// running, its CPU code. Immutable once built; shared by all Sessions.
#ifndef KILN_RUNTIME_SRC_LOADED_ARTIFACT_H_
#define KILN_RUNTIME_SRC_LOADED_ARTIFACT_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kiln/runtime.h"
#include "runtime/schema/kiln_generated.h"
#include "runtime/src/cpu_executable.h"
#include "runtime/src/custom_op_registry.h"
#include "runtime/src/file_bytes.h"

namespace kiln {

// A CustomCall step as the kernel sees it, built once at load: tensors
// with their dtype and dims (data filled per run by the Session), the
// attributes (pointing into the FlatBuffer) and, after ResolveCustomOps,
// the kernel.
struct CustomCallInfo {
  std::string op, node;
  std::vector<kiln_custom_tensor_t> inputs, outputs;  // data == nullptr
  std::vector<kiln_custom_attr_t> attrs;
  CustomKernel kernel;
};

// Which plan Open picks, and whether it loads code for running it.
struct PlanRequest {
  // For running: refuse what cannot run, load the CPU code of a CPU plan.
  // Otherwise (describing): the x86_64 plan, else the first one.
  bool for_running = false;
  // A GPU is in use: its (cuda) plan when the artifact has one.
  bool gpu = false;
  // Device cuda:N was asked for: an artifact without a cuda plan is
  // refused (UNIMPLEMENTED, saying what to do).
  bool require_gpu = false;
  // Why there is no GPU (device auto), for the refusal of a cuda-only
  // artifact.
  std::string no_gpu_reason;
};

class LoadedArtifact {
 public:
  // Checks, in this order and before using anything: the header (magic,
  // version, sizes inside the file, alignment), the checksum, the
  // FlatBuffer verifier, then semantics (indices, binding ranges, constant
  // ranges, library-call parameters). For running a CPU plan, also the CPU
  // features and the executables' kernel tables (the GPU code is loaded by
  // CudaModel).
  static Status Open(std::unique_ptr<FileBytes> bytes, const PlanRequest& request,
                     std::unique_ptr<LoadedArtifact>* out);
  bool gpu_plan() const { return description_.plan_target == "cuda"; }
  uint64_t constants_size() const { return constants_size_; }

  const ModelDescription& description() const { return description_; }
  const fb::Model& model() const { return *model_; }
  const fb::Plan& plan() const { return *plan_; }
  const uint8_t* constants() const { return constants_; }
  const fb::Constant& constant(uint32_t index) const { return *model_->constants()->Get(index); }
  const CpuExecutable& executable(uint32_t index) const { return *executables_[index]; }
  // The plan's custom-call steps, in plan order.
  const std::vector<CustomCallInfo>& custom_calls() const { return custom_calls_; }

  // Finds a kernel for every custom call in `registry`; fails with
  // FAILED_PRECONDITION naming every op it lacks (and the nodes using it).
  Status ResolveCustomOps(const CustomOpRegistry& registry);

 private:
  LoadedArtifact() = default;
  Status CheckSemantics(const PlanRequest& request);
  Status CheckLibraryCall(
      const fb::Step& step, const std::string& where,
      const std::function<Status(const fb::Binding*, const std::string&)>& check_binding,
      StepInfo* info);
  Status DescribeGpu(const fb::Executable& e, const std::string& where, ExecutableInfo* info);
  Status CheckCustomCall(
      const fb::Step& step, const std::string& where,
      const std::function<Status(const fb::Binding*, const std::string&)>& check_binding,
      StepInfo* info);
  Status LoadCode();

  std::unique_ptr<FileBytes> bytes_;
  const fb::Model* model_ = nullptr;
  const fb::Plan* plan_ = nullptr;
  const uint8_t* constants_ = nullptr;
  uint64_t constants_size_ = 0;
  ModelDescription description_;
  // Indexed like the model's executables; null for other targets.
  std::vector<std::unique_ptr<CpuExecutable>> executables_;
  std::vector<CustomCallInfo> custom_calls_;
};

}  // namespace kiln

#endif  // KILN_RUNTIME_SRC_LOADED_ARTIFACT_H_
