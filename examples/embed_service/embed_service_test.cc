// embed_service_test.cc - drives kiln-embed-service over loopback HTTP.
//
// Run by run_embed_service_test.sh, which first writes the reference
// (make_reference.py: seeded inputs and onnxruntime's outputs for them):
//
//   embed_service_test --service=BIN --model=M.kiln --reference=REF.json
//                      --quickstart=BIN
//
// Each test starts its own service process on a free port. Load size:
// KILN_SERVICE_CLIENTS (default 8) x KILN_SERVICE_REQUESTS (default 300).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "kiln/runtime.h"

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct Paths {
  std::string service, model, reference, quickstart;
} g_paths;

// The reference: inputs and onnxruntime's outputs (make_reference.py).
struct Reference {
  std::string input, output;
  std::vector<int64_t> input_shape, output_shape;
  std::vector<std::vector<float>> inputs, outputs;
  std::vector<std::string> bodies;  // the request for each case
  std::vector<float> quickstart_output;
};
Reference g_ref;

// Kiln vs onnxruntime on one model: the same math in another order.
constexpr double kAbsTolerance = 1e-5, kRelTolerance = 1e-4;

int EnvInt(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::atoi(value) : fallback;
}

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir ? dir : "/tmp";
}

std::string InferBody(const std::string& name, const std::string& dtype,
                      const std::vector<int64_t>& shape, const json& data) {
  return json{{"inputs", {{name, {{"dtype", dtype}, {"shape", shape}, {"data", data}}}}}}.dump();
}

// "" when `res` is a correct answer for reference case `c`, else why not.
std::string CheckAnswer(const httplib::Result& res, size_t c, double* max_error = nullptr) {
  if (!res) return "no response: " + httplib::to_string(res.error());
  if (res->status != 200) return "HTTP " + std::to_string(res->status) + ": " + res->body;
  json answer = json::parse(res->body, nullptr, false);
  if (answer.is_discarded()) return "response is not JSON: " + res->body.substr(0, 200);
  if (!answer.contains("outputs") || !answer["outputs"].contains(g_ref.output))
    return "no output '" + g_ref.output + "' in " + res->body.substr(0, 200);
  const json& output = answer["outputs"][g_ref.output];
  if (output.value("dtype", "") != "f32") return "output dtype " + output.value("dtype", "?");
  if (output["shape"].get<std::vector<int64_t>>() != g_ref.output_shape)
    return "output shape " + output["shape"].dump();
  const json& data = output["data"];
  const std::vector<float>& want = g_ref.outputs[c];
  if (!data.is_array() || data.size() != want.size()) return "output has " + data.dump().substr(0, 80);
  for (size_t i = 0; i < want.size(); ++i) {
    if (!data[i].is_number()) return "output[" + std::to_string(i) + "] is " + data[i].dump();
    double got = data[i].get<double>(), error = std::fabs(got - want[i]);
    if (max_error) *max_error = std::max(*max_error, error);
    if (!(error <= kAbsTolerance + kRelTolerance * std::fabs(want[i])))
      return "case " + std::to_string(c) + " output[" + std::to_string(i) + "] = " +
             std::to_string(got) + ", onnxruntime " + std::to_string(want[i]);
  }
  return "";
}

double Percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[rank == 0 ? 0 : rank - 1];
}

// The value of the sample line "NAME VALUE" (NAME with its labels); NaN if
// absent.
double MetricValue(const std::string& text, const std::string& name) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line))
    if (line.compare(0, name.size() + 1, name + " ") == 0) return std::stod(line.substr(name.size() + 1));
  return std::nan("");
}

