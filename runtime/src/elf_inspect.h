// elf_inspect.h - checks a CPU executable's ELF shared object before
// dlopen runs any of it.
//
// dlopen runs an object's constructors and resolves its dependencies
// before the caller sees a handle, so everything the runtime refuses must
// be found by reading the bytes: dependencies (DT_NEEDED), code that runs
// at load or unload (DT_INIT, DT_FINI, DT_INIT_ARRAY, DT_FINI_ARRAY,
// DT_PREINIT_ARRAY, and the .init_array/.fini_array/.preinit_array/.ctors/
// .dtors/.init/.fini sections), thread-local storage (PT_TLS, STT_TLS), and
// any exported symbol other than kiln_cpu_library_query. Kiln kernels need
// none of them (kernel_abi.h). Every offset and size is bounds-checked: a
// malformed object is an error, never a read outside `data`.
//
// This is a check for malformed or unexpected objects, not a sandbox: an
// artifact is trusted native code (docs/design.md, "Trust model").
#ifndef KILN_RUNTIME_SRC_ELF_INSPECT_H_
#define KILN_RUNTIME_SRC_ELF_INSPECT_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "kiln/runtime.h"

namespace kiln {

// DATA_LOSS "<what>: ..." naming the first thing refused.
Status InspectKernelObject(const uint8_t* data, size_t size, const std::string& what);

}  // namespace kiln

#endif  // KILN_RUNTIME_SRC_ELF_INSPECT_H_
