//===- WrongApiVersionPlugin.cpp - A plugin built for another API version ===//
//
// Claims plugin API version KILN_PLUGIN_API_VERSION + 1 (and a Kiln
// version that does not exist): the loader must refuse it before reading
// anything but the version, naming the file and both versions.
//
//===----------------------------------------------------------------------===//
#include "compiler/plugin/KilnPlugin.h"

namespace {
void registerPlugin(mlir::kiln::PluginRegistrar &) {
  // Never called: the loader stops at the version.
  __builtin_trap();
}
} // namespace

extern "C" KILN_PLUGIN_EXPORT const KilnPluginInfo *kilnGetPluginInfo() {
  static const KilnPluginInfo info = {KILN_PLUGIN_API_VERSION + 1, "99.0.0",
                                      "kiln-test-wrong-api-version",
                                      registerPlugin};
  return &info;
}
