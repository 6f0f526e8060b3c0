// metrics.h - what /metrics reports: inference requests by HTTP status and
// the latency of the successful ones.
//
// Thread-safe: Record and Render may be called from any number of threads.
#ifndef KILN_EXAMPLES_EMBED_SERVICE_METRICS_H_
#define KILN_EXAMPLES_EMBED_SERVICE_METRICS_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace kiln_service {

// Gauges that the metrics do not own, read when rendering.
struct LoadGauges {
  size_t queued = 0;  // requests waiting for a session
  size_t busy = 0;    // sessions running a request
  size_t sessions = 0;
  size_t queue_capacity = 0;
};

class Metrics {
 public:
  // Quantiles are over the most recent successful requests: recent
  // latency is what an operator watches, and a window keeps the cost of a
  // scrape bounded.
  static constexpr size_t kLatencyWindow = 8192;

  // One answered POST /v1/infer. `seconds` counts only for status 200.
  void Record(int http_status, double seconds);

  // Prometheus text exposition format (version 0.0.4).
  std::string Render(const LoadGauges& gauges) const;

  // For the log line at shutdown.
  uint64_t requests() const;
  uint64_t errors() const;

 private:
  mutable std::mutex mutex_;
  std::map<int, uint64_t> by_status_;
  uint64_t requests_ = 0, errors_ = 0;
  double latency_sum_ = 0;
  uint64_t latency_count_ = 0;
  std::vector<double> window_;  // ring buffer of seconds, kLatencyWindow at most
  size_t next_ = 0;
};

// The q-quantile (0 <= q <= 1) of `values` by the nearest-rank method;
// 0 when empty. Sorts `values`.
double Quantile(std::vector<double>& values, double q);

}  // namespace kiln_service

#endif  // KILN_EXAMPLES_EMBED_SERVICE_METRICS_H_
