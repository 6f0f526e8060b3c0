//===- CustomOpPipelineTest.cpp - Custom ops through the whole compiler ---===//
//
// A graph `y = (x + c) -> custom op -> * 2` compiled by the Pipeline with the
// CPU backend, loaded by the runtime and run:
//   - kind (a), a registered lowering to Kiln ops: the custom op fuses with
//     its neighbours into one dispatch, and no custom call is left;
//   - kind (b), an external kernel: the host plan gets a CustomCall step
//     between two dispatches, with the call's attributes, and the runtime
//     calls the kernel registered for it.
// The expected values are computed here in double precision from the
// formula, independently of Kiln.
//
//===----------------------------------------------------------------------===//
#include "compiler/customops/CustomOpRegistry.h"
#include "compiler/pipeline/Pipeline.h"
#include "compiler/targets/cpu/CpuBackend.h"
#include "dialects/kiln/KilnDialect.h"
#include "kiln/runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>

namespace mlir::kiln {
namespace {

constexpr int kRows = 4, kCols = 8, kElements = kRows * kCols;

// swish(x) = x * sigmoid(beta * x), beta from the "beta" attribute.
LogicalResult swishTypes(Location loc, TypeRange operands, DictionaryAttr attrs,
                         SmallVectorImpl<Type> &results) {
  if (operands.size() != 1)
    return emitError(loc) << "Swish takes one input, got " << operands.size();
  if (!isa_and_nonnull<FloatAttr>(attrs.get("beta")))
    return emitError(loc) << "Swish needs a float attribute 'beta'";
  results.push_back(operands[0]);
  return success();
}

FailureOr<SmallVector<Value>> swishToKiln(OpBuilder &b, Location loc,
                                          ValueRange operands,
                                          DictionaryAttr attrs, TypeRange) {
  Value x = operands[0];
  auto type = cast<RankedTensorType>(x.getType());
  auto scalarType = RankedTensorType::get({}, type.getElementType());
  Value beta = ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(scalarType, cast<FloatAttr>(attrs.get("beta")).getValue()));
  FailureOr<MulOp> scaled = createChecked<MulOp>(b, loc, {x, beta});
  if (failed(scaled))
    return failure();
  FailureOr<SigmoidOp> gate = createChecked<SigmoidOp>(b, loc, {scaled->getResult()});
  if (failed(gate))
    return failure();
  FailureOr<MulOp> y = createChecked<MulOp>(b, loc, {x, gate->getResult()});
  if (failed(y))
    return failure();
  return SmallVector<Value>{y->getResult()};
}

void registerTestOps() {
  static bool once = [] {
    std::string error;
    CustomOpDefinition fused{"test", "SwishA", "", swishTypes, swishToKiln};
    CustomOpDefinition external{"test", "SwishB", "", swishTypes, nullptr};
    EXPECT_TRUE(succeeded(registerCustomOp(fused, error))) << error;
    EXPECT_TRUE(succeeded(registerCustomOp(external, error))) << error;
    return true;
  }();
  (void)once;
}

std::string graph(llvm::StringRef target) {
  std::string c;
  for (int i = 0; i < kElements; ++i)
    c += std::string(i % kCols ? ", " : (i ? "], [" : "[")) + std::to_string(0.125 * i - 2.0);
  c += "]";
  return R"(
func.func @main(%x: tensor<4x8xf32> {kiln.name = "x"}) -> (tensor<4x8xf32> {kiln.name = "y"}) {
  %cr = kiln.constant dense<[)" +
         c + R"(]> : tensor<4x8xf32>
  %two = kiln.constant dense<2.0> : tensor<f32>
  %a = kiln.add %x, %cr : tensor<4x8xf32>, tensor<4x8xf32>
  %s = kiln.custom_call ")" +
         target.str() + R"("(%a) {config = {beta = 1.5 : f32, name = "swish", axes = array<i64: 0, 1>}} : (tensor<4x8xf32>) -> tensor<4x8xf32> loc("swish_node")
  %y = kiln.mul %s, %two : tensor<4x8xf32>, tensor<f32>
  return %y : tensor<4x8xf32>
}
)";
}

double expected(int i, float x) {
  double a = double(x) + (0.125 * i - 2.0);
  return 2.0 * a / (1.0 + std::exp(-1.5 * a));
}

