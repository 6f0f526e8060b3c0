// The runtime must run where no compiler is installed: its shared build
// (and the kiln tool, tested in tools/kiln) may need only libc, libm,
// libpthread, libdl and the C++ runtime, never MLIR, LLVM, protobuf or
// FlatBuffers libraries.
#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/elf_needed.h"
#include "runtime/testing/test_artifacts.h"

namespace kiln::testing {
namespace {

TEST(Dependencies, SharedRuntimeNeedsOnlySystemLibraries) {
  std::vector<uint8_t> bytes = ReadFileBytes("runtime/libkilnrt.so");
  ASSERT_FALSE(bytes.empty());
  std::vector<std::string> needed;
  ASSERT_TRUE(ReadElfNeeded(bytes, &needed));
  EXPECT_FALSE(needed.empty());
  std::vector<std::string> allowed = {"libc.so.6", "libm.so.6", "libpthread.so.0",
                                      "libdl.so.2", "libstdc++.so.6", "libgcc_s.so.1",
                                      "ld-linux-x86-64.so.2"};
#ifdef KILN_SANITIZERS  // --config=asan/ubsan/tsan link gcc's runtimes
  allowed.insert(allowed.end(), {"libasan.so.8", "libubsan.so.1", "libtsan.so.2"});
#endif
  for (const std::string& lib : needed) {
    SCOPED_TRACE(lib);
    EXPECT_NE(std::find(allowed.begin(), allowed.end(), lib), allowed.end());
    std::string lower = lib;
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    EXPECT_EQ(lower.find("mlir"), std::string::npos);
    EXPECT_EQ(lower.find("llvm"), std::string::npos);
    // The GPU runtime dlopens the driver and cuBLASLt (issue #9).
    EXPECT_EQ(lower.find("cuda"), std::string::npos);
    EXPECT_EQ(lower.find("cublas"), std::string::npos);
  }
#ifndef KILN_SANITIZERS
  // Exactly the list libkilnrt had before the GPU runtime (readelf -d
  // bazel-bin/runtime/libkilnrt.so, 2026-11-30), in link order: a change
  // here is a new dependency for every user of the runtime.
  EXPECT_EQ(needed, (std::vector<std::string>{"libstdc++.so.6", "libm.so.6", "libgcc_s.so.1",
                                              "libc.so.6"}));
#endif
}

}  // namespace
}  // namespace kiln::testing
