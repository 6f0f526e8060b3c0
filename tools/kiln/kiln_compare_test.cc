// kiln compare on hand-built artifacts whose outputs differ by a known
// amount (expected figures computed here from the inputs), and on kilnc
// builds of the example classifier: itself, a deliberately perturbed build
// (kilnc --debug-perturb-node) and an fp16 build. Plus the errors.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "runtime/testing/test_artifacts.h"
#include "tools/kiln/kiln_test_util.h"
#include "tools/kiln/tensor_files.h"

namespace kiln::testing {
namespace {

const std::string kClassifier = "tools/kiln/tiny_classifier.kiln";
const std::string kPerturbed = "tools/kiln/tiny_classifier_perturbed.kiln";
const std::string kFp16 = "tools/kiln/tiny_classifier_fp16.kiln";
const std::string kBf16 = "tools/kiln/tiny_classifier_bf16.kiln";

// The number after `"key": ` in the JSON report (the first occurrence after
// `from`), NaN when absent.
double JsonField(const std::string& json, const std::string& key, size_t from = 0) {
  size_t at = json.find("\"" + key + "\": ", from);
  if (at == std::string::npos) return NAN;
  return std::strtod(json.c_str() + at + key.size() + 4, nullptr);
}

void Mkdir(const std::string& path) { ASSERT_EQ(::mkdir(path.c_str(), 0755), 0) << path; }

void WriteNpy(const std::string& path, std::vector<float>& values) {
  ASSERT_TRUE(WriteFileBytes(path, tools::EncodeNpy(Tensor::Borrow(DType::F32, {kRows, kCols}, values.data()))));
}

class KilnCompareTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(artifact::writeArtifactFile(AddScaleSpec(), reference_, error)) << error;
    // The candidate's constant is c + 1: "scaled/out" = 2 (x + c + 1) is
    // off by 2 everywhere, "sum" = x + y is unchanged.
    artifact::ArtifactSpec shifted = AddScaleSpec();
    std::vector<float> c(kElements);
    std::memcpy(c.data(), shifted.constants[0].data.data(), kElements * sizeof(float));
    for (float& v : c) v += 1.0f;
    std::memcpy(shifted.constants[0].data.data(), c.data(), kElements * sizeof(float));
    ASSERT_TRUE(artifact::writeArtifactFile(shifted, candidate_, error)) << error;
  }
  std::string reference_ = TempPath("reference.kiln"), candidate_ = TempPath("candidate.kiln");
};

