// Every way a caller or a file can be wrong returns a Status that says
// what was expected and what came; none of them crashes.
#include <gtest/gtest.h>

#include <cstring>

#include "kiln/runtime.h"
#include "runtime/schema/file_format.h"
#include "runtime/testing/fake_cuda_driver.h"
#include "runtime/testing/status_assertions.h"
#include "runtime/testing/test_artifacts.h"

namespace kiln {
namespace {

using testing::kCols;
using testing::kElements;
using testing::kRows;

using testing::HasMessage;

class ErrorsTest : public ::testing::Test {
 protected:
  // Device auto on a machine without a GPU (as CI), whatever this machine
  // has: cuda plans are refused, cpu,cuda artifacts run their CPU plan.
  void SetUp() override { ASSERT_TRUE(Runtime::Create({2}, &runtime_).ok()); }
  testing::ScopedNoCudaDriver no_gpu_{
      Status(StatusCode::kFailedPrecondition, "no CUDA driver (test: none installed)")};

  Status Load(const std::vector<uint8_t>& bytes) {
    std::shared_ptr<const Model> model;
    return runtime_->LoadModelFromMemory(bytes.data(), bytes.size(), &model);
  }
  // Re-seals a file whose bytes a test changed on purpose, so that the
  // checks after the checksum get to see the change.
  static void RecomputeChecksum(std::vector<uint8_t>& bytes) {
    format::StoreU64(bytes.data() + 48, format::Checksum(bytes.data() + 64, bytes.size() - 64));
  }
  Status LoadSpec(const artifact::ArtifactSpec& spec) { return Load(testing::WriteOrDie(spec)); }

  std::shared_ptr<Runtime> runtime_;
};

class RunErrorsTest : public ErrorsTest {
 protected:
  void SetUp() override {
    ErrorsTest::SetUp();
    std::vector<uint8_t> bytes = testing::WriteOrDie(testing::AddScaleSpec());
    ASSERT_TRUE(runtime_->LoadModelFromMemory(bytes.data(), bytes.size(), &model_).ok());
    ASSERT_TRUE(Session::Create(model_, &session_).ok());
  }
  Tensor X() { return Tensor::Borrow(DType::F32, {kRows, kCols}, x_.data()); }
  Status RunWith(std::vector<Tensor> inputs) {
    std::vector<Tensor> outputs;
    return session_->Run(inputs, &outputs);
  }

