/* Throughput of the AVX2 instruction sequences an int8 dot product can be
 * built from, against the f32 FMA, on the machine at hand (printed, never
 * a test). Each loop issues independent chains (no instruction waits for
 * another's result beyond its own unit), so the figures are what the
 * execution ports sustain:
 *
 *   fma          vfmadd231ps: 8 multiply-adds (f32)
 *   exact quad   vpsignb + vpmaddubsw + vpmaddwd(ones) + vpaddd: 32 exact
 *                s8 x s8 multiply-adds (Kiln's "pmaddubsw" path: |a| and
 *                b * sign(a) never saturate the i16 pair sums)
 *   pair         vpmaddwd + vpaddd: 16 i16 multiply-adds (the "pmaddwd"
 *                path, operands widened to i16 first)
 *   u8 quad      vpmaddubsw + vpmaddwd(ones) + vpaddd: 32 u8 x s8
 *                multiply-adds whose i16 pair sums saturate when both
 *                products are large (onnxruntime's AVX2 u8s8 kernels)
 *
 *   cc -O2 -mavx2 -mfma bench/avx2_int8_units.c -o /tmp/units && /tmp/units
 */
#include <stdio.h>
#include <time.h>
#include <immintrin.h>

#define ITERATIONS 100000000L

static double now(void) {
  struct timespec t;
  /* Thread CPU time: waiting for a shared core does not count. */
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void) {
  __m256 f0 = _mm256_set1_ps(1), f1 = f0, f2 = f0, f3 = f0, f4 = f0, f5 = f0,
         f6 = f0, f7 = f0, f8 = f0, f9 = f0;
  __m256 fb = _mm256_set1_ps(0.999f), fc = _mm256_set1_ps(1e-4f);
  double t = now();
  for (long i = 0; i < ITERATIONS; i++)
    __asm__ volatile(
        "vfmadd231ps %[b],%[c],%[a0]\n vfmadd231ps %[b],%[c],%[a1]\n"
        "vfmadd231ps %[b],%[c],%[a2]\n vfmadd231ps %[b],%[c],%[a3]\n"
        "vfmadd231ps %[b],%[c],%[a4]\n vfmadd231ps %[b],%[c],%[a5]\n"
        "vfmadd231ps %[b],%[c],%[a6]\n vfmadd231ps %[b],%[c],%[a7]\n"
        "vfmadd231ps %[b],%[c],%[a8]\n vfmadd231ps %[b],%[c],%[a9]\n"
        : [a0] "+x"(f0), [a1] "+x"(f1), [a2] "+x"(f2), [a3] "+x"(f3),
          [a4] "+x"(f4), [a5] "+x"(f5), [a6] "+x"(f6), [a7] "+x"(f7),
          [a8] "+x"(f8), [a9] "+x"(f9)
        : [b] "x"(fb), [c] "x"(fc));
  double fma = ITERATIONS * 10 * 8 / (now() - t) * 1e-9;
  printf("fma:        %6.1f G multiply-adds/s (f32)\n", fma);

  __m256i i0 = _mm256_set1_epi8(3), i1 = i0, i2 = i0, i3 = i0;
  __m256i x = _mm256_set1_epi8(5), y = _mm256_set1_epi8(7), o0, o1, o2, o3;
/* One unit per accumulator: o is the unit's scratch, acc its sum. */
#define EXACT(o, acc)                                                          \
  "vpsignb %[x],%[y]," o "\n vpmaddubsw " o ",%[y]," o "\n vpmaddwd %[x]," o \
  "," o "\n vpaddd " o "," acc "," acc "\n"
#define PAIR(o, acc) "vpmaddwd %[x],%[y]," o "\n vpaddd " o "," acc "," acc "\n"
#define U8(o, acc)                                                             \
  "vpmaddubsw %[x],%[y]," o "\n vpmaddwd %[x]," o "," o "\n vpaddd " o ","     \
  acc "," acc "\n"
/* Multiply-adds per second of four independent UNITs of `per` each. */
#define RATE(UNIT, per)                                                        \
  ({                                                                           \
    double start = now();                                                      \
    for (long i = 0; i < ITERATIONS; i++)                                      \
      __asm__ volatile(UNIT("%[o0]", "%[i0]") UNIT("%[o1]", "%[i1]")           \
                           UNIT("%[o2]", "%[i2]") UNIT("%[o3]", "%[i3]")       \
                       : [i0] "+x"(i0), [i1] "+x"(i1), [i2] "+x"(i2),          \
                         [i3] "+x"(i3), [o0] "=&x"(o0), [o1] "=&x"(o1),        \
                         [o2] "=&x"(o2), [o3] "=&x"(o3)                        \
                       : [x] "x"(x), [y] "x"(y));                              \
    ITERATIONS * 4.0 * (per) / (now() - start) * 1e-9;                         \
  })
  double exact = RATE(EXACT, 32);
  double pair = RATE(PAIR, 16);
  double u8 = RATE(U8, 32);
  printf("exact quad: %6.1f G multiply-adds/s (%.2fx fma)\n", exact, exact / fma);
  printf("pair:       %6.1f G multiply-adds/s (%.2fx fma)\n", pair, pair / fma);
  printf("u8 quad:    %6.1f G multiply-adds/s (%.2fx fma; saturating)\n", u8, u8 / fma);
  /* Keep the accumulators live. */
  return _mm256_extract_epi32(_mm256_add_epi32(i0, i3), 0) == 42 &&
         _mm256_cvtss_f32(_mm256_add_ps(f0, f9)) == 42.0f;
}
