// The GPU runtime against the TEST-ONLY fake driver
// (runtime/testing/fake_cuda_driver.h). These tests prove ORCHESTRATION
// only: device selection, plan selection, which driver and cuBLASLt calls
// are made in what order and with which arguments, the CUDA graph being
// captured once and replayed, copies in and out, constants uploaded once,
// and every error path. The "kernels" are host functions and cuBLASLt is
// evaluated on the host by the fake, so nothing here is evidence of GPU
// numerics; tests/gpu/device_check.sh on a GPU is.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>

#include "kiln/kiln.h"
#include "kiln/runtime.h"
#include "runtime/src/cuda/cuda_abi.h"
#include "runtime/src/cuda/cuda_model.h"
#include "runtime/testing/fake_cuda_driver.h"
#include "runtime/testing/gpu_test_artifacts.h"
#include "runtime/testing/status_assertions.h"
#include "runtime/testing/test_artifacts.h"

namespace kiln {
namespace {

using testing::FakeCudaDriver;
using testing::HasMessage;

RuntimeOptions On(const std::string& device) {
  RuntimeOptions options;
  options.num_threads = 1;
  EXPECT_TRUE(Device::Parse(device, &options.device).ok()) << device;
  return options;
}

Status Load(const RuntimeOptions& options, const std::vector<uint8_t>& bytes,
            std::shared_ptr<const Model>* model, std::shared_ptr<Runtime>* runtime = nullptr) {
  std::shared_ptr<Runtime> rt;
  Status s = Runtime::Create(options, &rt);
  if (!s.ok()) return s;
  if (runtime) *runtime = rt;
  return rt->LoadModelFromMemory(bytes.data(), bytes.size(), model);
}

// The fake's host stand-ins for the add/scale kernels.
void AddKernels(FakeCudaDriver& fake) {
  fake.AddKernel("add_kernel", 3, 0, [](const FakeCudaDriver::Launch& l) {
    const float* a = static_cast<const float*>(l.pointers[0]);
    const float* b = static_cast<const float*>(l.pointers[1]);
    float* out = static_cast<float*>(l.pointers[2]);
    for (int i = 0; i < testing::kElements; ++i) out[i] = a[i] + b[i];
  });
  fake.AddKernel("scale_kernel", 2, 1, [](const FakeCudaDriver::Launch& l) {
    float factor;
    std::memcpy(&factor, &l.push_constants[0], 4);
    const float* in = static_cast<const float*>(l.pointers[0]);
    float* out = static_cast<float*>(l.pointers[1]);
    for (int i = 0; i < testing::kElements; ++i) out[i] = in[i] * factor;
  });
}

class CudaRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override { AddKernels(fake_); }
  std::vector<uint8_t> Cuda() { return testing::WriteOrDie(testing::CudaAddScaleSpec()); }
  std::vector<uint8_t> Both() { return testing::WriteOrDie(testing::CpuAndCudaAddScaleSpec()); }
  FakeCudaDriver fake_;
  std::vector<float> x_ = testing::RandomFloats(testing::kElements, 7);
  std::vector<float> y_ = testing::RandomFloats(testing::kElements, 8);
  std::vector<Tensor> Inputs() {
    return {Tensor::Borrow(DType::F32, {testing::kRows, testing::kCols}, x_.data()),
            Tensor::Borrow(DType::F32, {testing::kRows, testing::kCols}, y_.data())};
  }
  void ExpectAddScaleOutputs(const std::vector<Tensor>& outputs) {
    ASSERT_EQ(outputs.size(), 2u);
    std::vector<float> sum = testing::ExpectedSum(x_, y_), scaled = testing::ExpectedScaled(x_);
    for (int i = 0; i < testing::kElements; ++i) {
      ASSERT_EQ(outputs[0].data_as<float>()[i], sum[i]) << i;
      ASSERT_EQ(outputs[1].data_as<float>()[i], scaled[i]) << i;
    }
  }
};

TEST(DeviceTest, Parse) {
  Device d;
  ASSERT_TRUE(Device::Parse("auto", &d).ok());
  EXPECT_EQ(d.kind, Device::Kind::kAuto);
  ASSERT_TRUE(Device::Parse("cpu", &d).ok());
  EXPECT_EQ(d.kind, Device::Kind::kCpu);
  ASSERT_TRUE(Device::Parse("cuda", &d).ok());
  EXPECT_EQ(d.kind, Device::Kind::kCuda);
  EXPECT_EQ(d.index, 0);
  ASSERT_TRUE(Device::Parse("cuda:3", &d).ok());
  EXPECT_EQ(d.index, 3);
  EXPECT_EQ(d.ToString(), "cuda:3");
  for (const char* bad : {"gpu", "cuda:", "cuda:x", "cuda:-1", "CPU", "cuda:123456789", ""})
    EXPECT_TRUE(HasMessage(Device::Parse(bad, &d), StatusCode::kInvalidArgument,
                           "expected auto, cpu, cuda or cuda:N"))
        << bad;
}

// --- Device and plan selection ---

TEST(NoDriverTest, CudaDeviceFailsWithWhatToDo) {
  testing::ScopedNoCudaDriver none(
      Status(StatusCode::kFailedPrecondition, "no CUDA driver: cannot load libcuda.so.1 (test)"));
  std::shared_ptr<Runtime> runtime;
  EXPECT_TRUE(HasMessage(Runtime::Create(On("cuda"), &runtime), StatusCode::kFailedPrecondition,
                         "device cuda:0: no CUDA driver"));
}

TEST(NoDriverTest, AutoRunsTheCpuPlanOfACpuCudaArtifact) {
  testing::ScopedNoCudaDriver none(Status(StatusCode::kFailedPrecondition, "no CUDA driver (test)"));
  std::shared_ptr<Runtime> runtime;
  std::shared_ptr<const Model> model;
  ASSERT_TRUE(Load(On("auto"), testing::WriteOrDie(testing::CpuAndCudaAddScaleSpec()), &model,
                   &runtime)
                  .ok());
  EXPECT_EQ(runtime->gpu(), "");
  EXPECT_EQ(model->device(), "cpu");
  EXPECT_EQ(model->description().plan_target, "x86_64");
}

TEST(NoDriverTest, AutoRefusesACudaOnlyArtifactSayingWhy) {
  testing::ScopedNoCudaDriver none(Status(StatusCode::kFailedPrecondition, "no CUDA driver (test)"));
  std::shared_ptr<const Model> model;
  Status s = Load(On("auto"), testing::WriteOrDie(testing::CudaAddScaleSpec()), &model);
  EXPECT_TRUE(HasMessage(s, StatusCode::kUnimplemented,
                         "this artifact has no CPU plan; built for cuda (sm_80, sm_90) (no CUDA "
                         "GPU is available: no CUDA driver (test); run it on a machine with an "
                         "NVIDIA GPU"));
}

// The driver's error carries its own advice (run on the CPU with an
// artifact that has a CPU plan); the refusal quotes only its cause, so the
// advice is said once.
TEST(NoDriverTest, AutoRefusalGivesItsAdviceOnce) {
  testing::ScopedNoCudaDriver none(Status(
      StatusCode::kFailedPrecondition,
      "no CUDA driver: cannot load libcuda.so.1 (test); this machine has no NVIDIA GPU driver. "
      "Install the NVIDIA driver, or run on the CPU (--device=cpu) with an artifact that has a "
      "CPU plan (kilnc --target=cpu or --target=cpu,cuda)"));
  std::shared_ptr<const Model> model;
  Status s = Load(On("auto"), testing::WriteOrDie(testing::CudaAddScaleSpec()), &model);
  EXPECT_TRUE(HasMessage(s, StatusCode::kUnimplemented,
                         "(no CUDA GPU is available: no CUDA driver: cannot load libcuda.so.1 "
                         "(test); run it on a machine with an NVIDIA GPU and driver, or recompile "
                         "with kilnc --target=cpu or --target=cpu,cuda)"));
  const std::string& m = s.message();
  size_t first = m.find("kilnc --target=cpu");
  ASSERT_NE(first, std::string::npos) << m;
  EXPECT_EQ(m.find("kilnc --target=cpu", first + 1), std::string::npos) << m;
  EXPECT_EQ(m.find("Install the NVIDIA driver"), std::string::npos) << m;
}

// The real dlopen path on this machine: with no libcuda.so.1 (CI, this
// build machine) --device=cuda must say so; with one, it must either find
// a device or say why not.
TEST(RealDriverTest, CudaDeviceWithoutDriverSaysSo) {
  void* libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  std::shared_ptr<Runtime> runtime;
  Status s = Runtime::Create(On("cuda"), &runtime);
  if (libcuda == nullptr) {
    EXPECT_TRUE(HasMessage(s, StatusCode::kFailedPrecondition,
                           "device cuda:0: no CUDA driver: cannot load libcuda.so.1"));
    EXPECT_NE(s.message().find("--device=cpu"), std::string::npos) << s.message();
    // auto on the same machine is no error, and has no GPU.
    ASSERT_TRUE(Runtime::Create(On("auto"), &runtime).ok());
    EXPECT_EQ(runtime->gpu(), "");
  } else {
    dlclose(libcuda);
    if (s.ok()) EXPECT_EQ(runtime->gpu().rfind("cuda:0 (", 0), 0u) << runtime->gpu();
    else EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  }
}

TEST_F(CudaRuntimeTest, NoDeviceAndMissingOrdinal) {
  fake_.device_count = 1;
  std::shared_ptr<Runtime> runtime;
  EXPECT_TRUE(HasMessage(Runtime::Create(On("cuda:1"), &runtime), StatusCode::kInvalidArgument,
                         "device cuda:1 requested, but this machine has 1 CUDA device(s) (cuda:0)"));
  fake_.device_count = 0;
  EXPECT_TRUE(HasMessage(Runtime::Create(On("cuda"), &runtime), StatusCode::kFailedPrecondition,
                         "no CUDA GPU: the NVIDIA driver finds no device"));
  ASSERT_TRUE(Runtime::Create(On("auto"), &runtime).ok());
  EXPECT_EQ(runtime->gpu(), "");
}

TEST_F(CudaRuntimeTest, AutoPicksTheGpuPlanWhenThereIsAGpu) {
  std::shared_ptr<Runtime> runtime;
  std::shared_ptr<const Model> model;
  ASSERT_TRUE(Load(On("auto"), Both(), &model, &runtime).ok());
  EXPECT_EQ(runtime->gpu(), "cuda:0 (Fake GPU, sm_90, driver CUDA 13.0)");
  EXPECT_EQ(model->description().plan_target, "cuda");
  EXPECT_EQ(model->device(), "cuda:0 (Fake GPU, sm_90, driver CUDA 13.0), cubin sm_90");
  // The CPU plan when asked for, on the same machine.
  ASSERT_TRUE(Load(On("cpu"), Both(), &model).ok());
  EXPECT_EQ(model->description().plan_target, "x86_64");
  EXPECT_EQ(model->device(), "cpu");
  // A CPU-only artifact: auto runs it on the CPU, cuda refuses it.
  std::vector<uint8_t> cpu_only = testing::WriteOrDie(testing::AddScaleSpec());
  ASSERT_TRUE(Load(On("auto"), cpu_only, &model).ok());
  EXPECT_EQ(model->device(), "cpu");
  EXPECT_TRUE(HasMessage(Load(On("cuda"), cpu_only, &model), StatusCode::kUnimplemented,
                         "this artifact has no cuda plan; built for x86_64 (recompile with kilnc "
                         "--target=cuda or --target=cpu,cuda, or run it on the CPU"));
}

// --- Architecture choice ---

TEST(GpuImageTest, ChoosesCubinThenCompatibleCubinThenPtx) {
  const std::vector<std::string> archs = {"sm_80", "sm_90", "sm_90a"};
  GpuImageChoice c;
  ASSERT_TRUE(ChooseGpuImage(archs, "7.0", "sm_80", 9, 0, 13000, "executable 0", &c).ok());
  EXPECT_EQ(c.Describe(archs), "cubin sm_90");
  ASSERT_TRUE(ChooseGpuImage(archs, "7.0", "sm_80", 8, 6, 13000, "executable 0", &c).ok());
  EXPECT_EQ(c.Describe(archs), "cubin sm_80");  // sm_86 runs sm_80 cubins
  ASSERT_TRUE(ChooseGpuImage(archs, "7.0", "sm_80", 12, 0, 13000, "executable 0", &c).ok());
  EXPECT_EQ(c.Describe(archs), "PTX (JIT)");  // a newer major: the PTX
  ASSERT_TRUE(ChooseGpuImage({"sm_90a"}, "7.8", "sm_90", 9, 0, 12000, "e", &c).ok());
  EXPECT_EQ(c.Describe({"sm_90a"}), "cubin sm_90a");  // exact match
  ASSERT_TRUE(ChooseGpuImage({"sm_90a"}, "7.8", "sm_90", 10, 0, 12080, "e", &c).ok());
  EXPECT_TRUE(c.use_ptx);  // never an arch-specific cubin on another arch
}

TEST(GpuImageTest, OlderGpuAndOlderDriverAreExplained) {
  GpuImageChoice c;
  EXPECT_TRUE(HasMessage(
      ChooseGpuImage({"sm_80", "sm_90"}, "7.0", "sm_80", 7, 5, 13000, "executable 0", &c),
      StatusCode::kFailedPrecondition,
      "this GPU is sm_75, but executable 0 was built for newer GPUs (it has cubins for sm_80, "
      "sm_90 and PTX ISA 7.0 for sm_80); recompile with kilnc --target=cuda --cuda-arch=sm_75"));
  EXPECT_TRUE(HasMessage(
      ChooseGpuImage({"sm_80", "sm_90"}, "9.0", "sm_80", 12, 0, 12040, "executable 0", &c),
      StatusCode::kFailedPrecondition,
      "the NVIDIA driver (CUDA 12.4, PTX ISA up to 8.4) is too old for executable 0 on this sm_120 "
      "GPU: it has cubins for sm_80, sm_90 and PTX ISA 9.0 for sm_80; update the driver to CUDA "
      "13.0 or later, or recompile with kilnc --target=cuda --cuda-arch=sm_120"));
  EXPECT_EQ(MaxPtxIsaForDriver(12080), 87);
  EXPECT_EQ(DriverForPtxIsa(78), 11080);
}

TEST_F(CudaRuntimeTest, LoadsTheCubinForTheDeviceOrJitsThePtx) {
  std::shared_ptr<const Model> model;
  ASSERT_TRUE(Load(On("cuda"), Cuda(), &model).ok());
  EXPECT_EQ(fake_.images, (std::vector<std::string>{"cubin:CUBIN sm_90 add_kernel",
                                                     "cubin:CUBIN sm_90 scale_kernel",
                                                     "cubin:CUBIN sm_90 fail_kernel"}));
  fake_.images.clear();
  fake_.cc_major = 8;
  fake_.cc_minor = 9;
  ASSERT_TRUE(Load(On("cuda"), Cuda(), &model).ok());
  EXPECT_EQ(fake_.images[0], "cubin:CUBIN sm_80 add_kernel");
  fake_.images.clear();
  fake_.cc_major = 10;
  fake_.cc_minor = 0;
  ASSERT_TRUE(Load(On("cuda"), Cuda(), &model).ok());
  EXPECT_EQ(fake_.images[0], "ptx:PTX add_kernel");
  EXPECT_EQ(model->device(), "cuda:0 (Fake GPU, sm_100, driver CUDA 13.0), PTX (JIT)");
  fake_.cc_major = 7;
  fake_.cc_minor = 0;
  EXPECT_TRUE(HasMessage(Load(On("cuda"), Cuda(), &model), StatusCode::kFailedPrecondition,
                         "this GPU is sm_70, but executable 0 was built for newer GPUs"));
}

TEST_F(CudaRuntimeTest, JitFailureNamesTheModuleAndWhatToDo) {
  fake_.cc_major = 10;
  fake_.FailCall("cuModuleLoadDataEx", cuda::CUDA_ERROR_NOT_FOUND);
  std::shared_ptr<const Model> model;
  EXPECT_TRUE(HasMessage(Load(On("cuda"), Cuda(), &model), StatusCode::kInternal,
                         "loading executable 0 module 0 (PTX (JIT)) on cuda:0"));
}

// --- Execution ---

TEST_F(CudaRuntimeTest, WalksThePlanInOrderWithBindingsAndPushConstants) {
  std::shared_ptr<const Model> model;
  ASSERT_TRUE(Load(On("cuda"), Cuda(), &model).ok());
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::Create(model, &session).ok());
  // Capture: the four steps, in plan order, inside one capture.
  std::vector<std::string> captured;
  bool in_capture = false;
  for (const std::string& c : fake_.calls) {
    if (c == "cuStreamBeginCapture") in_capture = true;
    if (in_capture) captured.push_back(c);
    if (c == "cuStreamEndCapture") in_capture = false;
  }
  EXPECT_EQ(captured, (std::vector<std::string>{"cuStreamBeginCapture", "cuLaunchKernel",
                                                 "cuLaunchKernel", "cuMemcpyDtoDAsync",
                                                 "cuLaunchKernel", "cuStreamEndCapture"}));
  EXPECT_TRUE(fake_.launches.empty());  // nothing runs before the first Run

