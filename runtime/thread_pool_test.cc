// ThreadPool: every index is visited exactly once, whatever the count,
// chunk and thread count; several callers at once; destruction while idle.
#include "runtime/src/thread_pool.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <set>
#include <system_error>
#include <thread>
#include <vector>

namespace kiln {
namespace {

struct Visits {
  explicit Visits(uint64_t count) : counts(count) {}
  std::vector<std::atomic<int>> counts;
  std::atomic<uint64_t> calls{0};
  std::atomic<uint64_t> oversized_chunks{0};
  uint64_t max_chunk = 0;
};

void Visit(void* context, uint64_t begin, uint64_t end) {
  auto* v = static_cast<Visits*>(context);
  v->calls.fetch_add(1, std::memory_order_relaxed);
  if (end - begin > v->max_chunk) v->oversized_chunks.fetch_add(1, std::memory_order_relaxed);
  for (uint64_t i = begin; i < end; ++i) v->counts[i].fetch_add(1, std::memory_order_relaxed);
}

// Expects every index of `v` visited exactly once and reports the first
// that was not.
void ExpectEachOnce(const Visits& v, const std::string& what) {
  for (size_t i = 0; i < v.counts.size(); ++i) {
    int n = v.counts[i].load();
    if (n != 1) {
      ADD_FAILURE() << what << ": index " << i << " visited " << n << " times";
      return;
    }
  }
}

TEST(ThreadPool, EveryIndexExactlyOnce) {
  for (int threads : {1, 2, 3, 4, 8}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.num_threads(), threads);
    for (uint64_t count : {0, 1, 2, 3, 7, 8, 63, 64, 65, 1000, 4097}) {
      for (uint64_t chunk : {0, 1, 2, 5, 64, 1000, 100000}) {
        Visits v(count);
        // One thread runs everything in one call.
        v.max_chunk = threads == 1 ? count : std::max<uint64_t>(chunk, 1);
        pool.ParallelFor(count, chunk, Visit, &v);
        std::string what = "threads " + std::to_string(threads) + " count " + std::to_string(count) +
                           " chunk " + std::to_string(chunk);
        ExpectEachOnce(v, what);
        EXPECT_EQ(v.oversized_chunks.load(), 0u) << what;
        if (count == 0) {
          EXPECT_EQ(v.calls.load(), 0u) << what;
        }
      }
    }
  }
}

// With more than one thread, more than one item is always split into
// several chunks, whatever chunk the caller asked for, so that other
// threads can take part.
TEST(ThreadPool, SeveralItemsAreSplitWhenThereAreSeveralThreads) {
  ThreadPool pool(2);
  for (uint64_t count : {2, 3, 64}) {
    Visits v(count);
    v.max_chunk = count;
    pool.ParallelFor(count, count, Visit, &v);
    ExpectEachOnce(v, "count " + std::to_string(count));
    EXPECT_GE(v.calls.load(), 2u) << "count " << count;
  }
  ThreadPool single(1);
  Visits v(64);
  v.max_chunk = 64;
  single.ParallelFor(64, 64, Visit, &v);
  EXPECT_EQ(v.calls.load(), 1u);
}

// Guided handout: a claim takes a 1/(2 x threads) share of what is left,
// rounded up, between 1 and the caller's chunk.
TEST(ThreadPool, GuidedChunkSizes) {
  EXPECT_EQ(ThreadPool::GuidedChunk(100, 1000, 2), 25u);
  EXPECT_EQ(ThreadPool::GuidedChunk(101, 1000, 2), 26u);
  EXPECT_EQ(ThreadPool::GuidedChunk(100, 10, 2), 10u);   // capped by chunk
  EXPECT_EQ(ThreadPool::GuidedChunk(3, 1000, 2), 1u);
  EXPECT_EQ(ThreadPool::GuidedChunk(1, 1000, 4), 1u);
  EXPECT_EQ(ThreadPool::GuidedChunk(100, 0, 2), 1u);     // 0 counts as 1
  EXPECT_EQ(ThreadPool::GuidedChunk(64, 1000, 4), 8u);
}

struct ChunkLog {
  std::mutex mutex;
  std::thread::id caller;
  std::vector<std::pair<uint64_t, uint64_t>> front;  // the caller's chunks
  std::vector<std::pair<uint64_t, uint64_t>> back;   // the workers'
};

void LogChunk(void* context, uint64_t begin, uint64_t end) {
  auto* log = static_cast<ChunkLog*>(context);
  std::lock_guard<std::mutex> lock(log->mutex);
  (std::this_thread::get_id() == log->caller ? log->front : log->back).emplace_back(begin, end);
}

// The caller claims from the front of the range and the workers from the
// back, so every chunk the caller ran comes before every chunk a worker
// ran (each core keeps to the same part of every dispatch). Together the
// chunks tile [0, count); from either end they never grow, and the ones
// where the two ends meet are single items, so no thread is left with a
// large last chunk while the others wait.
TEST(ThreadPool, CallerTakesTheFrontWorkersTheBackAndChunksShrinkWhereTheyMeet) {
  for (int threads : {2, 4}) {
    ThreadPool pool(threads);
    for (uint64_t count : {2, 3, 13, 147, 196, 1000, 100000}) {
      uint64_t chunk = std::max<uint64_t>(1, count / (threads * 4));  // Session::Run's
      ChunkLog log;
      log.caller = std::this_thread::get_id();
      pool.ParallelFor(count, chunk, LogChunk, &log);
      std::string what = "threads " + std::to_string(threads) + " count " + std::to_string(count);
      std::sort(log.front.begin(), log.front.end());
      std::sort(log.back.begin(), log.back.end());
      // Spinning workers may see the job before its caller starts on it,
      // and then take every chunk of a short range: either side may be empty.
      ASSERT_FALSE(log.front.empty() && log.back.empty()) << what;
      if (!log.front.empty() && !log.back.empty()) {
        EXPECT_LE(log.front.back().second, log.back.front().first) << what;
      }
      std::vector<std::pair<uint64_t, uint64_t>> all = log.front;
      all.insert(all.end(), log.back.begin(), log.back.end());
      uint64_t expected_begin = 0;
      for (auto [begin, end] : all) {
        ASSERT_EQ(begin, expected_begin) << what;
        ASSERT_GT(end, begin) << what;
        EXPECT_LE(end - begin, chunk) << what << " chunk at " << begin;
        expected_begin = end;
      }
      EXPECT_EQ(expected_begin, count) << what;
      for (size_t i = 1; i < log.front.size(); ++i)
        EXPECT_LE(log.front[i].second - log.front[i].first,
                  log.front[i - 1].second - log.front[i - 1].first) << what;
      for (size_t i = 1; i < log.back.size(); ++i)
        EXPECT_GE(log.back[i].second - log.back[i].first,
                  log.back[i - 1].second - log.back[i - 1].first) << what;
      // The last claim, whichever end made it, is a single item.
      auto size = [](const std::pair<uint64_t, uint64_t>& c) { return c.second - c.first; };
      EXPECT_TRUE((!log.front.empty() && size(log.front.back()) == 1) ||
                  (!log.back.empty() && size(log.back.front()) == 1)) << what;
    }
  }
}

// A claim packs both ends of the range into 32 bits each; a longer range
// runs as slices and still reaches fn with its own indices.
TEST(ThreadPool, RangesLongerThan32BitsRunAsSlices) {
  ThreadPool pool(2);
  const uint64_t count = (uint64_t{1} << 32) + 5;
  ChunkLog log;
  log.caller = std::this_thread::get_id();
  pool.ParallelFor(count, count, LogChunk, &log);  // guided chunks: few calls
  std::vector<std::pair<uint64_t, uint64_t>> all = log.front;
  all.insert(all.end(), log.back.begin(), log.back.end());
  std::sort(all.begin(), all.end());
  uint64_t expected_begin = 0;
  for (auto [begin, end] : all) {
    ASSERT_EQ(begin, expected_begin);
    ASSERT_GT(end, begin);
    expected_begin = end;
  }
  EXPECT_EQ(expected_begin, count);
}

// Two chunks that each wait for the other can only finish if two threads
// run them at the same time: the pool's worker must join the call.
struct Rendezvous {
  std::atomic<int> arrived{0};
  std::atomic<bool> timed_out{false};
};

void MeetOther(void* context, uint64_t, uint64_t) {
  auto* r = static_cast<Rendezvous*>(context);
  r->arrived.fetch_add(1);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (r->arrived.load() < 2) {
    if (std::chrono::steady_clock::now() > deadline) {
      r->timed_out = true;
      return;
    }
    std::this_thread::yield();
  }
}

TEST(ThreadPool, WorkersJoinACall) {
  ThreadPool pool(2);
  for (int i = 0; i < 20; ++i) {
    Rendezvous r;
    pool.ParallelFor(2, 1, MeetOther, &r);
    ASSERT_FALSE(r.timed_out.load()) << "call " << i << ": the second chunk never ran in parallel";
    // Let the worker fall asleep now and then, so both waking paths run.
    if (i % 5 == 4) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

TEST(ThreadPool, ConcurrentCallersFromFourThreads) {
  for (int pool_threads : {1, 2, 4}) {
    ThreadPool pool(pool_threads);
    constexpr int kCallers = 4, kCalls = 300;
    std::vector<int> failures(kCallers, 0);
    std::vector<std::thread> callers;
    for (int c = 0; c < kCallers; ++c) {
      callers.emplace_back([&pool, &failures, c] {
        for (int call = 0; call < kCalls; ++call) {
          uint64_t count = 1 + static_cast<uint64_t>((call * 37 + c * 11) % 300);
          uint64_t chunk = 1 + static_cast<uint64_t>(call % 7);
          Visits v(count);
          v.max_chunk = pool.num_threads() == 1 ? count : chunk;
          pool.ParallelFor(count, chunk, Visit, &v);
          for (auto& n : v.counts) failures[c] += n.load() != 1;
          failures[c] += v.oversized_chunks.load() != 0;
          // Now and then leave the pool idle long enough for it to sleep.
          if (call % 100 == 99) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
      });
    }
    for (std::thread& t : callers) t.join();
    for (int c = 0; c < kCallers; ++c)
      EXPECT_EQ(failures[c], 0) << "pool of " << pool_threads << ", caller " << c;
  }
}

TEST(ThreadPool, DestroyedWhileIdle) {
  for (int threads : {1, 2, 8}) {
    // Never used.
    { ThreadPool pool(threads); }
    // Used, then destroyed at once, while its workers still spin or are
    // still finishing their part of the call, many times over to meet
    // every interleaving.
    for (int i = 0; i < 200; ++i) {
      ThreadPool pool(threads);
      uint64_t count = 1 + i % 9;
      Visits v(count);
      v.max_chunk = threads == 1 ? count : 1;
      pool.ParallelFor(count, 1, Visit, &v);
      ExpectEachOnce(v, "before destruction");
    }
    // Used, then destroyed after its workers went to sleep.
    {
      ThreadPool pool(threads);
      Visits v(100);
      v.max_chunk = threads == 1 ? 100 : 3;
      pool.ParallelFor(100, 3, Visit, &v);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
}

// A pool whose threads cannot all start throws std::system_error (which
// the API guards turn into RESOURCE_EXHAUSTED) after joining the workers
// it did start, instead of destroying joinable threads (std::terminate).
// Run in a child process whose address space is capped just above its
// current size, so that only a few 8 MiB thread stacks fit.
[[noreturn]] void StartPoolUnderAddressSpaceCap() {
  long pages = 0;
  FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr || std::fscanf(statm, "%ld", &pages) != 1) std::_Exit(3);
  std::fclose(statm);
  rlim_t cap = static_cast<rlim_t>(pages) * sysconf(_SC_PAGESIZE) + (32u << 20);
  rlimit limit{cap, cap};
  if (setrlimit(RLIMIT_AS, &limit) != 0) std::_Exit(4);
  try {
    ThreadPool pool(64);
  } catch (const std::system_error& e) {
    std::fprintf(stderr, "system_error: %s\n", e.what());
    std::_Exit(0);
  }
  std::_Exit(5);  // all 63 workers started: the cap did not bite
}

// Not under ASan/TSan, whose shadow memory cannot live under such a cap.
TEST(ThreadPool, ThreadsThatCannotStartAreAnErrorNotAnAbort) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "RLIMIT_AS cannot cap a sanitized process";
#else
  EXPECT_EXIT(StartPoolUnderAddressSpaceCap(), ::testing::ExitedWithCode(0), "system_error");
#endif
}

}  // namespace
}  // namespace kiln
