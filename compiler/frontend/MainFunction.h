//===- MainFunction.h - The module and @main a frontend builds --*- C++ -*-===//
//
// Both frontends turn a model into one module holding `func.func @main`:
// one argument per graph input (its `kiln.name` and other attributes given
// by the frontend), the converted ops, and a return of the graph outputs.
// The result types are known only once the body is built, so @main starts
// with none and `finish` sets them.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_FRONTEND_MAINFUNCTION_H
#define KILN_COMPILER_FRONTEND_MAINFUNCTION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir::kiln::frontend {

class MainFunction {
public:
  /// Creates the module and `@main(argTypes) -> ()` at `loc`, with
  /// `argAttrs` (one per argument), and leaves `builder` at the start of
  /// @main's entry block.
  MainFunction(OpBuilder &builder, Location loc, TypeRange argTypes,
               llvm::ArrayRef<DictionaryAttr> argAttrs);

  /// @main's arguments, one per graph input, in order.
  Block::BlockArgListType arguments() { return func.getArguments(); }

  /// Returns `results` from @main (with `resultAttrs`, one per result),
  /// sets its result types and verifies the module. Null when verification
  /// fails (the verifier reports why).
  OwningOpRef<ModuleOp> finish(ValueRange results,
                               llvm::ArrayRef<DictionaryAttr> resultAttrs);

private:
  OpBuilder &builder;
  Location loc;
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
};

} // namespace mlir::kiln::frontend

#endif // KILN_COMPILER_FRONTEND_MAINFUNCTION_H