  std::shared_ptr<const Model> model_;
  std::unique_ptr<Session> session_;
  std::vector<float> x_ = std::vector<float>(kElements, 1.0f);
};

TEST_F(RunErrorsTest, WrongInputCount) {
  EXPECT_TRUE(HasMessage(RunWith({X()}), StatusCode::kInvalidArgument,
                         "expected 2 inputs (x, y), got 1"));
}

TEST_F(RunErrorsTest, UnknownInputName) {
  std::vector<NamedTensor> inputs = {{"x", X()}, {"z", X()}}, outputs;
  EXPECT_TRUE(HasMessage(session_->Run(inputs, &outputs), StatusCode::kNotFound,
                         "no input named 'z' (inputs: x, y)"));
  inputs = {{"x", X()}, {"x", X()}};
  EXPECT_TRUE(HasMessage(session_->Run(inputs, &outputs), StatusCode::kInvalidArgument,
                         "input 'x' given twice"));
}

TEST_F(RunErrorsTest, WrongDtype) {
  EXPECT_TRUE(HasMessage(RunWith({X(), Tensor::Borrow(DType::I32, {kRows, kCols}, x_.data())}),
                         StatusCode::kInvalidArgument,
                         "input 'y': expected shape [4,100] f32, got [4,100] i32"));
}

TEST_F(RunErrorsTest, WrongShape) {
  EXPECT_TRUE(HasMessage(RunWith({Tensor::Borrow(DType::F32, {kRows}, x_.data()), X()}),
                         StatusCode::kInvalidArgument,
                         "input 'x': expected shape [4,100] f32, got [4] f32"));
}

TEST_F(RunErrorsTest, NullPointers) {
  EXPECT_TRUE(HasMessage(RunWith({X(), Tensor::Borrow(DType::F32, {kRows, kCols}, nullptr)}),
                         StatusCode::kInvalidArgument, "input 'y': data pointer is null"));
  std::vector<Tensor> outputs = {Tensor::Borrow(DType::F32, {kRows, kCols}, x_.data()),
                                 Tensor::Borrow(DType::F32, {kRows, kCols}, nullptr)};
  EXPECT_TRUE(HasMessage(session_->Run({X(), X()}, &outputs), StatusCode::kInvalidArgument,
                         "output 'scaled/out': data pointer is null"));
  EXPECT_TRUE(HasMessage(session_->Run({X(), X()}, static_cast<std::vector<Tensor>*>(nullptr)),
                         StatusCode::kInvalidArgument, "outputs is null"));
  EXPECT_TRUE(HasMessage(Session::Create(nullptr, &session_), StatusCode::kInvalidArgument, "null"));
  EXPECT_TRUE(HasMessage(runtime_->LoadModelFromMemory(nullptr, 100, &model_),
                         StatusCode::kInvalidArgument, "null"));
}

TEST_F(RunErrorsTest, WrongOutputBuffers) {
  std::vector<Tensor> outputs = {Tensor::Borrow(DType::F32, {kRows, kCols}, x_.data())};
  EXPECT_TRUE(HasMessage(session_->Run({X(), X()}, &outputs), StatusCode::kInvalidArgument,
                         "expected no output tensors (to allocate them) or 2 (sum, scaled/out), got 1"));
  outputs.push_back(Tensor::Borrow(DType::F32, {kCols, kRows}, x_.data()));
  EXPECT_TRUE(HasMessage(session_->Run({X(), X()}, &outputs), StatusCode::kInvalidArgument,
                         "output 'scaled/out': expected shape [4,100] f32, got [100,4] f32"));
}

TEST_F(RunErrorsTest, KernelFailureNamesStepAndKernel) {
  std::vector<uint8_t> bytes = testing::WriteOrDie(testing::FailingSpec());
  std::shared_ptr<const Model> model;
  ASSERT_TRUE(runtime_->LoadModelFromMemory(bytes.data(), bytes.size(), &model).ok());
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::Create(model, &session).ok());
  std::vector<Tensor> outputs;
  EXPECT_TRUE(HasMessage(session->Run({X()}, &outputs), StatusCode::kInternal,
                         "step 0 'dispatch_0: fail': kernel 'fail' returned 42 for workgroup 1"));
}

TEST_F(ErrorsTest, MissingFile) {
  std::shared_ptr<const Model> model;
  EXPECT_TRUE(HasMessage(runtime_->LoadModel("/nonexistent/m.kiln", &model), StatusCode::kNotFound,
                         "cannot open '/nonexistent/m.kiln'"));
}

TEST_F(ErrorsTest, NotAKilnFile) {
  std::vector<uint8_t> bytes(200, 'x');
  EXPECT_TRUE(HasMessage(Load(bytes), StatusCode::kInvalidArgument, "not a .kiln file"));
}

TEST_F(ErrorsTest, TruncatedFile) {
  std::vector<uint8_t> bytes = testing::WriteOrDie(testing::AddScaleSpec());
  size_t full = bytes.size();
  std::string path = testing::TempPath("truncated.kiln");
  for (size_t keep : {size_t{0}, size_t{10}, size_t{64}, full / 2, full - 1}) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + keep);
    ASSERT_TRUE(testing::WriteFileBytes(path, cut));
    std::shared_ptr<const Model> model;
    Status s = runtime_->LoadModel(path, &model);
    EXPECT_EQ(s.code(), StatusCode::kDataLoss) << keep << ": " << s.ToString();
  }
  bytes.resize(full - 1);
  EXPECT_TRUE(HasMessage(Load(bytes), StatusCode::kDataLoss,
                         "header says the file is " + std::to_string(full) + " bytes, but it is " +
                             std::to_string(full - 1)));
}

TEST_F(ErrorsTest, FlippedByteFailsTheChecksum) {
  std::vector<uint8_t> bytes = testing::WriteOrDie(testing::AddScaleSpec());
  for (size_t at : {size_t{100}, bytes.size() / 2, bytes.size() - 1}) {
    std::vector<uint8_t> corrupted = bytes;
    corrupted[at] ^= 0x01;
    EXPECT_TRUE(HasMessage(Load(corrupted), StatusCode::kDataLoss, "checksum mismatch")) << at;
  }
}

