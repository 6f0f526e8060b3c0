#include "runtime/src/thread_pool.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace kiln {
namespace {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spins while `waiting()` holds, for at most ThreadPool::kSpinNs. Returns
// true when it stopped holding, false on timeout. Every few dozen
// iterations it reads the clock and yields the core: free when the core is
// otherwise idle, and on a machine with more runnable threads than cores
// (shared build machines) it lets the thread it waits for run.
template <typename Waiting>
bool SpinWhile(Waiting waiting) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::nanoseconds(ThreadPool::kSpinNs);
  for (unsigned i = 1;; ++i) {
    if (!waiting()) return true;
    CpuRelax();
    if (i % 64 == 0) {
      if (Clock::now() >= deadline) return !waiting();
      std::this_thread::yield();
    }
  }
}

// Locks `mutex` as std::unique_lock does, but tries for a while first:
// the pool's critical sections are a few dozen instructions, and a
// contended std::mutex sleeps in the kernel at once.
std::unique_lock<std::mutex> LockSpinning(std::mutex& mutex) {
  for (int i = 0; i < 256; ++i) {
    if (mutex.try_lock()) return std::unique_lock<std::mutex>(mutex, std::adopt_lock);
    CpuRelax();
  }
  return std::unique_lock<std::mutex>(mutex);
}

}  // namespace

ThreadPool::ThreadPool(int num_threads) {
  try {
    for (int i = 1; i < num_threads; ++i)
      workers_.emplace_back([this] { WorkerLoop(); });
  } catch (...) {
    // A thread that cannot start throws std::system_error (the caller's
    // guard reports RESOURCE_EXHAUSTED). The destructor does not run for a
    // constructor that throws, and destroying a joinable std::thread calls
    // std::terminate, so the workers already started are joined here.
    StopWorkers();
    throw;
  }
}

ThreadPool::~ThreadPool() { StopWorkers(); }

void ThreadPool::StopWorkers() noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    generation_.fetch_add(1, std::memory_order_release);
  }
  work_available_.notify_all();
  for (std::thread& t : workers_) t.join();
}

uint64_t ThreadPool::GuidedChunk(uint64_t remaining, uint64_t chunk, uint64_t threads) {
  uint64_t share = (remaining + 2 * threads - 1) / (2 * threads);
  return std::clamp<uint64_t>(share, 1, std::max<uint64_t>(chunk, 1));
}

void ThreadPool::RunChunks(Job* job, bool from_back) {
  // Guided handout: a claim takes at most 1/(2 x threads) of what is left
  // (and at most job->chunk), so chunks shrink towards the middle where
  // the two ends meet and the threads finish within about one item of each
  // other. The caller claims from the front and the workers from the back,
  // so with 2 threads each core handles about the same part of every
  // dispatch's range. Claiming both from the front interleaved the owners
  // differently on every call, and resnet18's im2col steps ran slower on 2
  // threads than on 1; front/back measured resnet18_style 0.95x and
  // mobilenet_v2 0.91x of that at 2 threads (p50 pairs, Zen 4). Why is not
  // established: a line ping-pong between the two cores cost only ~35 ns.
  uint64_t range = job->range.load(std::memory_order_relaxed);
  for (;;) {
    uint64_t front = range & 0xffffffffu, back = range >> 32;
    if (front >= back) return;
    uint64_t size = GuidedChunk(back - front, job->chunk, job->threads);
    uint64_t begin = from_back ? back - size : front;
    uint64_t next = from_back ? (begin << 32 | front) : (back << 32 | (front + size));
    if (!job->range.compare_exchange_weak(range, next, std::memory_order_relaxed))
      continue;  // `range` now holds the current value
    job->fn(job->context, begin, begin + size);
    range = job->range.load(std::memory_order_relaxed);
  }
}

bool ThreadPool::HasUnclaimed(const Job* job) {
  uint64_t range = job->range.load(std::memory_order_relaxed);
  return (range & 0xffffffffu) < (range >> 32);
}

ThreadPool::Job* ThreadPool::ClaimJobLocked() {
  while (!jobs_.empty()) {
    Job* job = jobs_.front();
    if (HasUnclaimed(job)) {
      job->helpers.fetch_add(1, std::memory_order_relaxed);
      return job;
    }
    jobs_.pop_front();  // fully claimed: nobody needs to join it any more
    listed_jobs_.store(jobs_.size(), std::memory_order_relaxed);
  }
  return nullptr;
}

