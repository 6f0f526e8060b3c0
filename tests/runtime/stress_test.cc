// The stress test of issue 12: 64 threads, each with its own Session over one
// Model compiled by kilnc (the bundled example classifier: convolutions,
// pooling, a matmul and a softmax in ten dispatches), many runs each.
//   - Every output is bit-identical (memcmp) to a single-threaded run.
//   - Resident memory stays flat after warm-up: RSS is read from
//     /proc/self/statm once every thread has made its Session and run a few
//     times, and again after the last run (before any Session is freed);
//     the growth must stay below a small bound. Both figures are printed.
//   - The same again with caller-owned output buffers.
//
// Size: KILN_STRESS_THREADS (default 64) and KILN_STRESS_RUNS (runs per
// thread, warm-up included; default 100, the size CI runs). The full size of
// the issue is KILN_STRESS_RUNS=1000. KILN_STRESS_RSS_LIMIT_MB overrides the
// growth bound (default 8 MiB; 512 MiB under ThreadSanitizer or
// AddressSanitizer, see below).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kiln/runtime.h"

// Sanitizers keep memory of their own that grows with the work done (TSan's
// synchronisation history: +61 MiB over the full size here; ASan's
// quarantine of freed blocks, up to 256 MiB), so under them the bound only
// catches runaway growth.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define KILN_STRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define KILN_STRESS_SANITIZER 1
#endif
#endif

namespace kiln {
namespace {

int EnvInt(const char* name, int fallback) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  char* end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value <= 0 || value > 1000000) {
    ADD_FAILURE() << name << "='" << text << "' is not a positive integer; using " << fallback;
    return fallback;
  }
  return static_cast<int>(value);
}

std::string ArtifactPath() {
  const char* dir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  return std::string(dir ? dir : ".") + "/" + (workspace ? workspace : "kiln") +
         "/tests/runtime/tiny_classifier.kiln";
}

// Resident set size in bytes (the second field of /proc/self/statm, in pages).
size_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t total_pages = 0, resident_pages = 0;
  statm >> total_pages >> resident_pages;
  return resident_pages * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

double MiB(size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

// All workers wait at each phase boundary until the main thread, having
// measured, lets them continue (C++17 has no std::barrier).
class Phases {
 public:
  explicit Phases(int workers) : workers_(workers) {}
  // Worker: arrive at `phase` and wait for the main thread's Release(phase).
  void ArriveAndWait(int phase) {
    std::unique_lock<std::mutex> lock(mu_);
    ++arrived_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return released_ >= phase; });
  }
  // Main: wait until every worker arrived at `phase` (each phase counts all
  // workers once more).
  void WaitAll(int phase) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return arrived_ >= phase * workers_; });
  }
  void Release(int phase) {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = phase;
    cv_.notify_all();
  }

 private:
  const int workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  int arrived_ = 0;
  int released_ = 0;
};

class StressTest : public ::testing::Test {
 protected:
  void SetUp() override {
    threads_ = EnvInt("KILN_STRESS_THREADS", 64);
    runs_ = EnvInt("KILN_STRESS_RUNS", 100);
    warmup_ = std::max(1, std::min(10, runs_ / 10));
#ifdef KILN_STRESS_SANITIZER
    rss_limit_mb_ = EnvInt("KILN_STRESS_RSS_LIMIT_MB", 512);
#else
    rss_limit_mb_ = EnvInt("KILN_STRESS_RSS_LIMIT_MB", 8);
#endif
    ASSERT_TRUE(Runtime::Create({2}, &runtime_).ok());
    Status loaded = runtime_->LoadModel(ArtifactPath(), &model_);
    ASSERT_TRUE(loaded.ok()) << loaded.ToString();
    ASSERT_EQ(model_->inputs().size(), 1u);
    ASSERT_EQ(model_->outputs().size(), 1u);
    ASSERT_GE(model_->description().steps.size(), 5u)
        << "the stress model should run several dispatches";

    const TensorInfo& in = model_->inputs()[0];
    input_.resize(in.byte_size / sizeof(float));
    std::mt19937 rng(12);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float& v : input_) v = uniform(rng);

