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
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::kiln {

/// Ops that kiln-quantize turns into integer contractions (Kiln op names):
/// a `matmul` whose right operand is a constant 2-D f32 matrix, and a
/// `conv` with a constant f32 filter (and bias, if any).
inline constexpr const char *kQuantizableOps = "matmul conv";

/// The range of a quantizable op's activation input, [lo, hi], set by
/// calibration (or by hand in tests): `kiln.input_range = array<f32: lo, hi>`.
inline constexpr llvm::StringLiteral kInputRangeAttr = "kiln.input_range";

/// The validated deny list: op kinds (`matmul`, `conv`) and ONNX node names
/// (the names in an op's location), each keeping the ops it names in f32.
struct QuantizeSettings {
  llvm::StringSet<> deniedOps;
  llvm::StringSet<> deniedNodes;
};

/// Sorts `deny` into op kinds and node names. A name is an op kind when it
/// is a registered Kiln op; a Kiln op that is never quantized (e.g.
/// softmax) is an error, and so is a node name that names no op of
/// `module` (checked only when `module` is given). On failure returns false
/// with `error` naming the value at fault.
bool parseQuantizeSettings(Operation *module, llvm::ArrayRef<std::string> deny,
                           QuantizeSettings &settings, std::string &error);

/// When `op` is a quantizable contraction that `settings` does not deny,
/// the index of its activation operand (the one calibration observes);
/// else nullopt.
std::optional<unsigned> quantizableActivation(Operation *op,
                                              const QuantizeSettings &settings);

} // namespace mlir::kiln

#endif // KILN_PASSES_QUANT_QUANTIZE_H
