/* test_kernels.c - a hand-written CPU executable for runtime tests, in C
 * to show the ABI needs nothing from C++. Like generated kernels, each
 * checks the dispatch state against its table entry before touching a
 * binding, and the object is linked without libraries (-nostdlib) and
 * exports only kiln_cpu_library_query (-fvisibility=hidden). Each kernel
 * handles 64 f32 elements per workgroup along x, over the 4x100 tensors of
 * runtime/testing/test_artifacts.h. */
#include <stdint.h>

#include "kiln/kernel_abi.h"

enum { kElementsPerWorkgroup = 64, kElements = 400, kBytes = kElements * 4 };
#define kWorkgroups ((kElements + kElementsPerWorkgroup - 1) / kElementsPerWorkgroup)

static const kiln_binding_info kAddBindings[] = {
    {kBytes, KILN_BINDING_READ, 0}, {kBytes, KILN_BINDING_READ, 0}, {kBytes, KILN_BINDING_WRITE, 0}};
static const kiln_binding_info kScaleBindings[] = {
    {kBytes, KILN_BINDING_READ, 0}, {kBytes, KILN_BINDING_WRITE, 0}};
static const kiln_binding_info kFailBindings[] = {{64, KILN_BINDING_READ, 0}};

/* What the compiler's wrapper checks (KernelCodegen.cpp, emitAbi). */
static int32_t check_state(const kiln_dispatch_state* s, uint32_t binding_count,
                           uint32_t push_constant_count, const kiln_binding_info* bindings,
                           uint32_t x, uint32_t y, uint32_t z) {
  if (s->binding_count != binding_count || s->push_constant_count != push_constant_count)
    return KILN_KERNEL_BAD_BINDING_COUNT;
  for (uint32_t i = 0; i < binding_count; ++i)
    if (s->binding_sizes[i] != bindings[i].size) return KILN_KERNEL_BAD_BINDING_SIZE;
  if (s->workgroup_count[0] != kWorkgroups || s->workgroup_count[1] != 1 ||
      s->workgroup_count[2] != 1)
    return KILN_KERNEL_BAD_WORKGROUP_COUNT;
  if (x >= s->workgroup_count[0] || y >= s->workgroup_count[1] || z >= s->workgroup_count[2])
    return KILN_KERNEL_BAD_WORKGROUP_ID;
  return 0;
}

static void workgroup_range(uint32_t wg_x, uint64_t* begin, uint64_t* end) {
  *begin = (uint64_t)wg_x * kElementsPerWorkgroup;
  *end = *begin + kElementsPerWorkgroup;
  if (*end > kElements) *end = kElements;
}

/* out = a + b */
static int32_t add_kernel(const kiln_dispatch_state* s, uint32_t x, uint32_t y, uint32_t z) {
  int32_t rc = check_state(s, 3, 0, kAddBindings, x, y, z);
  if (rc != 0) return rc;
  const float* a = (const float*)s->bindings[0];
  const float* b = (const float*)s->bindings[1];
  float* out = (float*)s->bindings[2];
  uint64_t begin, end;
  workgroup_range(x, &begin, &end);
  for (uint64_t i = begin; i < end; ++i) out[i] = a[i] + b[i];
  return 0;
}

/* out = in * push_constants[0] (the bits of an f32) */
static int32_t scale_kernel(const kiln_dispatch_state* s, uint32_t x, uint32_t y, uint32_t z) {
  int32_t rc = check_state(s, 2, 1, kScaleBindings, x, y, z);
  if (rc != 0) return rc;
  float factor;
  __builtin_memcpy(&factor, &s->push_constants[0], sizeof factor);
  const float* in = (const float*)s->bindings[0];
  float* out = (float*)s->bindings[1];
  uint64_t begin, end;
  workgroup_range(x, &begin, &end);
  for (uint64_t i = begin; i < end; ++i) out[i] = in[i] * factor;
  return 0;
}

/* Fails on workgroup 1, to test how the runtime reports kernel errors. */
static int32_t fail_kernel(const kiln_dispatch_state* s, uint32_t x, uint32_t y, uint32_t z) {
  int32_t rc = check_state(s, 1, 0, kFailBindings, x, y, z);
  if (rc != 0) return rc;
  return x == 1 ? 42 : 0;
}

static const kiln_kernel_info kKernels[] = {
    {"add", add_kernel, 3, 0, kAddBindings, {kWorkgroups, 1, 1}, 0},
    {"scale", scale_kernel, 2, 1, kScaleBindings, {kWorkgroups, 1, 1}, 0},
    {"fail", fail_kernel, 1, 0, kFailBindings, {kWorkgroups, 1, 1}, 0},
};

static const kiln_cpu_library kLibrary = {KILN_CPU_ABI_VERSION, 3, kKernels};

__attribute__((visibility("default")))
const kiln_cpu_library* kiln_cpu_library_query(uint32_t abi_version) {
  return abi_version == KILN_CPU_ABI_VERSION ? &kLibrary : 0;
}
