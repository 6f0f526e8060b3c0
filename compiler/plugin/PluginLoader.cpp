//===- PluginLoader.cpp - Loads Kiln plugins into kilnc and kiln-opt ------===//
#include "compiler/plugin/PluginLoader.h"

#include "compiler/customops/CustomOpRegistry.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <dlfcn.h>

namespace mlir::kiln {

namespace {

constexpr PluginStage kAllStages[] = {
    PluginStage::AfterImport,
    PluginStage::AfterGraphOptimization,
    PluginStage::BeforeLowering,
    PluginStage::AfterDispatchFormation,
    PluginStage::BeforeCodegen,
};

bool isKnownStage(PluginStage stage) {
  return llvm::is_contained(kAllStages, stage);
}

// Collects what a plugin's registerPlugin adds; checked after it returns.
class Registrar final : public PluginRegistrar {
public:
  explicit Registrar(std::string origin) : origin(std::move(origin)) {}

  void addPass(PluginStage stage, llvm::StringRef pipeline,
               llvm::StringRef target) override {
    PassPlacement placement;
    placement.stage = stage;
    placement.target = target.str();
    placement.pipeline = pipeline.str();
    placement.origin = origin;
    placements.push_back(std::move(placement));
  }

  void addPass(PluginStage stage, PassFactory factory,
               llvm::StringRef target) override {
    PassPlacement placement;
    placement.stage = stage;
    placement.target = target.str();
    placement.factory = std::move(factory);
    placement.origin = origin;
    placements.push_back(std::move(placement));
  }

  void addCustomOp(CustomOpDefinition definition) override {
    customOps.push_back(std::move(definition));
  }

  std::string origin;
  std::vector<PassPlacement> placements;
  std::vector<CustomOpDefinition> customOps;
};

// `pipeline` without a `builtin.module(...)` wrapper around all of it:
// placements run on the module already.
llvm::StringRef stripModuleAnchor(llvm::StringRef pipeline) {
  llvm::StringRef text = pipeline.trim();
  if (!text.consume_front("builtin.module("))
    return pipeline.trim();
  // The wrapper's closing parenthesis must be the last character.
  int depth = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
    if (depth == 0)
      return i + 1 == text.size() ? text.take_front(i).trim()
                                  : pipeline.trim();
  }
  return pipeline.trim();
}

PluginLoadResult failWith(PluginLoadFailure failure, std::string error) {
  PluginLoadResult result;
  result.failure = failure;
  result.error = std::move(error);
  return result;
}

} // namespace

std::string pluginStageNames() {
  std::string names;
  for (PluginStage stage : kAllStages) {
    names += pluginStageName(stage);
    names += ", ";
  }
  return names + "before-codegen.TARGET";
}

bool parsePluginStage(llvm::StringRef name, PluginStage &stage,
                      std::string &target) {
  target.clear();
  for (PluginStage candidate : kAllStages) {
    if (name == pluginStageName(candidate)) {
      stage = candidate;
      return true;
    }
  }
  llvm::StringRef rest = name;
  if (rest.consume_front("before-codegen.") && !rest.empty()) {
    stage = PluginStage::BeforeCodegen;
    target = rest.str();
    return true;
  }
  return false;
}

LogicalResult addPlacementPasses(const PassPlacement &placement,
                                 OpPassManager &pm, llvm::raw_ostream &errors) {
  if (placement.factory) {
    std::unique_ptr<Pass> pass = placement.factory();
    if (!pass) {
      errors << placement.origin << ": its pass factory for stage '"
             << pluginStageName(placement.stage) << "' returned no pass";
      return failure();
    }
    std::optional<llvm::StringRef> anchor = pass->getOpName();
    if (!anchor || *anchor == ModuleOp::getOperationName())
      pm.addPass(std::move(pass));
    else
      pm.nest(*anchor).addPass(std::move(pass));
    return success();
  }
  llvm::StringRef text = stripModuleAnchor(placement.pipeline);
  if (text.empty()) {
    errors << placement.origin << ": the pipeline for stage '"
           << pluginStageName(placement.stage) << "' is empty";
    return failure();
  }
  // A builtin.module(...) inside the pipeline would nest a pass manager
  // for modules inside the module, which has none: its passes would
  // silently never run.
  if (text.contains("builtin.module(")) {
    errors << placement.origin << ": in the pass pipeline '"
           << placement.pipeline
           << "', builtin.module(...) may only wrap the whole pipeline (the "
              "stage's passes run on the module already)";
    return failure();
  }
  std::string parseErrors;
  llvm::raw_string_ostream parseStream(parseErrors);
  if (failed(parsePassPipeline(text, pm, parseStream))) {
    errors << placement.origin << ": cannot parse the pass pipeline '"
           << placement.pipeline << "': "
           << llvm::StringRef(parseErrors).trim();
    return failure();
  }
  return success();
}

