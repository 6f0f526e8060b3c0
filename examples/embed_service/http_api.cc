// http_api.cc - HTTP routes over the inference service.
#include "http_api.h"

#include <chrono>
#include <exception>

#include "tensor_json.h"

namespace kiln_service {
namespace {

constexpr const char* kJson = "application/json";

void SendError(httplib::Response& res, int http_status, const std::string& code,
               const std::string& message) {
  res.status = http_status;
  if (http_status == 503) res.set_header("Retry-After", "1");
  res.set_content(ErrorBody(code, message), kJson);
}

// POST /v1/infer. Runs on one of the HTTP server's threads, which waits
// here while the request is queued and run.
void HandleInfer(InferenceService& service, Metrics& metrics, const httplib::Request& req,
                 httplib::Response& res) {
  const auto start = std::chrono::steady_clock::now();
  try {
    std::vector<kiln::NamedTensor> inputs;
    kiln::Status s = ParseInferRequest(req.body, &inputs);
    if (!s.ok()) {
      SendError(res, 400, kiln::StatusCodeName(s.code()), s.message());
    } else {
      std::vector<kiln::NamedTensor> outputs;
      InferenceService::Result result = service.Infer(std::move(inputs), &outputs);
      switch (result.admission) {
        case InferenceService::Admission::kQueueFull:
          SendError(res, 503, "UNAVAILABLE",
                    "the request queue is full (" +
                        std::to_string(service.options().queue_capacity) + " waiting, " +
                        std::to_string(service.options().sessions) + " running); retry later");
          break;
        case InferenceService::Admission::kShuttingDown:
          SendError(res, 503, "UNAVAILABLE", "the service is shutting down");
          break;
        case InferenceService::Admission::kRan:
          if (!result.status.ok()) {
            SendError(res, HttpStatusFor(result.status), kiln::StatusCodeName(result.status.code()),
                      result.status.message());
          } else {
            res.status = 200;
            res.set_content(OutputsToJson(outputs).dump(), kJson);
          }
          break;
      }
    }
  } catch (const std::bad_alloc&) {
    SendError(res, 503, "RESOURCE_EXHAUSTED", "out of memory while handling the request");
  } catch (const std::exception& e) {
    SendError(res, 500, "INTERNAL", std::string("unexpected error: ") + e.what());
  }
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  metrics.Record(res.status, elapsed.count());
}

}  // namespace

int HttpStatusFor(const kiln::Status& status) {
  switch (status.code()) {
    case kiln::StatusCode::kOk: return 200;
    case kiln::StatusCode::kInvalidArgument:
    case kiln::StatusCode::kNotFound: return 400;
    case kiln::StatusCode::kResourceExhausted: return 503;
    default: return 500;
  }
}

void InstallRoutes(httplib::Server& server, InferenceService& service, Metrics& metrics,
                   const std::atomic<bool>& draining) {
  server.Post("/v1/infer", [&](const httplib::Request& req, httplib::Response& res) {
    HandleInfer(service, metrics, req, res);
  });
  server.Get("/v1/model", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(SignatureToJson(service.model()).dump(), kJson);
  });
  server.Get("/healthz", [&](const httplib::Request&, httplib::Response& res) {
    if (draining) {
      res.status = 503;
      res.set_content("draining\n", "text/plain");
    } else {
      res.set_content("ok\n", "text/plain");
    }
  });
  server.Get("/metrics", [&](const httplib::Request&, httplib::Response& res) {
    LoadGauges gauges;
    gauges.queued = service.queued();
    gauges.busy = service.busy();
    gauges.sessions = static_cast<size_t>(service.options().sessions);
    gauges.queue_capacity = static_cast<size_t>(service.options().queue_capacity);
    res.set_content(metrics.Render(gauges), "text/plain; version=0.0.4");
  });
  // A known path with the wrong method gets 405 rather than 404.
  auto wrong_method = [](const char* allowed) {
    return [allowed](const httplib::Request& req, httplib::Response& res) {
      res.set_header("Allow", allowed);
      SendError(res, 405, "METHOD_NOT_ALLOWED",
                req.method + " " + req.path + " is not served; use " + allowed);
    };
  };
  server.Get("/v1/infer", wrong_method("POST"));
  for (const char* path : {"/v1/model", "/healthz", "/metrics"}) server.Post(path, wrong_method("GET"));
  // Everything else that fails without a body (404 for unknown routes,
  // 413, 400 for unparsable HTTP) gets a JSON one.
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string code = "HTTP_" + std::to_string(res.status), message;
    switch (res.status) {
      case 404:
        code = "NOT_FOUND";
        message = "no route " + req.method + " " + req.path +
                  " (routes: POST /v1/infer, GET /v1/model, GET /healthz, GET /metrics)";
        break;
      case 413:
        // cpp-httplib parses form-encoded bodies and caps them at 8 KiB;
        // curl -d sends that content type unless told otherwise.
        message = req.get_header_value("Content-Type").find("application/x-www-form-urlencoded") == 0
                      ? "a form-encoded body is limited to 8 KiB; send the request with "
                        "Content-Type: application/json"
                      : "the request body is larger than the service's limit (--max_body_mb)";
        break;
      default:
        message = "HTTP error " + std::to_string(res.status);
    }
    res.set_content(ErrorBody(code, message), kJson);
  });
}

}  // namespace kiln_service
