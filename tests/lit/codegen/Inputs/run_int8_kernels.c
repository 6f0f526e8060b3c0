/* Runs int8 contraction kernels that kiln-opt --kiln-cpu-codegen generated
 * (linked into a shared object) through the kernel ABI and checks every
 * output element against an exact integer matmul computed here.
 *
 *   run_int8_kernels [--repeat R] KERNELS.so NAME:LAYOUT:M:K:N ...
 *
 * LAYOUT says how the dispatch takes B (compiler/targets/cpu/DataTiling.h):
 *   plain  A[M][K], B[K][N]                      -> C[M][N] (i32)
 *   pair   A[M][K], B packed [ceil(K/2)][N][2]   -> C
 *   quad   A[M][K], B packed [ceil(K/4)][N][4], -128 * colsum(B) [N] -> C
 *   squad  A[M][K], B packed [ceil(K/4)][N][4]                -> C
 *          (AVX2 pmaddubsw: B holds no -128)
 *   npanel A[M][K], B[K][N]                     -> C
 *          (AVX2 pmaddubsw panels: A holds no -128)
 *   tquad  A[M][K], B packed in AMX tile panels
 *          [ceil(N/16)][ceil(K/4)][16][4] (zero past K and N) -> C
 *          (AMX tdpbssd: signed A and B, any bytes; the process asks
 *          Linux for the tile state first, as the runtime does)
 * Packing here follows the documented layout (K zero-padded); the packer
 * itself is checked by FileCheck on its constants. A and B are
 * pseudo-random bytes that include -128 and 127, so the u8 flip and the
 * widest products are exercised. For squad and npanel, three of four
 * bytes are extremes instead (-128 or 127 in the operand that may hold
 * -128, -127 or 127 in the other), and the first row of A and column of
 * B are all extremes of one sign: the i16 pair sums of vpmaddubsw then
 * reach 2 * 128 * 127 = 32512 in both signs, next to saturation. Prints "NAME: ok" or the first
 * mismatches, and exits non-zero on any failure. With --repeat R it then
 * runs each kernel R more times on one thread and prints its speed (a
 * figure for design.md, not a test). */
#include "kiln/kernel_abi.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

static long repeat = 0;

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint32_t state = 12345u;
static int8_t next_byte(void) {
  state = state * 1664525u + 1013904223u;
  return (int8_t)(state >> 24);
}

