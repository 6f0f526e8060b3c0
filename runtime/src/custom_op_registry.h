// custom_op_registry.h - the external custom-op kernels a Runtime knows
// (Runtime::RegisterCustomOp / RegisterCustomOpLibrary), resolved by name
// when a model is loaded.
#ifndef KILN_RUNTIME_SRC_CUSTOM_OP_REGISTRY_H_
#define KILN_RUNTIME_SRC_CUSTOM_OP_REGISTRY_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kiln/custom_op.h"
#include "kiln/runtime.h"

namespace kiln {

// One registered kernel. `library` keeps the shared object it came from
// loaded (null for kernels registered by function pointer); models hold
// copies, so a library stays loaded while any model that uses it lives.
struct CustomKernel {
  kiln_custom_kernel_fn fn = nullptr;
  void* user_data = nullptr;
  std::shared_ptr<void> library;
  std::string origin;  // "registered by function pointer" or the library's path
};

// Thread-safe: registration and lookup may happen from any threads.
class CustomOpRegistry {
 public:
  // Fails (INVALID_ARGUMENT) on an empty name, a null kernel or a name
  // that is already registered.
  Status Register(const std::string& name, kiln_custom_kernel_fn fn, void* user_data);
  // dlopens `path`, queries its table for KILN_CUSTOM_OP_ABI_VERSION and
  // registers every entry, or none when any entry is invalid or taken.
  Status RegisterLibrary(const std::string& path);
  // False when `name` is not registered.
  bool Find(const std::string& name, CustomKernel* out) const;
  std::vector<std::string> Names() const;

 private:
  Status CheckNew(const std::string& name, kiln_custom_kernel_fn fn) const;
  mutable std::mutex mutex_;
  std::map<std::string, CustomKernel> kernels_;
};

}  // namespace kiln

#endif  // KILN_RUNTIME_SRC_CUSTOM_OP_REGISTRY_H_
