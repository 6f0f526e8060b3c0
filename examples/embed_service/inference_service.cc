// inference_service.cc - the session pool and its bounded queue.
#include "inference_service.h"

#include <chrono>

namespace kiln_service {

kiln::Status InferenceService::Create(const std::string& model_path, const ServiceOptions& options,
                                      std::unique_ptr<InferenceService>* out) {
  if (options.sessions < 1 || options.queue_capacity < 0 || options.runtime_threads < 0 ||
      options.simulate_run_ms < 0)
    return kiln::Status(kiln::StatusCode::kInvalidArgument,
                        "sessions must be >= 1; queue capacity, runtime threads and "
                        "simulated run time >= 0");
  std::unique_ptr<InferenceService> service(new InferenceService(options));

  // [snippet create-pool]
  // One Runtime (its thread pool) and one Model, shared by every Session.
  kiln::RuntimeOptions runtime_options;
  runtime_options.num_threads = options.runtime_threads;
  kiln::Status s = kiln::Runtime::Create(runtime_options, &service->runtime_);
  if (!s.ok()) return s;
  s = service->runtime_->LoadModel(model_path, &service->model_);
  if (!s.ok()) return s;
  // A Session is used by one thread at a time, so each worker gets its own.
  // Creating one allocates its arena once; every Run reuses it.
  for (int i = 0; i < options.sessions; ++i) {
    std::unique_ptr<kiln::Session> session;
    s = kiln::Session::Create(service->model_, &session);
    if (!s.ok()) return s;
    service->sessions_.push_back(std::move(session));
  }
  // [end snippet create-pool]

  for (auto& session : service->sessions_)
    service->workers_.emplace_back(&InferenceService::WorkerLoop, service.get(), session.get());
  *out = std::move(service);
  return kiln::Status::Ok();
}

InferenceService::~InferenceService() { Shutdown(); }

// [snippet admit]
InferenceService::Result InferenceService::Infer(std::vector<kiln::NamedTensor> inputs,
                                                 std::vector<kiln::NamedTensor>* outputs) {
  Job job;
  job.inputs = std::move(inputs);
  job.outputs = outputs;
  std::unique_lock<std::mutex> lock(mutex_);
  if (shutting_down_) return {Admission::kShuttingDown, {}};
  // Backpressure: at most `sessions` running and `queue_capacity` waiting.
  // Refusing at once keeps latency bounded when clients send faster than
  // the sessions can run; the client retries later (HTTP 503).
  const size_t limit = sessions_.size() + static_cast<size_t>(options_.queue_capacity);
  if (queue_.size() + busy_ >= limit) return {Admission::kQueueFull, {}};
  queue_.push_back(&job);
  job_ready_.notify_one();
  job.done_changed.wait(lock, [&] { return job.done; });
  return {Admission::kRan, job.status};
}
// [end snippet admit]

// [snippet worker]
void InferenceService::WorkerLoop(kiln::Session* session) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    job_ready_.wait(lock, [&] { return !queue_.empty() || shutting_down_; });
    // Shutdown drains: a worker leaves only when no admitted job is left.
    if (queue_.empty()) return;
    Job* job = queue_.front();
    queue_.pop_front();
    ++busy_;
    lock.unlock();
    // Run by name: the runtime checks every name, dtype and shape and
    // says which input is wrong; the outputs are allocated by the Session.
    kiln::Status status = session->Run(job->inputs, job->outputs);
    if (options_.simulate_run_ms > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(options_.simulate_run_ms));
    lock.lock();
    --busy_;
    job->status = std::move(status);
    job->done = true;
    job->done_changed.notify_one();
  }
}
// [end snippet worker]

void InferenceService::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shutting_down_ = true;
  }
  job_ready_.notify_all();
  for (std::thread& worker : workers_)
    if (worker.joinable()) worker.join();
}

size_t InferenceService::queued() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size();
}

size_t InferenceService::busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return busy_;
}

}  // namespace kiln_service
