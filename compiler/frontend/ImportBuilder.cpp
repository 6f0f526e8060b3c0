//===- ImportBuilder.cpp - Building Kiln ops for one source op ------------===//

#include "compiler/frontend/ImportBuilder.h"

using namespace mlir;

namespace mlir::kiln::frontend {

LogicalResult ImportBuilder::checkOperands(llvm::StringRef opName,
                                           ValueRange operands) {
  for (Value operand : operands)
    if (!operand)
      return error() << "internal error: a null operand for " << opName;
  return success();
}

FailureOr<Value> ImportBuilder::withDiagnostics(
    llvm::function_ref<FailureOr<Value>()> build) {
  std::string firstError;
  FailureOr<Value> result = failure();
  {
    ScopedDiagnosticHandler capture(getContext(), [&](Diagnostic &diag) {
      if (diag.getSeverity() != DiagnosticSeverity::Error)
        return failure(); // Let warnings and remarks through unchanged.
      if (firstError.empty())
        firstError = diag.str();
      return success();
    });
    result = build();
  }
  if (failed(result) && !firstError.empty())
    return error() << firstError;
  return result;
}

Value ImportBuilder::constant(ElementsAttr value) {
  return ConstantOp::create(builder, loc, value).getResult();
}

Value ImportBuilder::scalar(Type elementType, double value) {
  auto type = RankedTensorType::get({}, elementType);
  Attribute element;
  if (auto floatType = llvm::dyn_cast<FloatType>(elementType))
    element = builder.getFloatAttr(floatType, value);
  else if (elementType.isInteger(1))
    element = builder.getBoolAttr(value != 0);
  else
    element = builder.getIntegerAttr(elementType, static_cast<int64_t>(value));
  return constant(DenseElementsAttr::get(type, llvm::ArrayRef(element)));
}

Value ImportBuilder::i64Vector(llvm::ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    builder.getI64Type());
  return constant(DenseElementsAttr::get(type, values));
}

FailureOr<Value> ImportBuilder::reshape(Value input,
                                        llvm::ArrayRef<int64_t> shape) {
  return create<ReshapeOp>(input, {namedInts("shape", shape)});
}

FailureOr<Value> ImportBuilder::transpose(Value input,
                                          llvm::ArrayRef<int64_t> perm) {
  return create<TransposeOp>(input, {namedInts("perm", perm)});
}

FailureOr<Value> ImportBuilder::compare(CompareDirection direction, Value lhs,
                                        Value rhs) {
  return create<CompareOp>(
      {lhs, rhs},
      {named("direction", CompareDirectionAttr::get(getContext(), direction))});
}

FailureOr<Value> ImportBuilder::reduce(ReduceKind kind, Value input,
                                       llvm::ArrayRef<int64_t> axes,
                                       bool keepDims) {
  return create<ReduceOp>(
      input, {named("kind", ReduceKindAttr::get(getContext(), kind)),
              namedInts("axes", axes),
              named("keepdims", builder.getBoolAttr(keepDims))});
}

FailureOr<int64_t> normalizeAxis(ImportBuilder &ctx, int64_t axis,
                                 int64_t rank, llvm::StringRef what) {
  if (axis < -rank || axis >= rank || (rank == 0 && axis != 0))
    return ctx.error() << what << " " << axis << " is out of range for rank "
                       << rank;
  return axis < 0 ? axis + rank : axis;
}

} // namespace mlir::kiln::frontend
