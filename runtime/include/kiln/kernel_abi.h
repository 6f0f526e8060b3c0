/* kernel_abi.h - what generated CPU kernels and the Kiln runtime agree on.
 *
 * A CPU executable is an ELF shared object that exports exactly one C symbol,
 * `kiln_cpu_library_query`, and has no dependencies (DT_NEEDED), no code
 * that runs at load or unload (init/fini arrays, DT_INIT/DT_FINI) and no TLS;
 * the runtime inspects the bytes and refuses anything else before dlopen.
 * Undefined symbols (memcpy, fmodf) resolve against the process's C library.
 * The runtime loads the object, calls the query with the ABI version it
 * speaks, and gets back a constant table of kernels.
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

/* 2: the kernel table describes each binding (size, access) and the
 * workgroup grid, and kernels check what they are given. */
#define KILN_CPU_ABI_VERSION 2u

/* Per-dispatch state, built by the runtime, read-only for kernels.
 * Layout (x86-64): offset 0 bindings, 8 binding_sizes, 16 push_constants,
 * 24 workgroup_count[3], 36 binding_count, 40 push_constant_count. 48 bytes. */
typedef struct kiln_dispatch_state {
  /* bindings[i] is the base address of binding i, in the kernel's order. */
  void* const* bindings;
  /* Byte length of each binding; generated kernels check them against the
   * sizes they were compiled for. */
  const uint64_t* binding_sizes;
  /* Push constants (dynamic dims later); may be null when the count is 0. */
  const uint32_t* push_constants;
  uint32_t workgroup_count[3];
  uint32_t binding_count;
  uint32_t push_constant_count;
} kiln_dispatch_state;

/* Returns 0 on success; non-zero is reported by the runtime as an internal
 * error naming the kernel. Generated kernels check, once per call and before
 * touching any binding, that the state matches their table entry and return
 * one of these when it does not. */
#define KILN_KERNEL_BAD_BINDING_COUNT 1     /* binding or push-constant count */
#define KILN_KERNEL_BAD_BINDING_SIZE 2      /* a binding_sizes[i] differs */
#define KILN_KERNEL_BAD_WORKGROUP_COUNT 3   /* workgroup_count differs */
#define KILN_KERNEL_BAD_WORKGROUP_ID 4      /* a workgroup id >= its count */
typedef int32_t (*kiln_kernel_fn)(const kiln_dispatch_state* state,
                                  uint32_t workgroup_x, uint32_t workgroup_y,
                                  uint32_t workgroup_z);

/* What a kernel does with a binding (as kiln.fbs BindingAccess). */
#define KILN_BINDING_READ 0u
#define KILN_BINDING_WRITE 1u
#define KILN_BINDING_READ_WRITE 2u

/* One binding as the kernel was compiled for it. 16 bytes. */
typedef struct kiln_binding_info {
  uint64_t size;    /* exact byte length */
  uint32_t access;  /* KILN_BINDING_* */
  uint32_t reserved;
} kiln_binding_info;

/* Layout (x86-64): offset 0 name, 8 function, 16 binding_count,
 * 20 push_constant_count, 24 bindings, 32 workgroup_count[3], 44 reserved.
 * 48 bytes. The runtime checks it against the artifact's kernel table. */
typedef struct kiln_kernel_info {
  const char* name;
  kiln_kernel_fn function;
  uint32_t binding_count;
  uint32_t push_constant_count;
  const kiln_binding_info* bindings;  /* binding_count entries */
  uint32_t workgroup_count[3];        /* the grid it was compiled for */
  uint32_t reserved;
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
