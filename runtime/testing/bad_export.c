/* A kernel library exporting a symbol besides the query: refused. */
#include "kiln/kernel_abi.h"
__attribute__((visibility("default"))) int extra_symbol(int x) { return x + 1; }
__attribute__((visibility("default")))
const kiln_cpu_library* kiln_cpu_library_query(uint32_t abi_version) {
  (void)abi_version;
  return 0;
}
