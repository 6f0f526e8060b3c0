// http_api.h - the service's HTTP routes.
//
//   POST /v1/infer   {"inputs": {...}} -> 200 {"outputs": {...}}   (tensor_json.h)
//   GET  /v1/model   the model's inputs and outputs (name, dtype, shape)
//   GET  /healthz    200 "ok" while serving, 503 "draining" during shutdown
//   GET  /metrics    Prometheus text (metrics.h)
//
// Errors are JSON, {"error": {"code": "...", "message": "..."}}:
//   400  malformed JSON, a bad tensor, or an input the model refuses
//        (the code and message are Session::Run's Status)
//   404  unknown route; 405 a known route with the wrong method
//   413  body over the size limit
//   503  queue full or shutting down, with Retry-After: 1
//   500  the runtime failed (INTERNAL, ...)
#ifndef KILN_EXAMPLES_EMBED_SERVICE_HTTP_API_H_
#define KILN_EXAMPLES_EMBED_SERVICE_HTTP_API_H_

#include <atomic>

#include <httplib.h>

#include "inference_service.h"
#include "metrics.h"

namespace kiln_service {

// Installs the routes on `server`; `service`, `metrics` and `draining` must
// outlive it. `draining` turns /healthz to 503 once shutdown has begun.
void InstallRoutes(httplib::Server& server, InferenceService& service, Metrics& metrics,
                   const std::atomic<bool>& draining);

// The HTTP status a failed Session::Run maps to: the client's fault (400)
// or the server's (500, 503 when memory ran out).
int HttpStatusFor(const kiln::Status& status);

}  // namespace kiln_service

#endif  // KILN_EXAMPLES_EMBED_SERVICE_HTTP_API_H_
