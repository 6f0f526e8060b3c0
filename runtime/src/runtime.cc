// Runtime (thread pool + loading) and Model (a loaded artifact).
#include <thread>

#include "kiln/runtime.h"
#include "runtime/src/cuda/cuda_device.h"
#include "runtime/src/cuda/cuda_model.h"
#include "runtime/src/custom_op_registry.h"
#include "runtime/src/guard_exceptions.h"
#include "runtime/src/loaded_artifact.h"
#include "runtime/src/thread_pool.h"

namespace kiln {

Status Device::Parse(const std::string& text, Device* out) {
  Device d;
  if (text == "auto") {
    d.kind = Kind::kAuto;
  } else if (text == "cpu") {
    d.kind = Kind::kCpu;
  } else if (text == "cuda") {
    d.kind = Kind::kCuda;
  } else if (text.rfind("cuda:", 0) == 0 && text.size() > 5 && text.size() <= 8 &&
             text.find_first_not_of("0123456789", 5) == std::string::npos) {
    d.kind = Kind::kCuda;
    d.index = std::stoi(text.substr(5));
  } else {
    return Status(StatusCode::kInvalidArgument,
                  "unknown device '" + text + "' (expected auto, cpu, cuda or cuda:N)");
  }
  *out = d;
  return Status::Ok();
}

std::string Device::ToString() const {
  switch (kind) {
    case Kind::kAuto: return "auto";
    case Kind::kCpu: return "cpu";
    case Kind::kCuda: return "cuda:" + std::to_string(index);
  }
  return "unknown";
}

Status Runtime::Create(const RuntimeOptions& options, std::shared_ptr<Runtime>* out) {
  return GuardExceptions([&]() -> Status {
    if (out == nullptr) return Status(StatusCode::kInvalidArgument, "out is null");
    if (options.num_threads < 0 || options.num_threads > 1024)
      return Status(StatusCode::kInvalidArgument,
                    "num_threads must be in [0, 1024] (0 = all cores), got " +
                        std::to_string(options.num_threads));
    int threads = options.num_threads;
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    std::shared_ptr<Runtime> runtime(new Runtime());
    runtime->device_ = options.device;
    switch (options.device.kind) {
      case Device::Kind::kCpu:
        runtime->no_gpu_reason_ = "the runtime was created for device cpu";
        break;
      case Device::Kind::kCuda: {
        if (options.device.index < 0)
          return Status(StatusCode::kInvalidArgument,
                        "device cuda:" + std::to_string(options.device.index) + " is not a device");
        Status s = CudaDevice::Open(options.device.index, &runtime->gpu_);
        if (!s.ok()) return Status(s.code(), "device " + options.device.ToString() + ": " + s.message());
        break;
      }
      case Device::Kind::kAuto: {
        // No GPU is not an error here: the CPU plan runs. The reason is
        // kept for the refusal of an artifact that has only a cuda plan.
        // Device errors say what is wrong, then "; " and what to do; the
        // refusal quotes only the cause and gives its own advice (said
        // once, not twice).
        Status s = CudaDevice::Open(0, &runtime->gpu_);
        if (!s.ok()) runtime->no_gpu_reason_ = s.message().substr(0, s.message().find("; "));
        break;
      }
    }
    runtime->pool_ = std::make_shared<ThreadPool>(threads);
    runtime->custom_ops_ = std::make_shared<CustomOpRegistry>();
    *out = std::move(runtime);
    return Status::Ok();
  });
}

Runtime::~Runtime() = default;

int Runtime::num_threads() const { return pool_->num_threads(); }

Status Runtime::RegisterCustomOp(const std::string& name, kiln_custom_kernel_fn kernel,
                                 void* user_data) {
  return GuardExceptions([&]() -> Status { return custom_ops_->Register(name, kernel, user_data); });
}

Status Runtime::RegisterCustomOpLibrary(const std::string& path) {
  return GuardExceptions([&]() -> Status { return custom_ops_->RegisterLibrary(path); });
}

std::vector<std::string> Runtime::custom_op_names() const { return custom_ops_->Names(); }

std::string Runtime::gpu() const { return gpu_ ? gpu_->Describe() : std::string(); }

Status Runtime::MakeModel(std::unique_ptr<FileBytes> bytes, std::shared_ptr<const Model>* out) const {
  PlanRequest request;
  request.for_running = true;
  request.gpu = gpu_ != nullptr;
  request.require_gpu = device_.kind == Device::Kind::kCuda;
  request.no_gpu_reason = no_gpu_reason_;
  std::unique_ptr<LoadedArtifact> artifact;
  Status s = LoadedArtifact::Open(std::move(bytes), request, &artifact);
  if (!s.ok()) return s;
  s = artifact->ResolveCustomOps(*custom_ops_);
  if (!s.ok()) return s;
  std::unique_ptr<CudaModel> cuda;
  if (artifact->gpu_plan()) {
    s = CudaModel::Load(gpu_, *artifact, &cuda);
    if (!s.ok()) return s;
  }
  *out = std::make_shared<const Model>(std::move(artifact), pool_, std::move(cuda));
  return Status::Ok();
}

Status Runtime::LoadModel(const std::string& path, std::shared_ptr<const Model>* out) const {
  return GuardExceptions([&]() -> Status {
    if (out == nullptr) return Status(StatusCode::kInvalidArgument, "out is null");
    std::unique_ptr<FileBytes> bytes;
    Status s = FileBytes::Map(path, &bytes);
    if (!s.ok()) return s;
    s = MakeModel(std::move(bytes), out);
    if (!s.ok()) return Status(s.code(), path + ": " + s.message());
    return s;
  });
}

Status Runtime::LoadModelFromMemory(const void* data, size_t size,
                                    std::shared_ptr<const Model>* out) const {
  return GuardExceptions([&]() -> Status {
    if (out == nullptr) return Status(StatusCode::kInvalidArgument, "out is null");
    std::unique_ptr<FileBytes> bytes;
    Status s = FileBytes::Copy(data, size, &bytes);
    if (!s.ok()) return s;
    return MakeModel(std::move(bytes), out);
  });
}

Status DescribeModelFile(const std::string& path, ModelDescription* out) {
  return GuardExceptions([&]() -> Status {
    if (out == nullptr) return Status(StatusCode::kInvalidArgument, "out is null");
    std::unique_ptr<FileBytes> bytes;
    Status s = FileBytes::Map(path, &bytes);
    if (!s.ok()) return s;
    std::unique_ptr<LoadedArtifact> artifact;
    s = LoadedArtifact::Open(std::move(bytes), PlanRequest(), &artifact);
    if (!s.ok()) return Status(s.code(), path + ": " + s.message());
    *out = artifact->description();
    return Status::Ok();
  });
}

Model::Model(std::unique_ptr<LoadedArtifact> artifact, std::shared_ptr<ThreadPool> pool,
             std::unique_ptr<CudaModel> cuda)
    : artifact_(std::move(artifact)), pool_(std::move(pool)), cuda_(std::move(cuda)) {}

std::string Model::device() const {
  if (cuda_ == nullptr) return "cpu";
  std::string s = cuda_->device()->Describe();
  for (const std::string& image : cuda_->images())
    if (!image.empty()) s += ", " + image;
  return s;
}
Model::~Model() = default;

const std::vector<TensorInfo>& Model::inputs() const { return artifact_->description().inputs; }
const std::vector<TensorInfo>& Model::outputs() const { return artifact_->description().outputs; }
const ModelDescription& Model::description() const { return artifact_->description(); }

int Model::FindInput(const std::string& name) const {
  for (size_t i = 0; i < inputs().size(); ++i)
    if (inputs()[i].name == name) return static_cast<int>(i);
  return -1;
}

int Model::FindOutput(const std::string& name) const {
  for (size_t i = 0; i < outputs().size(); ++i)
    if (outputs()[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace kiln
