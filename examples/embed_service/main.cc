// main.cc - kiln-embed-service: serves one .kiln model over HTTP/JSON.
//
//   kiln-embed-service --model=model.kiln [--port=8080] [--sessions=2] ...
//
// See README.md for the routes and the request format, and --help for the
// flags. SIGINT or SIGTERM stops accepting connections, finishes every
// request already received and exits 0; a second signal exits at once (1).
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include <httplib.h>

#include "http_api.h"
#include "inference_service.h"
#include "metrics.h"

namespace {

constexpr const char* kUsage = R"(usage: kiln-embed-service --model=FILE.kiln [flags]

Serves one compiled Kiln model over HTTP/JSON (POST /v1/infer, GET /v1/model,
GET /healthz, GET /metrics; see examples/embed_service/README.md).

  --model=FILE          the .kiln artifact (kilnc's output); required
  --host=ADDR           address to listen on (default 127.0.0.1)
  --port=N              port (default 8080; 0 picks a free one)
  --port_file=FILE      write the bound port here once listening
  --sessions=N          Sessions, i.e. requests run at once (default 2)
  --queue=N             requests that may wait for a session; more get 503
                        with Retry-After (default 16)
  --threads=N           the runtime's workgroup threads, counting each
                        session's worker (default 1: each request on one core;
                        0: all cores)
  --http_threads=N      connection threads (default sessions + queue + 8, so
                        that a full queue is answered with 503 rather than
                        left waiting for a thread)
  --max_body_mb=N       largest request body (default 64)
  --simulate_run_ms=N   sleep N ms after every run, as a bigger model would
                        take (for tests and demonstrations; default 0)
)";

struct Flags {
  std::string model, host = "127.0.0.1", port_file;
  int port = 8080, http_threads = 0, max_body_mb = 64;
  kiln_service::ServiceOptions service;
};

bool ParseInt(const std::string& text, int min, int* out) {
  char* end = nullptr;
  errno = 0;
  long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || value < min || value > 1000000) return false;
  *out = static_cast<int>(value);
  return true;
}

// Returns 0 to go on, else the exit status (2 for a usage error).
int ParseFlags(int argc, char** argv, Flags* flags) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return -1;
    }
    size_t eq = arg.find('=');
    std::string name = arg.substr(0, eq), value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    struct IntFlag {
      const char* name;
      int min;
      int* target;
    } int_flags[] = {
        {"--port", 0, &flags->port},
        {"--sessions", 1, &flags->service.sessions},
        {"--queue", 0, &flags->service.queue_capacity},
        {"--threads", 0, &flags->service.runtime_threads},
        {"--http_threads", 1, &flags->http_threads},
        {"--max_body_mb", 1, &flags->max_body_mb},
        {"--simulate_run_ms", 0, &flags->service.simulate_run_ms},
    };
    bool known = false;
    for (const IntFlag& f : int_flags) {
      if (name != f.name) continue;
      known = true;
      if (eq == std::string::npos || !ParseInt(value, f.min, f.target)) {
        std::fprintf(stderr, "kiln-embed-service: %s needs an integer >= %d, got '%s'\n", f.name,
                     f.min, value.c_str());
        return 2;
      }
    }
    if (name == "--model" || name == "--host" || name == "--port_file") {
      known = true;
      if (value.empty()) {
        std::fprintf(stderr, "kiln-embed-service: %s needs a value\n", name.c_str());
        return 2;
      }
      (name == "--model" ? flags->model : name == "--host" ? flags->host : flags->port_file) = value;
    }
    if (!known) {
      std::fprintf(stderr, "kiln-embed-service: unknown flag '%s' (see --help)\n", arg.c_str());
      return 2;
    }
  }
  if (flags->model.empty()) {
    std::fprintf(stderr, "kiln-embed-service: --model=FILE.kiln is required (see --help)\n");
    return 2;
  }
  if (flags->http_threads == 0)
    flags->http_threads = flags->service.sessions + flags->service.queue_capacity + 8;
  return 0;
}

