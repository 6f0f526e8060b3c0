// External custom ops: registration (function pointer, library, C API), the
// load-time check that every op a model calls has a kernel, the CustomCall
// step (tensors, attributes, outputs feeding a dispatch), kernel errors
// and the loader's checks of the step.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "kiln/custom_op.h"
#include "kiln/kiln.h"
#include "kiln/runtime.h"
#include "runtime/testing/status_assertions.h"
#include "runtime/testing/test_artifacts.h"

namespace kiln {
namespace {

using artifact::BindingSpec;
using artifact::BufferSpace;
using artifact::CustomAttributeSpec;
using testing::kCols;
using testing::kElements;
using testing::kRows;

constexpr uint64_t kBytes = kElements * sizeof(float);

using testing::HasMessage;

artifact::StepSpec CustomStep(std::string op, std::string node, std::vector<BindingSpec> inputs,
                              std::vector<BindingSpec> outputs,
                              std::vector<CustomAttributeSpec> attributes = {}) {
  artifact::StepSpec step;
  step.kind = artifact::StepSpec::Kind::CustomCall;
  step.label = "custom_call " + op;
  step.customCall.op = std::move(op);
  step.customCall.node = std::move(node);
  for (const BindingSpec& b : inputs)
    step.customCall.inputs.push_back({b, artifact::DType::F32, {kRows, kCols}});
  for (const BindingSpec& b : outputs)
    step.customCall.outputs.push_back({b, artifact::DType::F32, {kRows, kCols}});
  step.customCall.attributes = std::move(attributes);
  return step;
}

// Input x f32[4,100]. Outputs:
//   "sum"    = swish(x; beta) + x: custom op test.swish into the arena, then
//              the add dispatch into the output;
//   "scaled" = test.scale(x; alpha, note, shape), written by the custom
//              call straight into the output.
artifact::ArtifactSpec SwishSpec() {
  artifact::ArtifactSpec spec = testing::AddScaleSpec();
  spec.inputs = {{"x", artifact::DType::F32, {kRows, kCols}, {}}};
  spec.outputs = {{"sum", artifact::DType::F32, {kRows, kCols}, {}},
                  {"scaled", artifact::DType::F32, {kRows, kCols}, {}}};
  spec.constants.clear();
  BindingSpec x{BufferSpace::Input, 0, 0, kBytes};
  BindingSpec arena{BufferSpace::Arena, 0, 0, kBytes};
  BindingSpec sum{BufferSpace::Output, 0, 0, kBytes};
  BindingSpec scaled{BufferSpace::Output, 1, 0, kBytes};
  CustomAttributeSpec beta{"beta", CustomAttributeSpec::Kind::Float, {}, {1.5}, ""};
  CustomAttributeSpec alpha{"alpha", CustomAttributeSpec::Kind::Float, {}, {3.0}, ""};
  CustomAttributeSpec note{"note", CustomAttributeSpec::Kind::String, {}, {}, "hello"};
  CustomAttributeSpec shape{"shape", CustomAttributeSpec::Kind::Ints, {4, 100}, {}, ""};
  artifact::PlanSpec plan;
  plan.steps = {CustomStep("test.swish", "swish_node", {x}, {arena}, {beta}),
                spec.plans[0].steps[3],  // add: x + y -> output 0, rebound below
                CustomStep("test.scale", "scale_node", {x}, {scaled}, {alpha, note, shape})};
  plan.steps[1].label = "dispatch_0: add";
  plan.steps[1].dispatch.bindings = {arena, x, sum};
  plan.arenaSize = kBytes;
  plan.intermediateBytes = kBytes;
  spec.plans = {plan};
  return spec;
}

float Swish(float x, float beta) { return x / (1.0f + std::exp(-beta * x)); }

int32_t SwishKernel(const kiln_custom_call_t* call, void* user_data) {
  ++*static_cast<int*>(user_data);
  if (call->abi_version != KILN_CUSTOM_OP_ABI_VERSION || call->input_count != 1 ||
      call->output_count != 1 || call->inputs[0].dtype != KILN_F32 || call->inputs[0].rank != 2 ||
      call->inputs[0].dims[0] != kRows || call->inputs[0].dims[1] != kCols)
    return kiln_custom_call_set_error(call, 9, "unexpected call");
  float beta = static_cast<float>(kiln_custom_call_float_attr(call, "beta", 1.0));
  const float* x = static_cast<const float*>(call->inputs[0].data);
  float* y = static_cast<float*>(call->outputs[0].data);
  for (uint64_t i = 0; i < call->inputs[0].byte_size / 4; ++i) y[i] = Swish(x[i], beta);
  return 0;
}

// Checks every attribute it is given, then y = alpha * x.
int32_t ScaleKernel(const kiln_custom_call_t* call, void*) {
  if (call->attr_count != 3) return kiln_custom_call_set_error(call, 3, "%u attributes", call->attr_count);
  // Sorted by name.
  if (std::strcmp(call->attrs[0].name, "alpha") != 0 || std::strcmp(call->attrs[1].name, "note") != 0 ||
      std::strcmp(call->attrs[2].name, "shape") != 0)
    return kiln_custom_call_set_error(call, 4, "attributes out of order");
  const kiln_custom_attr_t* note = kiln_custom_call_find_attr(call, "note");
  const kiln_custom_attr_t* shape = kiln_custom_call_find_attr(call, "shape");
  if (note->kind != KILN_ATTR_STRING || std::strcmp(note->string, "hello") != 0 || note->count != 5)
    return kiln_custom_call_set_error(call, 5, "bad note");
  if (shape->kind != KILN_ATTR_INTS || shape->count != 2 || shape->ints[0] != 4 ||
      shape->ints[1] != 100)
    return kiln_custom_call_set_error(call, 6, "bad shape");
  if (std::strcmp(call->node_name, "scale_node") != 0 || std::strcmp(call->op_name, "test.scale") != 0)
    return kiln_custom_call_set_error(call, 7, "bad names");
  float alpha = static_cast<float>(kiln_custom_call_float_attr(call, "alpha", 0.0));
  const float* x = static_cast<const float*>(call->inputs[0].data);
  float* y = static_cast<float*>(call->outputs[0].data);
  for (uint64_t i = 0; i < call->inputs[0].byte_size / 4; ++i) y[i] = alpha * x[i];
  return 0;
}

int32_t FailingKernel(const kiln_custom_call_t* call, void*) {
  return kiln_custom_call_set_error(call, 17, "input %d is out of range", 3);
}

class CustomOpTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(Runtime::Create({2}, &runtime_).ok()); }
  Status Load(const artifact::ArtifactSpec& spec, std::shared_ptr<const Model>* model) {
    std::vector<uint8_t> bytes = testing::WriteOrDie(spec);
    return runtime_->LoadModelFromMemory(bytes.data(), bytes.size(), model);
  }
  std::shared_ptr<Runtime> runtime_;
  int swish_calls_ = 0;
};

