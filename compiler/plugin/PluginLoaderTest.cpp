//===- PluginLoaderTest.cpp - Tests of the Kiln plugin loader -------------===//
//
// Loads the plugins of testdata/ (each refused in its own way, and one that
// places a pass at every stage) and checks the messages and placements;
// parses --pass-at arguments.
//
//===----------------------------------------------------------------------===//
#include "compiler/plugin/PluginLoader.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <gtest/gtest.h>

#include <string>

namespace mlir::kiln {
namespace {

// gmock is not part of the build; a substring check with a readable
// failure message.
::testing::AssertionResult contains(const std::string &text,
                                    const std::string &part) {
  if (text.find(part) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "'" << text << "' does not contain '" << part << "'";
}

constexpr const char *kTestData = "compiler/plugin/testdata/";

std::string testPlugin(const std::string &name) {
  return std::string(kTestData) + "libKilnTest" + name + ".so";
}

class PluginLoaderTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    // What kilnc registers before loading plugins (canonicalize, cse, ...).
    registerTransformsPasses();
  }
};

TEST_F(PluginLoaderTest, LoadsAPluginAndItsPlacements) {
  PluginLoadResult result = loadPlugin(testPlugin("StageTrace"));
  ASSERT_TRUE(result.plugin) << result.error;
  EXPECT_EQ(result.failure, PluginLoadFailure::None);
  EXPECT_EQ(result.plugin->name, "kiln-test-stage-trace");
  const std::vector<PassPlacement> &placements = result.plugin->placements;
  ASSERT_EQ(placements.size(), 7u);
  // In the order the plugin added them.
  EXPECT_EQ(placements[0].stage, PluginStage::BeforeCodegen);
  EXPECT_EQ(placements[0].target, "cpu");
  EXPECT_TRUE(placements[0].factory);
  EXPECT_EQ(placements[1].pipeline, "kiln-test-trace-stage{stage=before-codegen}");
  EXPECT_EQ(placements[5].stage, PluginStage::AfterImport);
  EXPECT_EQ(placements[6].target, "gpu");
  for (const PassPlacement &placement : placements)
    EXPECT_TRUE(contains(placement.origin, "libKilnTestStageTrace.so"));

  // Its pass is registered: a pipeline naming it parses; the factory's
  // pass nests nowhere (it runs on the module).
  OpPassManager pm(ModuleOp::getOperationName());
  std::string errors;
  llvm::raw_string_ostream os(errors);
  ASSERT_TRUE(succeeded(addPlacementPasses(placements[0], pm, os))) << errors;
  ASSERT_TRUE(succeeded(addPlacementPasses(placements[2], pm, os))) << errors;
  EXPECT_EQ(pm.size(), 2u);

  // Loading the same file again would run its passes twice.
  PluginLoadResult again = loadPlugin(testPlugin("StageTrace"));
  EXPECT_FALSE(again.plugin);
  EXPECT_TRUE(contains(again.error, "is already loaded"));
}

TEST_F(PluginLoaderTest, MissingFile) {
  PluginLoadResult result = loadPlugin("compiler/plugin/testdata/libNope.so");
  EXPECT_FALSE(result.plugin);
  EXPECT_EQ(result.failure, PluginLoadFailure::CannotOpen);
  EXPECT_EQ(result.error, "cannot load plugin "
                          "'compiler/plugin/testdata/libNope.so': no such file");
}

TEST_F(PluginLoaderTest, NotASharedObject) {
  PluginLoadResult result = loadPlugin("compiler/plugin/PluginLoaderTest.cpp");
  EXPECT_FALSE(result.plugin);
  EXPECT_EQ(result.failure, PluginLoadFailure::CannotOpen);
  EXPECT_TRUE(contains(result.error, "cannot load plugin 'compiler/plugin/PluginLoaderTest.cpp': "));
}

TEST_F(PluginLoaderTest, NoEntryPoint) {
  PluginLoadResult result = loadPlugin(testPlugin("NoEntryPoint"));
  EXPECT_FALSE(result.plugin);
  EXPECT_EQ(result.failure, PluginLoadFailure::NoEntryPoint);
  EXPECT_EQ(result.error, "'" + testPlugin("NoEntryPoint") +
                              "' is not a Kiln plugin: it does not export "
                              "kilnGetPluginInfo (see "
                              "compiler/plugin/KilnPlugin.h)");
}

TEST_F(PluginLoaderTest, WrongApiVersion) {
  PluginLoadResult result = loadPlugin(testPlugin("WrongApiVersion"));
  EXPECT_FALSE(result.plugin);
  EXPECT_EQ(result.failure, PluginLoadFailure::VersionMismatch);
  EXPECT_EQ(result.error,
            "plugin '" + testPlugin("WrongApiVersion") +
                "' was built against Kiln plugin API version " +
                std::to_string(KILN_PLUGIN_API_VERSION + 1) +
                ", but this tool has plugin API version " +
                std::to_string(KILN_PLUGIN_API_VERSION) + " (Kiln " +
                KILN_VERSION_STRING +
                "): rebuild the plugin against this Kiln's KilnPlugin.h");
}

// A plugin built against the headers before addCustomOp (API version 1,
// same Kiln version): its registrar vtable is not this tool's.
TEST_F(PluginLoaderTest, OldApiVersion) {
  static_assert(KILN_PLUGIN_API_VERSION == 2,
                "OldApiVersionPlugin stands for the version before this one");
  PluginLoadResult result = loadPlugin(testPlugin("OldApiVersion"));
  EXPECT_FALSE(result.plugin);
  EXPECT_EQ(result.failure, PluginLoadFailure::VersionMismatch);
  EXPECT_EQ(result.error,
            "plugin '" + testPlugin("OldApiVersion") +
                "' was built against Kiln plugin API version 1, but this "
                "tool has plugin API version 2 (Kiln " KILN_VERSION_STRING
                "): rebuild the plugin against this Kiln's KilnPlugin.h");
}

TEST_F(PluginLoaderTest, WrongKilnVersion) {
  PluginLoadResult result = loadPlugin(testPlugin("WrongKilnVersion"));
  EXPECT_FALSE(result.plugin);
  EXPECT_EQ(result.failure, PluginLoadFailure::VersionMismatch);
  EXPECT_EQ(result.error, "plugin '" + testPlugin("WrongKilnVersion") +
                              "' was built against Kiln 0.0.1, but this tool "
                              "is Kiln " KILN_VERSION_STRING
                              ": rebuild the plugin against this Kiln's "
                              "headers");
}

TEST_F(PluginLoaderTest, PipelineThatDoesNotParse) {
  PluginLoadResult result = loadPlugin(testPlugin("BadPipeline"));
  EXPECT_FALSE(result.plugin);
  EXPECT_EQ(result.failure, PluginLoadFailure::BadRegistration);
  EXPECT_TRUE(contains(result.error, "plugin '" + testPlugin("BadPipeline") +
                        "': cannot parse the pass pipeline "
                        "'func.func(kiln-test-no-such-pass)': "));
  EXPECT_TRUE(contains(result.error, "kiln-test-no-such-pass"));
}

TEST_F(PluginLoaderTest, PassNameTakenExitsWithAnError) {
  // MLIR treats the clash as fatal; the loader exits cleanly (status 1,
  // no abort) naming the plugin.
  EXPECT_EXIT(loadPlugin(testPlugin("ClashingPass")),
              ::testing::ExitedWithCode(1),
              "error: plugin 'compiler/plugin/testdata/"
              "libKilnTestClashingPass.so' failed to register: .*cse");
}

TEST(PluginStageTest, ParsesEveryStageName) {
  PluginStage stage;
  std::string target;
  for (auto [name, expected] :
       {std::pair("after-import", PluginStage::AfterImport),
        std::pair("after-graph-optimization", PluginStage::AfterGraphOptimization),
        std::pair("before-lowering", PluginStage::BeforeLowering),
        std::pair("after-dispatch-formation", PluginStage::AfterDispatchFormation),
        std::pair("before-codegen", PluginStage::BeforeCodegen)}) {
    ASSERT_TRUE(parsePluginStage(name, stage, target)) << name;
    EXPECT_EQ(stage, expected);
    EXPECT_EQ(target, "");
    EXPECT_STREQ(pluginStageName(stage), name);
  }
  ASSERT_TRUE(parsePluginStage("before-codegen.cpu", stage, target));
  EXPECT_EQ(stage, PluginStage::BeforeCodegen);
  EXPECT_EQ(target, "cpu");
  EXPECT_FALSE(parsePluginStage("after-lowering", stage, target));
  EXPECT_FALSE(parsePluginStage("before-codegen.", stage, target));
  EXPECT_FALSE(parsePluginStage("", stage, target));
}

class PassAtTest : public PluginLoaderTest {
protected:
  bool parse(llvm::StringRef argument) {
    const llvm::StringRef targets[] = {"cpu"};
    error.clear();
    return parsePassAt(argument, targets, placement, error);
  }
  PassPlacement placement;
  std::string error;
};

TEST_F(PassAtTest, ParsesStageAndPipeline) {
  ASSERT_TRUE(parse("after-import:func.func(canonicalize),cse")) << error;
  EXPECT_EQ(placement.stage, PluginStage::AfterImport);
  EXPECT_EQ(placement.pipeline, "func.func(canonicalize),cse");
  EXPECT_EQ(placement.origin, "--pass-at=after-import:func.func(canonicalize),cse");
  // A builtin.module wrapper is the module the stage runs on.
  ASSERT_TRUE(parse("before-lowering:builtin.module(cse)")) << error;
  OpPassManager pm(ModuleOp::getOperationName());
  llvm::raw_string_ostream os(error);
  ASSERT_TRUE(succeeded(addPlacementPasses(placement, pm, os)));
  ASSERT_EQ(pm.size(), 1u);
  EXPECT_EQ(pm.begin()->getArgument(), "cse");
  // ... only around the whole pipeline: anywhere else its passes would
  // run on modules nested in the module, which never exist.
  EXPECT_FALSE(parse("before-lowering:builtin.module(cse),canonicalize"));
  EXPECT_EQ(error, "--pass-at=before-lowering:builtin.module(cse),canonicalize: "
                   "in the pass pipeline 'builtin.module(cse),canonicalize', "
                   "builtin.module(...) may only wrap the whole pipeline (the "
                   "stage's passes run on the module already)");
  ASSERT_TRUE(parse("before-lowering:builtin.module(func.func(cse),canonicalize)"))
      << error;
  ASSERT_TRUE(parse("before-codegen.cpu:canonicalize")) << error;
  EXPECT_EQ(placement.target, "cpu");
}

TEST_F(PassAtTest, UnknownStage) {
  EXPECT_FALSE(parse("after-lowering:cse"));
  EXPECT_EQ(error, "--pass-at: unknown stage 'after-lowering' (stages: "
                   "after-import, after-graph-optimization, before-lowering, "
                   "after-dispatch-formation, before-codegen, "
                   "before-codegen.TARGET)");
}

TEST_F(PassAtTest, UnknownTarget) {
  EXPECT_FALSE(parse("before-codegen.cuda:cse"));
  EXPECT_EQ(error, "--pass-at: unknown target 'cuda' in 'before-codegen.cuda' "
                   "(targets: cpu)");
}

TEST_F(PassAtTest, NoStage) {
  EXPECT_FALSE(parse("canonicalize"));
  EXPECT_TRUE(contains(error, "--pass-at='canonicalize' needs the form "
                               "STAGE:PIPELINE"));
}

TEST_F(PassAtTest, PipelineThatDoesNotParse) {
  EXPECT_FALSE(parse("after-import:func.func(canonicalize"));
  EXPECT_TRUE(contains(error, "--pass-at=after-import:func.func(canonicalize: "
                               "cannot parse the pass pipeline "
                               "'func.func(canonicalize': "));
  EXPECT_FALSE(parse("after-import:no-such-pass"));
  EXPECT_TRUE(contains(error, "'no-such-pass' does not refer to a registered "
                               "pass or pass pipeline"));
  EXPECT_FALSE(parse("after-import:"));
  EXPECT_TRUE(contains(error, "the pipeline for stage 'after-import' is empty"));
}

TEST(PlacementTest, TargetOnlyBeforeCodegen) {
  PassPlacement placement;
  placement.stage = PluginStage::AfterImport;
  placement.target = "cpu";
  placement.pipeline = "cse";
  placement.origin = "plugin 'x.so'";
  std::string error;
  EXPECT_FALSE(verifyPlacement(placement, error));
  EXPECT_EQ(error, "plugin 'x.so': a target ('cpu') is only allowed with stage "
                   "'before-codegen', not 'after-import'");
}

TEST(PlacementTest, UnknownStageNumber) {
  PassPlacement placement;
  placement.stage = static_cast<PluginStage>(17);
  placement.pipeline = "cse";
  placement.origin = "plugin 'x.so'";
  std::string error;
  EXPECT_FALSE(verifyPlacement(placement, error));
  EXPECT_TRUE(contains(error, "plugin 'x.so': unknown stage number 17"));
}

TEST(PlacementTest, FactoryWithoutPass) {
  PassPlacement placement;
  placement.stage = PluginStage::BeforeCodegen;
  placement.factory = [] { return std::unique_ptr<Pass>(); };
  placement.origin = "plugin 'x.so'";
  std::string error;
  EXPECT_FALSE(verifyPlacement(placement, error));
  EXPECT_EQ(error, "plugin 'x.so': its pass factory for stage 'before-codegen' "
                   "returned no pass");
}

} // namespace
} // namespace mlir::kiln
