// inference_service_test.cc - the session pool and its queue without HTTP:
// concurrent callers get bit-identical answers, the admission limit holds,
// and Shutdown finishes admitted requests. Also run under TSan by hand:
//   bazel test --config=tsan //examples/embed_service:inference_service_test
#include "inference_service.h"

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace kiln_service {
namespace {

std::string g_model_path;

std::vector<kiln::NamedTensor> Inputs(const kiln::Model& model, float fill) {
  std::vector<kiln::NamedTensor> inputs;
  for (const kiln::TensorInfo& info : model.inputs()) {
    kiln::NamedTensor t{info.name, {}};
    EXPECT_TRUE(kiln::Tensor::Allocate(info.dtype, info.dims, &t.tensor).ok());
    for (int64_t i = 0; i < t.tensor.element_count(); ++i)
      t.tensor.data_as<float>()[i] = fill * static_cast<float>(i % 7);
    inputs.push_back(std::move(t));
  }
  return inputs;
}

TEST(InferenceService, ConcurrentCallersGetTheSingleThreadedAnswer) {
  ServiceOptions options;
  options.sessions = 3;
  options.queue_capacity = 64;
  std::unique_ptr<InferenceService> service;
  ASSERT_TRUE(InferenceService::Create(g_model_path, options, &service).ok());
  std::vector<kiln::NamedTensor> expected;
  InferenceService::Result first = service->Infer(Inputs(service->model(), 0.25f), &expected);
  ASSERT_EQ(first.admission, InferenceService::Admission::kRan);
  ASSERT_TRUE(first.status.ok()) << first.status.ToString();
  ASSERT_EQ(expected.size(), service->model().outputs().size());

  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 12; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        std::vector<kiln::NamedTensor> outputs;
        InferenceService::Result r = service->Infer(Inputs(service->model(), 0.25f), &outputs);
        if (r.admission != InferenceService::Admission::kRan || !r.status.ok() ||
            outputs.size() != expected.size() ||
            std::memcmp(outputs[0].tensor.data(), expected[0].tensor.data(),
                        expected[0].tensor.byte_size()) != 0)
          ++mismatches;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(service->queued(), 0u);
  EXPECT_EQ(service->busy(), 0u);
}

TEST(InferenceService, AdmitsSessionsPlusQueueAndDrainsOnShutdown) {
  ServiceOptions options;
  options.sessions = 1;
  options.queue_capacity = 2;
  options.simulate_run_ms = 200;
  std::unique_ptr<InferenceService> service;
  ASSERT_TRUE(InferenceService::Create(g_model_path, options, &service).ok());
  std::atomic<int> ran{0}, full{0}, other{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      std::vector<kiln::NamedTensor> outputs;
      InferenceService::Result r = service->Infer(Inputs(service->model(), 1.0f), &outputs);
      if (r.admission == InferenceService::Admission::kRan && r.status.ok()) ++ran;
      else if (r.admission == InferenceService::Admission::kQueueFull) ++full;
      else ++other;
    });
  }
  // Once every caller has its admission (refused, waiting, running or
  // done), shut down while admitted requests still wait: they all finish.
  while (static_cast<size_t>(ran + full + other) + service->queued() + service->busy() < 8)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const size_t waiting_at_shutdown = service->queued();
  service->Shutdown();
  for (std::thread& t : threads) t.join();
  EXPECT_GE(ran.load(), 3);  // one running and two waiting were admitted
  EXPECT_EQ(ran + full, 8);
  EXPECT_EQ(other.load(), 0);
  EXPECT_GE(waiting_at_shutdown, 1u);
  std::vector<kiln::NamedTensor> outputs;
  EXPECT_EQ(service->Infer(Inputs(service->model(), 1.0f), &outputs).admission,
            InferenceService::Admission::kShuttingDown);
}

TEST(InferenceService, BadInputsGetTheRuntimesStatus) {
  std::unique_ptr<InferenceService> service;
  ASSERT_TRUE(InferenceService::Create(g_model_path, {}, &service).ok());
  std::vector<kiln::NamedTensor> inputs = Inputs(service->model(), 1.0f), outputs;
  inputs[0].name = "nope";
  InferenceService::Result r = service->Infer(inputs, &outputs);
  EXPECT_EQ(r.admission, InferenceService::Admission::kRan);
  EXPECT_EQ(r.status.code(), kiln::StatusCode::kNotFound);
  EXPECT_EQ(r.status.message().rfind("no input named 'nope'", 0), 0u) << r.status.message();
}

TEST(InferenceService, CreateRefusesBadOptionsAndFiles) {
  std::unique_ptr<InferenceService> service;
  ServiceOptions options;
  options.sessions = 0;
  EXPECT_EQ(InferenceService::Create(g_model_path, options, &service).code(),
            kiln::StatusCode::kInvalidArgument);
  kiln::Status s = InferenceService::Create("/nonexistent.kiln", {}, &service);
  EXPECT_EQ(s.code(), kiln::StatusCode::kNotFound) << s.ToString();
  EXPECT_EQ(service, nullptr);
}

}  // namespace
}  // namespace kiln_service

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: inference_service_test MODEL.kiln\n");
    return 2;
  }
  kiln_service::g_model_path = argv[1];
  return RUN_ALL_TESTS();
}
