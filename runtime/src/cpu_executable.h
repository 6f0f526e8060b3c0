// cpu_executable.h - a CPU executable (ELF shared object) loaded from an
// artifact's blob, with its kernel table checked against the artifact.
#ifndef KILN_RUNTIME_SRC_CPU_EXECUTABLE_H_
#define KILN_RUNTIME_SRC_CPU_EXECUTABLE_H_

#include <memory>
#include <string>
#include <vector>

#include "kiln/kernel_abi.h"
#include "kiln/runtime.h"
#include "runtime/schema/kiln_generated.h"

namespace kiln {

class CpuExecutable {
 public:
  // `what` names the executable in messages ("executable 0"). The caller
  // has already checked the CPU features and the artifact's kernel table
  // (`expected`, parsed from it); the shared object is inspected
  // (elf_inspect.h) before dlopen, and its own table must match `expected`.
  static Status Load(const fb::Executable& executable, const std::vector<KernelInfo>& expected,
                     const std::string& what, std::unique_ptr<CpuExecutable>* out);
  ~CpuExecutable();
  CpuExecutable(const CpuExecutable&) = delete;
  CpuExecutable& operator=(const CpuExecutable&) = delete;

  const kiln_kernel_info& kernel(uint32_t index) const { return library_->kernels[index]; }

 private:
  CpuExecutable() = default;
  // The memfd stays open while the library is loaded: glibc recognizes
  // loaded objects by path, and a reused /proc/self/fd/N path would hand
  // back the wrong library.
  int memfd_ = -1;
  void* handle_ = nullptr;
  const kiln_cpu_library* library_ = nullptr;
};

}  // namespace kiln

#endif  // KILN_RUNTIME_SRC_CPU_EXECUTABLE_H_
