// inference_service.h - one Model, a pool of Sessions and a bounded queue:
// the part of the service that knows the runtime and nothing of HTTP.
//
//   std::unique_ptr<InferenceService> service;
//   kiln::Status s = InferenceService::Create("model.kiln", options, &service);
//   std::vector<kiln::NamedTensor> outputs;
//   InferenceService::Result r = service->Infer(std::move(inputs), &outputs);
//
// Ownership: the service owns the Runtime, the Model and one Session per
// worker thread; Infer's inputs move into the call and its outputs are
// Tensors that own their buffers.
//
// Thread safety: Infer may be called from any number of threads at once
// (each call blocks its thread until its request has run or was refused);
// Shutdown from any one thread.
#ifndef KILN_EXAMPLES_EMBED_SERVICE_INFERENCE_SERVICE_H_
#define KILN_EXAMPLES_EMBED_SERVICE_INFERENCE_SERVICE_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kiln/runtime.h"

namespace kiln_service {

struct ServiceOptions {
  // Sessions in the pool, each run by its own worker thread: how many
  // requests run at once.
  int sessions = 2;
  // Requests that may wait for a session; one more is refused (kQueueFull).
  int queue_capacity = 16;
  // The Runtime's workgroup threads, counting each worker (see
  // RuntimeOptions): 1 runs each request on its worker alone, which serves
  // many small requests best; more splits each request across cores.
  int runtime_threads = 1;
  // For tests and demonstrations: each worker sleeps this long after every
  // run, as a much larger model would take, so that the queue fills.
  int simulate_run_ms = 0;
};

class InferenceService {
 public:
  static kiln::Status Create(const std::string& model_path, const ServiceOptions& options,
                             std::unique_ptr<InferenceService>* out);
  ~InferenceService();  // Shutdown()

  enum class Admission { kRan, kQueueFull, kShuttingDown };
  struct Result {
    Admission admission = Admission::kRan;
    kiln::Status status;  // Session::Run's, when admission is kRan
  };
  // Waits for a free session and runs the request on it, unless the queue
  // is full or the service is shutting down (then it returns at once).
  Result Infer(std::vector<kiln::NamedTensor> inputs, std::vector<kiln::NamedTensor>* outputs);

  // Refuses new requests, lets the workers finish every admitted one and
  // joins them. Idempotent.
  void Shutdown();

  const kiln::Model& model() const { return *model_; }
  const ServiceOptions& options() const { return options_; }
  int runtime_threads() const { return runtime_->num_threads(); }
  size_t queued() const;  // admitted, waiting for a session
  size_t busy() const;    // running on a session

 private:
  // One admitted request; it lives on the stack of the Infer call that
  // waits for it.
  struct Job {
    std::vector<kiln::NamedTensor> inputs;
    std::vector<kiln::NamedTensor>* outputs = nullptr;
    kiln::Status status;
    bool done = false;
    std::condition_variable done_changed;
  };

  explicit InferenceService(const ServiceOptions& options) : options_(options) {}
  void WorkerLoop(kiln::Session* session);

  const ServiceOptions options_;
  std::shared_ptr<kiln::Runtime> runtime_;
  std::shared_ptr<const kiln::Model> model_;
  std::vector<std::unique_ptr<kiln::Session>> sessions_;
  std::vector<std::thread> workers_;

  mutable std::mutex mutex_;
  std::condition_variable job_ready_;  // workers wait for work or shutdown
  std::deque<Job*> queue_;
  size_t busy_ = 0;
  bool shutting_down_ = false;
};

}  // namespace kiln_service

#endif  // KILN_EXAMPLES_EMBED_SERVICE_INFERENCE_SERVICE_H_
