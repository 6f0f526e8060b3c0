//===- kiln-opt.cpp - Kiln's mlir-opt -------------------------------------===//
//
// Parses, verifies, transforms and prints IR with the Kiln dialect, every
// upstream dialect and pass, and Kiln's own `kiln-*` passes (the graph and
// lowering passes, and each backend's: kiln-cpu-*). Kiln plugins
// (compiler/plugin/KilnPlugin.h) and MLIR pass plugins load with
// --load-pass-plugin, dialect plugins with --load-dialect-plugin.
//
//===----------------------------------------------------------------------===//

#include "compiler/plugin/PluginLoader.h"
#include "compiler/targets/cpu/CpuBackend.h"
#include "compiler/targets/cuda/CudaBackend.h"
#include "dialects/kiln/KilnDialect.h"
#include "passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace {

/// Loads the plugins named on the command line before MlirOptMain runs.
/// A Kiln plugin (exporting kilnGetPluginInfo, compiler/plugin/KilnPlugin.h)
/// is loaded here, its passes register, and its argument is dropped from
/// `args` (MlirOptMain would look for mlirGetPassPluginInfo in it). Any
/// other file goes to MLIR's own loaders, checked here because MlirOptMain
/// only warns when a plugin fails to load and then runs without it, so a
/// missing pass would surface as a confusing "unknown pass" error, or not
/// at all. Stops with the loader's message.
bool loadPlugins(int argc, char **argv, std::vector<char *> &args) {
  args.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    arg.consume_front("-");
    arg.consume_front("-");
    bool isPass = arg.consume_front("load-pass-plugin");
    bool isDialect = !isPass && arg.consume_front("load-dialect-plugin");
    std::string path;
    int last = i;
    if ((isPass || isDialect) && arg.consume_front("="))
      path = arg.str();
    else if ((isPass || isDialect) && arg.empty() && i + 1 < argc)
      path = argv[last = i + 1];
    if (path.empty()) {
      args.push_back(argv[i]);
      continue;
    }
    if (isPass) {
      mlir::kiln::PluginLoadResult kiln = mlir::kiln::loadPlugin(path);
      if (kiln.plugin) {
        i = last; // handled: not for MlirOptMain
        continue;
      }
      if (kiln.failure != mlir::kiln::PluginLoadFailure::NoEntryPoint) {
        llvm::errs() << "kiln-opt: error: " << kiln.error << "\n";
        return false;
      }
    }
    llvm::Error error = isPass ? mlir::PassPlugin::load(path).takeError()
                               : mlir::DialectPlugin::load(path).takeError();
    if (error) {
      llvm::errs() << "kiln-opt: cannot load " << (isPass ? "pass" : "dialect")
                   << " plugin '" << path
                   << "': " << llvm::toString(std::move(error)) << "\n";
      return false;
    }
    for (; i <= last; ++i)
      args.push_back(argv[i]);
    --i;
  }
  args.push_back(nullptr);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  // Built-in passes first: a plugin's pipelines may name them.
  mlir::registerAllPasses();
  mlir::kiln::registerKilnPasses();
  mlir::kiln::cpu::registerCpuBackendPasses();
  mlir::kiln::cuda::registerCudaBackendPasses();
  std::vector<char *> args;
  if (!loadPlugins(argc, argv, args))
    return 1;
  argc = static_cast<int>(args.size()) - 1;
  argv = args.data();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::kiln::KilnDialect>();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Kiln optimizer driver: the Kiln dialect and passes\n",
      registry));
}