bool verifyPlacement(const PassPlacement &placement, std::string &error) {
  llvm::raw_string_ostream os(error);
  if (!isKnownStage(placement.stage)) {
    os << placement.origin << ": unknown stage number "
       << static_cast<uint32_t>(placement.stage) << " (stages: "
       << pluginStageNames() << ")";
    return false;
  }
  if (!placement.target.empty() &&
      placement.stage != PluginStage::BeforeCodegen) {
    os << placement.origin << ": a target ('" << placement.target
       << "') is only allowed with stage 'before-codegen', not '"
       << pluginStageName(placement.stage) << "'";
    return false;
  }
  // Parse (or build) once into a scratch pass manager: errors show up
  // when the plugin loads, not in the middle of a compilation.
  OpPassManager scratch(ModuleOp::getOperationName());
  return succeeded(addPlacementPasses(placement, scratch, os));
}

bool parsePassAt(llvm::StringRef argument,
                 llvm::ArrayRef<llvm::StringRef> knownTargets,
                 PassPlacement &placement, std::string &error) {
  auto [stageName, pipeline] = argument.split(':');
  if (stageName.size() == argument.size()) {
    error = "--pass-at='" + argument.str() +
            "' needs the form STAGE:PIPELINE (stages: " + pluginStageNames() +
            ")";
    return false;
  }
  placement = PassPlacement();
  placement.origin = "--pass-at=" + argument.str();
  if (!parsePluginStage(stageName, placement.stage, placement.target)) {
    error = "--pass-at: unknown stage '" + stageName.str() +
            "' (stages: " + pluginStageNames() + ")";
    return false;
  }
  if (!placement.target.empty() &&
      !llvm::is_contained(knownTargets, placement.target)) {
    error = "--pass-at: unknown target '" + placement.target + "' in '" +
            stageName.str() + "' (targets:";
    for (llvm::StringRef target : knownTargets)
      error += " " + target.str();
    error += ")";
    return false;
  }
  placement.pipeline = pipeline.str();
  return verifyPlacement(placement, error);
}

