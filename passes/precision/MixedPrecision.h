//===- MixedPrecision.h - Op lists of kiln-mixed-precision ------*- C++ -*-===//
//
// The AMP-style op lists of the mixed-precision pass, shared by the pass,
// kilnc's --help text and its option checks, so that all three agree.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PASSES_PRECISION_MIXEDPRECISION_H
#define KILN_PASSES_PRECISION_MIXEDPRECISION_H

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mlir::kiln {

/// Ops computed in 16 bits by default when connected to a contraction
/// (Kiln op names without the `kiln.` prefix).
inline constexpr const char *kPrecisionAllowedOps =
    "matmul conv add sub mul neg abs relu clip max min gelu sigmoid tanh "
    "reshape transpose broadcast slice concat pad max_pool";
/// Ops that always stay f32: statistics, reductions and exponentials, whose
/// results lose too much in 16 bits.
inline constexpr const char *kPrecisionDeniedOps =
    "softmax log_softmax layer_norm batch_norm reduce avg_pool exp log pow";

/// The validated settings of the pass.
struct PrecisionSettings {
  bool bf16 = true; // else fp16
  std::vector<std::string> allowed; // effective list, deny applied
};

/// Checks `precision` (bf16 or fp16) and the op names of `allow` and
/// `deny` against the Kiln ops registered in `context`. On failure returns
/// false with `error` naming the value at fault.
bool parsePrecisionSettings(MLIRContext *context, llvm::StringRef precision,
                            llvm::ArrayRef<std::string> allow,
                            llvm::ArrayRef<std::string> deny,
                            PrecisionSettings &settings, std::string &error);

} // namespace mlir::kiln

#endif // KILN_PASSES_PRECISION_MIXEDPRECISION_H