class CustomOpPipelineTest : public ::testing::Test {
protected:
  void SetUp() override {
    registerTestOps();
    DialectRegistry registry;
    registry.insert<func::FuncDialect, KilnDialect>();
    registerAllDialects(registry);
    registerAllExtensions(registry);
    context = std::make_unique<MLIRContext>(registry);
    context->loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> parse(llvm::StringRef target) {
    return parseSourceString<ModuleOp>(graph(target), context.get());
  }

  std::unique_ptr<Pipeline> pipeline() {
    auto p = std::make_unique<Pipeline>(*context, PipelineOptions());
    cpu::CpuBackendOptions options;
    options.cpu = "native";
    std::string error;
    auto backend = cpu::createCpuBackend(options, error);
    EXPECT_TRUE(succeeded(backend)) << error;
    p->addBackend(std::move(*backend));
    return p;
  }

  // Compiles, loads with `kernels` registered and runs on x; returns y.
  std::vector<float> compileAndRun(ModuleOp module, const std::vector<float> &x,
                                   std::function<void(::kiln::Runtime &)> kernels,
                                   ::kiln::artifact::ArtifactSpec &spec) {
    std::string error;
    EXPECT_TRUE(succeeded(pipeline()->compile(module, spec, error))) << error;
    std::vector<uint8_t> bytes;
    EXPECT_TRUE(::kiln::artifact::writeArtifact(spec, bytes, error)) << error;
    std::shared_ptr<::kiln::Runtime> runtime;
    EXPECT_TRUE(::kiln::Runtime::Create({1}, &runtime).ok());
    kernels(*runtime);
    std::shared_ptr<const ::kiln::Model> model;
    ::kiln::Status s = runtime->LoadModelFromMemory(bytes.data(), bytes.size(), &model);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (!s.ok())
      return {};
    std::unique_ptr<::kiln::Session> session;
    EXPECT_TRUE(::kiln::Session::Create(model, &session).ok());
    std::vector<float> input = x;
    std::vector<::kiln::Tensor> outputs;
    s = session->Run({::kiln::Tensor::Borrow(::kiln::DType::F32, {kRows, kCols},
                                             input.data())},
                     &outputs);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (!s.ok())
      return {};
    const float *y = outputs[0].data_as<float>();
    return std::vector<float>(y, y + kElements);
  }

  std::unique_ptr<MLIRContext> context;
};

std::vector<float> testInput() {
  std::vector<float> x(kElements);
  for (int i = 0; i < kElements; ++i)
    x[i] = std::sin(0.7f * i) * 3.0f;
  return x;
}

TEST_F(CustomOpPipelineTest, LoweredCustomOpFusesIntoOneDispatch) {
  OwningOpRef<ModuleOp> module = parse("test.SwishA");
  ASSERT_TRUE(module);
  {
    OwningOpRef<ModuleOp> copy(cast<ModuleOp>((*module)->clone()));
    ASSERT_TRUE(succeeded(pipeline()->runUntil(*copy, Stage::DispatchFormation)));
    int dispatches = 0, customCalls = 0;
    copy->walk([&](func::FuncOp f) { dispatches += f->hasAttr("kiln.dispatch"); });
    copy->walk([&](CustomCallOp) { ++customCalls; });
    EXPECT_EQ(dispatches, 1); // add, swish and mul in one loop nest
    EXPECT_EQ(customCalls, 0);
  }
  ::kiln::artifact::ArtifactSpec spec;
  std::vector<float> x = testInput();
  std::vector<float> y = compileAndRun(*module, x, [](::kiln::Runtime &) {}, spec);
  ASSERT_EQ(y.size(), size_t(kElements));
  for (int i = 0; i < kElements; ++i)
    EXPECT_NEAR(y[i], expected(i, x[i]), 1e-5 * (1 + std::abs(expected(i, x[i])))) << i;
  ASSERT_EQ(spec.plans.size(), 1u);
  for (const auto &step : spec.plans[0].steps)
    EXPECT_NE(step.kind, ::kiln::artifact::StepSpec::Kind::CustomCall);
}

int32_t swishKernel(const kiln_custom_call_t *call, void *calls) {
  ++*static_cast<int *>(calls);
  const float *x = static_cast<const float *>(call->inputs[0].data);
  float *y = static_cast<float *>(call->outputs[0].data);
  float beta = float(kiln_custom_call_float_attr(call, "beta", 1.0));
  for (uint64_t i = 0; i < call->inputs[0].byte_size / sizeof(float); ++i)
    y[i] = x[i] / (1.0f + std::exp(-beta * x[i]));
  return 0;
}

TEST_F(CustomOpPipelineTest, ExternalCustomOpBecomesACustomCallStep) {
  OwningOpRef<ModuleOp> module = parse("test.SwishB");
  ASSERT_TRUE(module);
  ::kiln::artifact::ArtifactSpec spec;
  std::vector<float> x = testInput();
  int calls = 0;
  std::vector<float> y = compileAndRun(
      *module, x,
      [&](::kiln::Runtime &runtime) {
        ASSERT_TRUE(runtime.RegisterCustomOp("test.SwishB", swishKernel, &calls).ok());
      },
      spec);
  ASSERT_EQ(y.size(), size_t(kElements));
  EXPECT_EQ(calls, 1);
  for (int i = 0; i < kElements; ++i)
    EXPECT_NEAR(y[i], expected(i, x[i]), 1e-5 * (1 + std::abs(expected(i, x[i])))) << i;

  // dispatch (add) -> custom call -> dispatch (mul, into the output).
  const auto &steps = spec.plans[0].steps;
  ASSERT_EQ(steps.size(), 3u);
  using Kind = ::kiln::artifact::StepSpec::Kind;
  EXPECT_EQ(steps[0].kind, Kind::Dispatch);
  ASSERT_EQ(steps[1].kind, Kind::CustomCall);
  EXPECT_EQ(steps[2].kind, Kind::Dispatch);
  const ::kiln::artifact::CustomCallSpec &c = steps[1].customCall;
  EXPECT_EQ(c.op, "test.SwishB");
  EXPECT_EQ(c.node, "swish_node");
  ASSERT_EQ(c.inputs.size(), 1u);
  ASSERT_EQ(c.outputs.size(), 1u);
  EXPECT_EQ(c.inputs[0].dims, (std::vector<int64_t>{kRows, kCols}));
  EXPECT_EQ(c.inputs[0].binding.space, ::kiln::artifact::BufferSpace::Arena);
  EXPECT_EQ(c.inputs[0].binding.length, uint64_t(kElements * 4));
  ASSERT_EQ(c.attributes.size(), 3u); // sorted by name
  using AKind = ::kiln::artifact::CustomAttributeSpec::Kind;
  EXPECT_EQ(c.attributes[0].name, "axes");
  EXPECT_EQ(c.attributes[0].kind, AKind::Ints);
  EXPECT_EQ(c.attributes[0].ints, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(c.attributes[1].name, "beta");
  EXPECT_EQ(c.attributes[1].kind, AKind::Float);
  EXPECT_EQ(c.attributes[1].floats, std::vector<double>{1.5});
  EXPECT_EQ(c.attributes[2].name, "name");
  EXPECT_EQ(c.attributes[2].string, "swish");
}

TEST_F(CustomOpPipelineTest, MissingKernelFailsAtLoadNamingTheOp) {
  OwningOpRef<ModuleOp> module = parse("test.SwishB");
  ::kiln::artifact::ArtifactSpec spec;
  std::string error;
  ASSERT_TRUE(succeeded(pipeline()->compile(*module, spec, error))) << error;
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(::kiln::artifact::writeArtifact(spec, bytes, error)) << error;
  std::shared_ptr<::kiln::Runtime> runtime;
  ASSERT_TRUE(::kiln::Runtime::Create({1}, &runtime).ok());
  std::shared_ptr<const ::kiln::Model> model;
  ::kiln::Status s = runtime->LoadModelFromMemory(bytes.data(), bytes.size(), &model);
  EXPECT_EQ(s.code(), ::kiln::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("'test.SwishB' (node 'swish_node')"), std::string::npos)
      << s.message();
}

TEST(CustomOpRegistryTest, RefusesIncompleteAndDuplicateDefinitions) {
  registerTestOps();
  std::string error;
  EXPECT_TRUE(failed(registerCustomOp({"test", "NoShape", "", nullptr, nullptr}, error)));
  EXPECT_EQ(error, "custom op test::NoShape has no shape and type function");
  EXPECT_TRUE(failed(registerCustomOp({"test", "SwishA", "", swishTypes, nullptr}, error)));
  EXPECT_EQ(error, "custom op test::SwishA is already registered");
  EXPECT_TRUE(
      failed(registerCustomOp({"other", "X", "test.SwishB", swishTypes, nullptr}, error)));
  EXPECT_EQ(error, "custom op other::X: the name 'test.SwishB' is already registered (for "
                   "test::SwishB)");
  const CustomOpDefinition *found = lookupCustomOpForNode("test", "SwishA");
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->name, "test.SwishA");
  EXPECT_EQ(lookupCustomOp("test.SwishA"), found);
  EXPECT_EQ(lookupCustomOpForNode("", "SwishA"), nullptr);
}

} // namespace
} // namespace mlir::kiln