TEST_F(ErrorsTest, BadFormatVersion) {
  std::vector<uint8_t> bytes = testing::WriteOrDie(testing::AddScaleSpec());
  format::StoreU32(bytes.data() + 4, 7);
  EXPECT_TRUE(HasMessage(Load(bytes), StatusCode::kUnimplemented,
                         "artifact format version 7 was built by a newer kilnc; this runtime "
                         "reads version 2"));
}

// A version-1 file (the old checksum) is told to recompile, not that its
// checksum is wrong.
TEST_F(ErrorsTest, OldFormatVersionAsksToRecompile) {
  std::vector<uint8_t> bytes = testing::WriteOrDie(testing::AddScaleSpec());
  format::StoreU32(bytes.data() + 4, 1);
  format::StoreU64(bytes.data() + 48, 0x1234);  // whatever the old hash gave
  EXPECT_TRUE(HasMessage(Load(bytes), StatusCode::kUnimplemented,
                         "artifact format version 1 was built by an older kilnc; recompile "
                         "the model (this runtime reads version 2)"));
}

TEST_F(ErrorsTest, BadFlatBufferWithAValidChecksum) {
  std::vector<uint8_t> bytes = testing::WriteOrDie(testing::AddScaleSpec());
  format::Header h = format::DecodeHeader(bytes.data());
  // The root offset points far outside the buffer.
  format::StoreU32(bytes.data() + h.flatbuffer_offset, 0x7FFFFFF0u);
  RecomputeChecksum(bytes);
  EXPECT_TRUE(HasMessage(Load(bytes), StatusCode::kDataLoss,
                         "the FlatBuffer does not verify against kiln.fbs"));
  // Garbage everywhere but the identifier.
  bytes = testing::WriteOrDie(testing::AddScaleSpec());
  for (size_t i = h.flatbuffer_offset + 8; i < h.flatbuffer_offset + h.flatbuffer_size; ++i)
    bytes[i] = static_cast<uint8_t>(i * 31);
  RecomputeChecksum(bytes);
  EXPECT_EQ(Load(bytes).code(), StatusCode::kDataLoss);
}

TEST_F(ErrorsTest, HeaderSizesOutsideTheFile) {
  std::vector<uint8_t> bytes = testing::WriteOrDie(testing::AddScaleSpec());
  format::StoreU64(bytes.data() + 24, 1ull << 40);  // flatbuffer_size
  EXPECT_TRUE(HasMessage(Load(bytes), StatusCode::kDataLoss, "FlatBuffer range"));
  bytes = testing::WriteOrDie(testing::AddScaleSpec());
  format::StoreU64(bytes.data() + 32, 65);  // misaligned constants_offset
  EXPECT_TRUE(HasMessage(Load(bytes), StatusCode::kDataLoss, "constants segment"));
}

TEST_F(ErrorsTest, BindingOutsideItsBuffer) {
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  spec.plans[0].steps[1].dispatch.bindings[1].offset = 1601;  // arena, 1 byte past the end
  EXPECT_TRUE(HasMessage(LoadSpec(spec), StatusCode::kDataLoss,
                         "step 1 'dispatch_1: scale' binding 1: range [1601, +1600) is outside arena 0 (3200 bytes)"));
  spec = testing::AddScaleSpec();
  spec.plans[0].steps[0].dispatch.bindings[0].length = 1604;  // input x is 1600 bytes
  EXPECT_TRUE(HasMessage(LoadSpec(spec), StatusCode::kDataLoss, "is outside input 0 (1600 bytes)"));
  spec = testing::AddScaleSpec();
  spec.plans[0].steps[0].dispatch.bindings[1].index = 3;
  EXPECT_TRUE(HasMessage(LoadSpec(spec), StatusCode::kDataLoss, "binding 1: no constant 3"));
}

TEST_F(ErrorsTest, BindingCountDiffersFromTheKernel) {
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  spec.plans[0].steps[1].dispatch.pushConstants.clear();
  EXPECT_TRUE(HasMessage(LoadSpec(spec), StatusCode::kDataLoss,
                         "kernel 'scale' takes 2 bindings and 1 push constants, step has 2 and 0"));
}

