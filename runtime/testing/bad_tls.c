/* A kernel library with thread-local storage (PT_TLS): refused. */
#include "kiln/kernel_abi.h"
static __thread int calls;
__attribute__((visibility("default")))
const kiln_cpu_library* kiln_cpu_library_query(uint32_t abi_version) {
  ++calls;
  return calls > (int)abi_version ? (const kiln_cpu_library*)0 : (const kiln_cpu_library*)0;
}