  std::vector<Tensor> outputs;
  ASSERT_TRUE(session->Run(Inputs(), &outputs).ok());
  ExpectAddScaleOutputs(outputs);
  ASSERT_EQ(fake_.launches.size(), 3u);
  const auto& add = fake_.launches[0];
  const auto& scale = fake_.launches[1];
  EXPECT_EQ(add.entry, "add_kernel");
  EXPECT_EQ(scale.entry, "scale_kernel");
  EXPECT_EQ(fake_.launches[2].entry, "add_kernel");
  // Grid = the dispatch's workgroups; block and shared memory from the
  // GPU kernel table.
  EXPECT_EQ(add.grid[0], (testing::kElements + 63) / 64u);
  EXPECT_EQ(add.block[0], 128u);
  EXPECT_EQ(scale.block[0], 256u);
  EXPECT_EQ(scale.shared_bytes, 1024u);
  float two = 2.0f;
  uint32_t two_bits;
  std::memcpy(&two_bits, &two, 4);
  EXPECT_EQ(scale.push_constants, std::vector<uint32_t>{two_bits});
  // Binding order: dispatch_0 writes arena offset 0, which dispatch_1 reads.
  EXPECT_EQ(add.pointers[2], session->arena_data());
  EXPECT_EQ(scale.pointers[0], session->arena_data());
  EXPECT_EQ(scale.pointers[1], static_cast<const uint8_t*>(session->arena_data()) +
                                   testing::kElements * sizeof(float));
}

