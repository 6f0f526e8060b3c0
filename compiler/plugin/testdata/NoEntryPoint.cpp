//===- NoEntryPoint.cpp - A shared object that is not a Kiln plugin -------===//
//
// Loads fine but exports no kilnGetPluginInfo.
//
//===----------------------------------------------------------------------===//
extern "C" __attribute__((visibility("default"))) int kilnTestNotAPlugin() {
  return 42;
}
