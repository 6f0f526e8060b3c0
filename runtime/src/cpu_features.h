// cpu_features.h - which x86 ISA extensions this CPU (and OS) can run.
#ifndef KILN_RUNTIME_SRC_CPU_FEATURES_H_
#define KILN_RUNTIME_SRC_CPU_FEATURES_H_

#include <string>

namespace kiln {

enum class FeatureSupport { kSupported, kMissing, kUnknownName };

// `name` uses LLVM's spelling ("avx2", "avx512f", "sse4.2", "f16c"), with
// an optional leading '+'. AVX and AVX-512 features count as supported only
// when the OS saves the wider registers (XGETBV), as a compiler would need.
FeatureSupport QueryCpuFeature(const std::string& name);

}  // namespace kiln

#endif  // KILN_RUNTIME_SRC_CPU_FEATURES_H_