PluginLoadResult loadPlugin(llvm::StringRef path) {
  // dlopen looks a name without '/' up in the library path only; users
  // mean the file here when there is one.
  std::string file = path.str();
  if (!path.contains('/') && llvm::sys::fs::exists(path))
    file = "./" + file;
  if (path.contains('/') && !llvm::sys::fs::exists(path))
    return failWith(PluginLoadFailure::CannotOpen,
                    "cannot load plugin '" + path.str() + "': no such file");
  // RTLD_NOW: a symbol the plugin needs and the tool does not export (a
  // Kiln function outside the exported API, another LLVM version) is an
  // error here rather than a crash in the middle of a compilation.
  // Plugins are never unloaded: their passes stay registered.
  void *handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    return failWith(PluginLoadFailure::CannotOpen,
                    "cannot load plugin '" + path.str() +
                        "': " + (reason ? reason : "dlopen failed"));
  }
  using GetInfo = const KilnPluginInfo *(*)();
  auto getInfo =
      reinterpret_cast<GetInfo>(dlsym(handle, "kilnGetPluginInfo"));
  if (!getInfo)
    return failWith(PluginLoadFailure::NoEntryPoint,
                    "'" + path.str() +
                        "' is not a Kiln plugin: it does not export "
                        "kilnGetPluginInfo (see compiler/plugin/KilnPlugin.h)");
  // The same file twice would run its passes twice.
  static llvm::SmallPtrSet<void *, 4> loaded;
  if (!loaded.insert(handle).second)
    return failWith(PluginLoadFailure::BadRegistration,
                    "plugin '" + path.str() + "' is already loaded");
  const KilnPluginInfo *info = getInfo();
  if (!info)
    return failWith(PluginLoadFailure::NoEntryPoint,
                    "'" + path.str() +
                        "' is not a Kiln plugin: kilnGetPluginInfo returned "
                        "null");
  // Only apiVersion is known to be where we read it until it matches.
  if (info->apiVersion != KILN_PLUGIN_API_VERSION)
    return failWith(
        PluginLoadFailure::VersionMismatch,
        "plugin '" + path.str() + "' was built against Kiln plugin API " +
            "version " + std::to_string(info->apiVersion) +
            ", but this tool has plugin API version " +
            std::to_string(KILN_PLUGIN_API_VERSION) + " (Kiln " +
            KILN_VERSION_STRING +
            "): rebuild the plugin against this Kiln's KilnPlugin.h");
  llvm::StringRef kilnVersion = info->kilnVersion ? info->kilnVersion : "";
  if (kilnVersion != KILN_VERSION_STRING)
    return failWith(PluginLoadFailure::VersionMismatch,
                    "plugin '" + path.str() + "' was built against Kiln " +
                        (kilnVersion.empty() ? "(no version)"
                                             : kilnVersion.str()) +
                        ", but this tool is Kiln " + KILN_VERSION_STRING +
                        ": rebuild the plugin against this Kiln's headers");
  if (!info->registerPlugin)
    return failWith(PluginLoadFailure::BadRegistration,
                    "plugin '" + path.str() +
                        "' has no registerPlugin function");

  LoadedPlugin plugin;
  plugin.path = path.str();
  plugin.name = info->name ? info->name : "";
  Registrar registrar("plugin '" + path.str() + "'");
  {
    // MLIR reports a pass registration that clashes with one already there
    // (the plugin's pass has the name of a built-in one, say) with
    // report_fatal_error, which would abort. Name the plugin and exit
    // instead: the registry may be half-updated, so there is no going on.
    llvm::ScopedFatalErrorHandler onFatalError(
        [](void *origin, const char *reason, bool) {
          llvm::errs() << "error: " << *static_cast<std::string *>(origin)
                       << " failed to register: " << reason << "\n";
          std::exit(1);
        },
        &registrar.origin);
    info->registerPlugin(registrar);
  }
  for (const PassPlacement &placement : registrar.placements) {
    std::string error;
    if (!verifyPlacement(placement, error))
      return failWith(PluginLoadFailure::BadRegistration, error);
  }
  for (CustomOpDefinition &definition : registrar.customOps) {
    std::string error;
    if (failed(registerCustomOp(std::move(definition), error)))
      return failWith(PluginLoadFailure::BadRegistration,
                      registrar.origin + ": " + error);
  }
  plugin.placements = std::move(registrar.placements);
  PluginLoadResult result;
  result.plugin = std::move(plugin);
  return result;
}

void addPlacements(Pipeline &pipeline,
                   llvm::ArrayRef<PassPlacement> placements) {
  for (const PassPlacement &placement : placements) {
    Pipeline::PassHook hook = [placement](OpPassManager &pm) {
      // Verified when it was loaded or parsed, so this fails only if a
      // factory stops making its pass.
      std::string error;
      llvm::raw_string_ostream os(error);
      if (succeeded(addPlacementPasses(placement, pm, os)))
        return success();
      llvm::errs() << "error: " << error << "\n";
      return failure();
    };
    switch (placement.stage) {
    case PluginStage::AfterImport:
      pipeline.addPassesAfter(Stage::Import, hook);
      break;
    case PluginStage::AfterGraphOptimization:
      pipeline.addPassesAfter(Stage::GraphOptimization, hook);
      break;
    case PluginStage::BeforeLowering:
      pipeline.addPassesBefore(Stage::Lowering, hook);
      break;
    case PluginStage::AfterDispatchFormation:
      pipeline.addPassesAfter(Stage::DispatchFormation, hook);
      break;
    case PluginStage::BeforeCodegen:
      if (placement.target.empty())
        pipeline.addPassesAfter(Stage::TargetCodegen, hook);
      else
        pipeline.addTargetPasses(placement.target, hook);
      break;
    }
  }
}

} // namespace mlir::kiln
