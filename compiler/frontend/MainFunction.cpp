//===- MainFunction.cpp - The module and @main a frontend builds ----------===//

#include "compiler/frontend/MainFunction.h"

#include "mlir/IR/Verifier.h"

using namespace mlir;

namespace mlir::kiln::frontend {

MainFunction::MainFunction(OpBuilder &builder, Location loc,
                           TypeRange argTypes,
                           llvm::ArrayRef<DictionaryAttr> argAttrs)
    : builder(builder), loc(loc), module(ModuleOp::create(loc)) {
  builder.setInsertionPointToEnd(module->getBody());
  func = func::FuncOp::create(builder, loc, "main",
                              builder.getFunctionType(argTypes, {}));
  func.setAllArgAttrs(argAttrs);
  builder.setInsertionPointToStart(func.addEntryBlock());
}

OwningOpRef<ModuleOp>
MainFunction::finish(ValueRange results,
                     llvm::ArrayRef<DictionaryAttr> resultAttrs) {
  func::ReturnOp::create(builder, loc, results);
  func.setFunctionType(
      builder.getFunctionType(func.getArgumentTypes(), results.getTypes()));
  func.setAllResultAttrs(resultAttrs);
  if (failed(mlir::verify(*module)))
    return nullptr;
  return std::move(module);
}

} // namespace mlir::kiln::frontend
