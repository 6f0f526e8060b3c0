//===- WrongKilnVersionPlugin.cpp - A plugin built against another Kiln ===//
//
// The right plugin API version, but built against Kiln 0.0.1: its use of
// the dialect's C++ ABI may not match, so the loader refuses it.
//
//===----------------------------------------------------------------------===//
#include "compiler/plugin/KilnPlugin.h"

namespace {
void registerPlugin(mlir::kiln::PluginRegistrar &) { __builtin_trap(); }
} // namespace

extern "C" KILN_PLUGIN_EXPORT const KilnPluginInfo *kilnGetPluginInfo() {
  static const KilnPluginInfo info = {KILN_PLUGIN_API_VERSION, "0.0.1",
                                      "kiln-test-wrong-kiln-version",
                                      registerPlugin};
  return &info;
}
