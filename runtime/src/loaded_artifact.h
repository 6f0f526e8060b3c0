// loaded_artifact.h - a verified .kiln artifact and, when loaded for
// running, its CPU code. Immutable once built; shared by all Sessions.
#ifndef KILN_RUNTIME_SRC_LOADED_ARTIFACT_H_
#define KILN_RUNTIME_SRC_LOADED_ARTIFACT_H_

#include <memory>
#include <vector>

#include "kiln/runtime.h"
#include "runtime/schema/kiln_generated.h"
#include "runtime/src/cpu_executable.h"
#include "runtime/src/file_bytes.h"

namespace kiln {

class LoadedArtifact {
 public:
  // Checks, in this order and before using anything: the header (magic,
  // version, sizes inside the file, alignment), the checksum, the
  // FlatBuffer verifier, then semantics (indices, binding ranges, constant
  // ranges). With `load_code`, also the CPU features and the executables'
  // kernel tables.
  static Status Open(std::unique_ptr<FileBytes> bytes, bool load_code,
                     std::unique_ptr<LoadedArtifact>* out);

  const ModelDescription& description() const { return description_; }
  const fb::Model& model() const { return *model_; }
  const fb::Plan& plan() const { return *plan_; }
  const uint8_t* constants() const { return constants_; }
  const fb::Constant& constant(uint32_t index) const { return *model_->constants()->Get(index); }
  const CpuExecutable& executable(uint32_t index) const { return *executables_[index]; }

 private:
  LoadedArtifact() = default;
  Status CheckSemantics();
  Status LoadCode();

  std::unique_ptr<FileBytes> bytes_;
  const fb::Model* model_ = nullptr;
  const fb::Plan* plan_ = nullptr;
  const uint8_t* constants_ = nullptr;
  uint64_t constants_size_ = 0;
  ModelDescription description_;
  // Indexed like the model's executables; null for other targets.
  std::vector<std::unique_ptr<CpuExecutable>> executables_;
};

}  // namespace kiln

#endif  // KILN_RUNTIME_SRC_LOADED_ARTIFACT_H_
