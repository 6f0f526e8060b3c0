#include "runtime/src/thread_pool.h"

#include <algorithm>

namespace kiln {

ThreadPool::ThreadPool(int num_threads) {
  for (int i = 1; i < num_threads; ++i)
    workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_available_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::RunChunks(Job* job) {
  for (;;) {
    uint64_t begin = job->next.fetch_add(job->chunk, std::memory_order_relaxed);
    if (begin >= job->count) return;
    job->fn(job->context, begin, std::min(job->count, begin + job->chunk));
  }
}

void ThreadPool::WorkerLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_available_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (stopping_) return;
    Job* job = jobs_.front();
    if (job->next.load(std::memory_order_relaxed) >= job->count) {
      // Fully claimed: nobody needs to join it any more.
      jobs_.pop_front();
      continue;
    }
    ++job->helpers;
    lock.unlock();
    RunChunks(job);
    lock.lock();
    if (--job->helpers == 0) job->helpers_done.notify_all();
  }
}

void ThreadPool::ParallelFor(uint64_t count, uint64_t chunk, RangeFn fn,
                             void* context) {
  if (count == 0) return;
  chunk = std::max<uint64_t>(chunk, 1);
  if (workers_.empty() || count <= chunk) {
    fn(context, 0, count);
    return;
  }
  Job job;
  job.fn = fn;
  job.context = context;
  job.count = count;
  job.chunk = chunk;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(&job);
  }
  uint64_t chunks = (count + chunk - 1) / chunk;
  if (chunks - 1 >= workers_.size())
    work_available_.notify_all();
  else
    for (uint64_t i = 1; i < chunks; ++i) work_available_.notify_one();
  RunChunks(&job);
  // Every chunk is claimed; wait for the workers still running one. A
  // worker can only join while the job is listed, so unlisting it first
  // makes the wait final.
  std::unique_lock<std::mutex> lock(mutex_);
  auto it = std::find(jobs_.begin(), jobs_.end(), &job);
  if (it != jobs_.end()) jobs_.erase(it);
  job.helpers_done.wait(lock, [&job] { return job.helpers == 0; });
}

}  // namespace kiln