TEST_F(CustomOpTest, RunsRegisteredKernelsBetweenDispatches) {
  ASSERT_TRUE(runtime_->RegisterCustomOp("test.swish", SwishKernel, &swish_calls_).ok());
  ASSERT_TRUE(runtime_->RegisterCustomOp("test.scale", ScaleKernel).ok());
  EXPECT_EQ(runtime_->custom_op_names(), (std::vector<std::string>{"test.scale", "test.swish"}));
  std::shared_ptr<const Model> model;
  Status s = Load(SwishSpec(), &model);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(model->description().custom_ops, (std::vector<std::string>{"test.swish", "test.scale"}));
  ASSERT_EQ(model->description().steps[0].kind, StepInfo::Kind::kCustomCall);
  EXPECT_EQ(model->description().steps[0].custom_op, "test.swish");
  EXPECT_EQ(model->description().steps[0].node, "swish_node");

  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::Create(model, &session).ok());
  ASSERT_TRUE(session->EnableProfiling(true).ok());
  std::vector<float> x = testing::RandomFloats(kElements, 7);
  for (int run = 0; run < 2; ++run) {
    std::vector<Tensor> outputs;
    s = session->Run({Tensor::Borrow(DType::F32, {kRows, kCols}, x.data())}, &outputs);
    ASSERT_TRUE(s.ok()) << s.ToString();
    const float* sum = outputs[0].data_as<float>();
    const float* scaled = outputs[1].data_as<float>();
    for (int i = 0; i < kElements; ++i) {
      ASSERT_EQ(sum[i], Swish(x[i], 1.5f) + x[i]) << i;
      ASSERT_EQ(scaled[i], 3.0f * x[i]) << i;
    }
  }
  EXPECT_EQ(swish_calls_, 2);
  SessionProfile profile;
  ASSERT_TRUE(session->GetProfile(&profile).ok());
  EXPECT_EQ(profile.steps[0].kind, StepInfo::Kind::kCustomCall);
  EXPECT_EQ(profile.steps[0].calls, 2u);
  EXPECT_EQ(profile.steps[0].workgroups, 0u);
}

