// kiln - runs, benchmarks and inspects .kiln artifacts.
//
//   kiln run model.kiln [--input NAME=FILE]... [--seed N] [--output-dir DIR] [--threads N]
//                       [--device auto|cpu|cuda[:N]] [--custom-op-library LIB.so]...
//   kiln bench model.kiln [--threads N] [--iterations N] [--warmup N] [--profile]
//                         [--device auto|cpu|cuda[:N]] [--custom-op-library LIB.so]...
//   kiln inspect model.kiln
//   kiln compare reference.kiln candidate.kiln [--inputs DIR] [--samples N] ...
//     (compare_command.cc)
//
// Exit status: 0 on success, 1 when a file or the model fails, 2 on bad usage.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "kiln/runtime.h"
#include "tools/kiln/compare_command.h"
#include "tools/kiln/tensor_files.h"

namespace kiln::tools {
namespace {

constexpr int kUsageError = 2, kFailure = 1;

const char kUsage[] =
    "usage:\n"
    "  kiln run MODEL.kiln [--input NAME=FILE]... [--seed N] [--output-dir DIR] [--threads N]\n"
    "                      [--device auto|cpu|cuda[:N]] [--custom-op-library LIB.so]...\n"
    "  kiln bench MODEL.kiln [--threads N] [--iterations N] [--warmup N] [--profile]\n"
    "                        [--device auto|cpu|cuda[:N]] [--custom-op-library LIB.so]...\n"
    "  kiln inspect MODEL.kiln\n"
    "%s"
    "Inputs are .npy or ONNX TensorProto (.pb) files; inputs not given are random\n"
    "(floats uniform in [-1, 1], small non-negative integers) from --seed.\n"
    "bench --profile then runs the iterations again timing every step, and lists\n"
    "the dispatches by total time.\n"
    "--device picks where the model runs: auto (default) uses a GPU when the NVIDIA\n"
    "driver finds one and the artifact has a cuda plan, else the CPU; cuda[:N] fails\n"
    "without a GPU or a cuda plan.\n"
    "--custom-op-library registers the external custom-op kernels a library\n"
    "exports (kiln/custom_op.h) before the model is loaded.\n"
    "Trust: a .kiln artifact is native code; run or bench executes it with this\n"
    "process's rights. Its checksum (XXH3-64) detects corruption, not tampering,\n"
    "and the loader's checks catch malformed files, not malicious code. Only load\n"
    "artifacts from trusted sources (inspect does not run the code).\n";

int Usage(const std::string& problem) {
  std::fprintf(stderr, "kiln: %s\n", problem.c_str());
  std::fprintf(stderr, kUsage, kCompareUsage);
  return kUsageError;
}

int Fail(const Status& s) {
  std::fprintf(stderr, "kiln: %s\n", s.message().c_str());
  return kFailure;
}

struct Options {
  std::string model;
  std::vector<std::pair<std::string, std::string>> inputs;
  uint64_t seed = 0;
  std::string output_dir;
  int threads = 0;
  Device device;
  long iterations = 100, warmup = 10;
  bool profile = false;
  std::vector<std::string> custom_op_libraries;
};

bool ParseNumber(const std::string& text, long min, long max, long* out) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v < min || v > max) return false;
  *out = v;
  return true;
}

