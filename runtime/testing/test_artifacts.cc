#include "runtime/testing/test_artifacts.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kiln::testing {

using artifact::ArtifactSpec;
using artifact::BindingSpec;
using artifact::BufferSpace;
using artifact::DType;
using artifact::StepSpec;

std::vector<uint8_t> ReadFileBytes(const std::string& path) {
  std::vector<uint8_t> bytes;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return bytes;
  uint8_t buffer[65536];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) bytes.insert(bytes.end(), buffer, buffer + n);
  std::fclose(f);
  return bytes;
}

bool WriteFileBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  // An empty vector's data() may be null, which fwrite must not get.
  bool ok = bytes.empty() || std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

const std::vector<uint8_t>& TestKernelBlob() {
  static const std::vector<uint8_t> blob =
      ReadFileBytes("runtime/testing/libkiln_test_kernels.so");
  if (blob.empty()) {
    std::fprintf(stderr, "cannot read runtime/testing/libkiln_test_kernels.so from runfiles\n");
    std::abort();
  }
  return blob;
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

namespace {

constexpr uint64_t kBytes = kElements * sizeof(float);
constexpr uint32_t kWorkgroups = (kElements + 63) / 64;

artifact::ExecutableSpec TestExecutable() {
  artifact::ExecutableSpec exe;
  exe.cpu = "x86-64";
  exe.blob = TestKernelBlob();
  using artifact::Access;
  const uint32_t grid[3] = {kWorkgroups, 1, 1};
  exe.kernels = {{"add", 3, 0, {{kBytes, Access::Read}, {kBytes, Access::Read}, {kBytes, Access::Write}}},
                 {"scale", 2, 1, {{kBytes, Access::Read}, {kBytes, Access::Write}}},
                 {"fail", 1, 0, {{64, Access::Read}}}};
  for (artifact::KernelSpec& k : exe.kernels) std::copy(grid, grid + 3, k.workgroups);
  return exe;
}

StepSpec Dispatch(std::string label, uint32_t kernel, std::vector<BindingSpec> bindings,
                  std::vector<uint32_t> push = {}) {
  StepSpec step;
  step.kind = StepSpec::Kind::Dispatch;
  step.label = std::move(label);
  step.dispatch.kernel = kernel;
  step.dispatch.workgroups[0] = kWorkgroups;
  step.dispatch.bindings = std::move(bindings);
  step.dispatch.pushConstants = std::move(push);
  return step;
}

StepSpec Copy(std::string label, BindingSpec source, BindingSpec target) {
  StepSpec step;
  step.kind = StepSpec::Kind::Copy;
  step.label = std::move(label);
  step.copy.source = source;
  step.copy.target = target;
  return step;
}

float ConstantValue(size_t i) { return 0.5f * static_cast<float>(i); }

}  // namespace

ArtifactSpec AddScaleSpec() {
  ArtifactSpec spec;
  spec.sourceName = "add_scale.onnx";
  spec.inputs = {{"x", DType::F32, {kRows, kCols}, {"batch", ""}},
                 {"y", DType::F32, {kRows, kCols}, {}}};
  spec.outputs = {{"sum", DType::F32, {kRows, kCols}, {}},
                  {"scaled/out", DType::F32, {kRows, kCols}, {}}};
  std::vector<float> c(kElements);
  for (size_t i = 0; i < c.size(); ++i) c[i] = ConstantValue(i);
  artifact::ConstantSpec constant;
  constant.name = "c";
  constant.data.resize(kBytes);
  std::memcpy(constant.data.data(), c.data(), kBytes);
  spec.constants = {constant};
  spec.executables = {TestExecutable()};

  float two = 2.0f;
  uint32_t two_bits;
  std::memcpy(&two_bits, &two, 4);
  artifact::PlanSpec plan;
  BindingSpec x{BufferSpace::Input, 0, 0, kBytes}, y{BufferSpace::Input, 1, 0, kBytes};
  BindingSpec arena0{BufferSpace::Arena, 0, 0, kBytes}, arena1{BufferSpace::Arena, 0, kBytes, kBytes};
  plan.steps = {
      Dispatch("dispatch_0: add x c", 0, {x, {BufferSpace::Constant, 0, 0, kBytes}, arena0}),
      Dispatch("dispatch_1: scale", 1, {arena0, arena1}, {two_bits}),
      Copy("copy_2: scaled", arena1, {BufferSpace::Output, 1, 0, kBytes}),
      Dispatch("dispatch_3: add x y", 0, {x, y, {BufferSpace::Output, 0, 0, kBytes}}),
  };
  plan.arenaSize = 2 * kBytes;
  plan.intermediateBytes = 2 * kBytes;
  spec.plans = {plan};
  return spec;
}

std::vector<float> ExpectedSum(const std::vector<float>& x, const std::vector<float>& y) {
  std::vector<float> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] + y[i];
  return out;
}

std::vector<float> ExpectedScaled(const std::vector<float>& x) {
  std::vector<float> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = (x[i] + ConstantValue(i)) * 2.0f;
  return out;
}

ArtifactSpec FailingSpec() {
  ArtifactSpec spec;
  spec.inputs = {{"x", DType::F32, {kRows, kCols}, {}}};
  spec.outputs = {{"y", DType::F32, {kRows, kCols}, {}}};
  spec.executables = {TestExecutable()};
  artifact::PlanSpec plan;
  BindingSpec x{BufferSpace::Input, 0, 0, kBytes};
  plan.steps = {Dispatch("dispatch_0: fail", 2, {{BufferSpace::Arena, 0, 0, 64}}),
                Copy("copy_1", x, {BufferSpace::Output, 0, 0, kBytes})};
  plan.arenaSize = 64;
  spec.plans = {plan};
  return spec;
}

std::vector<uint8_t> WriteOrDie(const ArtifactSpec& spec) {
  std::vector<uint8_t> bytes;
  std::string error;
  if (!artifact::writeArtifact(spec, bytes, error)) {
    std::fprintf(stderr, "writeArtifact: %s\n", error.c_str());
    std::abort();
  }
  return bytes;
}

std::vector<float> RandomFloats(size_t count, uint32_t seed) {
  std::vector<float> out(count);
  uint64_t state = seed * 2654435761u + 1;
  for (float& v : out) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v = static_cast<float>((state >> 40) & 0xFFFFFF) / 8388607.5f - 1.0f;
  }
  return out;
}

}  // namespace kiln::testing
