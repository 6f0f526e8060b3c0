// Session profiling (EnableProfiling / GetProfile) and SummarizeProfile on
// the hand-built artifacts of runtime/testing.
#include <gtest/gtest.h>

#include "kiln/runtime.h"
#include "runtime/testing/test_artifacts.h"

namespace kiln {
namespace {

using testing::kCols;
using testing::kElements;
using testing::kRows;

class ProfileTest : public ::testing::Test {
 protected:
  void Load(const artifact::ArtifactSpec& spec) {
    ASSERT_TRUE(Runtime::Create({2}, &runtime_).ok());
    std::vector<uint8_t> bytes = testing::WriteOrDie(spec);
    Status s = runtime_->LoadModelFromMemory(bytes.data(), bytes.size(), &model_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    s = Session::Create(model_, &session_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  void RunTimes(int times) {
    std::vector<Tensor> inputs = {Tensor::Borrow(DType::F32, {kRows, kCols}, x_.data()),
                                  Tensor::Borrow(DType::F32, {kRows, kCols}, y_.data())};
    for (int i = 0; i < times; ++i) {
      std::vector<Tensor> outputs;
      Status s = session_->Run(inputs, &outputs);
      ASSERT_TRUE(s.ok()) << s.ToString();
      ASSERT_EQ(std::vector<float>(outputs[1].data_as<float>(), outputs[1].data_as<float>() + kElements),
                testing::ExpectedScaled(x_));
    }
  }

  std::shared_ptr<Runtime> runtime_;
  std::shared_ptr<const Model> model_;
  std::unique_ptr<Session> session_;
  std::vector<float> x_ = testing::RandomFloats(kElements, 1);
  std::vector<float> y_ = testing::RandomFloats(kElements, 2);
};

TEST_F(ProfileTest, OffByDefault) {
  Load(testing::AddScaleSpec());
  EXPECT_FALSE(session_->profiling_enabled());
  RunTimes(2);
  SessionProfile profile;
  EXPECT_EQ(session_->GetProfile(&profile).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(session_->GetProfile(nullptr).code(), StatusCode::kInvalidArgument);
}

TEST_F(ProfileTest, OneEntryPerStep) {
  Load(testing::AddScaleSpec());
  ASSERT_TRUE(session_->EnableProfiling(true).ok());
  EXPECT_TRUE(session_->profiling_enabled());
  RunTimes(20);
  SessionProfile profile;
  ASSERT_TRUE(session_->GetProfile(&profile).ok());
  EXPECT_EQ(profile.runs, 20u);
  ASSERT_EQ(profile.steps.size(), model_->description().steps.size());
  ASSERT_EQ(profile.steps.size(), 4u);
  uint64_t steps_ns = 0;
  for (size_t i = 0; i < profile.steps.size(); ++i) {
    const StepProfile& step = profile.steps[i];
    EXPECT_EQ(step.label, model_->description().steps[i].label);
    EXPECT_EQ(step.calls, 20u) << step.label;
    steps_ns += step.total_ns;
  }
  EXPECT_LE(steps_ns, profile.run_ns);
  EXPECT_GT(profile.run_ns, 0u);

  // "name: ops" labels; a copy has no workgroups.
  EXPECT_EQ(profile.steps[0].kind, StepInfo::Kind::kDispatch);
  EXPECT_EQ(profile.steps[0].name, "dispatch_0");
  EXPECT_EQ(profile.steps[0].ops, "add x c");
  EXPECT_EQ(profile.steps[0].workgroups, 7u);  // 400 elements, 64 per workgroup
  EXPECT_EQ(profile.steps[2].kind, StepInfo::Kind::kCopy);
  EXPECT_EQ(profile.steps[2].name, "copy_2");
  EXPECT_EQ(profile.steps[2].workgroups, 0u);

  std::vector<ProfileEntry> entries;
  double outside_ms = -1;
  ASSERT_TRUE(SummarizeProfile(profile, &entries, &outside_ms).ok());
  ASSERT_EQ(entries.size(), 4u);
  double shares = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    EXPECT_GE(entries[i].ms_per_run, 0.0);
    EXPECT_GE(entries[i].share, 0.0);
    EXPECT_EQ(entries[i].calls_per_run, 1u);
    if (i > 0) {
      EXPECT_GE(entries[i - 1].ms_per_run, entries[i].ms_per_run);
    }
    shares += entries[i].share;
  }
  EXPECT_GE(outside_ms, 0.0);
  double run_ms = static_cast<double>(profile.run_ns) / 1e6 / 20;
  EXPECT_NEAR(shares + 100.0 * outside_ms / run_ms, 100.0, 0.01);
}

TEST_F(ProfileTest, StepsWithOneNameAreOneEntry) {
  // dispatch_0 and dispatch_3 run the same kernel; give them one name, as
  // the compiler does for a deduplicated kernel.
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  spec.plans[0].steps[0].label = "kernel_add: linalg.generic";
  spec.plans[0].steps[3].label = "kernel_add: linalg.generic";
  spec.plans[0].steps[1].label = "kernel_scale";
  Load(spec);
  ASSERT_TRUE(session_->EnableProfiling(true).ok());
  RunTimes(5);
  SessionProfile profile;
  ASSERT_TRUE(session_->GetProfile(&profile).ok());
  EXPECT_EQ(profile.steps[1].name, "kernel_scale");
  EXPECT_EQ(profile.steps[1].ops, "");
  std::vector<ProfileEntry> entries;
  ASSERT_TRUE(SummarizeProfile(profile, &entries).ok());
  ASSERT_EQ(entries.size(), 3u);
  const ProfileEntry* add = nullptr;
  for (const ProfileEntry& e : entries)
    if (e.name == "kernel_add") add = &e;
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->ops, "linalg.generic");
  EXPECT_EQ(add->calls_per_run, 2u);
  EXPECT_EQ(add->workgroups, 7u);
  EXPECT_FALSE(add->workgroups_vary);
  double expected_ms =
      static_cast<double>(profile.steps[0].total_ns + profile.steps[3].total_ns) / 1e6 / 5;
  EXPECT_NEAR(add->ms_per_run, expected_ms, 1e-9);
}

TEST_F(ProfileTest, EnablingClearsAndDisablingKeeps) {
  Load(testing::AddScaleSpec());
  ASSERT_TRUE(session_->EnableProfiling(true).ok());
  RunTimes(3);
  ASSERT_TRUE(session_->EnableProfiling(false).ok());
  RunTimes(2);
  SessionProfile profile;
  ASSERT_TRUE(session_->GetProfile(&profile).ok());
  EXPECT_EQ(profile.runs, 3u);
  ASSERT_TRUE(session_->EnableProfiling(true).ok());
  ASSERT_TRUE(session_->GetProfile(&profile).ok());
  EXPECT_EQ(profile.runs, 0u);
  for (const StepProfile& step : profile.steps) EXPECT_EQ(step.total_ns, 0u);
  std::vector<ProfileEntry> entries;
  EXPECT_EQ(SummarizeProfile(profile, &entries).code(), StatusCode::kFailedPrecondition);
}

TEST_F(ProfileTest, FailedRunAddsNothing) {
  Load(testing::FailingSpec());
  ASSERT_TRUE(session_->EnableProfiling(true).ok());
  std::vector<Tensor> inputs = {Tensor::Borrow(DType::F32, {kRows, kCols}, x_.data())};
  std::vector<Tensor> outputs;
  EXPECT_EQ(session_->Run(inputs, &outputs).code(), StatusCode::kInternal);
  SessionProfile profile;
  ASSERT_TRUE(session_->GetProfile(&profile).ok());
  EXPECT_EQ(profile.runs, 0u);
  EXPECT_EQ(profile.run_ns, 0u);
  for (const StepProfile& step : profile.steps) EXPECT_EQ(step.total_ns, 0u);
}

}  // namespace
}  // namespace kiln