// Returns -1 on success, else the exit code.
int ParseOptions(const std::string& command, int argc, char** argv, Options* o) {
  std::vector<std::string> positional;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::printf(kUsage, kCompareUsage);
      return 0;
    }
    auto value = [&](std::string* out) {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        *out = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        return true;
      }
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    if (arg.rfind("--", 0) != 0) {
      positional.push_back(arg);
      continue;
    }
    std::string v;
    long n;
    if (arg.rfind("--input", 0) == 0 && command == "run") {
      // "--input NAME=FILE" or "--input=NAME=FILE"
      if (arg == "--input") {
        if (i + 1 >= argc) return Usage("--input needs NAME=FILE");
        v = argv[++i];
      } else if (arg.rfind("--input=", 0) == 0) {
        v = arg.substr(8);
      } else {
        return Usage("unknown option '" + arg + "'");
      }
      size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
        return Usage("--input needs NAME=FILE, got '" + v + "'");
      o->inputs.push_back({v.substr(0, eq), v.substr(eq + 1)});
    } else if (arg == "--profile" || arg.rfind("--profile=", 0) == 0) {
      if (command != "bench") return Usage("unknown option '--profile' for '" + command + "'");
      if (arg != "--profile") return Usage("--profile takes no value");
      o->profile = true;
    } else if (!value(&v)) {
      return Usage(arg + " needs a value");
    } else if (arg == "--threads") {
      if (!ParseNumber(v, 0, 1024, &n)) return Usage("--threads needs a number in [0, 1024], got '" + v + "'");
      o->threads = static_cast<int>(n);
    } else if (arg == "--device" && (command == "run" || command == "bench")) {
      Status parsed = Device::Parse(v, &o->device);
      if (!parsed.ok()) return Usage("--device: " + parsed.message());
    } else if (arg == "--custom-op-library" && (command == "run" || command == "bench")) {
      o->custom_op_libraries.push_back(v);
    } else if (arg == "--seed" && command == "run") {
      if (!ParseNumber(v, 0, 0x7FFFFFFF, &n)) return Usage("--seed needs a non-negative number, got '" + v + "'");
      o->seed = static_cast<uint64_t>(n);
    } else if (arg == "--output-dir" && command == "run") {
      o->output_dir = v;
    } else if (arg == "--iterations" && command == "bench") {
      if (!ParseNumber(v, 1, 100000000, &n)) return Usage("--iterations needs a positive number, got '" + v + "'");
      o->iterations = n;
    } else if (arg == "--warmup" && command == "bench") {
      if (!ParseNumber(v, 0, 100000000, &n)) return Usage("--warmup needs a non-negative number, got '" + v + "'");
      o->warmup = n;
    } else {
      return Usage("unknown option '" + arg + "' for '" + command + "'");
    }
  }
  if (positional.size() != 1)
    return Usage(positional.empty() ? "no model file given" : "more than one model file given");
  o->model = positional[0];
  return -1;
}

struct Loaded {
  std::shared_ptr<Runtime> runtime;
  std::shared_ptr<const Model> model;
  std::unique_ptr<Session> session;
};

Status Load(const Options& o, Loaded* out) {
  RuntimeOptions options;
  options.num_threads = o.threads;
  options.device = o.device;
  Status s = Runtime::Create(options, &out->runtime);
  for (const std::string& library : o.custom_op_libraries)
    if (s.ok()) s = out->runtime->RegisterCustomOpLibrary(library);
  if (s.ok()) s = out->runtime->LoadModel(o.model, &out->model);
  if (s.ok()) s = Session::Create(out->model, &out->session);
  return s;
}

Status MakeInputs(const Options& o, const Model& model, std::vector<Tensor>* inputs) {
  std::map<std::string, std::string> files;
  for (const auto& [name, file] : o.inputs) {
    if (model.FindInput(name) < 0) {
      std::string names;
      for (const TensorInfo& info : model.inputs()) names += (names.empty() ? "" : ", ") + info.name;
      return Status(StatusCode::kNotFound, "--input " + name + ": the model has no input '" + name +
                                               "' (inputs: " + names + ")");
    }
    if (!files.emplace(name, file).second)
      return Status(StatusCode::kInvalidArgument, "--input " + name + " given twice");
  }
  for (size_t i = 0; i < model.inputs().size(); ++i) {
    const TensorInfo& info = model.inputs()[i];
    Tensor t;
    auto it = files.find(info.name);
    if (it != files.end()) {
      Status s = ReadTensorFile(it->second, &t);
      if (!s.ok()) return s;
      if (t.dtype() != info.dtype || t.dims() != info.dims)
        return Status(StatusCode::kInvalidArgument,
                      "input '" + info.name + "' from " + it->second + ": expected shape " +
                          DescribeShape(info.dims, info.dtype) + ", got " + DescribeShape(t.dims(), t.dtype()));
    } else {
      Status s = Tensor::Allocate(info.dtype, info.dims, &t);
      if (!s.ok()) return s;
      FillRandom(&t, o.seed * 1000003 + i);
    }
    inputs->push_back(std::move(t));
  }
  return Status::Ok();
}

void PrintSummary(const std::string& name, const Tensor& t) {
  std::printf("%s: %s\n  values:", name.c_str(), DescribeShape(t.dims(), t.dtype()).c_str());
  int64_t n = t.element_count();
  for (int64_t i = 0; i < std::min<int64_t>(n, 8); ++i) std::printf(" %.6g", ElementAsDouble(t, i));
  if (n > 8) std::printf(" ...");
  if (n > 0) {
    double lo = ElementAsDouble(t, 0), hi = lo, sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      double v = ElementAsDouble(t, i);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      sum += v;
    }
    std::printf("\n  min %.6g  max %.6g  mean %.6g", lo, hi, sum / static_cast<double>(n));
  }
  std::printf("\n");
}