TEST_F(CudaRuntimeTest, CapturesOnceAndReplaysEveryRun) {
  std::shared_ptr<const Model> model;
  ASSERT_TRUE(Load(On("cuda"), Cuda(), &model).ok());
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::Create(model, &session).ok());
  for (int run = 0; run < 3; ++run) {
    std::vector<Tensor> outputs;
    x_[0] = static_cast<float>(run);  // new input bytes each run
    ASSERT_TRUE(session->Run(Inputs(), &outputs).ok());
    ExpectAddScaleOutputs(outputs);
  }
  EXPECT_EQ(fake_.Count("cuStreamBeginCapture"), 1);
  EXPECT_EQ(fake_.Count("cuGraphInstantiate"), 1);
  EXPECT_EQ(fake_.Count("cuGraphLaunch"), 3);
  EXPECT_EQ(fake_.Count("cuLaunchKernel"), 3);  // captured once...
  EXPECT_EQ(fake_.launches.size(), 9u);         // ...run three times
  EXPECT_EQ(fake_.Count("cuMemcpyHtoDAsync"), 6);  // 2 inputs x 3 runs
  EXPECT_EQ(fake_.Count("cuMemcpyDtoHAsync"), 6);  // 2 outputs x 3 runs
  EXPECT_EQ(fake_.Count("cuStreamSynchronize"), 3);
}

