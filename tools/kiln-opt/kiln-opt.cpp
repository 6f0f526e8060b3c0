//===- kiln-opt.cpp - Kiln's mlir-opt -------------------------------------===//
//
// Parses, verifies, transforms and prints IR with the Kiln dialect, every
// upstream dialect and pass, and Kiln's own `kiln-*` passes (the graph and
// lowering passes, and each backend's: kiln-cpu-*). Pass and
// dialect plugins load with --load-pass-plugin and --load-dialect-plugin.
//
//===----------------------------------------------------------------------===//

#include "compiler/targets/cpu/CpuBackend.h"
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

namespace {

/// MlirOptMain only warns when a plugin fails to load and then runs
/// without it; a missing pass would then surface as a confusing
/// "unknown pass" error, or not at all. Load each plugin named on the
/// command line up front and stop with its loader's message instead.
bool checkPlugins(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    arg.consume_front("-");
    arg.consume_front("-");
    bool isPass = arg.consume_front("load-pass-plugin");
    bool isDialect = !isPass && arg.consume_front("load-dialect-plugin");
    if (!isPass && !isDialect)
      continue;
    std::string path;
    if (arg.consume_front("="))
      path = arg.str();
    else if (arg.empty() && i + 1 < argc)
      path = argv[i + 1];
    else
      continue;
    llvm::Error error = isPass ? mlir::PassPlugin::load(path).takeError()
                               : mlir::DialectPlugin::load(path).takeError();
    if (error) {
      llvm::errs() << "kiln-opt: cannot load " << (isPass ? "pass" : "dialect")
                   << " plugin '" << path
                   << "': " << llvm::toString(std::move(error)) << "\n";
      return false;
    }
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (!checkPlugins(argc, argv))
    return 1;
  mlir::registerAllPasses();
  mlir::kiln::registerKilnPasses();
  mlir::kiln::cpu::registerCpuBackendPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::kiln::KilnDialect>();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Kiln optimizer driver: the Kiln dialect and passes\n",
      registry));
}
