// test_artifacts.h - artifacts built by hand for runtime and tool tests,
// around the kernels in test_kernels.c (add, scale, fail).
#ifndef KILN_RUNTIME_TESTING_TEST_ARTIFACTS_H_
#define KILN_RUNTIME_TESTING_TEST_ARTIFACTS_H_

#include <string>
#include <vector>

#include "compiler/artifact/ArtifactSpec.h"

namespace kiln::testing {

// Bytes of a file; empty when it cannot be read.
std::vector<uint8_t> ReadFileBytes(const std::string& path);
bool WriteFileBytes(const std::string& path, const std::vector<uint8_t>& bytes);

// libkiln_test_kernels.so, from the test's runfiles.
const std::vector<uint8_t>& TestKernelBlob();

// A directory private to this test (TEST_TMPDIR).
std::string TempPath(const std::string& name);

constexpr int kRows = 4, kCols = 100, kElements = kRows * kCols;

// Inputs x, y: f32[4,100]. Constant c[i] = 0.5 * i. Outputs:
//   "sum"         = x + y          (dispatch straight into the output)
//   "scaled/out"  = 2 * (x + c)    (two dispatches through the arena, then
//                                   a Copy step into the output)
artifact::ArtifactSpec AddScaleSpec();
// The expected outputs of AddScaleSpec for given inputs.
std::vector<float> ExpectedSum(const std::vector<float>& x, const std::vector<float>& y);
std::vector<float> ExpectedScaled(const std::vector<float>& x);

// One input "x" f32[4,100], output "y"; runs the "fail" kernel (which
// returns 42 on workgroup 1) and then copies x to y.
artifact::ArtifactSpec FailingSpec();

std::vector<uint8_t> WriteOrDie(const artifact::ArtifactSpec& spec);

// Deterministic pseudo-random floats in [-1, 1].
std::vector<float> RandomFloats(size_t count, uint32_t seed);

}  // namespace kiln::testing

#endif  // KILN_RUNTIME_TESTING_TEST_ARTIFACTS_H_
