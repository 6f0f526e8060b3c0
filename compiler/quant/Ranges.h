//===- Ranges.h - Activation ranges from calibration statistics -*- C++ -*-===//
//
// Per-tensor statistics that calibration accumulates over its samples, and
// the range [lo, hi] each calibration method derives from them. Plain C++
// (no MLIR, no runtime), so the methods are unit-tested on known
// distributions.
//
// Statistics are gathered in two passes over the samples: the first finds
// each tensor's min and max; the second (percentile and entropy only) fills
// a histogram whose bins are fixed by the first pass. Fixed bins make the
// result independent of how samples are grouped, and integer bin counts
// make it exact: the same samples in the same order always give the same
// bits.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_QUANT_RANGES_H
#define KILN_COMPILER_QUANT_RANGES_H

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::quant {

enum class CalibrationMethod { MinMax, Percentile, Entropy };

// "minmax", "percentile" or "entropy"; false for anything else.
bool ParseCalibrationMethod(const std::string &text, CalibrationMethod *out);
const char *CalibrationMethodName(CalibrationMethod method);

// Histogram sizes: percentile bins span [min, max]; entropy bins span
// [0, max |x|] (TensorRT's layout: 2048 bins, thresholds searched from the
// number of quantized levels up to the last bin).
inline constexpr int kPercentileBins = 16384;
inline constexpr int kEntropyBins = 2048;

struct Range {
  float lo = 0;
  float hi = 0;
};

class TensorStatistics {
public:
  // Pass 1. Returns false (observing nothing) when `data` holds a NaN or
  // an infinity: such a tensor has no range to quantize to.
  bool ObserveMinMax(const float *data, int64_t count);
  bool has_values() const { return count_ > 0; }
  float min() const { return min_; }
  float max() const { return max_; }

  // Pass 2, after every sample went through pass 1. Bins for `method`
  // (percentile or entropy); no-op for minmax.
  void StartHistogram(CalibrationMethod method);
  void ObserveHistogram(const float *data, int64_t count);
  const std::vector<uint64_t> &histogram() const { return histogram_; }

  // The range the method chooses, always containing 0 (so that zero, which
  // padding and ReLU produce, is exact). `percentile` (in (0, 100]) is
  // used by the percentile method only.
  Range ComputeRange(CalibrationMethod method, double percentile) const;

private:
  Range PercentileRange(double percentile) const;
  Range EntropyRange() const;

  int64_t count_ = 0;
  float min_ = 0, max_ = 0;
  CalibrationMethod histogram_method_ = CalibrationMethod::MinMax;
  double bin_lo_ = 0, bin_width_ = 0;
  std::vector<uint64_t> histogram_;
};

// The entropy method's threshold search, exposed for tests: the histogram
// of |x| (bins of equal width from 0), and the number of quantized levels
// the positive side gets (128 for signed data, 256 when it never goes
// below 0). Returns the number of bins to keep: the threshold is that many
// bin widths. Minimizes KL(P || Q), P the histogram clipped at the
// threshold (outliers added to the last kept bin), Q its `levels`-level
// quantization expanded back over the non-empty bins.
int EntropyThresholdBins(const std::vector<uint64_t> &histogram, int levels);

} // namespace kiln::quant

#endif // KILN_COMPILER_QUANT_RANGES_H
