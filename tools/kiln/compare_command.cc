#include "tools/kiln/compare_command.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "kiln/runtime.h"
#include "tools/kiln/compare_stats.h"
#include "tools/kiln/sample_dir.h"

namespace kiln::tools {

const char kCompareUsage[] =
    "  kiln compare REFERENCE.kiln CANDIDATE.kiln [--inputs DIR] [--samples N] [--seed S]\n"
    "               [--threads N] [--min-cosine X] [--json]\n"
    "compare runs both artifacts (same inputs and outputs required) on the samples\n"
    "of DIR (sub-folders of input_N.pb or NAME.npy files, or DIR's own files as\n"
    "one sample; --samples N takes the first N) or on N random samples (default 4)\n"
    "from --seed, and prints per output: cosine similarity, max and mean abs\n"
    "error, max abs of the reference, and top-1 agreement for class scores\n"
    "([N, C] or [N, C, 1, 1], C >= 2). --min-cosine X: exit status 3 when an\n"
    "output's cosine is below X. --json prints the report as JSON.\n";

namespace {

constexpr int kFailure = 1, kUsageError = 2, kBelowThreshold = 3;
constexpr long kDefaultRandomSamples = 4;

int Usage(const std::string& problem) {
  std::fprintf(stderr, "kiln compare: %s\nusage:\n%s", problem.c_str(), kCompareUsage);
  return kUsageError;
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "kiln compare: %s\n", message.c_str());
  return kFailure;
}

struct CompareOptions {
  std::string reference, candidate, inputs_dir;
  long samples = -1;  // -1: every sample of DIR, or kDefaultRandomSamples
  long seed = 0;
  long threads = 0;
  bool has_min_cosine = false;
  double min_cosine = 0;
  bool json = false;
};

bool ParseLong(const std::string& text, long min, long max, long* out) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v < min || v > max) return false;
  *out = v;
  return true;
}

// Returns -1 when parsed, else the exit status.
int ParseCompareOptions(int argc, char** argv, CompareOptions* o) {
  std::vector<std::string> positional;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::printf("usage:\n%s", kCompareUsage);
      return 0;
    }
    if (arg.rfind("--", 0) != 0) {
      positional.push_back(arg);
      continue;
    }
    if (arg == "--json") {
      o->json = true;
      continue;
    }
    std::string v;
    size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      v = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (i + 1 < argc) {
      v = argv[++i];
    } else {
      return Usage(arg + " needs a value");
    }
    if (arg == "--inputs") {
      if (v.empty()) return Usage("--inputs needs a directory");
      o->inputs_dir = v;
    } else if (arg == "--samples") {
      if (!ParseLong(v, 1, 100000000, &o->samples))
        return Usage("--samples needs a positive number, got '" + v + "'");
    } else if (arg == "--seed") {
      if (!ParseLong(v, 0, 0x7FFFFFFF, &o->seed))
        return Usage("--seed needs a non-negative number, got '" + v + "'");
    } else if (arg == "--threads") {
      if (!ParseLong(v, 0, 1024, &o->threads))
        return Usage("--threads needs a number in [0, 1024], got '" + v + "'");
    } else if (arg == "--min-cosine") {
      char* end = nullptr;
      errno = 0;
      double x = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || errno != 0 || !(x >= -1.0 && x <= 1.0))
        return Usage("--min-cosine needs a number in [-1, 1], got '" + v + "'");
      o->has_min_cosine = true;
      o->min_cosine = x;
    } else {
      return Usage("unknown option '" + arg + "'");
    }
  }
  if (positional.size() != 2)
    return Usage(positional.size() < 2 ? "needs two model files (REFERENCE.kiln CANDIDATE.kiln)"
                                       : "more than two model files given");
  o->reference = positional[0];
  o->candidate = positional[1];
  return -1;
}

std::string Describe(const TensorInfo& t) { return "'" + t.name + "' " + DescribeShape(t.dims, t.dtype); }