TEST_F(ErrorsTest, KernelTableMismatch) {
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  spec.executables[0].kernels[0].bindingCount = 2;
  spec.executables[0].kernels[0].bindings.pop_back();
  for (artifact::StepSpec& step : spec.plans[0].steps)
    if (step.kind == artifact::StepSpec::Kind::Dispatch && step.dispatch.kernel == 0)
      step.dispatch.bindings.pop_back();
  EXPECT_TRUE(HasMessage(LoadSpec(spec), StatusCode::kDataLoss,
                         "executable 0: kernel 0 mismatch: artifact expects 'add' with 2 bindings"));
  spec = testing::AddScaleSpec();
  spec.executables[0].kernels.pop_back();
  EXPECT_TRUE(HasMessage(LoadSpec(spec), StatusCode::kDataLoss,
                         "executable 0: artifact lists 2 kernels, library has 3"));
}

TEST_F(ErrorsTest, CodeThatIsNotASharedObject) {
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  // Caught by the inspection before dlopen ever sees it.
  spec.executables[0].blob = {0x7f, 'E', 'L', 'F', 0, 0, 0};
  EXPECT_TRUE(HasMessage(LoadSpec(spec), StatusCode::kDataLoss,
                         "executable 0: shared object is not an ELF file"));
}

TEST_F(ErrorsTest, UnknownCpuFeatureName) {
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  spec.executables[0].requiredFeatures = {"avx2", "warp-drive"};
  EXPECT_TRUE(HasMessage(LoadSpec(spec), StatusCode::kUnimplemented,
                         "needs CPU feature 'warp-drive', which this runtime does not know"));
}

TEST_F(ErrorsTest, CpuFeaturesThisCpuLacks) {
  // Whatever this machine lacks among features real targets use.
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  spec.executables[0].cpu = "sapphirerapids";
  spec.executables[0].requiredFeatures = {"sse2", "avx512f", "avx512bw", "avx512fp16",
                                          "amx-tile", "sse4a", "avx512vp2intersect-free"};
  spec.executables[0].requiredFeatures.pop_back();
  std::string path = testing::TempPath("features.kiln");
  std::string error;
  ASSERT_TRUE(artifact::writeArtifactFile(spec, path, error)) << error;
  ModelDescription description;
  ASSERT_TRUE(DescribeModelFile(path, &description).ok());  // inspecting still works
  const std::vector<std::string>& missing = description.executables[0].missing_features;
  if (missing.empty()) GTEST_SKIP() << "this CPU has every feature in the list";
  std::string names;
  for (const std::string& f : missing) names += (names.empty() ? "" : ", ") + f;
  std::shared_ptr<const Model> model;
  EXPECT_TRUE(HasMessage(runtime_->LoadModel(path, &model), StatusCode::kFailedPrecondition,
                         "artifact needs CPU features " + names +
                             " (compiled for sapphirerapids); this CPU lacks them"));
}

