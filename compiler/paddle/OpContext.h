//===- OpContext.h - What a converter sees of one Paddle op -----*- C++ -*-===//
//
// A Paddle converter turns one op of a ::kiln::paddle::Program into Kiln ops
// through an OpContext: the op's operands as MLIR values (looked up by
// legacy slot name or by PIR operand position), its attributes, and the
// building calls of frontend::ImportBuilder, which the ONNX frontend's
// NodeContext shares (`create<OpTy>` infers, verifies and folds eagerly), so
// onnx_import::BasicComposer works on it too.
//
// Many Paddle ops are an ONNX op with other attribute spellings (pool2d is
// MaxPool/AveragePool, conv2d_transpose is ConvTranspose, the interpolate
// ops are Resize...). `onnx()` runs the ONNX frontend's converter for such
// an op on given values, so both frontends share one lowering of each
// semantics instead of two copies.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_PADDLE_OPCONTEXT_H
#define KILN_COMPILER_PADDLE_OPCONTEXT_H

#include "compiler/frontend/ImportBuilder.h"
#include "compiler/paddle/PaddleProgram.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

// onnx_pb.h defines ONNX_API before including onnx-ml.pb.h.
#include "onnx/onnx_pb.h"

#include <functional>
#include <optional>
#include <string>

namespace mlir::kiln::paddle_import {

/// The values converted so far: single tensors by name, and the value lists
/// of PIR (`builtin.combine` results, the results of split-like ops) by
/// name. Parameters are materialized as constants on first use.
struct ValueTable {
  llvm::StringMap<Value> values;
  llvm::StringMap<llvm::SmallVector<Value>> lists;
};

class OpContext : public frontend::ImportBuilder {
public:
  OpContext(const ::kiln::paddle::Program &program, const ::kiln::paddle::Op &op,
            Location loc, OpBuilder &builder, ValueTable &table,
            std::function<Value(llvm::StringRef)> lookup)
      : ImportBuilder(loc, builder), program(program), op(op), table(table),
        lookupValue(std::move(lookup)) {}

  const ::kiln::paddle::Program &program;
  const ::kiln::paddle::Op &op;

  bool isPir() const {
    return program.format == ::kiln::paddle::Format::PirJson;
  }

  /// Reports an error naming the op ("op #12 (conv2d) ...: ").
  InFlightDiagnostic error() override;

  //===--------------------------------------------------------------------===//
  // Operands: a legacy slot name or a PIR operand position
  //===--------------------------------------------------------------------===//

  /// The value names of the operand (legacy slot `slot`, PIR operand
  /// `pirIndex`); empty when absent. PIR's null operand ("%0") is absent.
  llvm::SmallVector<std::string> names(llvm::StringRef slot,
                                       unsigned pirIndex) const;
  bool has(llvm::StringRef slot, unsigned pirIndex) const {
    return !names(slot, pirIndex).empty();
  }
  /// The single value of the operand, or null when absent.
  Value in(llvm::StringRef slot, unsigned pirIndex);
  /// The single value of the operand; an error naming it when absent.
  FailureOr<Value> required(llvm::StringRef slot, unsigned pirIndex);
  /// All values of the operand: a legacy slot's list, or the list a PIR
  /// operand names (a builtin.combine result) or its single value.
  llvm::SmallVector<Value> inList(llvm::StringRef slot, unsigned pirIndex);
  RankedTensorType typeOf(Value v) const {
    return llvm::cast<RankedTensorType>(v.getType());
  }

  /// Sets the output (legacy slot `slot`, PIR result `pirIndex`).
  void setOut(llvm::StringRef slot, unsigned pirIndex, Value value);
  /// Sets a list output: a legacy slot of several values, or a PIR result
  /// that holds a value list (split's).
  void setOutList(llvm::StringRef slot, unsigned pirIndex,
                  llvm::ArrayRef<Value> values);
  /// Output 0 for BasicComposer: PIR result 0, or the first of the legacy
  /// slots "Out", "Y", "Output" the op has.
  void setResult(unsigned i, Value value) override;
  using ImportBuilder::setResult;
  /// Number of values the output has (legacy slot values; PIR: 1 or 0).
  size_t outCount(llvm::StringRef slot, unsigned pirIndex) const;

  //===--------------------------------------------------------------------===//
  // Attributes
  //===--------------------------------------------------------------------===//

