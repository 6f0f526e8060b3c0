//===- ImportBuilder.h - Building Kiln ops for one source op ----*- C++ -*-===//
//
// What the ONNX frontend's NodeContext and the Paddle frontend's OpContext
// have in common: an OpBuilder, the location of the node or op being
// converted, an `error()` that names it and a `setResult` (each frontend
// says how), and the building calls converters compose with. `create<OpTy>` infers the result
// type, verifies the new op and folds it right away; eager folding is what
// makes the shape sub-graphs of exported models collapse into constants
// during import, so that ops needing constant operands (Reshape's shape,
// Slice's bounds...) find them. An op's own verifier message names shapes
// but not the source node, so the first error of a build is reported again
// through `error()`.
//
// The frontends derive from it and add how they read their operands and
// attributes; onnx_import::BasicComposer works on either.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_FRONTEND_IMPORTBUILDER_H
#define KILN_COMPILER_FRONTEND_IMPORTBUILDER_H

#include "dialects/kiln/ConstantFolding.h"
#include "dialects/kiln/KilnDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::kiln::frontend {

class ImportBuilder {
public:
  ImportBuilder(Location loc, OpBuilder &builder)
      : loc(loc), builder(builder) {}
  virtual ~ImportBuilder() = default;

  /// Where the ops built for this node or op go, and their location.
  Location loc;
  OpBuilder &builder;

  MLIRContext *getContext() { return builder.getContext(); }

  /// Reports an error naming the node or op being converted; stream the
  /// message into the result.
  virtual InFlightDiagnostic error() = 0;

  /// Sets output `i` of the node or op being converted (each frontend says
  /// which output that is).
  virtual void setResult(unsigned i, Value value) = 0;
  /// Sets output `i` from a build that may have failed (its error is
  /// already reported) and returns the converter's result.
  LogicalResult setResult(unsigned i, FailureOr<Value> value) {
    if (failed(value))
      return failure();
    setResult(i, *value);
    return success();
  }

  /// Creates a Kiln op with an inferred result type, verifies it and folds
  /// it when its operands are constant (createCheckedOrFold). Type inference
  /// and verifier errors are reported through `error()`.
  template <typename OpTy>
  FailureOr<Value> create(ValueRange operands,
                          llvm::ArrayRef<NamedAttribute> attributes = {}) {
    if (failed(checkOperands(OpTy::getOperationName(), operands)))
      return failure();
    return withDiagnostics([&] {
      return createCheckedOrFold<OpTy>(builder, loc, operands, attributes);
    });
  }

  /// A kiln.constant of `value`.
  Value constant(ElementsAttr value);
  /// A rank-0 constant of `elementType` holding `value`.
  Value scalar(Type elementType, double value);
  /// A rank-0 constant with the element type of `like`.
  Value scalarLike(Value like, double value) {
    return scalar(llvm::cast<ShapedType>(like.getType()).getElementType(),
                  value);
  }
  /// A 1-D i64 constant.
  Value i64Vector(llvm::ArrayRef<int64_t> values);

  NamedAttribute named(llvm::StringRef name, Attribute value) {
    return builder.getNamedAttr(name, value);
  }
  NamedAttribute namedInts(llvm::StringRef name,
                           llvm::ArrayRef<int64_t> values) {
    return named(name, builder.getDenseI64ArrayAttr(values));
  }
  NamedAttribute namedInt(llvm::StringRef name, int64_t value) {
    return named(name, builder.getI64IntegerAttr(value));
  }

  // Shorthands for the ops converters compose most.
  FailureOr<Value> reshape(Value input, llvm::ArrayRef<int64_t> shape);
  FailureOr<Value> transpose(Value input, llvm::ArrayRef<int64_t> perm);
  FailureOr<Value> compare(CompareDirection direction, Value lhs, Value rhs);
  FailureOr<Value> reduce(ReduceKind kind, Value input,
                          llvm::ArrayRef<int64_t> axes, bool keepDims);

private:
  /// Fails with an internal error if a converter passes a null operand (an
  /// absent optional input it did not check for).
  LogicalResult checkOperands(llvm::StringRef opName, ValueRange operands);
  /// Runs `build` and reports its first error through `error()` ("node 'X'
  /// (OpType): 'kiln.matmul' op ..."): the printed location shows only the
  /// file.
  FailureOr<Value>
  withDiagnostics(llvm::function_ref<FailureOr<Value>()> build);
};

/// Normalizes `axis` (which may be negative) for a tensor of `rank`; fails
/// with an error naming the node when it is out of range.
FailureOr<int64_t> normalizeAxis(ImportBuilder &ctx, int64_t axis,
                                 int64_t rank, llvm::StringRef what = "axis");

} // namespace mlir::kiln::frontend

#endif // KILN_COMPILER_FRONTEND_IMPORTBUILDER_H
