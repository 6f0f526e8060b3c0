// InspectKernelObject: the checks on a kernel library's ELF bytes before
// dlopen. Real shared objects, each built to break one rule
// (runtime/testing/bad_*.c), plus malformed bytes that must be errors, not
// crashes.
#include "runtime/src/elf_inspect.h"

#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>

#include "kiln/runtime.h"
#include "runtime/testing/test_artifacts.h"

namespace kiln {
namespace {

::testing::AssertionResult HasMessage(const Status& s, const std::string& text) {
  if (s.ok()) return ::testing::AssertionFailure() << "succeeded, expected '" << text << "'";
  if (s.code() != StatusCode::kDataLoss || s.message().find(text) == std::string::npos)
    return ::testing::AssertionFailure() << "got " << s.ToString() << "; expected DATA_LOSS containing '"
                                         << text << "'";
  return ::testing::AssertionSuccess();
}

std::vector<uint8_t> Bad(const std::string& reason) {
  std::vector<uint8_t> bytes = testing::ReadFileBytes("runtime/testing/libbad_" + reason + ".so");
  EXPECT_FALSE(bytes.empty()) << reason;
  return bytes;
}

Status Inspect(const std::vector<uint8_t>& bytes) {
  return InspectKernelObject(bytes.data(), bytes.size(), "executable 0");
}

TEST(ElfInspect, TheTestKernelLibraryPasses) {
  Status s = Inspect(testing::TestKernelBlob());
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(ElfInspect, DependenciesAreRefused) {
  EXPECT_TRUE(HasMessage(Inspect(Bad("needed")),
                         "executable 0: shared object depends on libm.so.6 (DT_NEEDED); kernels "
                         "may depend on nothing"));
}

TEST(ElfInspect, InitArraysAreRefused) {
  EXPECT_TRUE(HasMessage(Inspect(Bad("init_array")),
                         "executable 0: shared object has code that runs when it is loaded or "
                         "unloaded (DT_INIT_ARRAY)"));
}

TEST(ElfInspect, ExtraExportsAreRefused) {
  EXPECT_TRUE(HasMessage(Inspect(Bad("export")),
                         "executable 0: shared object exports 'extra_symbol'; a kernel library "
                         "exports only kiln_cpu_library_query"));
}

TEST(ElfInspect, ThreadLocalStorageIsRefused) {
  EXPECT_TRUE(HasMessage(Inspect(Bad("tls")),
                         "executable 0: shared object has thread-local storage (PT_TLS)"));
}

TEST(ElfInspect, MalformedHeadersAreErrors) {
  std::vector<uint8_t> good = testing::TestKernelBlob();
  EXPECT_TRUE(HasMessage(Inspect({}), "is not an ELF file"));
  std::vector<uint8_t> bytes = good;
  bytes[EI_CLASS] = ELFCLASS32;
  EXPECT_TRUE(HasMessage(Inspect(bytes), "is not a little-endian x86-64 ELF shared object"));
  bytes = good;
  Elf64_Ehdr eh;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  eh.e_phoff = ~0ull - 8;  // would wrap when added to the table size
  std::memcpy(bytes.data(), &eh, sizeof eh);
  EXPECT_TRUE(HasMessage(Inspect(bytes), "has program headers outside the file (malformed)"));
  bytes = good;
  std::memcpy(&eh, bytes.data(), sizeof eh);
  eh.e_shoff = bytes.size() - 8;
  std::memcpy(bytes.data(), &eh, sizeof eh);
  EXPECT_TRUE(HasMessage(Inspect(bytes), "has section headers outside the file (malformed)"));
}

// Every truncation and every single-byte change of the header tables is an
// error or a pass, never a read outside the buffer (run under ASan by the
// sanitizer configuration).
TEST(ElfInspect, TruncatedAndMutatedBytesNeverCrash) {
  const std::vector<uint8_t>& good = testing::TestKernelBlob();
  for (size_t size = 0; size < good.size(); size += 7) {
    std::vector<uint8_t> truncated(good.begin(), good.begin() + size);
    EXPECT_FALSE(Inspect(truncated).ok()) << size;
  }
  std::vector<uint8_t> bytes = good;
  for (size_t i = 0; i < std::min<size_t>(bytes.size(), 4096); ++i) {
    uint8_t saved = bytes[i];
    bytes[i] = static_cast<uint8_t>(saved ^ 0xA5);
    (void)Inspect(bytes);
    bytes[i] = saved;
  }
}

TEST(ElfInspect, TheLoaderRefusesBeforeDlopen) {
  std::shared_ptr<Runtime> runtime;
  ASSERT_TRUE(Runtime::Create({1}, &runtime).ok());
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  spec.executables[0].blob = Bad("init_array");
  std::vector<uint8_t> bytes = testing::WriteOrDie(spec);
  std::shared_ptr<const Model> model;
  EXPECT_TRUE(HasMessage(runtime->LoadModelFromMemory(bytes.data(), bytes.size(), &model),
                         "executable 0: shared object has code that runs when it is loaded"));
  // Inspecting without loading code does not look at the ELF at all.
  std::string path = testing::TempPath("bad_init.kiln");
  ASSERT_TRUE(testing::WriteFileBytes(path, bytes));
  ModelDescription description;
  EXPECT_TRUE(DescribeModelFile(path, &description).ok());
}

}  // namespace
}  // namespace kiln
