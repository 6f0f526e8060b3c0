/* test_kernels.c - a hand-written CPU executable for runtime tests, in C
 * to show the ABI needs nothing from C++. Each kernel handles 64 f32
 * elements per workgroup along x; the element count comes from the last
 * binding's size. */
#include <stdint.h>
#include <string.h>

#include "kiln/kernel_abi.h"

enum { kElementsPerWorkgroup = 64 };

static void workgroup_range(const kiln_dispatch_state* s, uint32_t wg_x,
                            uint64_t* begin, uint64_t* end) {
  uint64_t n = s->binding_sizes[s->binding_count - 1] / sizeof(float);
  *begin = (uint64_t)wg_x * kElementsPerWorkgroup;
  *end = *begin + kElementsPerWorkgroup;
  if (*end > n) *end = n;
}

/* out = a + b */
static int32_t add_kernel(const kiln_dispatch_state* s, uint32_t x, uint32_t y, uint32_t z) {
  (void)y; (void)z;
  const float* a = (const float*)s->bindings[0];
  const float* b = (const float*)s->bindings[1];
  float* out = (float*)s->bindings[2];
  uint64_t begin, end;
  workgroup_range(s, x, &begin, &end);
  for (uint64_t i = begin; i < end; ++i) out[i] = a[i] + b[i];
  return 0;
}

/* out = in * push_constants[0] (the bits of an f32) */
static int32_t scale_kernel(const kiln_dispatch_state* s, uint32_t x, uint32_t y, uint32_t z) {
  (void)y; (void)z;
  float factor;
  memcpy(&factor, &s->push_constants[0], sizeof factor);
  const float* in = (const float*)s->bindings[0];
  float* out = (float*)s->bindings[1];
  uint64_t begin, end;
  workgroup_range(s, x, &begin, &end);
  for (uint64_t i = begin; i < end; ++i) out[i] = in[i] * factor;
  return 0;
}

/* Fails on workgroup 1, to test how the runtime reports kernel errors. */
static int32_t fail_kernel(const kiln_dispatch_state* s, uint32_t x, uint32_t y, uint32_t z) {
  (void)s; (void)y; (void)z;
  return x == 1 ? 42 : 0;
}

static const kiln_kernel_info kKernels[] = {
    {"add", add_kernel, 3, 0},
    {"scale", scale_kernel, 2, 1},
    {"fail", fail_kernel, 1, 0},
};

static const kiln_cpu_library kLibrary = {KILN_CPU_ABI_VERSION, 3, kKernels};

__attribute__((visibility("default")))
const kiln_cpu_library* kiln_cpu_library_query(uint32_t abi_version) {
  return abi_version == KILN_CPU_ABI_VERSION ? &kLibrary : 0;
}