    // The single-threaded reference, from a Session that no other thread uses.
    std::unique_ptr<Session> session;
    ASSERT_TRUE(Session::Create(model_, &session).ok());
    std::vector<Tensor> outputs;
    Status run = session->Run(Inputs(), &outputs);
    ASSERT_TRUE(run.ok()) << run.ToString();
    ASSERT_EQ(outputs.size(), 1u);
    const float* probabilities = outputs[0].data_as<float>();
    reference_.assign(probabilities, probabilities + outputs[0].element_count());
    float total = 0;
    for (float p : reference_) total += p;
    ASSERT_NEAR(total, 1.0f, 1e-5f) << "softmax probabilities must sum to 1";
  }

  std::vector<Tensor> Inputs() {
    return {Tensor::Borrow(DType::F32, model_->inputs()[0].dims, input_.data())};
  }

  // Runs the stress with runtime-owned (Session::Run allocates) or
  // caller-owned output buffers.
  void Stress(bool caller_owned) {
    const std::vector<int64_t> out_dims = model_->outputs()[0].dims;
    const size_t out_bytes = reference_.size() * sizeof(float);
    std::vector<int> failures(threads_, 0), mismatches(threads_, 0), runs_done(threads_, 0);
    std::vector<std::string> first_error(threads_);
    Phases phases(threads_);
    std::vector<std::thread> workers;
    const std::vector<Tensor> inputs = Inputs();

    auto work = [&](int t) {
      std::unique_ptr<Session> session;
      Status created = Session::Create(model_, &session);
      std::vector<float> buffer(reference_.size());
      auto run_once = [&] {
        std::vector<Tensor> outputs;
        if (caller_owned) {
          std::fill(buffer.begin(), buffer.end(), -1.0f);
          outputs.push_back(Tensor::Borrow(DType::F32, out_dims, buffer.data()));
        }
        Status s = session->Run(inputs, &outputs);
        ++runs_done[t];
        if (!s.ok()) {
          if (failures[t]++ == 0) first_error[t] = s.ToString();
          return;
        }
        const void* got = caller_owned ? static_cast<const void*>(buffer.data())
                                       : (outputs.size() == 1 ? outputs[0].data() : nullptr);
        if (!got || (!caller_owned && outputs[0].byte_size() != out_bytes) ||
            std::memcmp(got, reference_.data(), out_bytes) != 0)
          ++mismatches[t];
      };
      if (!created.ok()) {
        failures[t] = runs_;
        first_error[t] = created.ToString();
      } else {
        for (int r = 0; r < warmup_; ++r) run_once();
      }
      phases.ArriveAndWait(1);
      if (created.ok())
        for (int r = warmup_; r < runs_; ++r) run_once();
      // Hold the Session until the main thread has read the final RSS.
      phases.ArriveAndWait(2);
    };

    const auto start = std::chrono::steady_clock::now();
    for (int t = 0; t < threads_; ++t) workers.emplace_back(work, t);
    phases.WaitAll(1);
    const size_t rss_warm = ResidentBytes();
    const auto warm = std::chrono::steady_clock::now();
    phases.Release(1);
    phases.WaitAll(2);
    const size_t rss_end = ResidentBytes();
    const auto end = std::chrono::steady_clock::now();
    phases.Release(2);
    for (std::thread& w : workers) w.join();

    const double measured_s = std::chrono::duration<double>(end - warm).count();
    const double total_s = std::chrono::duration<double>(end - start).count();
    const long long measured_runs = static_cast<long long>(threads_) * (runs_ - warmup_);
    std::printf(
        "stress (%s outputs): %d threads x %d runs (%d warm-up), %.2f s in all, "
        "%.2f s after warm-up (%.1f us per run, all threads together); "
        "RSS after warm-up %.1f MiB, at the end %.1f MiB (growth %+.2f MiB, limit %d MiB)\n",
        caller_owned ? "caller-owned" : "runtime-owned", threads_, runs_, warmup_, total_s,
        measured_s, measured_runs ? 1e6 * measured_s / measured_runs : 0.0, MiB(rss_warm),
        MiB(rss_end), MiB(rss_end) - MiB(rss_warm), rss_limit_mb_);
    std::fflush(stdout);

    for (int t = 0; t < threads_; ++t) {
      EXPECT_EQ(runs_done[t], failures[t] == runs_ ? 0 : runs_) << "thread " << t;
      EXPECT_EQ(failures[t], 0) << "thread " << t << ": " << first_error[t];
      EXPECT_EQ(mismatches[t], 0) << "thread " << t << " got outputs that differ from the "
                                  << "single-threaded run";
    }
    EXPECT_LT(static_cast<double>(rss_end), static_cast<double>(rss_warm) + rss_limit_mb_ * 1048576.0)
        << "resident memory grew from " << MiB(rss_warm) << " MiB after warm-up to "
        << MiB(rss_end) << " MiB after " << runs_ << " runs per thread";
  }

  int threads_ = 64, runs_ = 100, warmup_ = 10, rss_limit_mb_ = 8;
  std::shared_ptr<Runtime> runtime_;
  std::shared_ptr<const Model> model_;
  std::vector<float> input_;
  std::vector<float> reference_;
};

TEST_F(StressTest, RuntimeOwnedOutputsMatchSingleThreadedAndMemoryStaysFlat) {
  Stress(/*caller_owned=*/false);
}

TEST_F(StressTest, CallerOwnedOutputsMatchSingleThreadedAndMemoryStaysFlat) {
  Stress(/*caller_owned=*/true);
}

}  // namespace
}  // namespace kiln
