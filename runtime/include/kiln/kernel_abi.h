/* kernel_abi.h - what generated CPU kernels and the Kiln runtime agree on.
 *
 * A CPU executable is an ELF shared object that exports exactly one C symbol,
 * `kiln_cpu_library_query`. The runtime loads the object, calls the query with
 * the ABI version it speaks, and gets back a constant table of kernels.
 *
 * A kernel processes one workgroup of one dispatch. The runtime's thread pool
 * calls it once per workgroup id in [0, workgroup_count) on each axis, in any
 * order and concurrently; workgroups of one dispatch never write the same
 * bytes. Kernels never allocate, keep no mutable globals and no TLS: every
 * byte they touch is a binding or their own stack.
 *
 * Plain C so that both the compiler (which emits matching LLVM IR) and the
 * runtime include it; the layout is fixed for ABI version 1 on x86-64.
 */
#ifndef KILN_KERNEL_ABI_H_
#define KILN_KERNEL_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_CPU_ABI_VERSION 1u

/* Per-dispatch state, built by the runtime, read-only for kernels.
 * Layout (x86-64): offset 0 bindings, 8 binding_sizes, 16 push_constants,
 * 24 workgroup_count[3], 36 binding_count, 40 push_constant_count. 48 bytes. */
typedef struct kiln_dispatch_state {
  /* bindings[i] is the base address of binding i, in the kernel's order. */
  void* const* bindings;
  /* Byte length of each binding (for checking; kernels may ignore it). */
  const uint64_t* binding_sizes;
  /* Push constants (dynamic dims later); may be null when the count is 0. */
  const uint32_t* push_constants;
  uint32_t workgroup_count[3];
  uint32_t binding_count;
  uint32_t push_constant_count;
} kiln_dispatch_state;

/* Returns 0 on success; non-zero is reported by the runtime as an internal
 * error naming the kernel. */
typedef int32_t (*kiln_kernel_fn)(const kiln_dispatch_state* state,
                                  uint32_t workgroup_x, uint32_t workgroup_y,
                                  uint32_t workgroup_z);

typedef struct kiln_kernel_info {
  const char* name;
  kiln_kernel_fn function;
  uint32_t binding_count;
  uint32_t push_constant_count;
} kiln_kernel_info;

typedef struct kiln_cpu_library {
  uint32_t abi_version;
  uint32_t kernel_count;
  const kiln_kernel_info* kernels;
} kiln_cpu_library;

/* Exported by every CPU executable. Returns null when the library does not
 * speak `abi_version`. The table lives as long as the shared object. */
typedef const kiln_cpu_library* (*kiln_cpu_library_query_fn)(uint32_t abi_version);
#define KILN_CPU_LIBRARY_QUERY_SYMBOL "kiln_cpu_library_query"

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif /* KILN_KERNEL_ABI_H_ */
