// The C API over the same hand-built artifact as runtime_test.
#include <gtest/gtest.h>

#include "kiln/kiln.h"
#include "runtime/testing/test_artifacts.h"

namespace {

using kiln::testing::kCols;
using kiln::testing::kElements;
using kiln::testing::kRows;

TEST(CApi, LoadInspectAndRun) {
  std::vector<uint8_t> bytes = kiln::testing::WriteOrDie(kiln::testing::AddScaleSpec());
  std::string path = kiln::testing::TempPath("c_api.kiln");
  ASSERT_TRUE(kiln::testing::WriteFileBytes(path, bytes));

  kiln_runtime_options_t options;
  kiln_runtime_options_initialize(&options);
  options.num_threads = 2;
  kiln_runtime_t* runtime = nullptr;
  ASSERT_EQ(kiln_runtime_create(&options, &runtime), nullptr);
  kiln_model_t* model = nullptr;
  ASSERT_EQ(kiln_model_load_file(runtime, path.c_str(), &model), nullptr);
  kiln_runtime_release(runtime);  // the model keeps what it needs

  ASSERT_EQ(kiln_model_input_count(model), 2u);
  ASSERT_EQ(kiln_model_output_count(model), 2u);
  const char* name = nullptr;
  kiln_tensor_t info;
  ASSERT_EQ(kiln_model_output_info(model, 1, &name, &info), nullptr);
  EXPECT_STREQ(name, "scaled/out");
  EXPECT_EQ(info.dtype, KILN_F32);
  ASSERT_EQ(info.rank, 2u);
  EXPECT_EQ(info.dims[1], kCols);
  size_t index = 99;
  ASSERT_EQ(kiln_model_find_input(model, "y", &index), nullptr);
  EXPECT_EQ(index, 1u);

  kiln_session_t* session = nullptr;
  ASSERT_EQ(kiln_session_create(model, &session), nullptr);
  std::vector<float> x = kiln::testing::RandomFloats(kElements, 3), y = kiln::testing::RandomFloats(kElements, 4);
  std::vector<float> sum(kElements), scaled(kElements);
  int64_t dims[2] = {kRows, kCols};
  kiln_tensor_t inputs[2] = {{KILN_F32, 2, dims, x.data()}, {KILN_F32, 2, dims, y.data()}};
  kiln_tensor_t outputs[2] = {{KILN_F32, 2, dims, sum.data()}, {KILN_F32, 2, dims, scaled.data()}};
  kiln_status_t status = kiln_session_run(session, inputs, 2, outputs, 2);
  ASSERT_EQ(status, nullptr) << kiln_status_message(status);
  EXPECT_EQ(sum, kiln::testing::ExpectedSum(x, y));
  EXPECT_EQ(scaled, kiln::testing::ExpectedScaled(x));

  kiln_session_release(session);
  kiln_model_release(model);
}

TEST(CApi, Profile) {
  std::vector<uint8_t> bytes = kiln::testing::WriteOrDie(kiln::testing::AddScaleSpec());
  kiln_runtime_options_t options;
  kiln_runtime_options_initialize(&options);
  kiln_runtime_t* runtime = nullptr;
  ASSERT_EQ(kiln_runtime_create(&options, &runtime), nullptr);
  kiln_model_t* model = nullptr;
  ASSERT_EQ(kiln_model_load_memory(runtime, bytes.data(), bytes.size(), &model), nullptr);
  kiln_session_t* session = nullptr;
  ASSERT_EQ(kiln_session_create(model, &session), nullptr);

  size_t count = 0;
  kiln_status_t status = kiln_session_get_profile(session, nullptr, 0, &count, nullptr, nullptr);
  EXPECT_EQ(kiln_status_code(status), KILN_FAILED_PRECONDITION);
  kiln_status_free(status);

  ASSERT_EQ(kiln_session_enable_profiling(session, 1), nullptr);
  std::vector<float> x = kiln::testing::RandomFloats(kElements, 3), y = kiln::testing::RandomFloats(kElements, 4);
  std::vector<float> sum(kElements), scaled(kElements);
  int64_t dims[2] = {kRows, kCols};
  kiln_tensor_t inputs[2] = {{KILN_F32, 2, dims, x.data()}, {KILN_F32, 2, dims, y.data()}};
  kiln_tensor_t outputs[2] = {{KILN_F32, 2, dims, sum.data()}, {KILN_F32, 2, dims, scaled.data()}};
  for (int i = 0; i < 3; ++i) ASSERT_EQ(kiln_session_run(session, inputs, 2, outputs, 2), nullptr);

  ASSERT_EQ(kiln_session_get_profile(session, nullptr, 0, &count, nullptr, nullptr), nullptr);
  ASSERT_EQ(count, 4u);
  std::vector<kiln_step_profile_t> steps(count);
  uint64_t runs = 0, run_ns = 0, steps_ns = 0;
  ASSERT_EQ(kiln_session_get_profile(session, steps.data(), steps.size(), &count, &runs, &run_ns), nullptr);
  EXPECT_EQ(runs, 3u);
  EXPECT_STREQ(steps[0].label, "dispatch_0: add x c");
  EXPECT_EQ(steps[0].workgroups, 7u);
  EXPECT_EQ(steps[2].workgroups, 0u);  // the copy
  for (const kiln_step_profile_t& step : steps) {
    EXPECT_EQ(step.calls, 3u);
    steps_ns += step.total_ns;
  }
  EXPECT_LE(steps_ns, run_ns);

  kiln_session_release(session);
  kiln_model_release(model);
  kiln_runtime_release(runtime);
}

TEST(CApi, ErrorsComeBackAsStatuses) {
  EXPECT_EQ(kiln_status_code(nullptr), KILN_OK);
  EXPECT_STREQ(kiln_status_message(nullptr), "");

  kiln_runtime_options_t options;
  kiln_runtime_options_initialize(&options);
  kiln_runtime_t* runtime = nullptr;
  ASSERT_EQ(kiln_runtime_create(&options, &runtime), nullptr);

  kiln_model_t* model = nullptr;
  kiln_status_t status = kiln_model_load_file(runtime, "/nonexistent.kiln", &model);
  EXPECT_EQ(kiln_status_code(status), KILN_NOT_FOUND);
  EXPECT_NE(std::string(kiln_status_message(status)).find("/nonexistent.kiln"), std::string::npos);
  EXPECT_EQ(model, nullptr);  // out_ untouched on failure
  kiln_status_free(status);

  std::vector<uint8_t> bytes = kiln::testing::WriteOrDie(kiln::testing::AddScaleSpec());
  bytes[200] ^= 0xFF;
  status = kiln_model_load_memory(runtime, bytes.data(), bytes.size(), &model);
  EXPECT_EQ(kiln_status_code(status), KILN_DATA_LOSS);
  kiln_status_free(status);
  bytes[200] ^= 0xFF;
  ASSERT_EQ(kiln_model_load_memory(runtime, bytes.data(), bytes.size(), &model), nullptr);

  size_t index;
  status = kiln_model_find_output(model, "nope", &index);
  EXPECT_EQ(kiln_status_code(status), KILN_NOT_FOUND);
  kiln_status_free(status);

  kiln_session_t* session = nullptr;
  ASSERT_EQ(kiln_session_create(model, &session), nullptr);
  std::vector<float> buffer(kElements);
  int64_t dims[2] = {kRows, kCols}, bad_dims[1] = {kElements};
  kiln_tensor_t inputs[2] = {{KILN_F32, 2, dims, buffer.data()}, {KILN_F32, 1, bad_dims, buffer.data()}};
  kiln_tensor_t outputs[2] = {{KILN_F32, 2, dims, buffer.data()}, {KILN_F32, 2, dims, buffer.data()}};
  status = kiln_session_run(session, inputs, 2, outputs, 2);
  EXPECT_EQ(kiln_status_code(status), KILN_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_status_message(status), "input 'y': expected shape [4,100] f32, got [400] f32");
  kiln_status_free(status);
  status = kiln_session_run(session, inputs, 2, outputs, 1);
  EXPECT_STREQ(kiln_status_message(status), "expected 2 output buffers, got 1");
  kiln_status_free(status);
  status = kiln_session_run(nullptr, inputs, 2, outputs, 2);
  EXPECT_EQ(kiln_status_code(status), KILN_INVALID_ARGUMENT);
  kiln_status_free(status);

  kiln_session_release(session);
  kiln_model_release(model);
  kiln_runtime_release(runtime);
  kiln_session_release(nullptr);
  kiln_model_release(nullptr);
  kiln_runtime_release(nullptr);
}

}  // namespace
