//===- ErfApproximation.h - erf as one rational function --------*- C++ -*-===//
//
// math.erf on f32 (and on narrower floats, computed in f32) as a single
// rational function of a clamped argument, for the CPU kernels.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_TARGETS_CPU_ERFAPPROXIMATION_H
#define KILN_COMPILER_TARGETS_CPU_ERFAPPROXIMATION_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::kiln::cpu {

/// Adds the rewrites of math.erf: erf(x / c) for a constant c becomes
/// erf(x * (1 / c)) first (exporters' erf GELU), then erf itself (f32, f16
/// and bf16 operands; f64 is left alone) becomes
/// copysign(min(a * P(a^2) / Q(a^2), 1), x) with a = min(|x|, 4): one
/// division, ten FMAs and no interval selects.
void populateErfApproximationPatterns(RewritePatternSet &patterns);

} // namespace mlir::kiln::cpu

#endif // KILN_COMPILER_TARGETS_CPU_ERFAPPROXIMATION_H
