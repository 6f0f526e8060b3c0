//===- Calibration.h - Activation ranges for INT8 quantization --*- C++ -*-===//
//
// Post-training calibration (kilnc --quantize=int8 --calibration=DIR):
// runs the fp32 model on sample inputs through Kiln's own compiler and
// runtime, observing the activation input of every op kiln-quantize will
// quantize, and attaches each op's range as `kiln.input_range`.
//
// How: a copy of the graph-optimized module returns the observed tensors as
// extra results; the pipeline compiles that copy for the host CPU into an
// artifact in memory; the runtime (libkilnrt, in process) loads it and runs
// every sample; the statistics (compiler/quant/Ranges.h) give the ranges.
// The module being compiled is not changed except for the attributes.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_QUANT_CALIBRATION_H
#define KILN_COMPILER_QUANT_CALIBRATION_H

#include "compiler/pipeline/TargetBackend.h"
#include "compiler/quant/Ranges.h"
#include "passes/quant/Quantize.h"

#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <memory>
#include <string>

namespace mlir::kiln {

struct CalibrationOptions {
  std::string dir; // the samples (layout: tools/kiln/sample_dir.h)
  ::kiln::quant::CalibrationMethod method =
      ::kiln::quant::CalibrationMethod::MinMax;
  double percentile = 99.99; // percentile method only, in (0, 100]
  QuantizeSettings settings;
  // Makes the backend that compiles the observation model; it must produce
  // code for the CPU kilnc runs on.
  std::function<FailureOr<std::unique_ptr<TargetBackend>>(std::string &)>
      makeBackend;
  // Print `calibration: N/M samples` lines to stderr.
  bool progress = true;
  // Print each op's range to stderr (kilnc --dump-calibration).
  bool dumpRanges = false;
};

/// Sets `kiln.input_range` on every quantizable op of `module` (a
/// graph-optimized Kiln module). On failure returns failure with `error`
/// set, or with diagnostics already emitted and `error` empty.
LogicalResult calibrate(ModuleOp module, const CalibrationOptions &options,
                        std::string &error);

} // namespace mlir::kiln

#endif // KILN_COMPILER_QUANT_CALIBRATION_H
