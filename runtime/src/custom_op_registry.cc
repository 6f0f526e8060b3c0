#include "runtime/src/custom_op_registry.h"

#include <dlfcn.h>

#include <set>

namespace kiln {

Status CustomOpRegistry::CheckNew(const std::string& name, kiln_custom_kernel_fn fn) const {
  if (name.empty())
    return Status(StatusCode::kInvalidArgument, "a custom op needs a non-empty name");
  if (fn == nullptr)
    return Status(StatusCode::kInvalidArgument, "custom op '" + name + "': kernel is null");
  auto it = kernels_.find(name);
  if (it != kernels_.end())
    return Status(StatusCode::kInvalidArgument, "custom op '" + name +
                                                    "' is already registered (" +
                                                    it->second.origin + ")");
  return Status::Ok();
}

Status CustomOpRegistry::Register(const std::string& name, kiln_custom_kernel_fn fn,
                                  void* user_data) {
  std::lock_guard<std::mutex> lock(mutex_);
  Status s = CheckNew(name, fn);
  if (!s.ok()) return s;
  kernels_[name] = {fn, user_data, nullptr, "registered by function pointer"};
  return Status::Ok();
}

Status CustomOpRegistry::RegisterLibrary(const std::string& path) {
  // RTLD_LOCAL: two libraries may define the same helper symbols.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = ::dlerror();
    return Status(StatusCode::kNotFound, "cannot load custom-op library '" + path +
                                             "': " + (err ? err : "dlopen failed"));
  }
  std::shared_ptr<void> library(handle, [](void* h) { ::dlclose(h); });
  auto query = reinterpret_cast<kiln_custom_op_library_query_fn>(
      ::dlsym(handle, KILN_CUSTOM_OP_LIBRARY_QUERY_SYMBOL));
  if (query == nullptr)
    return Status(StatusCode::kInvalidArgument,
                  "custom-op library '" + path + "' does not export " +
                      KILN_CUSTOM_OP_LIBRARY_QUERY_SYMBOL);
  size_t count = 0;
  const kiln_custom_op_t* ops = query(KILN_CUSTOM_OP_ABI_VERSION, &count);
  if (ops == nullptr)
    return Status(StatusCode::kFailedPrecondition,
                  "custom-op library '" + path + "' does not support custom-op ABI version " +
                      std::to_string(KILN_CUSTOM_OP_ABI_VERSION));
  if (count == 0)
    return Status(StatusCode::kInvalidArgument,
                  "custom-op library '" + path + "' exports no custom ops");
  std::lock_guard<std::mutex> lock(mutex_);
  std::set<std::string> seen;
  for (size_t i = 0; i < count; ++i) {
    std::string name = ops[i].name ? ops[i].name : "";
    Status s = CheckNew(name, ops[i].kernel);
    if (s.ok() && !seen.insert(name).second)
      s = Status(StatusCode::kInvalidArgument, "custom op '" + name + "' appears twice");
    if (!s.ok())
      return Status(s.code(), "custom-op library '" + path + "', entry " + std::to_string(i) +
                                  ": " + s.message() + "; nothing registered from it");
  }
  for (size_t i = 0; i < count; ++i)
    kernels_[ops[i].name] = {ops[i].kernel, ops[i].user_data, library, "from '" + path + "'"};
  return Status::Ok();
}

bool CustomOpRegistry::Find(const std::string& name, CustomKernel* out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = kernels_.find(name);
  if (it == kernels_.end()) return false;
  *out = it->second;
  return true;
}

std::vector<std::string> CustomOpRegistry::Names() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> names;
  for (const auto& entry : kernels_) names.push_back(entry.first);
  return names;
}

}  // namespace kiln