int Run(const Options& o) {
  Loaded loaded;
  Status s = Load(o, &loaded);
  if (!s.ok()) return Fail(s);
  std::vector<Tensor> inputs, outputs;
  if (!(s = MakeInputs(o, *loaded.model, &inputs)).ok()) return Fail(s);
  auto start = std::chrono::steady_clock::now();
  s = loaded.session->Run(inputs, &outputs);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!s.ok()) return Fail(s);
  if (!o.output_dir.empty()) {
    struct stat st;
    if (::stat(o.output_dir.c_str(), &st) != 0 && ::mkdir(o.output_dir.c_str(), 0755) != 0)
      return Fail(Status(StatusCode::kNotFound, "cannot create output directory '" + o.output_dir + "'"));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string& name = loaded.model->outputs()[i].name;
    PrintSummary(name, outputs[i]);
    if (!o.output_dir.empty()) {
      std::string path = o.output_dir + "/" + SafeFileName(name) + ".npy";
      if (!(s = WriteFile(path, EncodeNpy(outputs[i]))).ok()) return Fail(s);
      std::printf("  written to %s\n", path.c_str());
    }
  }
  std::printf("latency: %.3f ms\n", ms);
  return 0;
}

// The profile's steps grouped by name, longest first, then the totals.
void PrintProfile(const SessionProfile& profile) {
  std::vector<ProfileEntry> entries;
  double outside_ms = 0;
  if (!SummarizeProfile(profile, &entries, &outside_ms).ok()) return;
  const double run_ms = static_cast<double>(profile.run_ns) / 1e6 / static_cast<double>(profile.runs);
  auto share = [run_ms](double ms) { return run_ms > 0 ? 100.0 * ms / run_ms : 0.0; };
  int name_width = 4, ops_width = 3;
  for (const ProfileEntry& e : entries) {
    name_width = std::max(name_width, static_cast<int>(e.name.size()));
    ops_width = std::max(ops_width, static_cast<int>(e.ops.size()));
  }
  // Means, unlike the percentiles above: a run descheduled now and then
  // shows here in full.
  std::printf("\nprofile: %llu runs timed per step, mean %.4f ms per run\n",
              static_cast<unsigned long long>(profile.runs), run_ms);
  std::printf("%4s  %-*s  %-*s  %10s  %5s  %10s  %7s\n", "rank", name_width, "name", ops_width, "ops",
              "workgroups", "calls", "ms/run", "share");
  double dispatch_ms = 0, copy_ms = 0, custom_ms = 0;
  size_t dispatches = 0, copies = 0, customs = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const ProfileEntry& e = entries[i];
    std::string workgroups = e.kind == StepInfo::Kind::kCopy         ? "copy"
                             : e.kind == StepInfo::Kind::kCustomCall ? "custom"
                             : e.workgroups_vary                     ? "varies"
                                                                     : std::to_string(e.workgroups);
    std::printf("%4zu  %-*s  %-*s  %10s  %5llu  %10.4f  %6.1f%%\n", i + 1, name_width, e.name.c_str(),
                ops_width, e.ops.empty() ? "-" : e.ops.c_str(), workgroups.c_str(),
                static_cast<unsigned long long>(e.calls_per_run), e.ms_per_run, e.share);
    if (e.kind == StepInfo::Kind::kCopy) {
      copy_ms += e.ms_per_run;
      copies += e.calls_per_run;
    } else if (e.kind == StepInfo::Kind::kCustomCall) {
      custom_ms += e.ms_per_run;
      customs += e.calls_per_run;
    } else {
      dispatch_ms += e.ms_per_run;
      dispatches += e.calls_per_run;
    }
  }
  std::printf("dispatches (%zu per run): %.4f ms per run (%.1f%%)\n", dispatches, dispatch_ms,
              share(dispatch_ms));
  if (copies > 0)
    std::printf("copies (%zu per run): %.4f ms per run (%.1f%%)\n", copies, copy_ms, share(copy_ms));
  if (customs > 0)
    std::printf("custom calls (%zu per run): %.4f ms per run (%.1f%%)\n", customs, custom_ms,
                share(custom_ms));
  std::printf("outside steps (checks, output allocation): %.4f ms per run (%.1f%%)\n", outside_ms,
              share(outside_ms));
  std::printf("total: %.4f ms per run (mean)\n", run_ms);
}