static int run(const kiln_cpu_library* table, const char* spec) {
  char name[128], layout[16];
  long m, k, n;
  if (sscanf(spec, "%127[^:]:%15[^:]:%ld:%ld:%ld", name, layout, &m, &k, &n) !=
      5) {
    fprintf(stderr, "bad kernel spec '%s'\n", spec);
    return 1;
  }
  const kiln_kernel_info* kernel = NULL;
  for (uint32_t i = 0; i < table->kernel_count; ++i)
    if (strcmp(table->kernels[i].name, name) == 0) kernel = &table->kernels[i];
  if (!kernel) {
    fprintf(stderr, "%s: no such kernel\n", name);
    return 1;
  }
  int tile_quads = strcmp(layout, "tquad") == 0;
  int signed_quads = strcmp(layout, "squad") == 0 || tile_quads;
  int narrow_a = strcmp(layout, "npanel") == 0;
  int group = strcmp(layout, "quad") == 0 || signed_quads ? 4
              : strcmp(layout, "pair") == 0                ? 2
                                                           : 1;
  long groups = (k + group - 1) / group;
  long panels = (n + 15) / 16;
  long packed_size = tile_quads ? panels * groups * 16 * 4 : groups * n * group;
  int8_t* a = malloc(m * k);
  int8_t* b = malloc(k * n);
  int8_t* packed = calloc(packed_size, 1);
  int32_t* correction = calloc(n, sizeof(int32_t));
  int32_t* c = malloc(m * n * sizeof(int32_t));
  int32_t* expected = calloc(m * n, sizeof(int32_t));
  for (long i = 0; i < m * k; ++i) a[i] = next_byte();
  for (long i = 0; i < k * n; ++i) b[i] = next_byte();
  if ((signed_quads && !tile_quads) || narrow_a) {
    /* The wide operand may hold -128, the narrow one (B for squad, A for
     * npanel) never does. */
    int8_t* wide = narrow_a ? b : a;
    int8_t* narrow = narrow_a ? a : b;
    long wide_count = narrow_a ? k * n : m * k;
    long narrow_count = narrow_a ? m * k : k * n;
    for (long i = 0; i < wide_count; ++i)
      if (wide[i] & 3) wide[i] = (wide[i] & 4) ? 127 : -128;
    for (long i = 0; i < narrow_count; ++i) {
      if (narrow[i] & 3) narrow[i] = (narrow[i] & 4) ? 127 : -127;
      if (narrow[i] == -128) narrow[i] = -127;
    }
    /* Row 0 of A: -128 (or -127); column 0 of B: -127 (or -128): every
     * pair in C[0][0] is 2 * 128 * 127; row 1 of A at 127 against column
     * 0 gives the negative extreme. */
    for (long p = 0; p < k; ++p) {
      a[p] = narrow_a ? -127 : -128;
      b[p * n] = narrow_a ? -128 : -127;
      if (m > 1) a[k + p] = 127;
    }
  } else {
    a[0] = -128;
    b[0] = -128;
    if (m * k > 1) a[1] = 127;
    if (k > 1) b[n] = 127;
  }
  for (long i = 0; i < m; ++i)
    for (long j = 0; j < n; ++j)
      for (long p = 0; p < k; ++p)
        expected[i * n + j] += (int32_t)a[i * k + p] * (int32_t)b[p * n + j];
  for (long p = 0; p < k; ++p)
    for (long j = 0; j < n; ++j) {
      if (tile_quads)
        packed[(((j / 16) * groups + p / 4) * 16 + j % 16) * 4 + p % 4] = b[p * n + j];
      else
        packed[((p / group) * n + j) * group + p % group] = b[p * n + j];
      correction[j] -= 128 * b[p * n + j];
    }
  memset(c, 0x5a, m * n * sizeof(int32_t)); /* every element must be written */
  void* bindings[4];
  uint64_t sizes[4];
  uint32_t count = 0;
  bindings[count] = a, sizes[count++] = m * k;
  if (group == 1)
    bindings[count] = b, sizes[count++] = k * n;
  else
    bindings[count] = packed, sizes[count++] = packed_size;
  if (group == 4 && !signed_quads)
    bindings[count] = correction, sizes[count++] = n * 4;
  bindings[count] = c, sizes[count++] = m * n * 4;
  if (count != kernel->binding_count) {
    fprintf(stderr, "%s: layout %s has %u bindings, the kernel %u\n", name,
            layout, count, kernel->binding_count);
    return 1;
  }
  kiln_dispatch_state s;
  s.bindings = bindings;
  s.binding_sizes = sizes;
  s.push_constants = NULL;
  memcpy(s.workgroup_count, kernel->workgroup_count, sizeof(s.workgroup_count));
  s.binding_count = count;
  s.push_constant_count = 0;
  double start = 0;
  for (long r = 0; r <= repeat; ++r) {
    if (r == 1) start = now_seconds();
    for (uint32_t z = 0; z < s.workgroup_count[2]; ++z)
      for (uint32_t y = 0; y < s.workgroup_count[1]; ++y)
        for (uint32_t x = 0; x < s.workgroup_count[0]; ++x) {
          int32_t status = kernel->function(&s, x, y, z);
          if (status != 0) {
            fprintf(stderr, "%s: kernel returned %d\n", name, status);
            return 1;
          }
        }
  }
  if (repeat > 0) {
    double seconds = (now_seconds() - start) / repeat;
    printf("%s: %.3f ms per run, %.1f GOPS (1 thread)\n", name,
           seconds * 1e3, 2.0 * m * n * k / seconds * 1e-9);
  }
  long bad = 0;
  for (long i = 0; i < m * n; ++i)
    if (c[i] != expected[i] && bad++ < 5)
      printf("%s: C[%ld][%ld] = %d, expected %d\n", name, i / n, i % n, c[i],
             expected[i]);
  if (bad == 0) printf("%s: ok (%ldx%ldx%ld %s)\n", name, m, k, n, layout);
  free(a), free(b), free(packed), free(correction), free(c), free(expected);
  return bad != 0;
}

int main(int argc, char** argv) {
  int first = 1;
  if (argc > 2 && strcmp(argv[1], "--repeat") == 0) {
    repeat = atol(argv[2]);
    first = 3;
  }
  if (argc < first + 2) {
    fprintf(stderr, "usage: %s [--repeat R] KERNELS.so NAME:LAYOUT:M:K:N ...\n",
            argv[0]);
    return 2;
  }
#if defined(__linux__)
  /* ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA: AMX kernels fault without
   * it; harmless (an error return) on CPUs without AMX. */
  syscall(SYS_arch_prctl, 0x1023, 18);
#endif
  void* library = dlopen(argv[first], RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  kiln_cpu_library_query_fn query = (kiln_cpu_library_query_fn)dlsym(
      library, KILN_CPU_LIBRARY_QUERY_SYMBOL);
  const kiln_cpu_library* table = query ? query(KILN_CPU_ABI_VERSION) : NULL;
  if (!table) {
    fprintf(stderr, "no kernel table\n");
    return 1;
  }
  int failures = 0;
  for (int i = first + 1; i < argc; ++i) failures += run(table, argv[i]);
  return failures != 0;
}
