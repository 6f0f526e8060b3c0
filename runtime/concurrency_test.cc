// Many Sessions over one shared Model, run from many threads at once on
// one Runtime's pool: every result equals the single-threaded one.
#include <gtest/gtest.h>

#include <thread>

#include "kiln/runtime.h"
#include "runtime/testing/test_artifacts.h"

namespace kiln {
namespace {

using testing::kCols;
using testing::kElements;
using testing::kRows;

TEST(Concurrency, EightThreadsTwoHundredRunsEach) {
  constexpr int kThreads = 8, kRuns = 200;
  std::shared_ptr<Runtime> runtime;
  ASSERT_TRUE(Runtime::Create({4}, &runtime).ok());
  std::vector<uint8_t> bytes = testing::WriteOrDie(testing::AddScaleSpec());
  std::shared_ptr<const Model> model;
  ASSERT_TRUE(runtime->LoadModelFromMemory(bytes.data(), bytes.size(), &model).ok());

  std::vector<float> x = testing::RandomFloats(kElements, 7), y = testing::RandomFloats(kElements, 8);
  std::vector<Tensor> inputs = {Tensor::Borrow(DType::F32, {kRows, kCols}, x.data()),
                                Tensor::Borrow(DType::F32, {kRows, kCols}, y.data())};
  std::vector<float> reference_sum(kElements), reference_scaled(kElements);
  {
    std::unique_ptr<Session> session;
    ASSERT_TRUE(Session::Create(model, &session).ok());
    std::vector<Tensor> outputs = {
        Tensor::Borrow(DType::F32, {kRows, kCols}, reference_sum.data()),
        Tensor::Borrow(DType::F32, {kRows, kCols}, reference_scaled.data())};
    ASSERT_TRUE(session->Run(inputs, &outputs).ok());
  }
  ASSERT_EQ(reference_scaled, testing::ExpectedScaled(x));

  std::vector<int> mismatches(kThreads, 0), failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::unique_ptr<Session> session;
      if (!Session::Create(model, &session).ok()) {
        failures[t] = kRuns;
        return;
      }
      std::vector<float> sum(kElements), scaled(kElements);
      for (int run = 0; run < kRuns; ++run) {
        std::fill(sum.begin(), sum.end(), 0.0f);
        std::fill(scaled.begin(), scaled.end(), 0.0f);
        std::vector<Tensor> outputs = {Tensor::Borrow(DType::F32, {kRows, kCols}, sum.data()),
                                       Tensor::Borrow(DType::F32, {kRows, kCols}, scaled.data())};
        if (!session->Run(inputs, &outputs).ok()) ++failures[t];
        if (sum != reference_sum || scaled != reference_scaled) ++mismatches[t];
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(failures[t], 0) << "thread " << t;
    EXPECT_EQ(mismatches[t], 0) << "thread " << t;
  }
}

}  // namespace
}  // namespace kiln
