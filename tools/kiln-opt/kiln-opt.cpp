//===- kiln-opt.cpp - Kiln's mlir-opt -------------------------------------===//
//
// Parses, verifies, transforms and prints IR with the Kiln dialect, every
// upstream dialect and pass, and Kiln's own `kiln-*` passes. Pass and
// dialect plugins load with --load-pass-plugin and --load-dialect-plugin.
//
//===----------------------------------------------------------------------===//

#include "dialects/kiln/KilnDialect.h"
#include "passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::kiln::registerKilnPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::kiln::KilnDialect>();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Kiln optimizer driver: the Kiln dialect and passes\n",
      registry));
}