void ThreadPool::WorkerLoop() {
  std::unique_lock<std::mutex> lock = LockSpinning(mutex_);
  for (;;) {
    if (stopping_) return;
    if (Job* job = ClaimJobLocked()) {
      lock.unlock();
      RunChunks(job, /*from_back=*/true);
      lock = LockSpinning(mutex_);
      // The caller returns once it sees zero under the mutex, so this is
      // the last touch of `job`.
      if (job->helpers.fetch_sub(1, std::memory_order_release) == 1 && job->caller_sleeping)
        job->helpers_done.notify_one();
      continue;
    }
    // Every job listed from now on bumps the generation. A change with no
    // job listed any more was a call its caller finished alone: keep
    // spinning without the mutex.
    uint64_t seen = generation_.load(std::memory_order_relaxed);
    lock.unlock();
    bool changed = SpinWhile([this, &seen] {
      uint64_t now = generation_.load(std::memory_order_acquire);
      if (now == seen) return true;
      if (listed_jobs_.load(std::memory_order_relaxed) != 0) return false;
      seen = now;
      return true;
    });
    lock = LockSpinning(mutex_);
    if (!changed) {
      ++sleeping_workers_;
      // stopping_ too: the spin may have passed over the stop's bump.
      work_available_.wait(lock, [this, &seen] {
        return stopping_ || generation_.load(std::memory_order_relaxed) != seen;
      });
      --sleeping_workers_;
    }
  }
}

void ThreadPool::ParallelFor(uint64_t count, uint64_t chunk, RangeFn fn,
                             void* context) {
  if (count == 0) return;
  if (workers_.empty()) {
    fn(context, 0, count);
    return;
  }
  // At most ceil(count / threads) per chunk, so every thread can get one.
  const uint64_t threads = workers_.size() + 1;
  chunk = std::clamp<uint64_t>(chunk, 1, (count + threads - 1) / threads);
  if (count == 1) {
    fn(context, 0, 1);
    return;
  }
  // The claim packs both ends of the range into one 64-bit word; a range
  // longer than 32 bits (never a real dispatch) runs as slices.
  constexpr uint64_t kMaxSlice = 0xffffffffu;
  if (count > kMaxSlice) {
    struct Slice {
      RangeFn fn;
      void* context;
      uint64_t base;
    } slice{fn, context, 0};
    RangeFn shifted = [](void* c, uint64_t begin, uint64_t end) {
      auto* s = static_cast<Slice*>(c);
      s->fn(s->context, s->base + begin, s->base + end);
    };
    for (; slice.base < count; slice.base += kMaxSlice)
      ParallelFor(std::min(kMaxSlice, count - slice.base), chunk, shifted, &slice);
    return;
  }
  Job job;
  job.fn = fn;
  job.context = context;
  job.chunk = chunk;
  job.threads = threads;
  job.range.store(count << 32, std::memory_order_relaxed);
  int sleeping;
  {
    std::unique_lock<std::mutex> lock = LockSpinning(mutex_);
    jobs_.push_back(&job);
    listed_jobs_.store(jobs_.size(), std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
    sleeping = sleeping_workers_;
  }
  // Spinning workers see the generation change; wake sleepers only when
  // there are some, and no more than there are chunks for.
  if (sleeping > 0) {
    uint64_t chunks = (count + chunk - 1) / chunk;  // at least; guided ones are more
    if (chunks - 1 >= static_cast<uint64_t>(sleeping))
      work_available_.notify_all();
    else
      for (uint64_t i = 1; i < chunks; ++i) work_available_.notify_one();
  }
  RunChunks(&job, /*from_back=*/false);
  // Every chunk is claimed; wait for the workers still running one. A
  // worker can only join while the job is listed, so unlisting it first
  // makes the wait final. Helpers leave under the mutex, so seeing zero
  // under it means no worker touches `job` again.
  std::unique_lock<std::mutex> lock = LockSpinning(mutex_);
  auto it = std::find(jobs_.begin(), jobs_.end(), &job);
  if (it != jobs_.end()) {
    jobs_.erase(it);
    listed_jobs_.store(jobs_.size(), std::memory_order_relaxed);
  }
  if (job.helpers.load(std::memory_order_relaxed) == 0) return;
  lock.unlock();
  SpinWhile([&job] { return job.helpers.load(std::memory_order_acquire) != 0; });
  lock = LockSpinning(mutex_);
  job.caller_sleeping = true;
  job.helpers_done.wait(lock, [&job] { return job.helpers.load(std::memory_order_relaxed) == 0; });
}

}  // namespace kiln