TEST_F(CustomOpTest, LoadFailsNamingEveryMissingOp) {
  ASSERT_TRUE(runtime_->RegisterCustomOp("test.scale", ScaleKernel).ok());
  std::shared_ptr<const Model> model;
  Status s = Load(SwishSpec(), &model);
  EXPECT_TRUE(HasMessage(s, StatusCode::kFailedPrecondition, "'test.swish' (node 'swish_node')"));
  EXPECT_EQ(s.message().find("test.scale"), std::string::npos) << s.message();
  EXPECT_TRUE(HasMessage(s, StatusCode::kFailedPrecondition, "RegisterCustomOp"));
  EXPECT_EQ(model, nullptr);

  // Inspection needs no kernels.
  std::string path = testing::TempPath("swish.kiln");
  ASSERT_TRUE(testing::WriteFileBytes(path, testing::WriteOrDie(SwishSpec())));
  ModelDescription description;
  ASSERT_TRUE(DescribeModelFile(path, &description).ok());
  EXPECT_EQ(description.custom_ops, (std::vector<std::string>{"test.swish", "test.scale"}));
}

TEST_F(CustomOpTest, RegistrationAfterLoadDoesNotChangeLoadedModels) {
  std::shared_ptr<const Model> model;
  ASSERT_FALSE(Load(SwishSpec(), &model).ok());
  ASSERT_TRUE(runtime_->RegisterCustomOp("test.swish", SwishKernel, &swish_calls_).ok());
  ASSERT_TRUE(runtime_->RegisterCustomOp("test.scale", ScaleKernel).ok());
  EXPECT_TRUE(Load(SwishSpec(), &model).ok());
}

TEST_F(CustomOpTest, KernelErrorNamesOpNodeCodeAndMessage) {
  ASSERT_TRUE(runtime_->RegisterCustomOp("test.swish", FailingKernel).ok());
  ASSERT_TRUE(runtime_->RegisterCustomOp("test.scale", ScaleKernel).ok());
  std::shared_ptr<const Model> model;
  ASSERT_TRUE(Load(SwishSpec(), &model).ok());
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::Create(model, &session).ok());
  std::vector<float> x(kElements, 0.0f);
  std::vector<Tensor> outputs;
  Status s = session->Run({Tensor::Borrow(DType::F32, {kRows, kCols}, x.data())}, &outputs);
  EXPECT_TRUE(HasMessage(s, StatusCode::kInternal,
                         "step 0: custom op 'test.swish' (node 'swish_node') failed with code 17: "
                         "input 3 is out of range"));
}

