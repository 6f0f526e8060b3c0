// The C API under allocation failure: every entry point must return a
// RESOURCE_EXHAUSTED status (the static one when even a status cannot be
// allocated) instead of letting std::bad_alloc cross into C and terminate
// the process. The test binary replaces the global operator new/delete so
// that allocations fail on demand; nothrow new goes through the replaced
// operator in libstdc++, so the runtime's handle allocations fail too.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "kiln/kiln.h"
#include "runtime/testing/test_artifacts.h"

namespace {
bool fail_allocations = false;
}  // namespace

void* operator new(std::size_t size) {
  if (fail_allocations) throw std::bad_alloc();
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

// Runs `call` with every allocation failing and returns the status code.
template <typename Call>
kiln_status_code_t WithFailingAllocations(Call call) {
  fail_allocations = true;
  kiln_status_t status = call();
  fail_allocations = false;
  kiln_status_code_t code = kiln_status_code(status);
  kiln_status_free(status);
  return code;
}

TEST(CApiOutOfMemory, RuntimeCreate) {
  kiln_runtime_options_t options;
  kiln_runtime_options_initialize(&options);
  options.num_threads = 2;
  kiln_runtime_t* runtime = nullptr;
  EXPECT_EQ(WithFailingAllocations([&] { return kiln_runtime_create(&options, &runtime); }),
            KILN_RESOURCE_EXHAUSTED);
  EXPECT_EQ(runtime, nullptr);
}

TEST(CApiOutOfMemory, ModelLoadAndSessionCreate) {
  kiln_runtime_options_t options;
  kiln_runtime_options_initialize(&options);
  options.num_threads = 1;
  kiln_runtime_t* runtime = nullptr;
  kiln_status_t status = kiln_runtime_create(&options, &runtime);
  ASSERT_EQ(kiln_status_code(status), KILN_OK) << kiln_status_message(status);

  std::vector<uint8_t> bytes = kiln::testing::WriteOrDie(kiln::testing::AddScaleSpec());
  kiln_model_t* model = nullptr;
  EXPECT_EQ(WithFailingAllocations([&] {
              return kiln_model_load_memory(runtime, bytes.data(), bytes.size(), &model);
            }),
            KILN_RESOURCE_EXHAUSTED);
  EXPECT_EQ(model, nullptr);

  // With allocation working again the same calls succeed: nothing was left
  // half-built by the failed ones.
  status = kiln_model_load_memory(runtime, bytes.data(), bytes.size(), &model);
  ASSERT_EQ(kiln_status_code(status), KILN_OK) << kiln_status_message(status);
  kiln_session_t* session = nullptr;
  EXPECT_EQ(WithFailingAllocations([&] { return kiln_session_create(model, &session); }),
            KILN_RESOURCE_EXHAUSTED);
  EXPECT_EQ(session, nullptr);
  status = kiln_session_create(model, &session);
  EXPECT_EQ(kiln_status_code(status), KILN_OK) << kiln_status_message(status);
  kiln_session_release(session);
  kiln_model_release(model);
  kiln_runtime_release(runtime);
}

}  // namespace
