// CPUID-based feature detection. __builtin_cpu_supports only accepts
// string literals and lacks some names (f16c, amx), so the bits are read
// directly; the table follows the Intel SDM, Vol. 2A, CPUID.
#include "runtime/src/cpu_features.h"

#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <cstdint>
#include <cstring>

namespace kiln {
namespace {

enum Reg { EAX, EBX, ECX, EDX };
enum OsState { kNone, kAvxState, kAvx512State, kAmxState };

struct FeatureBit {
  const char* name;
  unsigned leaf, subleaf;
  Reg reg;
  int bit;
  OsState state;
};

constexpr FeatureBit kFeatures[] = {
    {"sse", 1, 0, EDX, 25, kNone},
    {"sse2", 1, 0, EDX, 26, kNone},
    {"sse3", 1, 0, ECX, 0, kNone},
    {"pclmul", 1, 0, ECX, 1, kNone},
    {"ssse3", 1, 0, ECX, 9, kNone},
    {"fma", 1, 0, ECX, 12, kAvxState},
    {"cx16", 1, 0, ECX, 13, kNone},
    {"sse4.1", 1, 0, ECX, 19, kNone},
    {"sse4.2", 1, 0, ECX, 20, kNone},
    {"movbe", 1, 0, ECX, 22, kNone},
    {"popcnt", 1, 0, ECX, 23, kNone},
    {"aes", 1, 0, ECX, 25, kNone},
    {"xsave", 1, 0, ECX, 26, kNone},
    {"avx", 1, 0, ECX, 28, kAvxState},
    {"f16c", 1, 0, ECX, 29, kAvxState},
    {"bmi", 7, 0, EBX, 3, kNone},
    {"avx2", 7, 0, EBX, 5, kAvxState},
    {"bmi2", 7, 0, EBX, 8, kNone},
    {"avx512f", 7, 0, EBX, 16, kAvx512State},
    {"avx512dq", 7, 0, EBX, 17, kAvx512State},
    {"adx", 7, 0, EBX, 19, kNone},
    {"avx512ifma", 7, 0, EBX, 21, kAvx512State},
    {"avx512cd", 7, 0, EBX, 28, kAvx512State},
    {"avx512bw", 7, 0, EBX, 30, kAvx512State},
    {"avx512vl", 7, 0, EBX, 31, kAvx512State},
    {"avx512vbmi", 7, 0, ECX, 1, kAvx512State},
    {"avx512vbmi2", 7, 0, ECX, 6, kAvx512State},
    {"gfni", 7, 0, ECX, 8, kNone},
    {"vaes", 7, 0, ECX, 9, kAvxState},
    {"vpclmulqdq", 7, 0, ECX, 10, kAvxState},
    {"avx512vnni", 7, 0, ECX, 11, kAvx512State},
    {"avx512bitalg", 7, 0, ECX, 12, kAvx512State},
    {"avx512vpopcntdq", 7, 0, ECX, 14, kAvx512State},
    {"amx-bf16", 7, 0, EDX, 22, kAmxState},
    {"avx512fp16", 7, 0, EDX, 23, kAvx512State},
    {"amx-tile", 7, 0, EDX, 24, kAmxState},
    {"amx-int8", 7, 0, EDX, 25, kAmxState},
    {"avxvnni", 7, 1, EAX, 4, kAvxState},
    {"avx512bf16", 7, 1, EAX, 5, kAvx512State},
    {"lzcnt", 0x80000001, 0, ECX, 5, kNone},
    {"sse4a", 0x80000001, 0, ECX, 6, kNone},
    {"prfchw", 0x80000001, 0, ECX, 8, kNone},
};

bool CpuidBit(unsigned leaf, unsigned subleaf, Reg reg, int bit) {
  unsigned max_leaf = __get_cpuid_max(leaf & 0x80000000u, nullptr);
  if (max_leaf < leaf) return false;
  unsigned r[4] = {0, 0, 0, 0};
  __cpuid_count(leaf, subleaf, r[EAX], r[EBX], r[ECX], r[EDX]);
  return (r[reg] >> bit) & 1u;
}

// Linux enables the 8 KiB AMX tile state per process, on request
// (Documentation/arch/x86/xstate.rst): the first tile instruction of a
// process that did not ask faults with SIGILL. Asking is idempotent and
// covers every thread of the process, so the runtime asks once, when an
// artifact needing AMX is loaded.
bool AmxPermitted() {
#if defined(__linux__)
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  static const bool permitted =
      syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
  return permitted;
#else
  return false;
#endif
}

// XCR0 bits the OS must enable: 1-2 (SSE/AVX), 5-7 (AVX-512), 17-18 (AMX).
bool OsSaves(OsState state) {
  if (state == kNone) return true;
  if (!CpuidBit(1, 0, ECX, 27)) return false;  // OSXSAVE
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  uint64_t xcr0 = (static_cast<uint64_t>(hi) << 32) | lo;
  uint64_t need = 0x6;
  if (state == kAvx512State) need |= 0xE0;
  if (state == kAmxState) need |= 0x60000;
  if ((xcr0 & need) != need) return false;
  return state != kAmxState || AmxPermitted();
}

}  // namespace

FeatureSupport QueryCpuFeature(const std::string& raw_name) {
  std::string name = raw_name;
  if (!name.empty() && name[0] == '+') name.erase(0, 1);
  if (name == "sse4_2") name = "sse4.2";
  if (name == "sse4_1") name = "sse4.1";
  for (const FeatureBit& f : kFeatures) {
    if (name != f.name) continue;
    return CpuidBit(f.leaf, f.subleaf, f.reg, f.bit) && OsSaves(f.state)
               ? FeatureSupport::kSupported
               : FeatureSupport::kMissing;
  }
  return FeatureSupport::kUnknownName;
}

}  // namespace kiln
