// The blob is loaded from an anonymous memory file, so nothing touches the
// disk and nothing is left behind if the process dies.
#include "runtime/src/cpu_executable.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/src/elf_inspect.h"

namespace kiln {

Status CpuExecutable::Load(const fb::Executable& executable,
                           const std::vector<KernelInfo>& expected, const std::string& what,
                           std::unique_ptr<CpuExecutable>* out) {
  // dlopen runs code (constructors) and loads dependencies before it
  // returns, so the object is inspected first.
  Status s = InspectKernelObject(executable.blob()->data(), executable.blob()->size(), what);
  if (!s.ok()) return s;
  std::unique_ptr<CpuExecutable> exe(new CpuExecutable());
  exe->memfd_ = ::memfd_create("kiln-executable", MFD_CLOEXEC);
  if (exe->memfd_ < 0)
    return Status(StatusCode::kInternal, what + ": memfd_create failed: " + std::strerror(errno));
  const uint8_t* blob = executable.blob()->data();
  size_t size = executable.blob()->size(), written = 0;
  while (written < size) {
    ssize_t n = ::write(exe->memfd_, blob + written, size - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return Status(StatusCode::kResourceExhausted,
                    what + ": cannot write code to memory file: " + std::strerror(errno));
    written += static_cast<size_t>(n);
  }
  std::string path = "/proc/self/fd/" + std::to_string(exe->memfd_);
  exe->handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (exe->handle_ == nullptr) {
    const char* err = ::dlerror();
    return Status(StatusCode::kDataLoss,
                  what + ": cannot load its shared object: " + (err ? err : "unknown error"));
  }
  auto query = reinterpret_cast<kiln_cpu_library_query_fn>(
      ::dlsym(exe->handle_, KILN_CPU_LIBRARY_QUERY_SYMBOL));
  if (query == nullptr)
    return Status(StatusCode::kDataLoss,
                  what + ": shared object does not export " KILN_CPU_LIBRARY_QUERY_SYMBOL);
  exe->library_ = query(KILN_CPU_ABI_VERSION);
  if (exe->library_ == nullptr || exe->library_->abi_version != KILN_CPU_ABI_VERSION)
    return Status(StatusCode::kUnimplemented,
                  what + ": library does not speak kernel ABI version " +
                      std::to_string(KILN_CPU_ABI_VERSION));

  const kiln_cpu_library& lib = *exe->library_;
  if (lib.kernel_count != expected.size() || (lib.kernel_count > 0 && lib.kernels == nullptr))
    return Status(StatusCode::kDataLoss,
                  what + ": artifact lists " + std::to_string(expected.size()) +
                      " kernels, library has " + std::to_string(lib.kernel_count));
  for (uint32_t i = 0; i < lib.kernel_count; ++i) {
    const kiln_kernel_info& got = lib.kernels[i];
    const KernelInfo& want = expected[i];
    std::string got_name = got.name ? got.name : "";
    if (got_name != want.name || got.function == nullptr ||
        got.binding_count != want.binding_count ||
        got.push_constant_count != want.push_constant_count)
      return Status(StatusCode::kDataLoss,
                    what + ": kernel " + std::to_string(i) + " mismatch: artifact expects '" +
                        want.name + "' with " + std::to_string(want.binding_count) +
                        " bindings and " + std::to_string(want.push_constant_count) +
                        " push constants, library has '" + got_name + "' with " +
                        std::to_string(got.binding_count) + " bindings and " +
                        std::to_string(got.push_constant_count) + " push constants" +
                        (got.function ? "" : " and no function"));
    // The plan was checked against the artifact's table; the code must
    // have been compiled for the same bindings and grid.
    std::string where = what + ": kernel " + std::to_string(i) + " '" + want.name + "'";
    if (want.binding_count > 0 && got.bindings == nullptr)
      return Status(StatusCode::kDataLoss, where + ": library describes no bindings");
    for (uint32_t b = 0; b < want.binding_count; ++b)
      if (got.bindings[b].size != want.bindings[b].size ||
          got.bindings[b].access != static_cast<uint32_t>(want.bindings[b].access))
        return Status(StatusCode::kDataLoss,
                      where + " binding " + std::to_string(b) + ": artifact expects " +
                          std::to_string(want.bindings[b].size) + " bytes, access " +
                          std::to_string(static_cast<int>(want.bindings[b].access)) +
                          "; library has " + std::to_string(got.bindings[b].size) +
                          " bytes, access " + std::to_string(got.bindings[b].access));
    if (std::memcmp(got.workgroup_count, want.workgroups, sizeof want.workgroups) != 0)
      return Status(StatusCode::kDataLoss,
                    where + ": artifact expects " + std::to_string(want.workgroups[0]) + "x" +
                        std::to_string(want.workgroups[1]) + "x" +
                        std::to_string(want.workgroups[2]) + " workgroups, library has " +
                        std::to_string(got.workgroup_count[0]) + "x" +
                        std::to_string(got.workgroup_count[1]) + "x" +
                        std::to_string(got.workgroup_count[2]));
  }
  *out = std::move(exe);
  return Status::Ok();
}

CpuExecutable::~CpuExecutable() {
  if (handle_ != nullptr) ::dlclose(handle_);
  if (memfd_ >= 0) ::close(memfd_);
}

}  // namespace kiln
