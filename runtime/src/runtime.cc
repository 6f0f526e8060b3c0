// Runtime (thread pool + loading) and Model (a loaded artifact).
#include <thread>

#include "kiln/runtime.h"
#include "runtime/src/custom_op_registry.h"
#include "runtime/src/guard_exceptions.h"
#include "runtime/src/loaded_artifact.h"
#include "runtime/src/thread_pool.h"

namespace kiln {

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

static Status MakeModel(std::unique_ptr<FileBytes> bytes, std::shared_ptr<ThreadPool> pool,
                        const CustomOpRegistry& custom_ops, std::shared_ptr<const Model>* out) {
  std::unique_ptr<LoadedArtifact> artifact;
  Status s = LoadedArtifact::Open(std::move(bytes), /*load_code=*/true, &artifact);
  if (!s.ok()) return s;
  s = artifact->ResolveCustomOps(custom_ops);
  if (!s.ok()) return s;
  *out = std::make_shared<const Model>(std::move(artifact), std::move(pool));
  return Status::Ok();
}

Status Runtime::LoadModel(const std::string& path, std::shared_ptr<const Model>* out) const {
  return GuardExceptions([&]() -> Status {
    if (out == nullptr) return Status(StatusCode::kInvalidArgument, "out is null");
    std::unique_ptr<FileBytes> bytes;
    Status s = FileBytes::Map(path, &bytes);
    if (!s.ok()) return s;
    s = MakeModel(std::move(bytes), pool_, *custom_ops_, out);
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
    return MakeModel(std::move(bytes), pool_, *custom_ops_, out);
  });
}

Status DescribeModelFile(const std::string& path, ModelDescription* out) {
  return GuardExceptions([&]() -> Status {
    if (out == nullptr) return Status(StatusCode::kInvalidArgument, "out is null");
    std::unique_ptr<FileBytes> bytes;
    Status s = FileBytes::Map(path, &bytes);
    if (!s.ok()) return s;
    std::unique_ptr<LoadedArtifact> artifact;
    s = LoadedArtifact::Open(std::move(bytes), /*load_code=*/false, &artifact);
    if (!s.ok()) return Status(s.code(), path + ": " + s.message());
    *out = artifact->description();
    return Status::Ok();
  });
}

Model::Model(std::unique_ptr<LoadedArtifact> artifact, std::shared_ptr<ThreadPool> pool)
    : artifact_(std::move(artifact)), pool_(std::move(pool)) {}
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
