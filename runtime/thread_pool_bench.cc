// thread_pool_bench - what one ParallelFor call costs the runtime.
//
//   bazel run //runtime:thread_pool_bench [-- --calls N --repetitions N]
//
// For 1 and 2 threads and 1, 2, 8 and 64 workgroups, calls ParallelFor
// back to back with the chunk size Session::Run uses and prints the
// median over the repetitions of the mean nanoseconds per call: first
// with a tiny body (one store per workgroup), the pool's own cost, then
// with about 1 us of work per workgroup, next to the ideal time (the work
// divided evenly over the threads). It also prints the share of
// workgroups that the pool's workers ran rather than the caller: a cheap
// call that leaves all the work to the caller is not parallel. A benchmark
// prints figures; it never fails on time.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "runtime/src/thread_pool.h"

namespace kiln {
namespace {

// Iterations of Work() that take about 1 us; set by Calibrate().
uint64_t work_per_us = 0;

uint64_t Work(uint64_t iterations, uint64_t seed) {
  uint64_t x = seed;
  for (uint64_t i = 0; i < iterations; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    asm volatile("" : "+r"(x));
  }
  return x;
}

// The fastest of several timings, so that being descheduled once does not
// skew it.
void Calibrate() {
  const uint64_t iterations = 1 << 18;
  double best_ns = 1e30;
  for (int i = 0; i < 20; ++i) {
    auto start = std::chrono::steady_clock::now();
    Work(iterations, 1);
    best_ns = std::min(best_ns, std::chrono::duration<double, std::nano>(
                                    std::chrono::steady_clock::now() - start).count());
  }
  work_per_us = std::max<uint64_t>(1, static_cast<uint64_t>(iterations * 1000.0 / best_ns));
}

struct Body {
  std::vector<uint64_t> visits;
  uint64_t work = 0;  // Work() iterations per workgroup
  std::thread::id caller;
  std::atomic<uint64_t> by_workers{0};
};

void Touch(void* context, uint64_t begin, uint64_t end) {
  auto* body = static_cast<Body*>(context);
  for (uint64_t i = begin; i < end; ++i) {
    body->visits[i * 8] += body->work ? Work(body->work, i) : 1;  // one cache line each
  }
  if (std::this_thread::get_id() != body->caller)
    body->by_workers.fetch_add(end - begin, std::memory_order_relaxed);
}

struct Result {
  double ns_per_call;
  double worker_share;  // of all workgroups, over every timed call
};

Result Measure(ThreadPool& pool, uint64_t workgroups, uint64_t work, long calls, int repetitions) {
  Body body;
  body.visits.assign(workgroups * 8, 0);
  body.work = work;
  body.caller = std::this_thread::get_id();
  // The chunk Session::Run asks for: about four chunks per thread.
  uint64_t chunk = std::max<uint64_t>(1, workgroups / (static_cast<uint64_t>(pool.num_threads()) * 4));
  for (long i = 0; i < calls / 10; ++i) pool.ParallelFor(workgroups, chunk, Touch, &body);
  body.by_workers = 0;
  std::vector<double> ns(static_cast<size_t>(repetitions));
  for (double& n : ns) {
    auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < calls; ++i) pool.ParallelFor(workgroups, chunk, Touch, &body);
    n = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() /
        static_cast<double>(calls);
  }
  std::sort(ns.begin(), ns.end());
  return {ns[ns.size() / 2], static_cast<double>(body.by_workers.load()) /
                                 (static_cast<double>(workgroups) * calls * repetitions)};
}

void PrintRows(const char* body, uint64_t work, long calls, int repetitions) {
  for (int threads : {1, 2}) {
    ThreadPool pool(threads);
    for (uint64_t workgroups : {1, 2, 8, 64}) {
      Result r = Measure(pool, workgroups, work, calls, repetitions);
      char ideal[32] = "-";
      if (work != 0)
        std::snprintf(ideal, sizeof ideal, "%.0f",
                      1000.0 * static_cast<double>(workgroups) / std::min<uint64_t>(threads, workgroups));
      std::printf("%-10s %7d %10llu %9.0f %9s %14.1f%%\n", body, threads,
                  static_cast<unsigned long long>(workgroups), r.ns_per_call, ideal, 100.0 * r.worker_share);
    }
  }
}

int Main(int argc, char** argv) {
  long calls = 20000;
  int repetitions = 9;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--calls") == 0) {
      calls = std::max(1L, std::atol(argv[i + 1]));
    } else if (std::strcmp(argv[i], "--repetitions") == 0) {
      repetitions = std::max(1, std::atoi(argv[i + 1]));
    } else {
      std::fprintf(stderr, "usage: thread_pool_bench [--calls N] [--repetitions N]\n");
      return 2;
    }
  }
  Calibrate();
  std::printf("ParallelFor, ns per call: median of %d repetitions of %ld calls; %u cores\n",
              repetitions, calls, std::thread::hardware_concurrency());
  std::printf("%-10s %7s %10s %9s %9s %15s\n", "body", "threads", "workgroups", "ns/call", "ideal",
              "workers' share");
  PrintRows("tiny", 0, calls, repetitions);
  PrintRows("1us/wg", work_per_us, std::max(1L, calls / 10), repetitions);
  return 0;
}

}  // namespace
}  // namespace kiln

int main(int argc, char** argv) { return kiln::Main(argc, argv); }
