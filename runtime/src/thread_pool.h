// thread_pool.h - runs the workgroups of a dispatch on all cores.
//
// One pool per Runtime, shared by every Session. ParallelFor may be called
// from several threads at once: each call is a job in a shared list, idle
// workers help whichever job is oldest, and each caller works on its own
// job too, so a call never waits for a busy pool to pick it up. Thread-safe.
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
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(context, begin, end) over chunks covering [0, count), at most
  // `chunk` items each, and returns when every chunk has finished.
  using RangeFn = void (*)(void* context, uint64_t begin, uint64_t end);
  void ParallelFor(uint64_t count, uint64_t chunk, RangeFn fn, void* context);

 private:
  struct Job {
    RangeFn fn;
    void* context;
    uint64_t count;
    uint64_t chunk;
    std::atomic<uint64_t> next{0};
    int helpers = 0;  // workers inside RunChunks; guarded by mutex_
    std::condition_variable helpers_done;
  };
  static void RunChunks(Job* job);
  void WorkerLoop();

  std::mutex mutex_;
  std::condition_variable work_available_;
  std::deque<Job*> jobs_;  // jobs that may still have unclaimed chunks
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace kiln

#endif  // KILN_RUNTIME_SRC_THREAD_POOL_H_
