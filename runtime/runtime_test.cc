// End-to-end runtime tests on hand-built artifacts (runtime/testing):
// results, outputs by index and by name, caller buffers, arena reuse.
#include <gtest/gtest.h>

#include "kiln/runtime.h"
#include "runtime/testing/test_artifacts.h"

namespace kiln {
namespace {

using testing::kCols;
using testing::kElements;
using testing::kRows;

class RuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(Runtime::Create({}, &runtime_).ok());
    bytes_ = testing::WriteOrDie(testing::AddScaleSpec());
    path_ = testing::TempPath("add_scale.kiln");
    ASSERT_TRUE(testing::WriteFileBytes(path_, bytes_));
    Status s = runtime_->LoadModel(path_, &model_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    s = Session::Create(model_, &session_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  std::vector<Tensor> Inputs() {
    return {Tensor::Borrow(DType::F32, {kRows, kCols}, x_.data()),
            Tensor::Borrow(DType::F32, {kRows, kCols}, y_.data())};
  }

  std::shared_ptr<Runtime> runtime_;
  std::vector<uint8_t> bytes_;
  std::string path_;
  std::shared_ptr<const Model> model_;
  std::unique_ptr<Session> session_;
  std::vector<float> x_ = testing::RandomFloats(kElements, 1);
  std::vector<float> y_ = testing::RandomFloats(kElements, 2);
};

std::vector<float> AsVector(const Tensor& t) {
  return std::vector<float>(t.data_as<float>(), t.data_as<float>() + t.element_count());
}

TEST_F(RuntimeTest, SignatureComesFromTheArtifact) {
  ASSERT_EQ(model_->inputs().size(), 2u);
  EXPECT_EQ(model_->inputs()[0].name, "x");
  EXPECT_EQ(model_->inputs()[0].dim_names[0], "batch");
  EXPECT_EQ(model_->inputs()[0].byte_size, kElements * 4u);
  EXPECT_EQ(model_->outputs()[1].name, "scaled/out");
  EXPECT_EQ(model_->FindInput("y"), 1);
  EXPECT_EQ(model_->FindOutput("nope"), -1);
  const ModelDescription& d = model_->description();
  EXPECT_EQ(d.steps.size(), 4u);
  EXPECT_EQ(d.steps[2].kind, StepInfo::Kind::kCopy);
  EXPECT_EQ(d.steps[0].label, "dispatch_0: add x c");
  EXPECT_EQ(d.constant_count, 1u);
  EXPECT_EQ(d.file_size, bytes_.size());
  EXPECT_EQ(d.executables[0].kernels[1].name, "scale");
}

TEST_F(RuntimeTest, RunAllocatesOutputsAndComputesThem) {
  std::vector<Tensor> outputs;
  Status s = session_->Run(Inputs(), &outputs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_TRUE(outputs[0].owns_data());
  EXPECT_EQ(outputs[0].dims(), (std::vector<int64_t>{kRows, kCols}));
  EXPECT_EQ(AsVector(outputs[0]), testing::ExpectedSum(x_, y_));
  EXPECT_EQ(AsVector(outputs[1]), testing::ExpectedScaled(x_));
}

TEST_F(RuntimeTest, LiteralValues) {
  std::fill(x_.begin(), x_.end(), 1.0f);
  std::fill(y_.begin(), y_.end(), 0.25f);
  std::vector<Tensor> outputs;
  ASSERT_TRUE(session_->Run(Inputs(), &outputs).ok());
  EXPECT_EQ(outputs[0].data_as<float>()[0], 1.25f);
  EXPECT_EQ(outputs[1].data_as<float>()[0], 2.0f);    // (1 + 0.5*0) * 2
  EXPECT_EQ(outputs[1].data_as<float>()[399], 401.0f);  // (1 + 0.5*399) * 2
}

TEST_F(RuntimeTest, CallerProvidedOutputsReceiveTheResults) {
  std::vector<float> sum(kElements, -7.0f), scaled(kElements, -7.0f);
  std::vector<Tensor> outputs = {Tensor::Borrow(DType::F32, {kRows, kCols}, sum.data()),
                                 Tensor::Borrow(DType::F32, {kRows, kCols}, scaled.data())};
  Status s = session_->Run(Inputs(), &outputs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(outputs[0].data(), sum.data());
  EXPECT_EQ(sum, testing::ExpectedSum(x_, y_));
  EXPECT_EQ(scaled, testing::ExpectedScaled(x_));
}

TEST_F(RuntimeTest, ArenaIsAllocatedOnceAndReused) {
  EXPECT_EQ(session_->arena_size(), 2u * kElements * 4u);
  const void* arena = session_->arena_data();
  ASSERT_NE(arena, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(arena) % 64, 0u);
  for (uint32_t run = 0; run < 5; ++run) {
    x_ = testing::RandomFloats(kElements, 100 + run);
    std::vector<Tensor> outputs;
    ASSERT_TRUE(session_->Run(Inputs(), &outputs).ok());
    EXPECT_EQ(session_->arena_data(), arena);
    EXPECT_EQ(AsVector(outputs[1]), testing::ExpectedScaled(x_)) << "run " << run;
  }
}

TEST_F(RuntimeTest, RunByName) {
  std::vector<NamedTensor> inputs = {{"y", Inputs()[1]}, {"x", Inputs()[0]}};
  std::vector<NamedTensor> outputs;
  Status s = session_->Run(inputs, &outputs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].name, "sum");
  EXPECT_EQ(AsVector(outputs[0].tensor), testing::ExpectedSum(x_, y_));

  std::vector<float> sum(kElements), scaled(kElements);
  std::vector<NamedTensor> provided = {
      {"scaled/out", Tensor::Borrow(DType::F32, {kRows, kCols}, scaled.data())},
      {"sum", Tensor::Borrow(DType::F32, {kRows, kCols}, sum.data())}};
  s = session_->Run(inputs, &provided);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(scaled, testing::ExpectedScaled(x_));
  EXPECT_EQ(sum, testing::ExpectedSum(x_, y_));
}

TEST_F(RuntimeTest, LoadFromMemoryMatchesLoadFromFile) {
  std::shared_ptr<const Model> model;
  Status s = runtime_->LoadModelFromMemory(bytes_.data(), bytes_.size(), &model);
  ASSERT_TRUE(s.ok()) << s.ToString();
  bytes_.assign(bytes_.size(), 0);  // the model has its own copy
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::Create(model, &session).ok());
  std::vector<Tensor> outputs;
  ASSERT_TRUE(session->Run(Inputs(), &outputs).ok());
  EXPECT_EQ(AsVector(outputs[1]), testing::ExpectedScaled(x_));
}

TEST_F(RuntimeTest, ModelAndSessionOutliveTheRuntimeHandle) {
  runtime_.reset();
  model_.reset();
  std::vector<Tensor> outputs;
  ASSERT_TRUE(session_->Run(Inputs(), &outputs).ok());
  EXPECT_EQ(AsVector(outputs[0]), testing::ExpectedSum(x_, y_));
}

TEST_F(RuntimeTest, EveryThreadCountGivesTheSameResult) {
  for (int threads : {1, 2, 3, 8}) {
    std::shared_ptr<Runtime> runtime;
    ASSERT_TRUE(Runtime::Create({threads}, &runtime).ok());
    EXPECT_EQ(runtime->num_threads(), threads);
    std::shared_ptr<const Model> model;
    ASSERT_TRUE(runtime->LoadModel(path_, &model).ok());
    std::unique_ptr<Session> session;
    ASSERT_TRUE(Session::Create(model, &session).ok());
    std::vector<Tensor> outputs;
    ASSERT_TRUE(session->Run(Inputs(), &outputs).ok());
    EXPECT_EQ(AsVector(outputs[1]), testing::ExpectedScaled(x_)) << threads;
  }
}

TEST(Tensor, AllocateIsAlignedZeroedAndChecked) {
  Tensor t;
  ASSERT_TRUE(Tensor::Allocate(DType::I64, {3, 5}, &t).ok());
  EXPECT_EQ(t.byte_size(), 120u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data()) % 64, 0u);
  EXPECT_EQ(t.data_as<int64_t>()[14], 0);
  Status s = Tensor::Allocate(DType::F32, {2, -1}, &t);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "cannot allocate shape [2,-1] f32: negative dimension");
  EXPECT_EQ(Tensor::Allocate(DType::F32, {1ll << 40, 1ll << 40}, &t).code(),
            StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace kiln