TEST_F(CustomOpTest, RegistrationErrors) {
  EXPECT_TRUE(HasMessage(runtime_->RegisterCustomOp("", SwishKernel), StatusCode::kInvalidArgument,
                         "non-empty name"));
  EXPECT_TRUE(HasMessage(runtime_->RegisterCustomOp("test.x", nullptr), StatusCode::kInvalidArgument,
                         "'test.x': kernel is null"));
  ASSERT_TRUE(runtime_->RegisterCustomOp("test.x", SwishKernel).ok());
  EXPECT_TRUE(HasMessage(runtime_->RegisterCustomOp("test.x", ScaleKernel),
                         StatusCode::kInvalidArgument, "'test.x' is already registered"));
}

TEST_F(CustomOpTest, RegistersALibrary) {
  ASSERT_TRUE(runtime_->RegisterCustomOpLibrary("runtime/testing/libkiln_test_custom_ops.so").ok());
  EXPECT_EQ(runtime_->custom_op_names(), std::vector<std::string>{"test.double"});
  // All or nothing: a second load of the same library collides.
  EXPECT_TRUE(HasMessage(runtime_->RegisterCustomOpLibrary("runtime/testing/libkiln_test_custom_ops.so"),
                         StatusCode::kInvalidArgument, "'test.double' is already registered"));

  artifact::ArtifactSpec spec = SwishSpec();
  BindingSpec x{BufferSpace::Input, 0, 0, kBytes};
  spec.plans[0].steps[0].customCall.op = "test.double";
  spec.plans[0].steps[2] = CustomStep("test.double", "", {x}, {{BufferSpace::Output, 1, 0, kBytes}});
  std::shared_ptr<const Model> model;
  Status s = Load(spec, &model);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<Session> session;
  ASSERT_TRUE(Session::Create(model, &session).ok());
  // The library stays loaded while the model lives, even without the Runtime.
  runtime_.reset();
  std::vector<float> input = testing::RandomFloats(kElements, 3);
  std::vector<Tensor> outputs;
  ASSERT_TRUE(session->Run({Tensor::Borrow(DType::F32, {kRows, kCols}, input.data())}, &outputs).ok());
  for (int i = 0; i < kElements; ++i) {
    ASSERT_EQ(outputs[0].data_as<float>()[i], 3.0f * input[i]);
    ASSERT_EQ(outputs[1].data_as<float>()[i], 2.0f * input[i]);
  }
}

TEST_F(CustomOpTest, LibraryErrors) {
  EXPECT_TRUE(HasMessage(runtime_->RegisterCustomOpLibrary("/nonexistent/libops.so"),
                         StatusCode::kNotFound, "cannot load custom-op library '/nonexistent/libops.so'"));
  // A library without the query symbol (a kernel library).
  EXPECT_TRUE(HasMessage(runtime_->RegisterCustomOpLibrary("runtime/testing/libkiln_test_kernels.so"),
                         StatusCode::kInvalidArgument, "does not export kiln_custom_op_library_query"));
  EXPECT_TRUE(runtime_->custom_op_names().empty());
}

