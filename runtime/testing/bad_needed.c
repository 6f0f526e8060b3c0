/* A kernel library that depends on libm (DT_NEEDED): refused. */
#include "kiln/kernel_abi.h"
float fmodf(float, float);
__attribute__((visibility("default")))
const kiln_cpu_library* kiln_cpu_library_query(uint32_t abi_version) {
  return fmodf((float)abi_version, 2.0f) > 5.0f ? (const kiln_cpu_library*)1 : 0;
}