int Bench(const Options& o) {
  Loaded loaded;
  Status s = Load(o, &loaded);
  if (!s.ok()) return Fail(s);
  std::vector<Tensor> inputs, outputs;
  if (!(s = MakeInputs(o, *loaded.model, &inputs)).ok()) return Fail(s);
  for (long i = 0; i < o.warmup; ++i)
    if (!(s = loaded.session->Run(inputs, &outputs)).ok()) return Fail(s);
  // Outputs allocated once, as a serving loop would.
  if (outputs.empty() && !(s = loaded.session->Run(inputs, &outputs)).ok()) return Fail(s);
  std::vector<double> ms(static_cast<size_t>(o.iterations));
  auto begin = std::chrono::steady_clock::now();
  for (double& m : ms) {
    auto start = std::chrono::steady_clock::now();
    if (!(s = loaded.session->Run(inputs, &outputs)).ok()) return Fail(s);
    m = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  std::sort(ms.begin(), ms.end());
  auto pct = [&ms](double p) {
    size_t at = static_cast<size_t>(p / 100.0 * static_cast<double>(ms.size() - 1) + 0.5);
    return ms[std::min(at, ms.size() - 1)];
  };
  std::printf("%s: %ld iterations (%ld warmup), %d threads\n", o.model.c_str(), o.iterations, o.warmup,
              loaded.runtime->num_threads());
  std::printf("device: %s\n", loaded.model->device().c_str());
  std::printf("latency ms: p50 %.4f  p90 %.4f  p99 %.4f\n", pct(50), pct(90), pct(99));
  std::printf("throughput: %.1f runs/s\n", static_cast<double>(o.iterations) / total);
  if (o.profile) {
    if (!(s = loaded.session->EnableProfiling(true)).ok()) return Fail(s);
    for (long i = 0; i < o.iterations; ++i)
      if (!(s = loaded.session->Run(inputs, &outputs)).ok()) return Fail(s);
    SessionProfile profile;
    if (!(s = loaded.session->GetProfile(&profile)).ok()) return Fail(s);
    PrintProfile(profile);
  }
  return 0;
}

std::string Join(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : ", ") + i;
  return s.empty() ? "none" : s;
}

void PrintTensors(const char* what, const std::vector<TensorInfo>& infos) {
  std::printf("%s:\n", what);
  for (const TensorInfo& t : infos) {
    std::printf("  %s: %s", t.name.c_str(), DescribeShape(t.dims, t.dtype).c_str());
    bool named = false;
    for (const std::string& n : t.dim_names) named |= !n.empty();
    if (named) {
      std::printf(" (dims");
      for (const std::string& n : t.dim_names) std::printf(" %s", n.empty() ? "?" : n.c_str());
      std::printf(")");
    }
    std::printf("\n");
  }
}

// A LibraryCall step (cuda plans): the library function, the model
// node(s), and for a GEMM every GemmCall field (row-major; ld and batch
// strides in elements). The label kilnc gives the step ("cublasLt matmul
// <node>") says nothing the line does not, so only another label is
// printed.
void PrintLibraryCall(size_t i, const StepInfo& st) {
  const GemmInfo& g = st.gemm;
  auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  std::string usual = st.library + " " + st.function + (st.node.empty() ? "" : " " + st.node);
  std::string label = st.label.empty() || st.label == usual ? "" : "  " + st.label;
  std::printf("  %zu: library call %s.%s (node '%s') batch %llu, m %llu, n %llu, k %llu%s%s, "
              "epilogue %s%s\n",
              i, st.library.c_str(), st.function.c_str(), st.node.c_str(), u(g.batch), u(g.m),
              u(g.n), u(g.k), g.transpose_a ? ", A^T" : "", g.transpose_b ? ", B^T" : "",
              GemmEpilogueName(g.epilogue), label.c_str());
  if (st.function != "matmul") return;
  std::printf(
      "     gemm f32: ld a %llu b %llu c %llu d %llu, batch stride a %llu b %llu c %llu d %llu, "
      "alpha %g, beta %g\n",
      u(g.lda), u(g.ldb), u(g.ldc), u(g.ldd), u(g.batch_stride_a), u(g.batch_stride_b),
      u(g.batch_stride_c), u(g.batch_stride_d), static_cast<double>(g.alpha),
      static_cast<double>(g.beta));
}