TEST_F(CustomOpTest, LoaderRefusesBadCustomCallSteps) {
  ASSERT_TRUE(runtime_->RegisterCustomOp("test.swish", SwishKernel, &swish_calls_).ok());
  ASSERT_TRUE(runtime_->RegisterCustomOp("test.scale", ScaleKernel).ok());
  std::shared_ptr<const Model> model;
  {
    artifact::ArtifactSpec spec = SwishSpec();
    spec.plans[0].steps[0].customCall.outputs[0].binding = {BufferSpace::Input, 0, 0, kBytes};
    EXPECT_TRUE(HasMessage(Load(spec, &model), StatusCode::kDataLoss,
                           "(custom op 'test.swish') output 0 is in read-only input memory"));
  }
  {
    artifact::ArtifactSpec spec = SwishSpec();
    spec.plans[0].steps[0].customCall.outputs[0].dims = {kRows, kCols + 1};
    EXPECT_TRUE(HasMessage(Load(spec, &model), StatusCode::kDataLoss,
                           "output 0: [4,101] f32 is 1616 bytes, but its binding has 1600"));
  }
  {
    artifact::ArtifactSpec spec = SwishSpec();
    spec.plans[0].steps[0].customCall.inputs[0].binding = {BufferSpace::Arena, 0, 0, kBytes};
    EXPECT_TRUE(HasMessage(Load(spec, &model), StatusCode::kDataLoss, "output 0 overlaps operand 0"));
  }
  {
    artifact::ArtifactSpec spec = SwishSpec();
    spec.plans[0].steps[0].customCall.inputs[0].binding.offset = 8;
    EXPECT_TRUE(HasMessage(Load(spec, &model), StatusCode::kDataLoss, "is outside input 0"));
  }
  {
    artifact::ArtifactSpec spec = SwishSpec();
    spec.plans[0].steps[0].customCall.attributes[0].floats = {1.0, 2.0};
    EXPECT_TRUE(HasMessage(Load(spec, &model), StatusCode::kDataLoss,
                           "attribute 0 'beta': missing or misaligned floats"));
  }
}

TEST(CustomOpCApiTest, RegistersRunsAndReportsMissingOps) {
  kiln_runtime_options_t options;
  kiln_runtime_options_initialize(&options);
  kiln_runtime_t* runtime = nullptr;
  ASSERT_EQ(kiln_runtime_create(&options, &runtime), nullptr);
  std::vector<uint8_t> bytes = testing::WriteOrDie(SwishSpec());
  kiln_model_t* model = nullptr;
  kiln_status_t status = kiln_model_load_memory(runtime, bytes.data(), bytes.size(), &model);
  EXPECT_EQ(kiln_status_code(status), KILN_FAILED_PRECONDITION);
  EXPECT_NE(std::string(kiln_status_message(status)).find("'test.swish'"), std::string::npos);
  kiln_status_free(status);

  int calls = 0;
  ASSERT_EQ(kiln_runtime_register_custom_op(runtime, "test.swish", SwishKernel, &calls), nullptr);
  ASSERT_EQ(kiln_runtime_register_custom_op(runtime, "test.scale", ScaleKernel, nullptr), nullptr);
  status = kiln_runtime_register_custom_op(runtime, "test.scale", ScaleKernel, nullptr);
  EXPECT_EQ(kiln_status_code(status), KILN_INVALID_ARGUMENT);
  kiln_status_free(status);
  status = kiln_runtime_register_custom_op_library(runtime, "/nonexistent.so");
  EXPECT_EQ(kiln_status_code(status), KILN_NOT_FOUND);
  kiln_status_free(status);

  ASSERT_EQ(kiln_model_load_memory(runtime, bytes.data(), bytes.size(), &model), nullptr);
  kiln_session_t* session = nullptr;
  ASSERT_EQ(kiln_session_create(model, &session), nullptr);
  std::vector<float> x = testing::RandomFloats(kElements, 11), sum(kElements), scaled(kElements);
  const int64_t dims[2] = {kRows, kCols};
  kiln_tensor_t input{KILN_F32, 2, dims, x.data()};
  kiln_tensor_t outputs[2] = {{KILN_F32, 2, dims, sum.data()}, {KILN_F32, 2, dims, scaled.data()}};
  ASSERT_EQ(kiln_session_run(session, &input, 1, outputs, 2), nullptr);
  EXPECT_EQ(calls, 1);
  for (int i = 0; i < kElements; ++i) {
    ASSERT_EQ(sum[i], Swish(x[i], 1.5f) + x[i]);
    ASSERT_EQ(scaled[i], 3.0f * x[i]);
  }
  kiln_session_release(session);
  kiln_model_release(model);
  kiln_runtime_release(runtime);
}

}  // namespace
}  // namespace kiln