// "" when the two lists agree, else what differs, naming the tensor.
std::string SignatureDifference(const char* what, const std::vector<TensorInfo>& a,
                                const std::vector<TensorInfo>& b, const std::string& a_file,
                                const std::string& b_file) {
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i].name != b[i].name || a[i].dtype != b[i].dtype || a[i].dims != b[i].dims)
      return std::string(what) + " #" + std::to_string(i) + " is " + Describe(a[i]) + " in " + a_file +
             " but " + Describe(b[i]) + " in " + b_file;
  }
  if (a.size() != b.size()) {
    const bool a_longer = a.size() > b.size();
    const TensorInfo& extra = a_longer ? a[b.size()] : b[a.size()];
    return std::string(what) + " " + Describe(extra) + " of " + (a_longer ? a_file : b_file) +
           " is not in " + (a_longer ? b_file : a_file) + " (" + std::to_string(a.size()) + " " + what +
           "s against " + std::to_string(b.size()) + ")";
  }
  return "";
}

struct Loaded {
  std::shared_ptr<const Model> model;
  std::unique_ptr<Session> session;
};

Status LoadOne(Runtime& runtime, const std::string& path, Loaded* out) {
  Status s = runtime.LoadModel(path, &out->model);
  if (s.ok()) s = Session::Create(out->model, &out->session);
  if (!s.ok() && s.message().find(path) == std::string::npos)
    return Status(s.code(), path + ": " + s.message());
  return s;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// JSON has no NaN or infinity: those become null.
std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

bool BelowThreshold(const CompareOptions& o, const OutputComparison& c) {
  return o.has_min_cosine && !(c.cosine() >= o.min_cosine);
}

void PrintText(const CompareOptions& o, const std::string& source, size_t samples,
               const std::vector<TensorInfo>& outputs, const std::vector<OutputComparison>& stats) {
  std::printf("reference: %s\ncandidate: %s\nsamples: %zu (%s)\n", o.reference.c_str(), o.candidate.c_str(),
              samples, source.c_str());
  size_t below = 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const OutputComparison& c = stats[i];
    std::printf("output %s\n", Describe(outputs[i]).c_str());
    std::printf("  cosine %.8f  max abs error %.6g  mean abs error %.6g  max abs reference %.6g\n", c.cosine(),
                c.max_abs_error(), c.mean_abs_error(), c.max_abs_reference());
    if (c.non_finite_mismatches() > 0)
      std::printf("  non-finite mismatches: %lld of %lld elements\n",
                  static_cast<long long>(c.non_finite_mismatches()), static_cast<long long>(c.elements()));
    if (c.class_scores())
      std::printf("  top-1 agreement %lld/%lld (%.2f%%)\n", static_cast<long long>(c.top1_agree()),
                  static_cast<long long>(c.top1_total()),
                  c.top1_total() ? 100.0 * static_cast<double>(c.top1_agree()) /
                                       static_cast<double>(c.top1_total())
                                 : 0.0);
    if (BelowThreshold(o, c)) {
      std::printf("  BELOW --min-cosine %g\n", o.min_cosine);
      ++below;
    }
  }
  if (o.has_min_cosine) {
    if (below > 0)
      std::printf("FAIL: %zu of %zu outputs below --min-cosine %g\n", below, outputs.size(), o.min_cosine);
    else
      std::printf("ok: every output has cosine >= %g\n", o.min_cosine);
  }
}

void PrintJson(const CompareOptions& o, const std::string& source, size_t samples,
               const std::vector<TensorInfo>& outputs, const std::vector<OutputComparison>& stats) {
  bool pass = true;
  std::printf("{\n  \"reference\": %s,\n  \"candidate\": %s,\n  \"samples\": %zu,\n  \"inputs\": %s,\n",
              JsonString(o.reference).c_str(), JsonString(o.candidate).c_str(), samples,
              JsonString(source).c_str());
  std::printf("  \"min_cosine\": %s,\n  \"outputs\": [", o.has_min_cosine ? JsonNumber(o.min_cosine).c_str() : "null");
  for (size_t i = 0; i < outputs.size(); ++i) {
    const OutputComparison& c = stats[i];
    const bool below = BelowThreshold(o, c);
    pass &= !below;
    std::string shape;
    for (int64_t d : outputs[i].dims) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    std::printf("%s\n    {\"name\": %s, \"dtype\": \"%s\", \"shape\": [%s],\n", i ? "," : "",
                JsonString(outputs[i].name).c_str(), DTypeName(outputs[i].dtype), shape.c_str());
    std::printf("     \"cosine\": %s, \"max_abs_error\": %s, \"mean_abs_error\": %s, \"max_abs_reference\": %s,\n",
                JsonNumber(c.cosine()).c_str(), JsonNumber(c.max_abs_error()).c_str(),
                JsonNumber(c.mean_abs_error()).c_str(), JsonNumber(c.max_abs_reference()).c_str());
    std::printf("     \"elements\": %lld, \"non_finite_mismatches\": %lld, ", static_cast<long long>(c.elements()),
                static_cast<long long>(c.non_finite_mismatches()));
    if (c.class_scores())
      std::printf("\"top1\": {\"agree\": %lld, \"total\": %lld, \"rate\": %s}, ",
                  static_cast<long long>(c.top1_agree()), static_cast<long long>(c.top1_total()),
                  JsonNumber(c.top1_total() ? static_cast<double>(c.top1_agree()) /
                                                  static_cast<double>(c.top1_total())
                                            : 0.0)
                      .c_str());
    else
      std::printf("\"top1\": null, ");
    std::printf("\"below_min_cosine\": %s}", below ? "true" : "false");
  }
  std::printf("\n  ],\n  \"pass\": %s\n}\n", pass ? "true" : "false");
}

}  // namespace

