//===- NodeContext.h - What a converter sees of one ONNX node ---*- C++ -*-===//
//
// A converter turns one ONNX node into Kiln ops through a NodeContext: the
// node's inputs as MLIR values, its attributes with ONNX defaults, the
// default-domain opset version and helpers that read constant inputs. The
// building calls (`create<OpTy>`, which infers, verifies and folds eagerly,
// so that the shape sub-graphs of exported models (Shape -> Gather ->
// Unsqueeze -> Concat -> Reshape) collapse into constants during import,
// and `constant`, `reshape`, ...) come from frontend::ImportBuilder, which
// the Paddle frontend's OpContext shares.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_ONNX_NODECONTEXT_H
#define KILN_COMPILER_ONNX_NODECONTEXT_H

#include "compiler/frontend/ImportBuilder.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

// onnx_pb.h defines ONNX_API before including onnx-ml.pb.h.
#include "onnx/onnx_pb.h"

#include <optional>
#include <string>

namespace mlir::kiln::onnx_import {

class NodeContext : public frontend::ImportBuilder {
public:
  NodeContext(const onnx::NodeProto &node, llvm::StringRef displayName,
              int64_t opset, Location loc, OpBuilder &builder,
              llvm::StringMap<Value> &values, llvm::StringRef modelDir)
      : ImportBuilder(loc, builder), node(node), displayName(displayName),
        opset(opset), values(values), modelDir(modelDir) {}

  const onnx::NodeProto &node;
  /// The node's name, or "<op type>_<index>" when it has none.
  std::string displayName;
  /// The version of the default ONNX domain the model imports.
  int64_t opset;

  llvm::StringRef getModelDir() const { return modelDir; }

  /// Reports an error naming the node ("node 'X' (OpType): "); stream the
  /// message into the result.
  InFlightDiagnostic error() override;

  //===--------------------------------------------------------------------===//
  // Inputs and outputs
  //===--------------------------------------------------------------------===//

  unsigned numInputs() const { return node.input_size(); }
  /// True if input `i` is given (optional inputs may be absent or "").
  bool hasInput(unsigned i) const {
    return i < numInputs() && !node.input(i).empty();
  }
  /// Input `i`, or a null value when it is absent.
  Value input(unsigned i) const;
  RankedTensorType inputType(unsigned i) const {
    return llvm::cast<RankedTensorType>(input(i).getType());
  }
  /// Fails (naming the node) unless at least `count` inputs are given.
  LogicalResult requireInputs(unsigned count);

  /// True if input `i` holds ONNX uint8 data, stored biased in i8 (u8 -
  /// 128; docs/design.md "INT8"). Only converters of quantized ops and of
  /// pure data movement accept such inputs (GraphImporter checks).
  bool isUnsigned8(unsigned i) const {
    return unsigned8 && hasInput(i) && unsigned8->contains(node.input(i));
  }
  /// Marks output `i` as biased uint8 data.
  void markUnsigned8(unsigned i) {
    if (unsigned8 && outputUsed(i))
      unsigned8->insert(node.output(i));
  }
  /// The set of value names holding biased uint8 data (owned by the
  /// importer; null in contexts without one).
  llvm::StringSet<> *unsigned8 = nullptr;

  unsigned numOutputs() const { return node.output_size(); }
  bool outputUsed(unsigned i) const {
    return i < numOutputs() && !node.output(i).empty();
  }
  /// Sets output `i` (ignored when the model does not name it); the
  /// overload taking a FailureOr<Value> comes from ImportBuilder.
  void setResult(unsigned i, Value value) override;
  using ImportBuilder::setResult;
  /// Fails if any output from `first` on is named: converters that only
  /// compute the main result call this (e.g. Dropout's mask).
  LogicalResult requireUnusedOutputsFrom(unsigned first);

  //===--------------------------------------------------------------------===//
  // Attributes (with the defaults the ONNX spec gives)
  //===--------------------------------------------------------------------===//

  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  bool hasAttr(llvm::StringRef name) const { return attr(name) != nullptr; }
  int64_t getInt(llvm::StringRef name, int64_t defaultValue) const;
  float getFloat(llvm::StringRef name, float defaultValue) const;
  std::string getString(llvm::StringRef name,
                        llvm::StringRef defaultValue) const;
  std::optional<llvm::SmallVector<int64_t>> getInts(llvm::StringRef name) const;
  std::optional<llvm::SmallVector<float>> getFloats(llvm::StringRef name) const;

  //===--------------------------------------------------------------------===//
  // Constant inputs
  //===--------------------------------------------------------------------===//

  /// The values of input `i` when it is (or folded to) a constant small
  /// enough to fold (ConstantFolding.h); otherwise an error naming the node
  /// and `what`.
  FailureOr<ConstantTensor> constantInput(unsigned i, llvm::StringRef what);
  /// The elements of input `i` when it is (or folded to) a constant of an
  /// integer type; otherwise an error naming the node and `what`.
  FailureOr<llvm::SmallVector<int64_t>> constantInts(unsigned i,
                                                     llvm::StringRef what);
  /// Same for any numeric constant, as doubles.
  FailureOr<llvm::SmallVector<double>> constantFloats(unsigned i,
                                                      llvm::StringRef what);

  /// The ints of an attribute (opset <= N) or of a constant input (later
  /// opsets): for the operands ONNX moved from attributes to inputs.
  /// Returns std::nullopt when neither is given.
  FailureOr<std::optional<llvm::SmallVector<int64_t>>>
  intsFromAttrOrInput(llvm::StringRef attrName, unsigned inputIndex,
                      int64_t firstOpsetWithInput);

  //===--------------------------------------------------------------------===//
  // Building (create<OpTy>, constant, scalar, reshape... from ImportBuilder)
  //===--------------------------------------------------------------------===//

  /// Converts `sub`, a default-domain node that computes part of this one,
  /// on `inputs` (its input names are replaced) at default-domain `opset`,
  /// and returns its first output. The converters of onnxruntime's
  /// quantized ops use it to run the float op between a dequantize and a
  /// quantize with ONNX's exact semantics; errors name this node.
  FailureOr<Value> convertSubNode(onnx::NodeProto sub, ValueRange inputs,
                                  int64_t subOpset);

private:
  llvm::StringMap<Value> &values;
  std::string modelDir;
};

/// Normalizes `axis` (which may be negative) for a tensor of `rank`; fails
/// with an error naming the node when it is out of range.
using frontend::normalizeAxis;

/// The spatial kernel of a Conv or ConvTranspose node: `kernel_shape`, or the
/// filter's spatial dims. Fails naming the node unless input and filter have
/// the same rank >= 3 and the kernel is static; `filterLayout` describes
/// the filter in that message (e.g. "[M, C/g, K...]").
FailureOr<llvm::SmallVector<int64_t>>
convKernelShape(NodeContext &ctx, llvm::StringRef filterLayout);

} // namespace mlir::kiln::onnx_import

#endif // KILN_COMPILER_ONNX_NODECONTEXT_H
