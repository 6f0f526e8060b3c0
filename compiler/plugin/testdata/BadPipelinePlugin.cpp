//===- BadPipelinePlugin.cpp - A plugin whose pipeline does not parse ----===//
//
// Places a pass nobody registered; the loader parses every pipeline when
// the plugin loads and refuses it, naming the plugin and the pipeline.
//
//===----------------------------------------------------------------------===//
#include "compiler/plugin/KilnPlugin.h"

namespace {
void registerPlugin(mlir::kiln::PluginRegistrar &registrar) {
  registrar.addPass(mlir::kiln::PluginStage::AfterGraphOptimization,
                    "func.func(kiln-test-no-such-pass)");
}
} // namespace

extern "C" KILN_PLUGIN_EXPORT const KilnPluginInfo *kilnGetPluginInfo() {
  static const KilnPluginInfo info = {KILN_PLUGIN_API_VERSION,
                                      KILN_VERSION_STRING,
                                      "kiln-test-bad-pipeline", registerPlugin};
  return &info;
}