TEST_F(CudaRuntimeTest, ConstantsUploadOncePerModelAndSessionsOwnArenaAndStream) {
  std::shared_ptr<const Model> model;
  ASSERT_TRUE(Load(On("cuda"), Cuda(), &model).ok());
  std::unique_ptr<Session> a, b;
  ASSERT_TRUE(Session::Create(model, &a).ok());
  ASSERT_TRUE(Session::Create(model, &b).ok());
  EXPECT_EQ(fake_.Count("cuMemcpyHtoD"), 1);  // the constants, once
  EXPECT_EQ(fake_.Count("cuMemAlloc"), 3);    // constants + one per session
  EXPECT_EQ(fake_.Count("cuStreamCreate"), 2);
  EXPECT_NE(a->arena_data(), b->arena_data());
  std::vector<Tensor> out_a, out_b;
  ASSERT_TRUE(a->Run(Inputs(), &out_a).ok());
  ASSERT_TRUE(b->Run(Inputs(), &out_b).ok());
  ExpectAddScaleOutputs(out_a);
  ExpectAddScaleOutputs(out_b);
  a.reset();
  b.reset();
  model.reset();
  EXPECT_EQ(fake_.live_allocations(), 0u);  // everything freed
  EXPECT_EQ(fake_.Count("cuModuleUnload"), 3);
  EXPECT_EQ(fake_.Count("cuDevicePrimaryCtxRelease"), 1);
}

