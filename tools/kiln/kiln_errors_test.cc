// Bad usage and bad files: kiln prints one clear line to stderr and exits
// non-zero (2 for usage, 1 for files and models), never crashes.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "runtime/testing/test_artifacts.h"
#include "tools/kiln/kiln_test_util.h"

namespace kiln::testing {
namespace {

void ExpectFailure(const std::string& args, int code, const std::string& message) {
  CommandResult r = RunKiln(args);
  EXPECT_EQ(r.exit_code, code) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
}

class KilnErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(artifact::writeArtifactFile(AddScaleSpec(), model_, error)) << error;
  }
  std::string model_ = TempPath("errors.kiln");
};

TEST_F(KilnErrorsTest, BadUsage) {
  ExpectFailure("", 2, "kiln: no command given");
  ExpectFailure("frobnicate x.kiln", 2, "kiln: unknown command 'frobnicate'");
  ExpectFailure("run", 2, "kiln: no model file given");
  ExpectFailure("run " + model_ + " " + model_, 2, "more than one model file given");
  ExpectFailure("run " + model_ + " --bogus 1", 2, "unknown option '--bogus' for 'run'");
  ExpectFailure("run " + model_ + " --threads many", 2, "--threads needs a number in [0, 1024], got 'many'");
  ExpectFailure("run " + model_ + " --input x", 2, "--input needs NAME=FILE, got 'x'");
  ExpectFailure("bench " + model_ + " --iterations 0", 2, "--iterations needs a positive number");
  ExpectFailure("inspect " + model_ + " --seed 3", 2, "unknown option '--seed' for 'inspect'");
  ExpectFailure("run " + model_ + " --device gpu", 2,
                "--device: unknown device 'gpu' (expected auto, cpu, cuda or cuda:N)");
  ExpectFailure("inspect " + model_ + " --device cpu", 2, "unknown option '--device' for 'inspect'");
  EXPECT_EQ(RunKiln("--help").exit_code, 0);
}

// --device=cuda on a machine without the NVIDIA driver (CI, the build
// machine): one clear line saying so and what to do, exit status 1; cpu
// and auto run the CPU plan there.
TEST_F(KilnErrorsTest, CudaDeviceWithoutADriver) {
  if (void* libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(libcuda);
    GTEST_SKIP() << "this machine has an NVIDIA driver; tests/gpu/device_check.sh covers it";
  }
  ExpectFailure("run " + model_ + " --device=cuda", 1,
                "kiln: device cuda:0: no CUDA driver: cannot load libcuda.so.1");
  ExpectFailure("bench " + model_ + " --device cuda:1 --iterations 1", 1,
                "Install the NVIDIA driver, or run on the CPU (--device=cpu");
  CommandResult cpu = RunKiln("bench " + model_ + " --device=cpu --iterations 2 --warmup 0");
  EXPECT_EQ(cpu.exit_code, 0) << cpu.output;
  EXPECT_NE(cpu.output.find("device: cpu"), std::string::npos) << cpu.output;
  EXPECT_EQ(RunKiln("run " + model_ + " --device=auto").exit_code, 0);
}

// The trust model is part of the help, where users look before loading.
TEST_F(KilnErrorsTest, InspectHelpStatesTheTrustModel) {
  auto result = RunKiln("inspect --help");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.output.find("a .kiln artifact is native code"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("detects corruption, not tampering"), std::string::npos)
      << result.output;
}

TEST_F(KilnErrorsTest, BadFiles) {
  ExpectFailure("run /nonexistent.kiln", 1, "kiln: cannot open '/nonexistent.kiln'");
  ExpectFailure("inspect /nonexistent.kiln", 1, "cannot open '/nonexistent.kiln'");
  std::vector<uint8_t> bytes = ReadFileBytes(model_);
  bytes[bytes.size() / 2] ^= 4;
  std::string corrupted = TempPath("corrupted.kiln");
  ASSERT_TRUE(WriteFileBytes(corrupted, bytes));
  ExpectFailure("run " + corrupted, 1, "checksum mismatch");
  ExpectFailure("inspect " + corrupted, 1, "checksum mismatch");
  ExpectFailure("bench " + corrupted, 1, "checksum mismatch");
  bytes.resize(100);
  ASSERT_TRUE(WriteFileBytes(corrupted, bytes));
  ExpectFailure("inspect " + corrupted, 1, "truncated");
}

TEST_F(KilnErrorsTest, BadInputs) {
  ExpectFailure("run " + model_ + " --input z=a.npy", 1,
                "--input z: the model has no input 'z' (inputs: x, y)");
  ExpectFailure("run " + model_ + " --input x=/nonexistent.npy", 1, "cannot open '/nonexistent.npy'");
  std::string garbage = TempPath("garbage.pb");
  ASSERT_TRUE(WriteFileBytes(garbage, {0x0A, 0xFF, 0xFF}));
  ExpectFailure("run " + model_ + " --input x=" + garbage, 1, "not a valid ONNX TensorProto");
  // The right dtype, the wrong shape.
  std::vector<uint8_t> npy = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 118, 0};
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  header.resize(118, ' ');  // 10 + 118 = 128: the data starts aligned
  header[117] = '\n';
  npy.insert(npy.end(), header.begin(), header.end());
  npy.resize(npy.size() + 8, 0);
  std::string small = TempPath("small.npy");
  ASSERT_TRUE(WriteFileBytes(small, npy));
  ExpectFailure("run " + model_ + " --input x=" + small, 1,
                "input 'x' from " + small + ": expected shape [4,100] f32, got [2] f32");
}

}  // namespace
}  // namespace kiln::testing
