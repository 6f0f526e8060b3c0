/* swish_kernel_library.c - makes libswish_kernels.so a custom-op library:
 * `kiln run --custom-op-library libswish_kernels.so` and
 * Runtime::RegisterCustomOpLibrary find the kernel through this table. */
#include "examples/custom_op/swish_kernel.h"

// doc-region: library
static const kiln_custom_op_t kSwishOps[] = {
    {"com.example.Swish", SwishKernel, NULL},
};

__attribute__((visibility("default"))) const kiln_custom_op_t* kiln_custom_op_library_query(
    uint32_t abi_version, size_t* out_count) {
  if (abi_version != KILN_CUSTOM_OP_ABI_VERSION) return NULL;
  *out_count = sizeof kSwishOps / sizeof kSwishOps[0];
  return kSwishOps;
}
// doc-end: library