TEST_F(CudaRuntimeTest, DeviceTensorsAreCopiedOnTheDevice) {
  std::shared_ptr<const Model> model;
  ASSERT_TRUE(Load(On("cuda"), Cuda(), &model).ok());
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::Create(model, &session).ok());
  // Caller device buffers, allocated through the same (fake) driver.
  const size_t bytes = testing::kElements * sizeof(float);
  const cuda::DriverApi* api = nullptr;
  ASSERT_TRUE(cuda::LoadDriverApi(&api).ok());
  cuda::CUdeviceptr dx, dy, dsum, dscaled;
  for (cuda::CUdeviceptr* p : {&dx, &dy, &dsum, &dscaled}) ASSERT_EQ(api->cuMemAlloc(p, bytes), 0);
  std::memcpy(FakeCudaDriver::Host(dx), x_.data(), bytes);
  std::memcpy(FakeCudaDriver::Host(dy), y_.data(), bytes);
  auto dev = [](cuda::CUdeviceptr p) {
    return Tensor::BorrowDevice(DType::F32, {testing::kRows, testing::kCols},
                                FakeCudaDriver::Host(p), 0);
  };
  std::vector<Tensor> outputs = {dev(dsum), dev(dscaled)};
  int htod = fake_.Count("cuMemcpyHtoDAsync"), dtoh = fake_.Count("cuMemcpyDtoHAsync");
  ASSERT_TRUE(session->Run({dev(dx), dev(dy)}, &outputs).ok());
  EXPECT_EQ(fake_.Count("cuMemcpyHtoDAsync"), htod);
  EXPECT_EQ(fake_.Count("cuMemcpyDtoHAsync"), dtoh);
  std::vector<float> sum = testing::ExpectedSum(x_, y_);
  EXPECT_EQ(std::memcmp(FakeCudaDriver::Host(dsum), sum.data(), bytes), 0);
  // Mixed: host inputs, a device output on another GPU is refused.
  std::vector<Tensor> wrong = {Tensor::BorrowDevice(DType::F32, {testing::kRows, testing::kCols},
                                                    FakeCudaDriver::Host(dsum), 1),
                               dev(dscaled)};
  EXPECT_TRUE(HasMessage(session->Run(Inputs(), &wrong), StatusCode::kInvalidArgument,
                         "output 'sum' is on cuda:1, but this session runs on cuda:0"));
  for (cuda::CUdeviceptr p : {dx, dy, dsum, dscaled}) api->cuMemFree(p);
}

TEST_F(CudaRuntimeTest, CpuSessionsRefuseDeviceTensors) {
  std::shared_ptr<const Model> model;
  ASSERT_TRUE(Load(On("cpu"), Both(), &model).ok());
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::Create(model, &session).ok());
  std::vector<Tensor> inputs = Inputs();
  inputs[1] = Tensor::BorrowDevice(DType::F32, {testing::kRows, testing::kCols}, y_.data(), 0);
  std::vector<Tensor> outputs;
  EXPECT_TRUE(HasMessage(session->Run(inputs, &outputs), StatusCode::kInvalidArgument,
                         "input 'y' is in GPU memory (cuda:0), but this session runs on the CPU"));
}

TEST_F(CudaRuntimeTest, ProfilingIsRefusedOnTheGpu) {
  std::shared_ptr<const Model> model;
  ASSERT_TRUE(Load(On("cuda"), Cuda(), &model).ok());
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::Create(model, &session).ok());
  EXPECT_TRUE(HasMessage(session->EnableProfiling(true), StatusCode::kFailedPrecondition,
                         "per-step profiling is not available on a GPU"));
}

TEST_F(CudaRuntimeTest, CApiPicksTheDeviceAndTakesDeviceTensors) {
  kiln_runtime_options_t options;
  kiln_runtime_options_initialize(&options);
  kiln_runtime_t* runtime = nullptr;
  kiln_status_t status = kiln_runtime_create_on_device(&options, "tpu", &runtime);
  ASSERT_NE(status, nullptr);
  EXPECT_NE(std::string(kiln_status_message(status)).find("unknown device 'tpu'"),
            std::string::npos);
  kiln_status_free(status);
  ASSERT_EQ(kiln_runtime_create_on_device(&options, "cuda:0", &runtime), nullptr);
  std::vector<uint8_t> bytes = Cuda();
  kiln_model_t* model = nullptr;
  ASSERT_EQ(kiln_model_load_memory(runtime, bytes.data(), bytes.size(), &model), nullptr);
  kiln_session_t* session = nullptr;
  ASSERT_EQ(kiln_session_create(model, &session), nullptr);
  // x on the device, y on the host; "sum" on the device, "scaled" on the host.
  const cuda::DriverApi* api = nullptr;
  ASSERT_TRUE(cuda::LoadDriverApi(&api).ok());
  const size_t bytes_per = testing::kElements * sizeof(float);
  cuda::CUdeviceptr dx, dsum;
  ASSERT_EQ(api->cuMemAlloc(&dx, bytes_per), 0);
  ASSERT_EQ(api->cuMemAlloc(&dsum, bytes_per), 0);
  std::memcpy(FakeCudaDriver::Host(dx), x_.data(), bytes_per);
  std::vector<float> scaled(testing::kElements);
  const int64_t dims[2] = {testing::kRows, testing::kCols};
  kiln_tensor_t inputs[2] = {{KILN_F32, 2, dims, FakeCudaDriver::Host(dx)},
                             {KILN_F32, 2, dims, y_.data()}};
  kiln_tensor_t outputs[2] = {{KILN_F32, 2, dims, FakeCudaDriver::Host(dsum)},
                              {KILN_F32, 2, dims, scaled.data()}};
  const int32_t input_devices[2] = {0, KILN_HOST_MEMORY};
  const int32_t output_devices[2] = {0, KILN_HOST_MEMORY};
  ASSERT_EQ(kiln_session_run_on_devices(session, inputs, input_devices, 2, outputs,
                                        output_devices, 2),
            nullptr);
  std::vector<float> sum = testing::ExpectedSum(x_, y_);
  EXPECT_EQ(std::memcmp(FakeCudaDriver::Host(dsum), sum.data(), bytes_per), 0);
  EXPECT_EQ(scaled, testing::ExpectedScaled(x_));
  api->cuMemFree(dx);
  api->cuMemFree(dsum);
  kiln_session_release(session);
  kiln_model_release(model);
  kiln_runtime_release(runtime);
}

