// The concurrency test of the issue on generated code: eight threads, each
// with its own Session over one Model compiled by kilnc (the bundled
// example classifier), many runs each, every output bit-identical to the
// single-threaded run. (runtime/concurrency_test.cc does the same with
// hand-written kernels.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <thread>

#include "kiln/runtime.h"

namespace kiln {
namespace {

std::string ArtifactPath() {
  const char* dir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return std::string(dir ? dir : ".") + "/" + (workspace ? workspace : "kiln") +
         "/tests/runtime/tiny_classifier.kiln";
}

TEST(CompiledModelConcurrency, EightSessionsMatchSingleThreaded) {
  constexpr int kThreads = 8, kRuns = 100;
  std::shared_ptr<Runtime> runtime;
  ASSERT_TRUE(Runtime::Create({2}, &runtime).ok());
  std::shared_ptr<const Model> model;
  Status loaded = runtime->LoadModel(ArtifactPath(), &model);
  ASSERT_TRUE(loaded.ok()) << loaded.ToString();
  ASSERT_EQ(model->inputs().size(), 1u);
  ASSERT_EQ(model->outputs().size(), 1u);
  const std::vector<int64_t> in_dims = model->inputs()[0].dims;
  const std::vector<int64_t> out_dims = model->outputs()[0].dims;

  std::vector<float> image(1 * 3 * 32 * 32);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (float& v : image) v = uniform(rng);
  std::vector<Tensor> inputs = {Tensor::Borrow(DType::F32, in_dims, image.data())};

  std::vector<float> reference(10);
  {
    std::unique_ptr<Session> session;
    ASSERT_TRUE(Session::Create(model, &session).ok());
    std::vector<Tensor> outputs = {Tensor::Borrow(DType::F32, out_dims, reference.data())};
    Status run = session->Run(inputs, &outputs);
    ASSERT_TRUE(run.ok()) << run.ToString();
  }
  float total = 0;
  for (float p : reference) total += p;
  ASSERT_NEAR(total, 1.0f, 1e-5f) << "softmax probabilities must sum to 1";

  std::vector<int> mismatches(kThreads, 0), failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::unique_ptr<Session> session;
      if (!Session::Create(model, &session).ok()) {
        failures[t] = kRuns;
        return;
      }
      std::vector<float> probabilities(10);
      for (int run = 0; run < kRuns; ++run) {
        std::fill(probabilities.begin(), probabilities.end(), -1.0f);
        std::vector<Tensor> outputs = {
            Tensor::Borrow(DType::F32, out_dims, probabilities.data())};
        if (!session->Run(inputs, &outputs).ok()) ++failures[t];
        if (probabilities != reference) ++mismatches[t];
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
