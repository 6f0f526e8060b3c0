// thread_pool.h - runs the workgroups of a dispatch on all cores.
//
// One pool per Runtime, shared by every Session. ParallelFor may be called
// from several threads at once: each call is a job in a shared list, idle
// workers help whichever job is oldest, and each caller works on its own
// job too, so a call never waits for a busy pool to pick it up. Thread-safe.
//
// A plan is a sequence of short dispatches, so the pool's cost per call
// matters as much as its balance. Waking a sleeping thread costs a system
// call on each side and tens of microseconds of latency, so both sides spin
// briefly first: a worker that runs out of work watches a generation
// counter (bumped whenever a job is listed) for kSpinNs before it sleeps,
// and a caller that has finished its own share watches its job's helper
// count for kSpinNs before it sleeps. A caller issues a wake-up only when
// some worker is actually asleep. Spinning is bounded (an idle pool
// sleeps) and yields the core now and then, which keeps it from starving
// other threads when there are more runnable threads than cores.
#ifndef KILN_RUNTIME_SRC_THREAD_POOL_H_
#define KILN_RUNTIME_SRC_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace kiln {

class ThreadPool {
 public:
  // `num_threads` counts the calling thread, so num_threads - 1 workers.
  explicit ThreadPool(int num_threads);
  // Stops and joins the workers; no ParallelFor may be running.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(context, begin, end) over chunks covering [0, count) and
  // returns when every chunk has finished. A chunk has at most `chunk`
  // items (0 counts as 1), and fewer where needed to give every thread a
  // chunk: with more than one thread, more than one item is never a
  // single chunk. The caller claims chunks from the front of the range and
  // the workers from the back, so with 2 threads each core keeps to the
  // same part of every call's range. Chunks shrink where the ends meet
  // (guided: GuidedChunk of what is left), so the threads finish together.
  // A pool of one thread makes a single call over [0, count).
  using RangeFn = void (*)(void* context, uint64_t begin, uint64_t end);
  void ParallelFor(uint64_t count, uint64_t chunk, RangeFn fn, void* context);

  // The size of the chunk claimed when `remaining` items are left: a
  // 1/(2 x threads) share of them, rounded up, at least 1 and at most
  // `chunk` (0 counts as 1).
  static uint64_t GuidedChunk(uint64_t remaining, uint64_t chunk, uint64_t threads);

  // How long either side spins before it sleeps.
  static constexpr int64_t kSpinNs = 50'000;

 private:
  struct Job {
    RangeFn fn;
    void* context;
    uint64_t chunk;
    uint64_t threads;
    // The unclaimed items [front, back), packed as back << 32 | front:
    // the caller claims from the front and the workers from the back.
    std::atomic<uint64_t> range{0};
    // Workers inside RunChunks. Changed only under mutex_; the caller also
    // reads it while spinning.
    std::atomic<int> helpers{0};
    bool caller_sleeping = false;  // guarded by mutex_
    std::condition_variable helpers_done;
  };
  static void RunChunks(Job* job, bool from_back);
  static bool HasUnclaimed(const Job* job);
  // The oldest job with unclaimed chunks, counted as helped; drops fully
  // claimed jobs on the way. Needs mutex_.
  Job* ClaimJobLocked();
  void WorkerLoop();
  // Tells the workers to stop and joins them (the destructor, and a
  // constructor that could not start them all).
  void StopWorkers() noexcept;

  // What spinning workers watch, on a cache line of its own; both change
  // only under mutex_. The generation is bumped whenever a job is listed
  // or the pool stops; listed_jobs_ mirrors jobs_.size(), so a worker that
  // sees a new generation but no job listed any more (the usual case when
  // a call's body is so short that its caller finished it alone) need not
  // take the mutex.
  alignas(64) std::atomic<uint64_t> generation_{0};
  std::atomic<size_t> listed_jobs_{0};

  alignas(64) std::mutex mutex_;
  std::condition_variable work_available_;
  std::deque<Job*> jobs_;       // jobs that may still have unclaimed chunks
  bool stopping_ = false;       // guarded by mutex_
  int sleeping_workers_ = 0;    // guarded by mutex_
  std::vector<std::thread> workers_;
};

}  // namespace kiln

#endif  // KILN_RUNTIME_SRC_THREAD_POOL_H_
