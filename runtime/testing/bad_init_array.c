/* A kernel library with a constructor (.init_array, DT_INIT_ARRAY): dlopen
 * would run it before anyone could look. Refused. */
#include "kiln/kernel_abi.h"
static volatile int initialized;
__attribute__((constructor)) static void on_load(void) { initialized = 1; }
__attribute__((visibility("default")))
const kiln_cpu_library* kiln_cpu_library_query(uint32_t abi_version) {
  (void)abi_version;
  return initialized ? (const kiln_cpu_library*)0 : (const kiln_cpu_library*)0;
}