TEST_F(KilnCompareTest, KnownDifferencesOnSamplesFromADirectory) {
  // Two samples: .npy files named for the inputs, and backend-test
  // TensorProtos numbered in the opposite order but named (the name wins).
  std::vector<float> x0 = RandomFloats(kElements, 1), y0 = RandomFloats(kElements, 2);
  std::vector<float> x1 = RandomFloats(kElements, 3), y1 = RandomFloats(kElements, 4);
  std::string dir = TempPath("samples");
  Mkdir(dir);
  Mkdir(dir + "/test_data_set_0");
  Mkdir(dir + "/test_data_set_1");
  WriteNpy(dir + "/test_data_set_0/x.npy", x0);
  WriteNpy(dir + "/test_data_set_0/y.npy", y0);
  ASSERT_TRUE(WriteFileBytes(dir + "/test_data_set_1/input_0.pb", TensorProtoBytes("y", y1, /*raw=*/true)));
  ASSERT_TRUE(WriteFileBytes(dir + "/test_data_set_1/input_1.pb", TensorProtoBytes("x", x1, /*raw=*/false)));
  // Expected outputs of a backend-test folder are ignored.
  ASSERT_TRUE(WriteFileBytes(dir + "/test_data_set_1/output_0.pb", TensorProtoBytes("sum", x1, true)));

  // The reference's "scaled/out" and what the figures must be.
  double dot = 0, ref2 = 0, cand2 = 0, max_ref = 0, max_err = 0, sum_err = 0;
  int64_t agree = 0;
  for (const std::vector<float>* x : {&x0, &x1}) {
    std::vector<float> r = ExpectedScaled(*x), c(kElements);
    for (int i = 0; i < kElements; ++i) {
      c[i] = (*x)[i] + (0.5f * static_cast<float>(i) + 1.0f);
      c[i] *= 2.0f;
      dot += static_cast<double>(r[i]) * c[i];
      ref2 += static_cast<double>(r[i]) * r[i];
      cand2 += static_cast<double>(c[i]) * c[i];
      max_ref = std::fmax(max_ref, std::fabs(r[i]));
      max_err = std::fmax(max_err, std::fabs(r[i] - c[i]));
      sum_err += std::fabs(r[i] - c[i]);
    }
    for (int row = 0; row < kRows; ++row) {
      auto argmax = [&](const std::vector<float>& v) {
        return std::max_element(v.begin() + row * kCols, v.begin() + (row + 1) * kCols) - v.begin();
      };
      agree += argmax(r) == argmax(c);
    }
  }

  CommandResult r = RunKiln("compare " + reference_ + " " + candidate_ + " --inputs " + dir + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string& json = r.output;
  EXPECT_EQ(JsonField(json, "samples"), 2) << json;
  size_t sum = json.find("\"name\": \"sum\"");
  size_t scaled = json.find("\"name\": \"scaled/out\"");
  ASSERT_NE(sum, std::string::npos) << json;
  ASSERT_NE(scaled, std::string::npos) << json;
  EXPECT_EQ(JsonField(json, "cosine", sum), 1.0) << json;
  EXPECT_EQ(JsonField(json, "max_abs_error", sum), 0.0) << json;
  EXPECT_EQ(JsonField(json, "agree", sum), 8) << json;  // 4 rows x 2 samples
  EXPECT_EQ(JsonField(json, "total", sum), 8) << json;
  EXPECT_NEAR(JsonField(json, "cosine", scaled), dot / std::sqrt(ref2 * cand2), 1e-9) << json;
  EXPECT_NEAR(JsonField(json, "max_abs_error", scaled), max_err, 1e-6) << json;
  EXPECT_NEAR(JsonField(json, "max_abs_error", scaled), 2.0, 1e-4) << json;
  EXPECT_NEAR(JsonField(json, "mean_abs_error", scaled), sum_err / (2 * kElements), 1e-6) << json;
  EXPECT_NEAR(JsonField(json, "max_abs_reference", scaled), max_ref, 1e-6) << json;
  EXPECT_EQ(JsonField(json, "agree", scaled), agree) << json;
  EXPECT_NE(json.find("\"pass\": true"), std::string::npos) << json;

  // --samples takes the first N folders; the text form says the same.
  r = RunKiln("compare " + reference_ + " " + candidate_ + " --inputs " + dir + " --samples 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("samples: 1 (" + dir + ")"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("output 'sum' [4,100] f32\n  cosine 1.00000000  max abs error 0  mean abs error 0"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("top-1 agreement 4/4 (100.00%)"), std::string::npos) << r.output;

  // A folder without sub-folders is one sample.
  r = RunKiln("compare " + reference_ + " " + candidate_ + " --inputs " + dir + "/test_data_set_0");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("samples: 1 ("), std::string::npos) << r.output;
}

TEST_F(KilnCompareTest, MinCosineSetsTheExitStatus) {
  // Random samples: "scaled/out" is still off by exactly 2 everywhere
  // (a cosine near 0.99999: the values reach 400).
  CommandResult r = RunKiln("compare " + reference_ + " " + candidate_ + " --samples 3 --seed 7 --min-cosine 0.999999");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("samples: 3 (random, seed 7)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("max abs error 2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("BELOW --min-cosine 0.999999"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("FAIL: 1 of 2 outputs below --min-cosine 0.999999"), std::string::npos) << r.output;
  r = RunKiln("compare " + reference_ + " " + candidate_ + " --samples 3 --seed 7 --min-cosine 0.99 --json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\"pass\": true"), std::string::npos) << r.output;
  // The same seed gives the same figures.
  EXPECT_EQ(RunKiln("compare " + reference_ + " " + candidate_ + " --seed 7 --json").output,
            RunKiln("compare " + reference_ + " " + candidate_ + " --seed 7 --json").output);
}

TEST(KilnCompareCompiledTest, AnArtifactAgainstItselfIsExact) {
  CommandResult r = RunKiln("compare " + kClassifier + " " + kClassifier + " --samples 8 --min-cosine 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("output 'probabilities' [1,10] f32\n  cosine 1.00000000  max abs error 0  mean abs error 0"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("top-1 agreement 8/8 (100.00%)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ok: every output has cosine >= 1"), std::string::npos) << r.output;
}

TEST(KilnCompareCompiledTest, APerturbedBuildFallsBelowTheThreshold) {
  // Conv_4's result + 0.5 everywhere: the probabilities move by a few
  // hundredths (they are ~0.1), a cosine near 0.98.
  CommandResult r = RunKiln("compare " + kClassifier + " " + kPerturbed + " --samples 8 --min-cosine 0.999 --json");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  double cosine = JsonField(r.output, "cosine");
  EXPECT_LT(cosine, 0.999) << r.output;
  EXPECT_GT(cosine, 0.5) << r.output;
  EXPECT_GT(JsonField(r.output, "max_abs_error"), 0.005) << r.output;
  EXPECT_NE(r.output.find("\"below_min_cosine\": true"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"pass\": false"), std::string::npos) << r.output;
}

TEST(KilnCompareCompiledTest, AnFp16BuildStaysClose) {
  CommandResult r = RunKiln("compare " + kClassifier + " " + kFp16 + " --samples 16 --min-cosine 0.999 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(JsonField(r.output, "cosine"), 0.9999) << r.output;
  EXPECT_GT(JsonField(r.output, "max_abs_error"), 0) << r.output;  // 16 bits do round
  EXPECT_LT(JsonField(r.output, "max_abs_error"), 1e-3) << r.output;
  EXPECT_EQ(JsonField(r.output, "agree"), 16) << r.output;
}

// Built for baseline x86-64 (no AVX512-BF16): it must load and run (its
// bf16 relu and max pool once called compiler-rt's __truncsfbf2) and stay
// within bf16's rounding of the fp32 build.
TEST(KilnCompareCompiledTest, ABf16BuildForAnyX86LoadsAndStaysClose) {
  CommandResult r = RunKiln("compare " + kClassifier + " " + kBf16 + " --samples 16 --min-cosine 0.999 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(JsonField(r.output, "cosine"), 0.999) << r.output;
  EXPECT_GT(JsonField(r.output, "max_abs_error"), 0) << r.output;
  EXPECT_LT(JsonField(r.output, "max_abs_error"), 0.01) << r.output;
  EXPECT_EQ(JsonField(r.output, "agree"), 16) << r.output;
}

// Edge tiles of bf16 contractions on AVX2 move their bf16 rows as i16
// (LLVM scalarizes masked bf16 moves through __truncsfbf2 there).
TEST(KilnCompareCompiledTest, ABf16BuildWithEdgeTilesForAvx2LoadsAndStaysClose) {
  // Runs only where AVX2 and FMA are (the artifact says so; CI machines have them).
  CommandResult r = RunKiln("compare tools/kiln/small_cnn_v3_fp32.kiln tools/kiln/small_cnn_v3_bf16.kiln "
                            "--samples 8 --min-cosine 0.999 --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GT(JsonField(r.output, "cosine"), 0.999) << r.output;
  EXPECT_GT(JsonField(r.output, "max_abs_error"), 0) << r.output;
}

void ExpectFailure(const std::string& args, int code, const std::string& message) {
  CommandResult r = RunKiln(args);
  EXPECT_EQ(r.exit_code, code) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
}

TEST_F(KilnCompareTest, MismatchedSignaturesAreNamed) {
  ExpectFailure("compare " + kClassifier + " " + reference_, 1,
                "the models' signatures differ: input #0 is 'image' [1,3,32,32] f32 in " + kClassifier +
                    " but 'x' [4,100] f32 in " + reference_);
  artifact::ArtifactSpec renamed = AddScaleSpec();
  renamed.outputs[1].name = "scaled";
  std::string renamed_file = TempPath("renamed.kiln"), error;
  ASSERT_TRUE(artifact::writeArtifactFile(renamed, renamed_file, error)) << error;
  ExpectFailure("compare " + reference_ + " " + renamed_file, 1,
                "output #1 is 'scaled/out' [4,100] f32 in " + reference_ + " but 'scaled' [4,100] f32 in " +
                    renamed_file);
  artifact::ArtifactSpec fewer = AddScaleSpec();
  fewer.outputs.pop_back();
  fewer.plans[0].steps.erase(fewer.plans[0].steps.begin() + 2);  // the copy into output 1
  std::string fewer_file = TempPath("fewer.kiln");
  ASSERT_TRUE(artifact::writeArtifactFile(fewer, fewer_file, error)) << error;
  ExpectFailure("compare " + reference_ + " " + fewer_file, 1,
                "output 'scaled/out' [4,100] f32 of " + reference_ + " is not in " + fewer_file +
                    " (2 outputs against 1)");
}

TEST_F(KilnCompareTest, BadSamplesAndUsage) {
  std::string dir = TempPath("bad_samples");
  Mkdir(dir);
  Mkdir(dir + "/a");
  std::vector<float> x = RandomFloats(kElements, 1);
  WriteNpy(dir + "/a/x.npy", x);
  ExpectFailure("compare " + reference_ + " " + candidate_ + " --inputs " + dir, 1,
                "sample '" + dir + "/a' has no file for input 'y' (input_1.pb or y.npy)");
  WriteNpy(dir + "/a/z.npy", x);
  ExpectFailure("compare " + reference_ + " " + candidate_ + " --inputs " + dir, 1,
                dir + "/a/z.npy: names no input of the model (inputs: x, y)");
  ASSERT_EQ(std::remove((dir + "/a/z.npy").c_str()), 0);
  std::vector<float> small(10);
  ASSERT_TRUE(WriteFileBytes(dir + "/a/y.npy", tools::EncodeNpy(Tensor::Borrow(DType::F32, {10}, small.data()))));
  ExpectFailure("compare " + reference_ + " " + candidate_ + " --inputs " + dir, 1,
                "input 'y' from " + dir + "/a/y.npy: expected shape [4,100] f32, got [10] f32");
  ExpectFailure("compare " + reference_ + " " + candidate_ + " --inputs " + dir + "/none", 1,
                "--inputs: '" + dir + "/none' is not a directory");
  ExpectFailure("compare " + reference_, 2, "needs two model files (REFERENCE.kiln CANDIDATE.kiln)");
  ExpectFailure("compare " + reference_ + " " + candidate_ + " --min-cosine 2", 2,
                "--min-cosine needs a number in [-1, 1], got '2'");
  ExpectFailure("compare " + reference_ + " " + candidate_ + " --samples 0", 2,
                "--samples needs a positive number, got '0'");
  ExpectFailure("compare " + reference_ + " " + candidate_ + " --bogus 1", 2, "unknown option '--bogus'");
  ExpectFailure("compare " + reference_ + " " + TempPath("missing.kiln"), 1, "missing.kiln");
  EXPECT_EQ(RunKiln("compare --help").exit_code, 0);
}

}  // namespace
}  // namespace kiln::testing
