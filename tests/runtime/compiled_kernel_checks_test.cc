// The checks kilnc's generated kernel wrappers make (kernel_abi.h,
// KILN_KERNEL_BAD_*), tested by calling a compiled kernel directly with a
// dispatch state that disagrees with its table entry. The kernel must
// refuse before touching a binding, so the wrong states here point at
// buffers that would be too small.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kiln/kernel_abi.h"
#include "kiln/runtime.h"
#include "runtime/schema/file_format.h"
#include "runtime/schema/kiln_generated.h"
#include "runtime/testing/test_artifacts.h"

namespace kiln {
namespace {

std::string ArtifactPath() {
  const char* dir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return std::string(dir ? dir : ".") + "/" + (workspace ? workspace : "kiln") +
         "/tests/runtime/tiny_classifier.kiln";
}

class CompiledKernelChecks : public ::testing::Test {
 protected:
  void SetUp() override {
    bytes_ = testing::ReadFileBytes(ArtifactPath());
    ASSERT_GT(bytes_.size(), format::kHeaderSize);
    format::Header h = format::DecodeHeader(bytes_.data());
    const fb::Model* model = fb::GetModel(bytes_.data() + h.flatbuffer_offset);
    const fb::Executable* exe = model->executables()->Get(0);
    // Loaded the way the runtime does (the runtime keeps its loader private).
    memfd_ = ::memfd_create("kernels", MFD_CLOEXEC);
    ASSERT_GE(memfd_, 0);
    ASSERT_EQ(::write(memfd_, exe->blob()->data(), exe->blob()->size()),
              static_cast<ssize_t>(exe->blob()->size()));
    handle_ = ::dlopen(("/proc/self/fd/" + std::to_string(memfd_)).c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle_, nullptr) << ::dlerror();
    auto query = reinterpret_cast<kiln_cpu_library_query_fn>(
        ::dlsym(handle_, KILN_CPU_LIBRARY_QUERY_SYMBOL));
    ASSERT_NE(query, nullptr);
    library_ = query(KILN_CPU_ABI_VERSION);
    ASSERT_NE(library_, nullptr);
    ASSERT_GT(library_->kernel_count, 0u);
    EXPECT_EQ(query(1), nullptr);  // the old ABI is not spoken
  }
  void TearDown() override {
    if (handle_) ::dlclose(handle_);
    if (memfd_ >= 0) ::close(memfd_);
  }

  // A state that matches `kernel`'s table entry, over zeroed buffers.
  void Prepare(const kiln_kernel_info& kernel) {
    buffers_.clear();
    pointers_.clear();
    sizes_.clear();
    for (uint32_t b = 0; b < kernel.binding_count; ++b) {
      buffers_.emplace_back(kernel.bindings[b].size + 64, 0);
      sizes_.push_back(kernel.bindings[b].size);
    }
    for (auto& buffer : buffers_) pointers_.push_back(buffer.data());
    state_ = {};
    state_.bindings = pointers_.data();
    state_.binding_sizes = sizes_.data();
    std::memcpy(state_.workgroup_count, kernel.workgroup_count, sizeof state_.workgroup_count);
    state_.binding_count = kernel.binding_count;
  }

  std::vector<uint8_t> bytes_;
  int memfd_ = -1;
  void* handle_ = nullptr;
  const kiln_cpu_library* library_ = nullptr;
  std::vector<std::vector<uint8_t>> buffers_;
  std::vector<void*> pointers_;
  std::vector<uint64_t> sizes_;
  kiln_dispatch_state state_{};
};

TEST_F(CompiledKernelChecks, TableDescribesEveryBinding) {
  for (uint32_t k = 0; k < library_->kernel_count; ++k) {
    const kiln_kernel_info& kernel = library_->kernels[k];
    SCOPED_TRACE(kernel.name);
    ASSERT_NE(kernel.bindings, nullptr);
    bool writes = false;
    for (uint32_t b = 0; b < kernel.binding_count; ++b) {
      EXPECT_GT(kernel.bindings[b].size, 0u);
      EXPECT_LE(kernel.bindings[b].access, KILN_BINDING_READ_WRITE);
      writes |= kernel.bindings[b].access != KILN_BINDING_READ;
    }
    EXPECT_TRUE(writes);  // every kernel writes an output
    for (int d = 0; d < 3; ++d) EXPECT_GE(kernel.workgroup_count[d], 1u);
  }
}

TEST_F(CompiledKernelChecks, RightStateRuns) {
  for (uint32_t k = 0; k < library_->kernel_count; ++k) {
    const kiln_kernel_info& kernel = library_->kernels[k];
    Prepare(kernel);
    EXPECT_EQ(kernel.function(&state_, 0, 0, 0), 0) << kernel.name;
  }
}

TEST_F(CompiledKernelChecks, WrongStatesAreRefused) {
  for (uint32_t k = 0; k < library_->kernel_count; ++k) {
    const kiln_kernel_info& kernel = library_->kernels[k];
    SCOPED_TRACE(kernel.name);
    Prepare(kernel);
    state_.binding_count = kernel.binding_count - 1;
    EXPECT_EQ(kernel.function(&state_, 0, 0, 0), KILN_KERNEL_BAD_BINDING_COUNT);
    Prepare(kernel);
    state_.push_constant_count = 1;
    EXPECT_EQ(kernel.function(&state_, 0, 0, 0), KILN_KERNEL_BAD_BINDING_COUNT);
    for (uint32_t b = 0; b < kernel.binding_count; ++b) {
      Prepare(kernel);
      sizes_[b] -= 4;  // one element short
      EXPECT_EQ(kernel.function(&state_, 0, 0, 0), KILN_KERNEL_BAD_BINDING_SIZE) << b;
    }
    Prepare(kernel);
    state_.workgroup_count[0] += 1;
    EXPECT_EQ(kernel.function(&state_, 0, 0, 0), KILN_KERNEL_BAD_WORKGROUP_COUNT);
    Prepare(kernel);
    state_.workgroup_count[2] = 0;
    EXPECT_EQ(kernel.function(&state_, 0, 0, 0), KILN_KERNEL_BAD_WORKGROUP_COUNT);
    Prepare(kernel);
    EXPECT_EQ(kernel.function(&state_, kernel.workgroup_count[0], 0, 0),
              KILN_KERNEL_BAD_WORKGROUP_ID);
    EXPECT_EQ(kernel.function(&state_, 0, 0, kernel.workgroup_count[2]),
              KILN_KERNEL_BAD_WORKGROUP_ID);
  }
}

// The runtime inspects this object before dlopen and accepts it: kilnc's
// link produces no dependencies, init/fini code, TLS or extra exports.
TEST_F(CompiledKernelChecks, TheRuntimeAcceptsKilncOutput) {
  std::shared_ptr<Runtime> runtime;
  ASSERT_TRUE(Runtime::Create({1}, &runtime).ok());
  std::shared_ptr<const Model> model;
  Status s = runtime->LoadModel(ArtifactPath(), &model);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

}  // namespace
}  // namespace kiln