// One kiln-embed-service process on a free loopback port.
class ServiceProcess {
 public:
  ServiceProcess() = default;
  ServiceProcess(const ServiceProcess&) = delete;
  ~ServiceProcess() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  // Starts it with `flags` and waits until /healthz answers 200.
  void Start(const std::vector<std::string>& flags) {
    static std::atomic<int> serial{0};
    const std::string port_file = TempDir() + "/service_port." + std::to_string(serial++);
    std::remove(port_file.c_str());
    std::vector<std::string> args = {g_paths.service, "--model=" + g_paths.model, "--port=0",
                                     "--port_file=" + port_file};
    args.insert(args.end(), flags.begin(), flags.end());
    pid_ = fork();
    ASSERT_GE(pid_, 0) << "fork failed";
    if (pid_ == 0) {
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(&a[0]);
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    while (port_ == 0) {
      ASSERT_LT(Clock::now(), deadline) << "the service wrote no port file in 60 s";
      int status;
      ASSERT_EQ(waitpid(pid_, &status, WNOHANG), 0) << "the service exited while starting";
      std::ifstream file(port_file);
      if (!(file >> port_)) port_ = 0;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    httplib::Client client("127.0.0.1", port_);
    for (;;) {
      auto res = client.Get("/healthz");
      if (res && res->status == 200) break;
      ASSERT_LT(Clock::now(), deadline) << "/healthz did not answer 200 in 60 s";
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  int port() const { return port_; }
  void Signal(int signal_number) { ASSERT_EQ(kill(pid_, signal_number), 0); }

  // The exit status, or -1 when it was still running after `timeout` (it
  // is killed then) or died of a signal.
  int WaitForExit(std::chrono::seconds timeout) {
    const auto deadline = Clock::now() + timeout;
    int status = 0;
    while (waitpid(pid_, &status, WNOHANG) == 0) {
      if (Clock::now() > deadline) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    exited_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  std::unique_ptr<httplib::Client> NewClient() const {
    auto client = std::make_unique<httplib::Client>("127.0.0.1", port_);
    client->set_keep_alive(true);
    client->set_tcp_nodelay(true);  // as the service; see main.cc
    client->set_connection_timeout(5);
    client->set_read_timeout(60);
    return client;
  }

  std::string Metrics() const {
    auto res = NewClient()->Get("/metrics");
    return res && res->status == 200 ? res->body : "";
  }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  bool exited_ = false;
};

// Runs `argv` to completion with stdout and stderr in *output; returns its
// exit status.
int RunToExit(std::vector<std::string> args, std::string* output) {
  const std::string log = TempDir() + "/run_to_exit.log";
  pid_t pid = fork();
  if (pid == 0) {
    FILE* f = std::freopen(log.c_str(), "w", stdout);
    if (f == nullptr || dup2(fileno(stdout), 2) < 0) _exit(126);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(&a[0]);
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::ifstream file(log);
  std::stringstream text;
  text << file.rdbuf();
  *output = text.str();
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

httplib::Result PostInfer(httplib::Client& client, const std::string& body) {
  return client.Post("/v1/infer", body, "application/json");
}

TEST(EmbedService, HealthAndSignature) {
  ServiceProcess service;
  ASSERT_NO_FATAL_FAILURE(service.Start({}));
  auto client = service.NewClient();
  auto health = client->Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(health->body, "ok\n");
  auto model = client->Get("/v1/model");
  ASSERT_TRUE(model);
  ASSERT_EQ(model->status, 200);
  json signature = json::parse(model->body);
  ASSERT_EQ(signature["inputs"].size(), 1u);
  EXPECT_EQ(signature["inputs"][0]["name"], g_ref.input);
  EXPECT_EQ(signature["inputs"][0]["dtype"], "f32");
  EXPECT_EQ(signature["inputs"][0]["shape"].get<std::vector<int64_t>>(), g_ref.input_shape);
  ASSERT_EQ(signature["outputs"].size(), 1u);
  EXPECT_EQ(signature["outputs"][0]["name"], g_ref.output);
  EXPECT_EQ(signature["outputs"][0]["shape"].get<std::vector<int64_t>>(), g_ref.output_shape);
  client.reset();
  service.Signal(SIGTERM);
  EXPECT_EQ(service.WaitForExit(std::chrono::seconds(15)), 0);
}

// N clients on keep-alive connections, every answer checked against
// onnxruntime; prints throughput and client-side latency percentiles.
TEST(EmbedService, LoadEveryAnswerMatchesOnnxruntime) {
  const int clients = EnvInt("KILN_SERVICE_CLIENTS", 8);
  const int requests = EnvInt("KILN_SERVICE_REQUESTS", 300);
  ServiceProcess service;
  // Room for every client in the queue: this test wants no 503.
  ASSERT_NO_FATAL_FAILURE(service.Start({"--sessions=2", "--threads=1", "--queue=64"}));

  std::mutex mutex;
  std::vector<double> latencies;
  std::vector<std::string> failures;
  double max_error = 0;
  std::atomic<int> ok{0};
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int k = 0; k < clients; ++k) {
    threads.emplace_back([&, k] {
      auto client = service.NewClient();
      std::vector<double> mine;
      double my_max_error = 0;
      for (int i = 0; i < requests; ++i) {
        const size_t c = static_cast<size_t>(k * 7 + i) % g_ref.bodies.size();
        const auto sent = Clock::now();
        auto res = PostInfer(*client, g_ref.bodies[c]);
        const std::chrono::duration<double> latency = Clock::now() - sent;
        std::string problem = CheckAnswer(res, c, &my_max_error);
        if (!problem.empty()) {
          std::lock_guard<std::mutex> lock(mutex);
          failures.push_back("client " + std::to_string(k) + " request " + std::to_string(i) + ": " + problem);
          continue;
        }
        ++ok;
        mine.push_back(latency.count());
      }
      std::lock_guard<std::mutex> lock(mutex);
      latencies.insert(latencies.end(), mine.begin(), mine.end());
      max_error = std::max(max_error, my_max_error);
    });
  }
  for (std::thread& t : threads) t.join();
  const std::chrono::duration<double> wall = Clock::now() - start;

  const int total = clients * requests;
  EXPECT_EQ(ok.load(), total);
  EXPECT_TRUE(failures.empty()) << failures.size() << " failed requests; first: " << failures.front();
  std::printf(
      "embed_service load: %d clients x %d requests, %d correct, %zu errors in %.2f s: %.0f req/s; "
      "latency (client side) p50 %.3f ms, p90 %.3f ms, p99 %.3f ms; max |kiln - onnxruntime| %.3g\n",
      clients, requests, ok.load(), failures.size(), wall.count(), total / wall.count(),
      1e3 * Percentile(latencies, 0.5), 1e3 * Percentile(latencies, 0.9),
      1e3 * Percentile(latencies, 0.99), max_error);

  const std::string metrics = service.Metrics();
  EXPECT_EQ(MetricValue(metrics, "kiln_requests_total"), total) << metrics;
  EXPECT_EQ(MetricValue(metrics, "kiln_request_errors_total"), 0) << metrics;
  EXPECT_EQ(MetricValue(metrics, "kiln_responses_total{code=\"200\"}"), total) << metrics;
  EXPECT_EQ(MetricValue(metrics, "kiln_request_latency_seconds_count"), total) << metrics;
  const double p50 = MetricValue(metrics, "kiln_request_latency_seconds{quantile=\"0.5\"}");
  const double p99 = MetricValue(metrics, "kiln_request_latency_seconds{quantile=\"0.99\"}");
  EXPECT_GT(p50, 0) << metrics;
  EXPECT_LE(p50, p99) << metrics;
  std::printf("embed_service load: server-side latency p50 %.3f ms, p99 %.3f ms (/metrics)\n", 1e3 * p50,
              1e3 * p99);

  service.Signal(SIGTERM);
  EXPECT_EQ(service.WaitForExit(std::chrono::seconds(15)), 0);
}

// What Session::Run itself says about `inputs`: the 400 must carry it.
kiln::Status RuntimeVerdict(const std::vector<kiln::NamedTensor>& inputs) {
  std::shared_ptr<kiln::Runtime> runtime;
  kiln::Status s = kiln::Runtime::Create({}, &runtime);
  std::shared_ptr<const kiln::Model> model;
  if (s.ok()) s = runtime->LoadModel(g_paths.model, &model);
  std::unique_ptr<kiln::Session> session;
  if (s.ok()) s = kiln::Session::Create(model, &session);
  std::vector<kiln::NamedTensor> outputs;
  if (s.ok()) s = session->Run(inputs, &outputs);
  return s;
}

kiln::NamedTensor Zeros(const std::string& name, kiln::DType dtype, std::vector<int64_t> dims) {
  kiln::NamedTensor t{name, {}};
  EXPECT_TRUE(kiln::Tensor::Allocate(dtype, std::move(dims), &t.tensor).ok());
  return t;
}

json ZerosJson(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return json(std::vector<int>(static_cast<size_t>(n), 0));
}

TEST(EmbedService, BadRequestsGetClear4xxWithTheRuntimesMessage) {
  ServiceProcess service;
  ASSERT_NO_FATAL_FAILURE(service.Start({}));
  auto client = service.NewClient();
  const std::string& in = g_ref.input;
  const std::vector<int64_t>& shape = g_ref.input_shape;
  std::vector<int64_t> narrow = shape;
  narrow.back() -= 1;

  // Inputs the JSON layer accepts and the model refuses: the answer is 400
  // with Session::Run's own code and message.
  struct RuntimeCase {
    const char* what;
    std::string body;
    std::vector<kiln::NamedTensor> tensors;
  } runtime_cases[] = {
      {"wrong name", InferBody("pixels", "f32", shape, ZerosJson(shape)),
       {Zeros("pixels", kiln::DType::F32, shape)}},
      {"wrong shape", InferBody(in, "f32", narrow, ZerosJson(narrow)),
       {Zeros(in, kiln::DType::F32, narrow)}},
      {"wrong dtype f64", InferBody(in, "f64", shape, ZerosJson(shape)),
       {Zeros(in, kiln::DType::F64, shape)}},
      {"wrong dtype i32", InferBody(in, "i32", shape, ZerosJson(shape)),
       {Zeros(in, kiln::DType::I32, shape)}},
      {"an extra input",
       json{{"inputs",
             {{in, {{"dtype", "f32"}, {"shape", shape}, {"data", ZerosJson(shape)}}},
              {"mask", {{"dtype", "bool"}, {"shape", {1}}, {"data", {true}}}}}}}
           .dump(),
       {Zeros(in, kiln::DType::F32, shape), Zeros("mask", kiln::DType::Bool, {1})}},
      {"no input", R"({"inputs": {}})", {}},
  };
  int bad_infer_requests = 0;
  for (const RuntimeCase& c : runtime_cases) {
    SCOPED_TRACE(c.what);
    kiln::Status verdict = RuntimeVerdict(c.tensors);
    ASSERT_FALSE(verdict.ok()) << "the runtime accepted " << c.what;
    auto res = PostInfer(*client, c.body);
    ++bad_infer_requests;
    ASSERT_TRUE(res) << httplib::to_string(res.error());
    EXPECT_EQ(res->status, 400) << res->body;
    json error = json::parse(res->body, nullptr, false);
    ASSERT_FALSE(error.is_discarded()) << res->body;
    EXPECT_EQ(error["error"]["code"], kiln::StatusCodeName(verdict.code())) << res->body;
    EXPECT_EQ(error["error"]["message"], verdict.message()) << res->body;
  }
  // Spot-check that those are the messages a user needs.
  EXPECT_EQ(RuntimeVerdict(runtime_cases[0].tensors).message(),
            "no input named 'pixels' (inputs: " + in + ")");
  EXPECT_NE(RuntimeVerdict(runtime_cases[1].tensors).message().find("expected shape"), std::string::npos);

  // Requests the service's JSON layer refuses, naming what is wrong.
  json good_data = ZerosJson(shape);
  json short_data = good_data;
  short_data.erase(short_data.size() - 1);
  json bad_element = good_data;
  bad_element[5] = "abc";
  struct JsonCase {
    const char* what;
    std::string body, message_part;
  } json_cases[] = {
      {"malformed JSON", R"({"inputs": {)", "malformed JSON"},
      {"not an object", "[1, 2]", "\"inputs\" object"},
      {"inputs not an object", R"({"inputs": [1]})", "\"inputs\" object"},
      {"missing data", json{{"inputs", {{in, {{"dtype", "f32"}, {"shape", shape}}}}}}.dump(),
       "input '" + in + "': missing \"data\""},
      {"unknown dtype", InferBody(in, "float32", shape, good_data),
       "input '" + in + "': unknown dtype \"float32\""},
      {"negative dim", InferBody(in, "f32", {1, -3, 32, 32}, good_data), "shape[1] is -3"},
      {"short data", InferBody(in, "f32", shape, short_data),
       "input '" + in + "': shape " + kiln::DescribeShape(shape, kiln::DType::F32) + " needs " +
           std::to_string(good_data.size()) + " values, \"data\" has " + std::to_string(short_data.size())},
      {"bad element", InferBody(in, "f32", shape, bad_element), "data[5] is \"abc\""},
      {"integer out of range", InferBody(in, "u8", {2}, json{1, 256}), "data[1] is 256"},
  };
  for (const JsonCase& c : json_cases) {
    SCOPED_TRACE(c.what);
    auto res = PostInfer(*client, c.body);
    ++bad_infer_requests;
    ASSERT_TRUE(res) << httplib::to_string(res.error());
    EXPECT_EQ(res->status, 400) << res->body;
    json error = json::parse(res->body, nullptr, false);
    ASSERT_FALSE(error.is_discarded()) << res->body;
    EXPECT_EQ(error["error"]["code"], "INVALID_ARGUMENT") << res->body;
    EXPECT_NE(error["error"]["message"].get<std::string>().find(c.message_part), std::string::npos)
        << "'" << c.message_part << "' not in " << res->body;
  }

  // Routes.
  auto unknown = client->Get("/v2/predict");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_NE(unknown->body.find("no route GET /v2/predict"), std::string::npos) << unknown->body;
  auto wrong_method = client->Get("/v1/infer");
  ASSERT_TRUE(wrong_method);
  EXPECT_EQ(wrong_method->status, 405);
  EXPECT_EQ(wrong_method->get_header_value("Allow"), "POST");
  // curl -d's default content type: cpp-httplib caps form bodies at 8 KiB.
  auto form = client->Post("/v1/infer", g_ref.bodies[0], "application/x-www-form-urlencoded");
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 413);
  EXPECT_NE(form->body.find("Content-Type: application/json"), std::string::npos) << form->body;

  // The service still answers correctly, and counted the bad requests.
  EXPECT_EQ(CheckAnswer(PostInfer(*client, g_ref.bodies[3]), 3), "");
  const std::string metrics = service.Metrics();
  EXPECT_EQ(MetricValue(metrics, "kiln_responses_total{code=\"400\"}"), bad_infer_requests) << metrics;
  EXPECT_EQ(MetricValue(metrics, "kiln_responses_total{code=\"200\"}"), 1) << metrics;
  EXPECT_EQ(MetricValue(metrics, "kiln_request_errors_total"), bad_infer_requests) << metrics;
  client.reset();
  service.Signal(SIGTERM);
  EXPECT_EQ(service.WaitForExit(std::chrono::seconds(15)), 0);
}

// Fires `count` requests at once, one connection each; returns the results
// and each one's latency.
struct Outcome {
  httplib::Result result{nullptr, httplib::Error::Unknown};
  double seconds = 0;
  size_t reference_case = 0;
};
std::vector<Outcome> FireTogether(const ServiceProcess& service, int count) {
  std::vector<Outcome> outcomes(static_cast<size_t>(count));
  std::promise<void> go;
  std::shared_future<void> start = go.get_future().share();
  std::vector<std::thread> threads;
  for (int k = 0; k < count; ++k) {
    threads.emplace_back([&, k, start] {
      auto client = service.NewClient();
      Outcome& o = outcomes[static_cast<size_t>(k)];
      o.reference_case = static_cast<size_t>(k) % g_ref.bodies.size();
      start.wait();
      const auto sent = Clock::now();
      o.result = PostInfer(*client, g_ref.bodies[o.reference_case]);
      o.seconds = std::chrono::duration<double>(Clock::now() - sent).count();
    });
  }
  go.set_value();
  for (std::thread& t : threads) t.join();
  return outcomes;
}

TEST(EmbedService, FullQueueAnswers503WithRetryAfterNotAHang) {
  ServiceProcess service;
  // One session, two waiting: of ten simultaneous requests three are
  // admitted and each holds its session for a second (long enough that a
  // client thread started late on a busy machine still finds it full).
  ASSERT_NO_FATAL_FAILURE(
      service.Start({"--sessions=1", "--queue=2", "--simulate_run_ms=1000", "--http_threads=16"}));
  std::vector<Outcome> outcomes = FireTogether(service, 10);
  int ok = 0, rejected = 0;
  double slowest_ok = 0, slowest_rejected = 0;
  for (const Outcome& o : outcomes) {
    ASSERT_TRUE(o.result) << httplib::to_string(o.result.error());
    if (o.result->status == 200) {
      ++ok;
      slowest_ok = std::max(slowest_ok, o.seconds);
      EXPECT_EQ(CheckAnswer(o.result, o.reference_case), "");
    } else {
      ++rejected;
      slowest_rejected = std::max(slowest_rejected, o.seconds);
      EXPECT_EQ(o.result->status, 503) << o.result->body;
      EXPECT_EQ(o.result->get_header_value("Retry-After"), "1");
      json error = json::parse(o.result->body, nullptr, false);
      EXPECT_EQ(error["error"]["code"], "UNAVAILABLE") << o.result->body;
      EXPECT_NE(o.result->body.find("queue is full"), std::string::npos) << o.result->body;
    }
  }
  std::printf("embed_service backpressure: %d answered, %d refused with 503; slowest 503 %.1f ms, "
              "slowest 200 %.1f ms\n",
              ok, rejected, 1e3 * slowest_rejected, 1e3 * slowest_ok);
  EXPECT_GE(ok, 3);
  EXPECT_GE(rejected, 4);
  // Refusals do not wait for a session: each came back before the last
  // admitted request (which waited for two runs ahead of it) finished.
  EXPECT_LT(slowest_rejected, slowest_ok);
  const std::string metrics = service.Metrics();
  EXPECT_EQ(MetricValue(metrics, "kiln_responses_total{code=\"503\"}"), rejected) << metrics;
  EXPECT_EQ(MetricValue(metrics, "kiln_queue_capacity"), 2) << metrics;
  service.Signal(SIGTERM);
  EXPECT_EQ(service.WaitForExit(std::chrono::seconds(15)), 0);
}

TEST(EmbedService, SigtermFinishesInFlightRequestsThenExitsZero) {
  ServiceProcess service;
  ASSERT_NO_FATAL_FAILURE(service.Start({"--sessions=1", "--queue=8", "--simulate_run_ms=500"}));
  constexpr int kRequests = 6;
  std::vector<Outcome> outcomes;
  std::thread fire([&] { outcomes = FireTogether(service, kRequests); });
  // Wait until all six have been received (waiting, running or answered;
  // normally one running and five waiting, 3 s of work).
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  double in_flight = 0;
  for (;;) {
    const std::string metrics = service.Metrics();
    in_flight = MetricValue(metrics, "kiln_queue_depth") + MetricValue(metrics, "kiln_sessions_busy");
    const double answered = MetricValue(metrics, "kiln_requests_total");
    if (in_flight + answered == kRequests) break;
    if (Clock::now() > deadline) {
      fire.join();
      FAIL() << "requests not received: " << metrics;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_GE(in_flight, 2) << "too few requests in flight to test the drain";
  service.Signal(SIGTERM);
  const auto signalled = Clock::now();
  // It stops accepting at once: a new connection is refused while the
  // admitted requests (about 1.8 s of runs) are still being finished.
  bool refused = false;
  while (!refused && Clock::now() - signalled < std::chrono::seconds(1)) {
    httplib::Client probe("127.0.0.1", service.port());
    probe.set_connection_timeout(1);
    auto res = probe.Get("/healthz");
    refused = !res && res.error() == httplib::Error::Connection;
    if (!refused) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(refused) << "new connections were still accepted 1 s after SIGTERM";
  fire.join();
  const double drained = std::chrono::duration<double>(Clock::now() - signalled).count();
  for (const Outcome& o : outcomes) EXPECT_EQ(CheckAnswer(o.result, o.reference_case), "");
  EXPECT_EQ(service.WaitForExit(std::chrono::seconds(15)), 0);
  std::printf("embed_service drain: %.0f requests in flight at SIGTERM, all answered within %.2f s, "
              "exit 0\n",
              in_flight, drained);
}

TEST(EmbedService, SigtermUnderLoadExitsZeroWithEveryAnswerCorrect) {
  ServiceProcess service;
  ASSERT_NO_FATAL_FAILURE(service.Start({"--sessions=2", "--queue=64"}));
  std::atomic<bool> signalled{false};
  std::atomic<int> ok{0}, refused_while_draining{0}, transport_after_signal{0};
  std::mutex mutex;
  std::vector<std::string> failures;
  std::vector<std::thread> threads;
  for (int k = 0; k < 8; ++k) {
    threads.emplace_back([&, k] {
      auto client = service.NewClient();
      for (int i = 0;; ++i) {
        const size_t c = static_cast<size_t>(k + i) % g_ref.bodies.size();
        auto res = PostInfer(*client, g_ref.bodies[c]);
        const bool after = signalled;
        // After SIGTERM a connection may be closed or refused, and a
        // request arriving on a kept-alive connection may be refused;
        // a wrong answer never.
        if (after && !res) {
          ++transport_after_signal;
          return;
        }
        if (after && res->status == 503 && res->body.find("shutting down") != std::string::npos) {
          ++refused_while_draining;
          return;
        }
        std::string problem = CheckAnswer(res, c);
        if (!problem.empty()) {
          std::lock_guard<std::mutex> lock(mutex);
          failures.push_back(problem);
          return;
        }
        ++ok;
      }
    });
  }
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (ok < 200 && Clock::now() < deadline) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!failures.empty()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  signalled = true;
  service.Signal(SIGTERM);
  for (std::thread& t : threads) t.join();
  EXPECT_TRUE(failures.empty()) << failures.size() << " wrong answers; first: " << failures.front();
  EXPECT_GE(ok.load(), 200);
  EXPECT_EQ(service.WaitForExit(std::chrono::seconds(15)), 0);
  std::printf("embed_service SIGTERM under load: %d correct answers, then %d connections closed or "
              "refused and %d requests refused while draining; exit 0\n",
              ok.load(), transport_after_signal.load(), refused_while_draining.load());
}

TEST(EmbedService, StartupErrorsExitNonZeroWithAMessage) {
  std::string output;
  EXPECT_EQ(RunToExit({g_paths.service, "--model=/nonexistent/model.kiln", "--port=0"}, &output), 1);
  std::shared_ptr<kiln::Runtime> runtime;
  ASSERT_TRUE(kiln::Runtime::Create({}, &runtime).ok());
  std::shared_ptr<const kiln::Model> model;
  kiln::Status load = runtime->LoadModel("/nonexistent/model.kiln", &model);
  ASSERT_FALSE(load.ok());
  EXPECT_NE(output.find(load.message()), std::string::npos) << output;

  EXPECT_EQ(RunToExit({g_paths.service, "--model=" + g_paths.model, "--sessions=0"}, &output), 2);
  EXPECT_NE(output.find("--sessions needs an integer >= 1, got '0'"), std::string::npos) << output;
  EXPECT_EQ(RunToExit({g_paths.service, "--modle=x.kiln"}, &output), 2);
  EXPECT_NE(output.find("unknown flag '--modle=x.kiln'"), std::string::npos) << output;
  EXPECT_EQ(RunToExit({g_paths.service}, &output), 2);
  EXPECT_NE(output.find("--model=FILE.kiln is required"), std::string::npos) << output;
}

// The guide's first snippet (quickstart.cc) runs and prints onnxruntime's
// answer for its constant image.
TEST(EmbedService, QuickstartSnippetMatchesOnnxruntime) {
  std::string output;
  ASSERT_EQ(RunToExit({g_paths.quickstart, g_paths.model}, &output), 0) << output;
  const std::string marker = "probabilities:";
  size_t at = output.find(marker);
  ASSERT_NE(at, std::string::npos) << output;
  std::istringstream values(output.substr(at + marker.size()));
  std::vector<float> got;
  for (float v; values >> v;) got.push_back(v);
  ASSERT_EQ(got.size(), g_ref.quickstart_output.size()) << output;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], g_ref.quickstart_output[i], 1e-5 + 1e-4 * std::fabs(g_ref.quickstart_output[i]))
        << "output " << i;
}

void LoadReference(const std::string& path) {
  std::ifstream file(path);
  if (!file) {
    std::fprintf(stderr, "embed_service_test: cannot read %s\n", path.c_str());
    std::exit(1);
  }
  json ref = json::parse(file);
  g_ref.input = ref["input"];
  g_ref.output = ref["output"];
  g_ref.input_shape = ref["input_shape"].get<std::vector<int64_t>>();
  g_ref.output_shape = ref["output_shape"].get<std::vector<int64_t>>();
  for (const json& c : ref["cases"]) {
    g_ref.inputs.push_back(c["input"].get<std::vector<float>>());
    g_ref.outputs.push_back(c["output"].get<std::vector<float>>());
    g_ref.bodies.push_back(InferBody(g_ref.input, "f32", g_ref.input_shape, c["input"]));
  }
  g_ref.quickstart_output = ref["constant_case"]["output"].get<std::vector<float>>();
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    for (auto [flag, target] : {std::pair<const char*, std::string*>{"--service=", &g_paths.service},
                                {"--model=", &g_paths.model},
                                {"--reference=", &g_paths.reference},
                                {"--quickstart=", &g_paths.quickstart}})
      if (arg.rfind(flag, 0) == 0) *target = arg.substr(std::strlen(flag));
  }
  if (g_paths.service.empty() || g_paths.model.empty() || g_paths.reference.empty() ||
      g_paths.quickstart.empty()) {
    std::fprintf(stderr,
                 "usage: embed_service_test --service=BIN --model=M.kiln --reference=REF.json "
                 "--quickstart=BIN\n");
    return 2;
  }
  LoadReference(g_paths.reference);
  signal(SIGPIPE, SIG_IGN);
  return RUN_ALL_TESTS();
}