int Inspect(const Options& o) {
  ModelDescription d;
  Status s = DescribeModelFile(o.model, &d);
  if (!s.ok()) return Fail(s);
  std::printf("%s: %llu bytes, format version %u, produced by %s from %s\n", o.model.c_str(),
              static_cast<unsigned long long>(d.file_size), d.format_version, d.producer.c_str(),
              d.source_name.empty() ? "(unnamed)" : d.source_name.c_str());
  PrintTensors("inputs", d.inputs);
  PrintTensors("outputs", d.outputs);
  std::printf("constants: %zu, %llu bytes\n", d.constant_count,
              static_cast<unsigned long long>(d.constant_bytes));
  std::printf("executables:\n");
  for (size_t i = 0; i < d.executables.size(); ++i) {
    const ExecutableInfo& e = d.executables[i];
    if (!e.gpu_kernels.empty() || !e.gpu_archs.empty()) {
      // A GPU executable: what the device needs to launch each kernel.
      std::printf("  %zu: %s %s, archs %s, PTX %s (.target %s), %zu modules, %zu bytes of code\n",
                  i, e.target.c_str(), e.format.c_str(), Join(e.gpu_archs).c_str(),
                  e.ptx_version.c_str(), e.ptx_target.c_str(), e.gpu_module_count, e.code_size);
      std::printf("     kernels: %zu\n", e.kernels.size());
      for (size_t k = 0; k < e.kernels.size() && k < e.gpu_kernels.size(); ++k) {
        const GpuKernelInfo& g = e.gpu_kernels[k];
        std::printf(
            "     kernel %zu: %s (%u bindings) entry %s, block [%u,%u,%u], grid [%u,%u,%u], "
            "shared memory %u bytes\n",
            k, e.kernels[k].name.c_str(), e.kernels[k].binding_count, g.entry.c_str(), g.block[0],
            g.block[1], g.block[2], e.kernels[k].workgroups[0], e.kernels[k].workgroups[1],
            e.kernels[k].workgroups[2], g.shared_memory_bytes);
      }
      continue;
    }
    std::printf("  %zu: %s %s, cpu %s, %zu bytes of code\n     features: %s\n", i, e.target.c_str(),
                e.format.c_str(), e.cpu.empty() ? "(generic)" : e.cpu.c_str(), e.code_size,
                Join(e.required_features).c_str());
    if (!e.missing_features.empty())
      std::printf("     this CPU lacks: %s\n", Join(e.missing_features).c_str());
    for (size_t k = 0; k < e.kernels.size(); ++k)
      std::printf("     kernel %zu: %s (%u bindings, %u push constants)\n", k, e.kernels[k].name.c_str(),
                  e.kernels[k].binding_count, e.kernels[k].push_constant_count);
  }
  std::printf("plan (%s): %zu steps\n", d.plan_target.c_str(), d.steps.size());
  for (size_t i = 0; i < d.steps.size(); ++i) {
    const StepInfo& st = d.steps[i];
    if (st.kind == StepInfo::Kind::kCopy)
      std::printf("  %zu: copy %llu bytes  %s\n", i, static_cast<unsigned long long>(st.copy_bytes),
                  st.label.c_str());
    else if (st.kind == StepInfo::Kind::kCustomCall)
      std::printf("  %zu: custom call %s (node '%s')  %s\n", i, st.custom_op.c_str(),
                  st.node.c_str(), st.label.c_str());
    else if (st.kind == StepInfo::Kind::kLibraryCall)
      PrintLibraryCall(i, st);
    else
      std::printf("  %zu: dispatch %s [%u,%u,%u]  %s\n", i,
                  d.executables[st.executable].kernels[st.kernel].name.c_str(), st.workgroups[0],
                  st.workgroups[1], st.workgroups[2], st.label.c_str());
  }
  if (!d.custom_ops.empty())
    std::printf("custom ops needed: %s\n", Join(d.custom_ops).c_str());
  std::printf("arena: %llu bytes (intermediates without reuse: %llu bytes)\n",
              static_cast<unsigned long long>(d.arena_size),
              static_cast<unsigned long long>(d.intermediate_bytes));
  return 0;
}

}  // namespace
}  // namespace kiln::tools

int main(int argc, char** argv) {
  using namespace kiln::tools;
  if (argc < 2) return Usage("no command given");
  std::string command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    std::printf(kUsage, kCompareUsage);
    return 0;
  }
  if (command == "compare") return RunCompareCommand(argc, argv);
  if (command != "run" && command != "bench" && command != "inspect")
    return Usage("unknown command '" + command + "'");
  Options options;
  int rc = ParseOptions(command, argc, argv, &options);
  if (rc >= 0) return rc;
  if (command == "run") return Run(options);
  if (command == "bench") return Bench(options);
  return Inspect(options);
}