  const ::kiln::paddle::AttrValue *attr(llvm::StringRef name) const;
  bool hasAttr(llvm::StringRef name) const { return attr(name) != nullptr; }
  int64_t getInt(llvm::StringRef name, int64_t defaultValue) const;
  double getFloat(llvm::StringRef name, double defaultValue) const;
  bool getBool(llvm::StringRef name, bool defaultValue) const;
  std::string getString(llvm::StringRef name,
                        llvm::StringRef defaultValue) const;
  std::optional<llvm::SmallVector<int64_t>> getInts(llvm::StringRef name) const;
  std::optional<llvm::SmallVector<double>> getFloats(llvm::StringRef name) const;
  /// The element type a dtype attribute names: a PIR dtype string
  /// ("float32") or a legacy VarType code (5 = FP32). `name` absent gives
  /// `defaultType` (which may be null, then it is an error).
  FailureOr<Type> getDType(llvm::StringRef name, Type defaultType = nullptr);

  //===--------------------------------------------------------------------===//
  // Constants
  //===--------------------------------------------------------------------===//

  /// The elements of `value` when it is (or folded to) a constant.
  FailureOr<llvm::SmallVector<int64_t>> constantInts(Value value,
                                                     llvm::StringRef what);
  FailureOr<llvm::SmallVector<double>> constantFloats(Value value,
                                                      llvm::StringRef what);
  /// Ints given by an attribute or by constant operand values (a legacy
  /// tensor slot / tensor-list slot, or a PIR operand, which overrides the
  /// attribute); std::nullopt when none is given.
  FailureOr<std::optional<llvm::SmallVector<int64_t>>>
  intsFromAttrOrOperand(llvm::StringRef attrName,
                        llvm::ArrayRef<llvm::StringRef> legacySlots,
                        std::optional<unsigned> pirIndex);
  /// A float given by an attribute or a constant scalar operand.
  FailureOr<double> floatFromAttrOrOperand(llvm::StringRef attrName,
                                           double defaultValue,
                                           llvm::StringRef legacySlot,
                                           std::optional<unsigned> pirIndex);

  //===--------------------------------------------------------------------===//
  // Building (create<OpTy>, constant, scalar, reshape... from ImportBuilder)
  //===--------------------------------------------------------------------===//

  /// `input` converted to `elementType` (itself when it has that type).
  FailureOr<Value> cast(Value input, Type elementType);

  /// Runs the ONNX frontend's converter for `opType` (default domain at
  /// `opset`) on `inputs` (null = an absent optional input), with
  /// attributes set by `setAttrs`, and returns its first `numOutputs`
  /// outputs. Errors name this Paddle op.
  FailureOr<llvm::SmallVector<Value>>
  onnx(llvm::StringRef opType, llvm::ArrayRef<Value> inputs,
       const std::function<void(onnx::NodeProto &)> &setAttrs = nullptr,
       unsigned numOutputs = 1, int64_t opset = 18);
  FailureOr<Value>
  onnx1(llvm::StringRef opType, llvm::ArrayRef<Value> inputs,
        const std::function<void(onnx::NodeProto &)> &setAttrs = nullptr) {
    auto results = onnx(opType, inputs, setAttrs);
    if (failed(results))
      return failure();
    return results->front();
  }

private:
  ValueTable &table;
  std::function<Value(llvm::StringRef)> lookupValue;
};

// Attribute setters for the NodeProtos handed to onnx().
void setAttr(onnx::NodeProto &node, llvm::StringRef name, int64_t value);
void setAttr(onnx::NodeProto &node, llvm::StringRef name, double value);
void setAttr(onnx::NodeProto &node, llvm::StringRef name,
             llvm::StringRef value);
void setAttr(onnx::NodeProto &node, llvm::StringRef name,
             llvm::ArrayRef<int64_t> values);

/// Normalizes a possibly negative `axis` for `rank`; fails naming the op.
using frontend::normalizeAxis;

/// Reshapes `value` to `shape`, which may hold one dynamic dim (it becomes
/// -1); more than one is an error naming the op.
FailureOr<Value> reshapeTo(OpContext &ctx, Value value,
                           llvm::ArrayRef<int64_t> shape);

} // namespace mlir::kiln::paddle_import

#endif // KILN_COMPILER_PADDLE_OPCONTEXT_H