int RunCompareCommand(int argc, char** argv) {
  CompareOptions o;
  int rc = ParseCompareOptions(argc, argv, &o);
  if (rc >= 0) return rc;

  RuntimeOptions runtime_options;
  runtime_options.num_threads = static_cast<int>(o.threads);
  std::shared_ptr<Runtime> runtime;
  Status s = Runtime::Create(runtime_options, &runtime);
  if (!s.ok()) return Fail(s.message());
  Loaded reference, candidate;
  if (!(s = LoadOne(*runtime, o.reference, &reference)).ok()) return Fail(s.message());
  if (!(s = LoadOne(*runtime, o.candidate, &candidate)).ok()) return Fail(s.message());

  const std::vector<TensorInfo>& inputs = reference.model->inputs();
  const std::vector<TensorInfo>& outputs = reference.model->outputs();
  std::string difference =
      SignatureDifference("input", inputs, candidate.model->inputs(), o.reference, o.candidate);
  if (difference.empty())
    difference = SignatureDifference("output", outputs, candidate.model->outputs(), o.reference, o.candidate);
  if (!difference.empty()) return Fail("the models' signatures differ: " + difference);

  std::vector<std::string> folders;
  std::string source;
  size_t samples;
  if (!o.inputs_dir.empty()) {
    if (!(s = ListSampleFolders(o.inputs_dir, &folders)).ok()) return Fail("--inputs: " + s.message());
    if (o.samples > 0 && folders.size() > static_cast<size_t>(o.samples)) folders.resize(o.samples);
    samples = folders.size();
    source = o.inputs_dir;
  } else {
    samples = static_cast<size_t>(o.samples > 0 ? o.samples : kDefaultRandomSamples);
    source = "random, seed " + std::to_string(o.seed);
  }

  std::vector<OutputComparison> stats;
  for (const TensorInfo& info : outputs) stats.emplace_back(info.dims);
  std::vector<Tensor> sample, reference_out, candidate_out;
  for (size_t k = 0; k < samples; ++k) {
    s = folders.empty() ? RandomSample(inputs, static_cast<uint64_t>(o.seed) + k, &sample)
                        : ReadSample(folders[k], inputs, &sample);
    if (!s.ok()) return Fail(s.message());
    const std::string which = folders.empty() ? "random sample " + std::to_string(k) : "sample '" + folders[k] + "'";
    if (!(s = reference.session->Run(sample, &reference_out)).ok())
      return Fail(o.reference + " on " + which + ": " + s.message());
    if (!(s = candidate.session->Run(sample, &candidate_out)).ok())
      return Fail(o.candidate + " on " + which + ": " + s.message());
    for (size_t i = 0; i < outputs.size(); ++i) stats[i].Add(reference_out[i], candidate_out[i]);
  }

  if (o.json)
    PrintJson(o, source, samples, outputs, stats);
  else
    PrintText(o, source, samples, outputs, stats);
  for (const OutputComparison& c : stats)
    if (BelowThreshold(o, c)) return kBelowThreshold;
  return 0;
}

}  // namespace kiln::tools