TEST_F(ErrorsTest, FeaturesThisCpuHasLoad) {
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  spec.executables[0].requiredFeatures = {"sse2", "+sse4.2"};
  Status s = LoadSpec(spec);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_F(ErrorsTest, NoCpuPlan) {
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  spec.plans[0].target = "cuda";
  EXPECT_TRUE(HasMessage(LoadSpec(spec), StatusCode::kUnimplemented,
                         "this artifact has no CPU plan; built for cuda"));
}

// The add/scale model as `kilnc --target=cuda` would describe it: the same
// kernel table and plan, in a "cuda" executable (PTX and a cubin per arch;
// the bytes are placeholders, nothing here runs them) and a "cuda" plan.
artifact::ArtifactSpec CudaOnlySpec() {
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  artifact::ExecutableSpec& e = spec.executables[0];
  e.target = "cuda";
  e.format = "ptx+cubin";
  e.cpu.clear();
  e.requiredFeatures.clear();
  e.blob.clear();
  e.hasGpu = true;
  e.gpu.archs = {"sm_80", "sm_90"};
  e.gpu.ptxVersion = "7.0";
  e.gpu.ptxTarget = "sm_80";
  for (size_t k = 0; k < e.kernels.size(); ++k) {
    artifact::GpuModuleSpec module;
    module.ptx = ".version 7.0\n.target sm_80\n";
    module.cubins = {{"sm_80", {1, 2, 3}}, {"sm_90", {4, 5}}};
    e.gpu.modules.push_back(module);
    artifact::GpuKernelSpec kernel;
    kernel.entry = e.kernels[k].name + "_kernel";
    kernel.module = static_cast<uint32_t>(k);
    kernel.block[0] = 256;
    e.gpu.kernels.push_back(kernel);
  }
  spec.plans[0].target = "cuda";
  return spec;
}

TEST_F(ErrorsTest, CudaOnlyArtifactIsRefusedWithItsArchs) {
  EXPECT_TRUE(HasMessage(LoadSpec(CudaOnlySpec()), StatusCode::kUnimplemented,
                         "this artifact has no CPU plan; built for cuda (sm_80, sm_90) (no CUDA "
                         "GPU is available: no CUDA driver (test: none installed); run it on a "
                         "machine with an NVIDIA GPU and driver, or recompile with kilnc "
                         "--target=cpu or --target=cpu,cuda)"));
}

TEST_F(ErrorsTest, CudaOnlyArtifactIsDescribed) {
  std::string path = testing::TempPath("cuda_only.kiln");
  std::string error;
  ASSERT_TRUE(artifact::writeArtifactFile(CudaOnlySpec(), path, error)) << error;
  ModelDescription d;
  Status s = DescribeModelFile(path, &d);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(d.plan_target, "cuda");
  EXPECT_EQ(d.steps.size(), 4u);
  ASSERT_EQ(d.executables.size(), 1u);
  const ExecutableInfo& e = d.executables[0];
  EXPECT_EQ(e.target, "cuda");
  EXPECT_EQ(e.gpu_archs, (std::vector<std::string>{"sm_80", "sm_90"}));
  EXPECT_EQ(e.ptx_version, "7.0");
  EXPECT_EQ(e.ptx_target, "sm_80");
  EXPECT_EQ(e.gpu_module_count, e.kernels.size());
  ASSERT_EQ(e.gpu_kernels.size(), e.kernels.size());
  EXPECT_EQ(e.gpu_kernels[1].entry, e.kernels[1].name + "_kernel");
  EXPECT_EQ(e.gpu_kernels[1].module, 1u);
  EXPECT_EQ(e.gpu_kernels[1].block[0], 256u);
  EXPECT_EQ(e.gpu_kernels[1].block[1], 1u);
}

TEST_F(ErrorsTest, CpuAndCudaArtifactRunsItsCpuPlan) {
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  artifact::ArtifactSpec cuda = CudaOnlySpec();
  spec.executables.push_back(cuda.executables[0]);
  spec.plans.push_back(cuda.plans[0]);
  for (artifact::StepSpec& step : spec.plans[1].steps)
    if (step.kind == artifact::StepSpec::Kind::Dispatch) step.dispatch.executable = 1;
  std::vector<uint8_t> bytes = testing::WriteOrDie(spec);
  std::shared_ptr<const Model> model;
  ASSERT_TRUE(runtime_->LoadModelFromMemory(bytes.data(), bytes.size(), &model).ok());
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::Create(model, &session).ok());
  std::vector<float> x(kElements, 1.0f), y(kElements, 2.0f);
  std::vector<Tensor> inputs = {Tensor::Borrow(DType::F32, {kRows, kCols}, x.data()),
                                Tensor::Borrow(DType::F32, {kRows, kCols}, y.data())};
  std::vector<Tensor> outputs;
  Status s = session->Run(inputs, &outputs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].data_as<float>()[0], 3.0f);
}

TEST_F(ErrorsTest, CudaExecutableWithoutGpuTableIsDataLoss) {
  artifact::ArtifactSpec spec = CudaOnlySpec();
  spec.executables[0].hasGpu = false;
  std::string path = testing::TempPath("cuda_no_gpu.kiln");
  std::string error;
  ASSERT_TRUE(artifact::writeArtifactFile(spec, path, error)) << error;
  ModelDescription d;
  EXPECT_TRUE(HasMessage(DescribeModelFile(path, &d), StatusCode::kDataLoss,
                         "executable 0 is a cuda executable without its GPU table"));
}

TEST_F(ErrorsTest, BadRuntimeOptions) {
  std::shared_ptr<Runtime> runtime;
  EXPECT_TRUE(HasMessage(Runtime::Create({-3}, &runtime), StatusCode::kInvalidArgument,
                         "num_threads must be in [0, 1024] (0 = all cores), got -3"));
}

}  // namespace
}  // namespace kiln
