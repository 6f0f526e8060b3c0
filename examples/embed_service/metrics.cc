// metrics.cc - request counters and latency quantiles for /metrics.
#include "metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kiln_service {

double Quantile(std::vector<double>& values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  // Nearest rank: the smallest value with at least q of them at or below it.
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[rank == 0 ? 0 : rank - 1];
}

void Metrics::Record(int http_status, double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++requests_;
  ++by_status_[http_status];
  if (http_status >= 400) ++errors_;
  if (http_status != 200) return;
  latency_sum_ += seconds;
  ++latency_count_;
  if (window_.size() < kLatencyWindow) {
    window_.push_back(seconds);
  } else {
    window_[next_] = seconds;
    next_ = (next_ + 1) % kLatencyWindow;
  }
}

uint64_t Metrics::requests() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return requests_;
}

uint64_t Metrics::errors() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return errors_;
}

std::string Metrics::Render(const LoadGauges& gauges) const {
  std::map<int, uint64_t> by_status;
  uint64_t requests, errors, latency_count;
  double latency_sum;
  std::vector<double> window;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    by_status = by_status_;
    requests = requests_;
    errors = errors_;
    latency_sum = latency_sum_;
    latency_count = latency_count_;
    window = window_;
  }
  std::string out;
  char line[160];
  auto add = [&](const char* format, auto... args) {
    std::snprintf(line, sizeof line, format, args...);
    out += line;
  };
  out +=
      "# HELP kiln_requests_total Inference requests (POST /v1/infer) answered.\n"
      "# TYPE kiln_requests_total counter\n";
  add("kiln_requests_total %llu\n", static_cast<unsigned long long>(requests));
  out +=
      "# HELP kiln_request_errors_total Inference requests answered with an HTTP status >= 400.\n"
      "# TYPE kiln_request_errors_total counter\n";
  add("kiln_request_errors_total %llu\n", static_cast<unsigned long long>(errors));
  out +=
      "# HELP kiln_responses_total Inference requests answered, by HTTP status.\n"
      "# TYPE kiln_responses_total counter\n";
  for (const auto& [status, count] : by_status)
    add("kiln_responses_total{code=\"%d\"} %llu\n", status, static_cast<unsigned long long>(count));
  out +=
      "# HELP kiln_request_latency_seconds Latency of successful inference requests, from the "
      "request read to the response ready; quantiles over the last 8192.\n"
      "# TYPE kiln_request_latency_seconds summary\n";
  for (double q : {0.5, 0.9, 0.99})
    add("kiln_request_latency_seconds{quantile=\"%g\"} %.9f\n", q, Quantile(window, q));
  add("kiln_request_latency_seconds_sum %.9f\n", latency_sum);
  add("kiln_request_latency_seconds_count %llu\n", static_cast<unsigned long long>(latency_count));
  out +=
      "# HELP kiln_queue_depth Requests waiting for a session.\n"
      "# TYPE kiln_queue_depth gauge\n";
  add("kiln_queue_depth %zu\n", gauges.queued);
  out +=
      "# HELP kiln_queue_capacity Requests that may wait before new ones get 503.\n"
      "# TYPE kiln_queue_capacity gauge\n";
  add("kiln_queue_capacity %zu\n", gauges.queue_capacity);
  out +=
      "# HELP kiln_sessions_busy Sessions running a request.\n"
      "# TYPE kiln_sessions_busy gauge\n";
  add("kiln_sessions_busy %zu\n", gauges.busy);
  out +=
      "# HELP kiln_sessions Sessions in the pool.\n"
      "# TYPE kiln_sessions gauge\n";
  add("kiln_sessions %zu\n", gauges.sessions);
  return out;
}

}  // namespace kiln_service
