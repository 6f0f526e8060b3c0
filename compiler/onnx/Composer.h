//===- Composer.h - Writing ONNX ops as formulas of Kiln ops ----*- C++ -*-===//
//
// Converters that compose several Kiln ops would otherwise check a
// FailureOr after every step. A Composer remembers that a step failed (its
// error is already reported at the node) and turns every later step into a
// no-op returning a null Value, so formulas read straight and the converter
// checks once, in `finish`.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_ONNX_COMPOSER_H
#define KILN_COMPILER_ONNX_COMPOSER_H

#include "compiler/onnx/NodeContext.h"

#include "llvm/ADT/STLExtras.h"

namespace mlir::kiln::onnx_import {

/// `Ctx` is NodeContext here; the Paddle frontend composes with its
/// OpContext. Both are frontend::ImportBuilders, which offer every call
/// used here.
template <typename Ctx> struct BasicComposer {
  Ctx &ctx;
  bool failedAny = false;

  /// The value of a build step, or null (remembering the failure).
  Value check(FailureOr<Value> v) {
    if (failed(v)) {
      failedAny = true;
      return nullptr;
    }
    return *v;
  }
  /// False (and remembers the failure) if an earlier step failed or an
  /// operand is null.
  bool ready(ValueRange operands) {
    if (!failedAny && llvm::all_of(operands, [](Value v) { return bool(v); }))
      return true;
    failedAny = true;
    return false;
  }

  /// A rank-0 constant with the element type of `like`.
  Value c(Value like, double v) {
    return like ? ctx.scalarLike(like, v) : nullptr;
  }

  template <typename OpTy>
  Value op(ValueRange operands, llvm::ArrayRef<NamedAttribute> attrs = {}) {
    if (!ready(operands))
      return nullptr;
    return check(ctx.template create<OpTy>(operands, attrs));
  }
  template <typename OpTy> Value bin(Value a, Value b) {
    return op<OpTy>({a, b});
  }
  template <typename OpTy> Value un(Value a) { return op<OpTy>({a}); }

  Value cmp(CompareDirection dir, Value a, Value b) {
    return ready({a, b}) ? check(ctx.compare(dir, a, b)) : nullptr;
  }
  Value select(Value cond, Value t, Value f) {
    return op<SelectOp>({cond, t, f});
  }
  Value clip(Value x, double lo, double hi) {
    return op<ClipOp>({x}, {ctx.named("min", ctx.builder.getF64FloatAttr(lo)),
                            ctx.named("max", ctx.builder.getF64FloatAttr(hi))});
  }
  Value reshape(Value x, llvm::ArrayRef<int64_t> shape) {
    return ready({x}) ? check(ctx.reshape(x, shape)) : nullptr;
  }
  Value transpose(Value x, llvm::ArrayRef<int64_t> perm) {
    return ready({x}) ? check(ctx.transpose(x, perm)) : nullptr;
  }
  Value reduce(ReduceKind kind, Value x, llvm::ArrayRef<int64_t> axes,
               bool keepDims) {
    return ready({x}) ? check(ctx.reduce(kind, x, axes, keepDims)) : nullptr;
  }
  Value cast(Value x, Type elementType) {
    return op<CastOp>({x}, {ctx.named("to", TypeAttr::get(elementType))});
  }

  /// Sets output 0 to `result` unless a step failed.
  LogicalResult finish(Value result) {
    if (failedAny || !result)
      return failure();
    ctx.setResult(0, result);
    return success();
  }
};

using Composer = BasicComposer<NodeContext>;

} // namespace mlir::kiln::onnx_import

#endif // KILN_COMPILER_ONNX_COMPOSER_H