// --- Errors ---

TEST_F(CudaRuntimeTest, OutOfMemoryIsResourceExhaustedWithWhatToDo) {
  std::shared_ptr<const Model> model;
  ASSERT_TRUE(Load(On("cuda"), Cuda(), &model).ok());
  fake_.memory_limit = fake_.live_bytes() + 1024;  // the session's buffers do not fit
  std::unique_ptr<Session> session;
  Status s = Session::Create(model, &session);
  EXPECT_TRUE(HasMessage(s, StatusCode::kResourceExhausted,
                         "allocating the session's 10496 bytes of GPU memory (arena 3200 bytes"));
  EXPECT_NE(s.message().find("CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("use a smaller batch"), std::string::npos) << s.message();
  // The constants at load.
  fake_.memory_limit = 16;
  EXPECT_TRUE(HasMessage(Load(On("cuda"), Cuda(), &model), StatusCode::kResourceExhausted,
                         "allocating 1600 bytes for the constants"));
}

TEST_F(CudaRuntimeTest, ACaptureErrorNamesTheStepAndTheCudaError) {
  std::shared_ptr<const Model> model;
  ASSERT_TRUE(Load(On("cuda"), Cuda(), &model).ok());
  fake_.FailCall("cuLaunchKernel", cuda::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, 2);
  std::unique_ptr<Session> session;
  EXPECT_TRUE(HasMessage(Session::Create(model, &session), StatusCode::kInternal,
                         "step 1 'dispatch_1: scale': launching kernel 'scale_kernel' (grid "
                         "7x1x1, block 256x1x1): CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"));
  EXPECT_EQ(fake_.Count("cuStreamEndCapture"), 1);  // the capture was ended
}

TEST_F(CudaRuntimeTest, AnAsynchronousKernelFaultFailsTheRun) {
  std::shared_ptr<const Model> model;
  ASSERT_TRUE(Load(On("cuda"), Cuda(), &model).ok());
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::Create(model, &session).ok());
  fake_.FailKernelAtReplay("scale_kernel", cuda::CUDA_ERROR_LAUNCH_FAILED);
  std::vector<Tensor> outputs;
  EXPECT_TRUE(HasMessage(session->Run(Inputs(), &outputs), StatusCode::kInternal,
                         "running the plan (4 steps as one CUDA graph) on cuda:0"));
}

TEST_F(CudaRuntimeTest, CustomCallsInACudaPlanAreUnimplemented) {
  std::vector<uint8_t> bytes = testing::EditArtifact(Cuda(), [](fb::ModelT& m) {
    auto step = std::make_unique<fb::StepT>();
    step->kind = fb::StepKind::CustomCall;
    step->label = "custom_4";
    step->custom_call = std::make_unique<fb::CustomCallStepT>();
    step->custom_call->op = "com.example.Swish";
    // Every vector non-empty: the object API drops empty ones.
    for (int output = 0; output < 2; ++output) {
      auto operand = std::make_unique<fb::CustomOperandT>();
      operand->binding = std::make_unique<fb::Binding>(
          output ? fb::BufferSpace::Output : fb::BufferSpace::Input, 0, 0, 1600);
      operand->dtype = fb::DType::F32;
      operand->dims = {400};
      (output ? step->custom_call->outputs : step->custom_call->inputs).push_back(std::move(operand));
    }
    auto attr = std::make_unique<fb::CustomAttributeT>();
    attr->name = "alpha";
    attr->kind = fb::AttributeKind::Int;
    attr->ints = {1};
    step->custom_call->attributes.push_back(std::move(attr));
    m.plans[0]->steps.push_back(std::move(step));
  });
  std::shared_ptr<const Model> model;
  EXPECT_TRUE(HasMessage(Load(On("cuda"), bytes, &model), StatusCode::kUnimplemented,
                         "step 4 'custom_4': custom op 'com.example.Swish' in a cuda plan"));
}

// --- LibraryCall steps (cuBLASLt GEMMs) ---

struct GemmCase {
  uint64_t batch, m, n, k;
  bool ta, tb;
  GemmInfo::Epilogue epilogue;
  float alpha, beta;
  bool broadcast_b;
};

class GemmTest : public ::testing::TestWithParam<GemmCase> {
 protected:
  FakeCudaDriver fake_;
};

// The step's row-major GEMM reaches cuBLASLt as the swapped column-major
// problem (gemm_call.h), and the fake's evaluation of cuBLASLt's
// documented semantics matches GemmCall's definition.
TEST_P(GemmTest, TranslatesToCublasLtAndComputesTheDefinition) {
  const GemmCase& p = GetParam();
  testing::GemmModel g = testing::MakeGemmModel(p.batch, p.m, p.n, p.k, p.ta, p.tb, p.epilogue,
                                                p.alpha, p.beta, p.broadcast_b);
  std::shared_ptr<const Model> model;
  ASSERT_TRUE(Load(On("cuda"), g.bytes, &model).ok());
  const StepInfo& step = model->description().steps[0];
  EXPECT_EQ(step.kind, StepInfo::Kind::kLibraryCall);
  EXPECT_EQ(step.library + "." + step.function, "cublasLt.matmul");
  EXPECT_EQ(step.node, "MatMul_0");
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::Create(model, &session).ok());
  std::vector<Tensor> inputs = {Tensor::Borrow(
      DType::F32,
      {static_cast<int64_t>(p.batch), static_cast<int64_t>(p.ta ? p.k : p.m),
       static_cast<int64_t>(p.ta ? p.m : p.k)},
      g.a.data())};
  if (p.beta != 0)
    inputs.push_back(Tensor::Borrow(DType::F32,
                                    {static_cast<int64_t>(p.batch), static_cast<int64_t>(p.m),
                                     static_cast<int64_t>(p.n)},
                                    g.c.data()));
  std::vector<Tensor> outputs;
  ASSERT_TRUE(session->Run(inputs, &outputs).ok());
  std::vector<float> expected = testing::ReferenceGemm(g);
  const float* d = outputs[0].data_as<float>();
  for (size_t i = 0; i < expected.size(); ++i) ASSERT_NEAR(d[i], expected[i], 1e-5f) << i;

  ASSERT_EQ(fake_.matmuls.size(), 1u);
  const FakeCudaDriver::Matmul& m = fake_.matmuls[0];
  // Column-major D^T: n x m, and cuBLASLt's A is the step's B.
  EXPECT_EQ(m.d.rows, p.n);
  EXPECT_EQ(m.d.cols, p.m);
  EXPECT_EQ(m.d.batch, static_cast<int32_t>(p.batch));
  EXPECT_EQ(m.trans_a, p.tb ? cuda::CUBLAS_OP_T : cuda::CUBLAS_OP_N);
  EXPECT_EQ(m.trans_b, p.ta ? cuda::CUBLAS_OP_T : cuda::CUBLAS_OP_N);
  // Batch attributes only for batches (stride 0 broadcasts B).
  EXPECT_EQ(m.a.batch_stride,
            p.batch == 1 || p.broadcast_b ? 0 : static_cast<int64_t>(p.k * p.n));
  EXPECT_EQ(m.bias != nullptr, g.gemm.has_bias());
  // The workspace lies in the session's allocation, as large as the
  // heuristic asked, and the preference allowed 32 MiB.
  EXPECT_EQ(fake_.max_workspace_preference, 32u << 20);
  EXPECT_EQ(m.workspace_bytes, fake_.heuristic_workspace);
  EXPECT_EQ(fake_.alignment_preferences.size(), 4u);
  // One capture, one matmul call per run.
  ASSERT_TRUE(session->Run(inputs, &outputs).ok());
  EXPECT_EQ(fake_.Count("cublasLtMatmul"), 1);
  EXPECT_EQ(fake_.matmuls.size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, GemmTest,
    ::testing::Values(GemmCase{1, 4, 6, 8, false, false, GemmInfo::Epilogue::kNone, 1, 0, false},
                      GemmCase{1, 5, 3, 7, false, true, GemmInfo::Epilogue::kBiasRelu, 1, 0, false},
                      GemmCase{3, 4, 5, 6, true, false, GemmInfo::Epilogue::kBiasGelu, 0.5f, 0,
                               true},
                      GemmCase{2, 3, 4, 5, true, true, GemmInfo::Epilogue::kRelu, 2, 1, false},
                      GemmCase{2, 2, 9, 3, false, false, GemmInfo::Epilogue::kBias, 1, 0.5f,
                               false}));

TEST(GemmErrorsTest, MissingCublasLtNamesTheStep) {
  FakeCudaDriver fake;
  fake.RemoveCublasLt();
  testing::GemmModel g =
      testing::MakeGemmModel(1, 2, 2, 2, false, false, GemmInfo::Epilogue::kNone, 1, 0, false);
  std::shared_ptr<const Model> model;
  ASSERT_TRUE(Load(On("cuda"), g.bytes, &model).ok());
  std::unique_ptr<Session> session;
  EXPECT_TRUE(HasMessage(Session::Create(model, &session), StatusCode::kFailedPrecondition,
                         "step 0 'gemm_0: matmul' (cublasLt.matmul for 'MatMul_0'): this model's "
                         "GEMMs call cuBLASLt, which cannot be loaded"));
}

TEST(GemmErrorsTest, NoAlgorithmAndFailedMatmulNameTheStep) {
  FakeCudaDriver fake;
  testing::GemmModel g =
      testing::MakeGemmModel(1, 2, 2, 2, false, false, GemmInfo::Epilogue::kNone, 1, 0, false);
  std::shared_ptr<const Model> model;
  ASSERT_TRUE(Load(On("cuda"), g.bytes, &model).ok());
  std::unique_ptr<Session> session;
  fake.heuristic_results = 0;
  EXPECT_TRUE(HasMessage(Session::Create(model, &session), StatusCode::kInternal,
                         "step 0 'gemm_0: matmul' (cublasLt.matmul for 'MatMul_0'): cuBLASLt has "
                         "no algorithm for it (batch 1, m 2, n 2, k 2, epilogue none)"));
  fake.heuristic_results = 1;
  fake.FailCall("cublasLtMatmul", cuda::CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_TRUE(HasMessage(Session::Create(model, &session), StatusCode::kInternal,
                         "cublasLtMatmul failed: CUBLAS_STATUS_NOT_SUPPORTED"));
}

// Every field the loader checks: a bad one is named with its step.
TEST(GemmErrorsTest, LoaderChecksEveryField) {
  FakeCudaDriver fake;
  testing::GemmModel g =
      testing::MakeGemmModel(2, 3, 4, 5, false, false, GemmInfo::Epilogue::kBias, 1, 0, false);
  struct Case {
    std::function<void(fb::GemmCallT&, fb::LibraryCallStepT&)> edit;
    StatusCode code;
    std::string message;
  };
  const std::string at = "step 0 'gemm_0: matmul' (cublasLt.matmul for 'MatMul_0')";
  std::vector<Case> cases = {
      {[](fb::GemmCallT& c, fb::LibraryCallStepT&) { c.lda = 4; }, StatusCode::kDataLoss,
       at + " A: leading dimension 4 < 5 columns"},
      {[](fb::GemmCallT& c, fb::LibraryCallStepT&) { c.k = 6; c.lda = 6; },
       StatusCode::kDataLoss, at + " A: 2 x 3x6 (ld 6, batch stride 15) needs"},
      {[](fb::GemmCallT& c, fb::LibraryCallStepT&) { c.m = 0; }, StatusCode::kDataLoss,
       at + ": m = 0"},
      {[](fb::GemmCallT& c, fb::LibraryCallStepT&) { c.batch_stride_d = 4; },
       StatusCode::kDataLoss, at + " D: batch stride 4 makes batches overlap"},
      {[](fb::GemmCallT& c, fb::LibraryCallStepT&) {
         c.d = std::make_unique<fb::Binding>(fb::BufferSpace::Input, 0, 0, 96);
       },
       StatusCode::kDataLoss, at + " D is in read-only memory"},
      {[](fb::GemmCallT& c, fb::LibraryCallStepT&) {
         c.bias = std::make_unique<fb::Binding>(fb::BufferSpace::Constant, 1, 0, 8);
       },
       StatusCode::kDataLoss, at + " bias: 8 bytes at offset 0 for 4 aligned f32 values"},
      {[](fb::GemmCallT& c, fb::LibraryCallStepT&) {
         c.a = std::make_unique<fb::Binding>(fb::BufferSpace::Input, 0, 2, 100);
       },
       StatusCode::kDataLoss, at + " A: offset 2 is not a multiple of the 4-byte element"},
      {[](fb::GemmCallT& c, fb::LibraryCallStepT&) {
         c.b = std::make_unique<fb::Binding>(fb::BufferSpace::Constant, 7, 0, 4);
       },
       StatusCode::kDataLoss, at + " B: no constant 7"},
      {[](fb::GemmCallT& c, fb::LibraryCallStepT&) { c.beta = 1; }, StatusCode::kDataLoss,
       at + " C: 2 x 3x4 (ld 4, batch stride 12) needs 96 bytes, binding has 0"},
      {[](fb::GemmCallT& c, fb::LibraryCallStepT&) { c.epilogue = static_cast<fb::GemmEpilogue>(9); },
       StatusCode::kDataLoss, at + ": unknown epilogue 9"},
      {[](fb::GemmCallT& c, fb::LibraryCallStepT&) { c.dtype = fb::DType::F16; },
       StatusCode::kUnimplemented, at + ": dtype 1, compute 0; this runtime runs f32 GEMMs only"},
      {[](fb::GemmCallT&, fb::LibraryCallStepT& l) { l.function = "conv"; },
       StatusCode::kUnimplemented, "step 0 'gemm_0: matmul': library call 'cublasLt.conv' is not one"},
  };
  for (const Case& c : cases) {
    std::vector<uint8_t> bytes = testing::EditArtifact(g.bytes, [&](fb::ModelT& m) {
      fb::LibraryCallStepT& call = *m.plans[0]->steps[0]->library_call;
      c.edit(*call.gemm, call);
    });
    std::shared_ptr<const Model> model;
    EXPECT_TRUE(HasMessage(Load(On("cuda"), bytes, &model), c.code, c.message)) << c.message;
  }
  // A LibraryCall in a CPU plan.
  std::vector<uint8_t> cpu = testing::EditArtifact(g.bytes, [](fb::ModelT& m) {
    m.plans[0]->target = "x86_64";
  });
  std::shared_ptr<const Model> model;
  EXPECT_TRUE(HasMessage(Load(On("cpu"), cpu, &model), StatusCode::kUnimplemented,
                         "a x86_64 plan calls library 'cublasLt'; library calls run in cuda plans "
                         "only"));
}

}  // namespace
}  // namespace kiln
