//===- KilnPlugin.h - The Kiln compiler plugin API --------------*- C++ -*-===//
//
// A Kiln plugin is a shared object that kilnc and kiln-opt load with
// `--load-pass-plugin=libNAME.so`. It exports exactly one C symbol:
//
//   extern "C" KILN_PLUGIN_EXPORT const KilnPluginInfo *kilnGetPluginInfo();
//
// which returns a pointer to a static KilnPluginInfo: the plugin API version
// and Kiln version the plugin was built against (KILN_PLUGIN_API_VERSION and
// KILN_VERSION_STRING from this header), its name, and a registration
// function. The tool checks both versions before it reads anything else and
// refuses a plugin built against another API or Kiln version, naming the
// file and both versions; then it calls `registerPlugin` once, with a
// PluginRegistrar through which the plugin says what it adds:
//
//   - passes, and where in kilnc's pipeline each one runs (addPass);
//   - custom operators: ONNX ops Kiln does not know, with their shape
//     function and a lowering or an external kernel (addCustomOp,
//     docs/custom-ops.md).
//
// Passes are registered with MLIR's pass registry as usual
// (mlir::PassRegistration<MyPass>() inside registerPlugin), so that
// `kiln-opt --my-pass` and `kilnc --pass-at=STAGE:my-pass` can name them.
//
// Symbols. A plugin is compiled against the MLIR 22 headers and these Kiln
// headers and is linked *without* libMLIR.so or any Kiln library: every
// MLIR symbol resolves against the libMLIR.so the tool already loaded, and
// every Kiln symbol (the Kiln dialect's ops, `mlir::kiln::*`) against the
// tool itself, which exports them (docs/design.md, "Plugins"). So there is
// one copy of each op's TypeID and `isa<kiln::LayerNormOp>` works in the
// plugin. Build with -fPIC -fno-rtti (LLVM is built without RTTI).
//
// Versioning. The API version changes whenever anything in this header
// changes layout or meaning (a new virtual function in PluginRegistrar, a
// new member of KilnPluginInfo, a new stage). The Kiln version is checked as
// well, because a plugin that touches Kiln ops uses the dialect's C++ ABI,
// which is only stable within one Kiln release. `apiVersion` stays the first
// member of KilnPluginInfo in every version, so a tool can always read it.
//
// Threading. registerPlugin runs once, on the tool's main thread, before any
// compilation; the registrar is valid only during that call. Pass factories
// are called once per compilation, on the thread that compiles.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_PLUGIN_KILNPLUGIN_H
#define KILN_COMPILER_PLUGIN_KILNPLUGIN_H

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <functional>
#include <memory>

// The plugin API this header describes. A tool accepts only plugins built
// with the same number.
//   1: addPass (both forms).
//   2: PluginRegistrar::addCustomOp, a new virtual function: a version-1
//      tool has no such slot in its registrar, so a plugin calling it there
//      would jump past the vtable; a version-1 plugin is refused here too.
#define KILN_PLUGIN_API_VERSION 2

// The Kiln release these headers belong to.
#define KILN_VERSION_STRING "0.1.0"

#define KILN_PLUGIN_EXPORT __attribute__((visibility("default")))

