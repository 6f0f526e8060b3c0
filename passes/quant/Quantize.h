//===- Quantize.h - What kiln-quantize quantizes ----------------*- C++ -*-===//
//
// The op list and deny-list handling of INT8 post-training quantization,
// shared by the kiln-quantize pass, calibration (which observes exactly the
// tensors the pass will quantize) and kilnc's --help text and option
// checks, so that all of them agree.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PASSES_QUANT_QUANTIZE_H
#define KILN_PASSES_QUANT_QUANTIZE_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::kiln {

/// Ops that kiln-quantize turns into integer contractions (Kiln op names):
/// an f32 `matmul` of rank >= 2 operands that are not both constant (a
/// constant operand is a weight, either side, any rank; computed operands
/// are activations, e.g. attention's Q K^T and P V), and a `conv` with a
/// constant f32 filter (and bias, if any).
inline constexpr const char *kQuantizableOps = "matmul conv";

/// The ranges of a quantizable op's activation inputs, [lo, hi] for each in
/// the order quantizableActivations gives them, set by calibration (or by
/// hand in tests): `kiln.input_range = array<f32: lo, hi>`, or
/// `array<f32: lo0, hi0, lo1, hi1>` for a matmul of two activations.
inline constexpr llvm::StringLiteral kInputRangeAttr = "kiln.input_range";

/// The validated deny list: op kinds (`matmul`, `conv`) and ONNX node names
/// (the names in an op's location), each keeping the ops it names in f32.
struct QuantizeSettings {
  llvm::StringSet<> deniedOps;
  llvm::StringSet<> deniedNodes;
  /// Also quantize a matmul of two activations when one of them is a
  /// softmax's output (attention's P V). Off by default: on x86 today the
  /// softmax dispatch that then ends in a quantize costs more than the
  /// integer P V saves (docs/design.md "PTQ of activation x activation
  /// matmuls").
  bool softmaxOperands = false;
};

/// Sorts `deny` into op kinds and node names (other fields keep their
/// defaults). A name is an op kind when it
/// is a registered Kiln op; a Kiln op that is never quantized (e.g.
/// softmax) is an error, and so is a node name that names no op of
/// `module` (checked only when `module` is given). On failure returns false
/// with `error` naming the value at fault.
bool parseQuantizeSettings(Operation *module, llvm::ArrayRef<std::string> deny,
                           QuantizeSettings &settings, std::string &error);

/// When `op` is a quantizable contraction that `settings` does not deny,
/// the indices of its activation operands (those calibration observes), in
/// operand order; else empty.
llvm::SmallVector<unsigned, 2>
quantizableActivations(Operation *op, const QuantizeSettings &settings);

} // namespace mlir::kiln

#endif // KILN_PASSES_QUANT_QUANTIZE_H
