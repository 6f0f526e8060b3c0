//===- PluginLoader.h - Loads Kiln plugins into kilnc and kiln-opt -*- C++ -*-===//
//
// The tool side of KilnPlugin.h: opens a plugin, checks its versions, runs
// its registration and checks what it registered; parses `--pass-at`; and
// places the passes into a Pipeline. Plugins stay loaded until the process
// exits (their passes live in MLIR's global registry).
//
// Order of passes at one stage: the plugins' in the order the plugins were
// loaded (each plugin's in the order it added them), then --pass-at's in
// command-line order.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_PLUGIN_PLUGINLOADER_H
#define KILN_COMPILER_PLUGIN_PLUGINLOADER_H

#include "compiler/pipeline/Pipeline.h"
#include "compiler/plugin/KilnPlugin.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::kiln {

// One pass pipeline and where it runs.
struct PassPlacement {
  PluginStage stage = PluginStage::AfterImport;
  // For BeforeCodegen only: the one backend it runs for; empty for all.
  std::string target;
  // Either a textual pipeline on the module or a factory.
  std::string pipeline;
  PassFactory factory;
  // Who asked for it, for messages: "plugin 'libx.so'" or "--pass-at".
  std::string origin;
};

struct LoadedPlugin {
  std::string path;
  std::string name;
  std::vector<PassPlacement> placements;
};

// Why loadPlugin failed, so kiln-opt can hand a file without
// kilnGetPluginInfo to MLIR's own pass-plugin loader.
enum class PluginLoadFailure {
  None,
  CannotOpen,      // missing file, not a shared object, unresolved symbol
  NoEntryPoint,    // opens, but does not export kilnGetPluginInfo
  VersionMismatch, // another plugin API or Kiln version
  BadRegistration, // registerPlugin added something invalid
};

struct PluginLoadResult {
  std::optional<LoadedPlugin> plugin;
  PluginLoadFailure failure = PluginLoadFailure::None;
  // When failed: one line naming the file and what to do.
  std::string error;
};

// Loads the plugin at `path`, checks its versions against this build's
// (KILN_PLUGIN_API_VERSION, KILN_VERSION_STRING) and runs its registration.
// The passes its pipelines name must be registered first (built-in ones
// too), since each pipeline is parsed here to check it. A path without a
// '/' is looked up in the current directory first, then where dlopen looks.
// A pass registration MLIR finds fatal (a name already taken by another
// pass) exits the process with status 1 after an error naming the plugin.
PluginLoadResult loadPlugin(llvm::StringRef path);

// The stage called `name` on the command line: after-import,
// after-graph-optimization, before-lowering, after-dispatch-formation,
// before-codegen, or before-codegen.TARGET (that backend only). Fills
// `target` for the last form. Returns false for an unknown name.
bool parsePluginStage(llvm::StringRef name, PluginStage &stage,
                      std::string &target);

// Every stage name parsePluginStage accepts (TARGET written as such), for
// messages and --help.
std::string pluginStageNames();

// Parses one `--pass-at=STAGE:PIPELINE`. `knownTargets` are the backends a
// before-codegen.TARGET may name. On failure returns false and sets `error`
// (naming the argument, the stage names, or the parser's message).
bool parsePassAt(llvm::StringRef argument,
                 llvm::ArrayRef<llvm::StringRef> knownTargets,
                 PassPlacement &placement, std::string &error);

// Checks that `placement` can run: a valid stage, a target only with
// before-codegen, a pipeline that parses on `builtin.module` (or a
// factory). Sets `error` naming the placement's origin.
bool verifyPlacement(const PassPlacement &placement, std::string &error);

// Adds each placement to `pipeline` at its stage.
void addPlacements(Pipeline &pipeline, llvm::ArrayRef<PassPlacement> placements);

// Adds one placement's passes to `pm` (anchored on builtin.module); for
// kilnc's hooks and the tests.
LogicalResult addPlacementPasses(const PassPlacement &placement,
                                 OpPassManager &pm, llvm::raw_ostream &errors);

} // namespace mlir::kiln

#endif // KILN_COMPILER_PLUGIN_PLUGINLOADER_H