namespace mlir::kiln {

// compiler/customops/CustomOpDefinition.h; a plugin that adds custom ops
// includes it (the declaration below needs only the name).
struct CustomOpDefinition;

// Where in kilnc's pipeline a plugin pass runs. Every stage runs passes on
// the whole `builtin.module`; a pipeline names nested ops itself
// ("func.func(my-pass)"). What the IR holds at each stage, and so what a
// pass there may read and create:
enum class PluginStage : uint32_t {
  // Right after the ONNX importer, before any Kiln pass: `func.func @main`
  // holding only `kiln` ops (kiln.constant for every initializer, shape
  // sub-graphs not yet folded) and `func.return`. A pass may create any
  // `kiln` op; kiln-graph-cleanup runs next and folds what it leaves.
  AfterImport = 0,
  // After Kiln's graph optimizations (kiln-graph-cleanup, QDQ folding, and
  // --precision / --quantize when given): still only `kiln` ops, constants
  // folded, batch norms folded into convs, 16-bit or int8 ops where asked.
  // A pass may create any `kiln` op that kiln-to-linalg lowers (every op
  // but kiln.custom_call without a registered lowering).
  AfterGraphOptimization = 1,
  // The last point before kiln-to-linalg, after every after-graph-
  // optimization pass (Kiln's and the plugins'). Same IR and rules.
  BeforeLowering = 2,
  // After kiln-form-dispatches: the host function (`func.func @main`, which
  // calls the dispatches with `func.call`, plus `tensor`/`arith` glue) and
  // one `func.func` per dispatch, marked `kiln.dispatch`, holding `linalg`,
  // `tensor`, `arith` and `math` ops on tensors. A pass may rewrite a
  // dispatch's body (same signature) or set its `kiln.lowering_config`;
  // it must not add `kiln` ops, change a dispatch's signature or move ops
  // between the host function and the dispatches.
  AfterDispatchFormation = 3,
  // Per target backend, on the backend's own copy of the dispatch
  // functions alone (no host function), after the backend chose each
  // dispatch's `kiln.lowering_config` and before it generates kernels. A
  // pass may change a dispatch's body or its configuration (with keys the
  // backend knows, e.g. the CPU backend's workgroup_tile/register_tile);
  // the signature stays.
  BeforeCodegen = 4,
};

// The stage's name on the command line (--pass-at=NAME:PIPELINE).
inline const char *pluginStageName(PluginStage stage) {
  switch (stage) {
  case PluginStage::AfterImport:
    return "after-import";
  case PluginStage::AfterGraphOptimization:
    return "after-graph-optimization";
  case PluginStage::BeforeLowering:
    return "before-lowering";
  case PluginStage::AfterDispatchFormation:
    return "after-dispatch-formation";
  case PluginStage::BeforeCodegen:
    return "before-codegen";
  }
  return "unknown";
}

// Makes a fresh pass for one compilation.
using PassFactory = std::function<std::unique_ptr<mlir::Pass>()>;

// What a plugin's registerPlugin adds things through. Owned by the tool;
// valid only during registerPlugin. Errors (a pipeline that does not parse,
// a stage a target cannot have) are reported by the tool after
// registerPlugin returns, naming the plugin, and the plugin is refused.
class PluginRegistrar {
public:
  virtual ~PluginRegistrar() = default;

  // Runs `pipeline` at `stage` in every compilation. `pipeline` is a
  // textual pass pipeline on the module, as for `--pass-at`, e.g.
  // "func.func(my-fuse-pattern),canonicalize"; a `builtin.module(...)`
  // wrapper is accepted too. Any registered pass may appear in it.
  // `target` limits a BeforeCodegen pass to one backend ("cpu"); empty
  // means every backend, and it must be empty for the other stages.
  virtual void addPass(PluginStage stage, llvm::StringRef pipeline,
                       llvm::StringRef target = "") = 0;

  // Same, with a pass made by `factory` once per compilation (a pass that
  // needs construction arguments). A pass anchored on an op other than
  // `builtin.module` (e.g. an OperationPass<func::FuncOp>) is nested under
  // the module for that op.
  virtual void addPass(PluginStage stage, PassFactory factory,
                       llvm::StringRef target = "") = 0;

  // Adds a custom operator (compiler/customops/CustomOpDefinition.h): the
  // ONNX nodes it matches, its shape and type function, and either a
  // lowering (kind a) or, without one, an external kernel that the runtime
  // resolves by the definition's name (kind b). The importer, kiln-opt's
  // and kilnc's kiln-to-linalg and the host plan use it from then on. A
  // definition without a shape function, or whose ONNX op or name another
  // plugin already registered, makes the tool refuse the plugin. (Plugin
  // API version 2.)
  virtual void addCustomOp(CustomOpDefinition definition) = 0;
};

} // namespace mlir::kiln

extern "C" {

// What kilnGetPluginInfo returns. Static storage in the plugin; the tool
// reads `apiVersion` first and the rest only when it matches.
struct KilnPluginInfo {
  uint32_t apiVersion;     // KILN_PLUGIN_API_VERSION
  const char *kilnVersion; // KILN_VERSION_STRING
  const char *name;        // shown in the tool's messages
  void (*registerPlugin)(mlir::kiln::PluginRegistrar &registrar);
};

// The entry point every Kiln plugin defines (and the only symbol the tool
// looks up).
KILN_PLUGIN_EXPORT const KilnPluginInfo *kilnGetPluginInfo(void);
}

#endif // KILN_COMPILER_PLUGIN_KILNPLUGIN_H
