//===- OldApiVersionPlugin.cpp - A plugin built before addCustomOp --------===//
//
// Declares plugin API version 1 with this Kiln version: what a plugin built
// against the 0.1.0 headers before PluginRegistrar::addCustomOp declares.
// The registrar's vtable has changed since, so the loader must refuse it
// before calling anything in it, naming the file and both versions.
//
//===----------------------------------------------------------------------===//
#include "compiler/plugin/KilnPlugin.h"

static_assert(KILN_PLUGIN_API_VERSION > 1,
              "this plugin stands for one built against an older API");

namespace {
void registerPlugin(mlir::kiln::PluginRegistrar &) {
  // Never called: the loader stops at the version.
  __builtin_trap();
}
} // namespace

extern "C" KILN_PLUGIN_EXPORT const KilnPluginInfo *kilnGetPluginInfo() {
  static const KilnPluginInfo info = {1, KILN_VERSION_STRING,
                                      "kiln-test-old-api-version",
                                      registerPlugin};
  return &info;
}