// Written under a temporary name and renamed, so a reader never sees a
// partial number.
bool WritePortFile(const std::string& path, int port) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream file(temporary);
    file << port << "\n";
    if (!file.good()) return false;
  }
  return std::rename(temporary.c_str(), path.c_str()) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (int status = ParseFlags(argc, argv, &flags)) return status < 0 ? 0 : status;

  // SIGINT and SIGTERM are taken by one thread with sigwait, so every other
  // thread (the runtime's, the HTTP server's) must block them: block here,
  // before any thread starts, and the threads inherit the mask. A closed
  // connection must not kill the process either.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  std::unique_ptr<kiln_service::InferenceService> service;
  kiln::Status s = kiln_service::InferenceService::Create(flags.model, flags.service, &service);
  if (!s.ok()) {
    std::fprintf(stderr, "kiln-embed-service: %s: %s\n", flags.model.c_str(), s.ToString().c_str());
    return 1;
  }

  kiln_service::Metrics metrics;
  std::atomic<bool> draining{false};
  httplib::Server server;
  const size_t http_threads = static_cast<size_t>(flags.http_threads);
  server.new_task_queue = [http_threads] { return new httplib::ThreadPool(http_threads); };
  server.set_payload_max_length(static_cast<size_t>(flags.max_body_mb) << 20);
  // Keep-alive connections save a handshake per request; an idle one holds
  // a connection thread, and at shutdown the server waits for it to time out,
  // so the timeout is short.
  server.set_keep_alive_max_count(1000);
  // A response goes out in several writes (headers, body); with Nagle's
  // algorithm against the client's delayed ACK each costs ~40 ms.
  server.set_tcp_nodelay(true);
  server.set_keep_alive_timeout(2);
  // cpp-httplib listens with a backlog of 5 (a constant compiled into
  // Debian's library): a burst of new connections beyond that has its SYNs
  // dropped and retried a second later. The socket is remembered here and
  // its backlog raised after binding (listen() again does that on Linux).
  // Setting options replaces the library's, which also set SO_REUSEPORT and
  // so let a second instance share the port; SO_REUSEADDR alone makes it
  // fail with "address in use" instead.
  int listening_socket = -1;
  server.set_socket_options([&listening_socket](int sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    listening_socket = sock;
  });
  kiln_service::InstallRoutes(server, *service, metrics, draining);

  const int port = flags.port == 0 ? server.bind_to_any_port(flags.host)
                                   : (server.bind_to_port(flags.host, flags.port) ? flags.port : -1);
  if (port < 0) {
    std::fprintf(stderr, "kiln-embed-service: cannot listen on %s:%d: %s\n", flags.host.c_str(),
                 flags.port, std::strerror(errno));
    return 1;
  }
  if (::listen(listening_socket, SOMAXCONN) != 0) {
    std::fprintf(stderr, "kiln-embed-service: listen: %s\n", std::strerror(errno));
    return 1;
  }
  if (!flags.port_file.empty() && !WritePortFile(flags.port_file, port)) {
    std::fprintf(stderr, "kiln-embed-service: cannot write the port file %s\n", flags.port_file.c_str());
    return 1;
  }
  std::fprintf(stderr,
               "kiln-embed-service: serving %s on http://%s:%d (sessions %d, queue %d, runtime "
               "threads %d, http threads %d)\n",
               flags.model.c_str(), flags.host.c_str(), port, flags.service.sessions,
               flags.service.queue_capacity, service->runtime_threads(),
               flags.http_threads);

  // [snippet shutdown]
  // The first SIGINT/SIGTERM closes the listening socket; listen_after_bind
  // then returns once every connection thread has answered the request it
  // was handling (each waits for its request to run). A second signal
  // gives up on draining.
  std::thread signal_thread([&] {
    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    std::fprintf(stderr, "kiln-embed-service: %s: draining\n", strsignal(signal_number));
    draining = true;
    while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    server.stop();
    sigwait(&stop_signals, &signal_number);
    std::fprintf(stderr, "kiln-embed-service: second %s: exiting now\n", strsignal(signal_number));
    _exit(1);
  });
  signal_thread.detach();
  const bool served = server.listen_after_bind();
  // No connection is left, so nothing can be queued any more.
  service->Shutdown();
  // [end snippet shutdown]

  std::fprintf(stderr, "kiln-embed-service: stopped after %llu requests (%llu errors)\n",
               static_cast<unsigned long long>(metrics.requests()),
               static_cast<unsigned long long>(metrics.errors()));
  return served ? 0 : 1;
}
