//===- Ranges.cpp - Activation ranges from calibration statistics ---------===//
#include "compiler/quant/Ranges.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln::quant {

bool ParseCalibrationMethod(const std::string &text, CalibrationMethod *out) {
  if (text == "minmax")
    *out = CalibrationMethod::MinMax;
  else if (text == "percentile")
    *out = CalibrationMethod::Percentile;
  else if (text == "entropy")
    *out = CalibrationMethod::Entropy;
  else
    return false;
  return true;
}

const char *CalibrationMethodName(CalibrationMethod method) {
  switch (method) {
  case CalibrationMethod::MinMax:
    return "minmax";
  case CalibrationMethod::Percentile:
    return "percentile";
  case CalibrationMethod::Entropy:
    return "entropy";
  }
  return "";
}

bool TensorStatistics::ObserveMinMax(const float *data, int64_t count) {
  float lo = std::numeric_limits<float>::infinity();
  float hi = -lo;
  for (int64_t i = 0; i < count; ++i) {
    if (!std::isfinite(data[i]))
      return false;
    lo = std::min(lo, data[i]);
    hi = std::max(hi, data[i]);
  }
  if (count == 0)
    return true;
  min_ = count_ ? std::min(min_, lo) : lo;
  max_ = count_ ? std::max(max_, hi) : hi;
  count_ += count;
  return true;
}

void TensorStatistics::StartHistogram(CalibrationMethod method) {
  histogram_method_ = method;
  histogram_.clear();
  if (method == CalibrationMethod::Percentile) {
    histogram_.assign(kPercentileBins, 0);
    bin_lo_ = min_;
    bin_width_ = (static_cast<double>(max_) - min_) / kPercentileBins;
  } else if (method == CalibrationMethod::Entropy) {
    histogram_.assign(kEntropyBins, 0);
    bin_lo_ = 0;
    double amax = std::max(std::fabs(static_cast<double>(min_)),
                           std::fabs(static_cast<double>(max_)));
    bin_width_ = amax / kEntropyBins;
  }
}

void TensorStatistics::ObserveHistogram(const float *data, int64_t count) {
  if (histogram_.empty())
    return;
  const bool absolute = histogram_method_ == CalibrationMethod::Entropy;
  const int last = static_cast<int>(histogram_.size()) - 1;
  for (int64_t i = 0; i < count; ++i) {
    double x = absolute ? std::fabs(static_cast<double>(data[i])) : data[i];
    int bin = 0;
    // Values outside pass 1's range (a sample that changed between passes
    // cannot happen, but a zero width can) go to the edge bins.
    if (bin_width_ > 0) {
      double at = std::floor((x - bin_lo_) / bin_width_);
      bin = at < 0 ? 0 : at > last ? last : static_cast<int>(at);
    }
    ++histogram_[bin];
  }
}

Range TensorStatistics::ComputeRange(CalibrationMethod method,
                                     double percentile) const {
  Range range;
  if (count_ == 0)
    return range;
  switch (method) {
  case CalibrationMethod::MinMax:
    range = {min_, max_};
    break;
  case CalibrationMethod::Percentile:
    range = PercentileRange(percentile);
    break;
  case CalibrationMethod::Entropy:
    range = EntropyRange();
    break;
  }
  range.lo = std::min(range.lo, 0.0f);
  range.hi = std::max(range.hi, 0.0f);
  return range;
}

Range TensorStatistics::PercentileRange(double percentile) const {
  if (histogram_.empty() || bin_width_ == 0)
    return {min_, max_};
  uint64_t total = 0;
  for (uint64_t c : histogram_)
    total += c;
  // Each side drops (100 - percentile)% of the values: hi is the upper edge
  // of the bin where the count from below reaches percentile% of them, lo
  // the lower edge of the bin where it first exceeds (100 - percentile)%.
  const double fraction = percentile / 100.0;
  const double highTarget = fraction * static_cast<double>(total);
  const double lowTarget = (1.0 - fraction) * static_cast<double>(total);
  const int bins = static_cast<int>(histogram_.size());
  int loBin = 0, hiBin = bins - 1;
  uint64_t below = 0;
  bool loFound = false;
  for (int b = 0; b < bins; ++b) {
    below += histogram_[b];
    if (!loFound && static_cast<double>(below) > lowTarget) {
      loBin = b;
      loFound = true;
    }
    if (static_cast<double>(below) >= highTarget) {
      hiBin = b;
      break;
    }
  }
  double lo = bin_lo_ + loBin * bin_width_;
  double hi = bin_lo_ + (hiBin + 1) * bin_width_;
  return {std::max(min_, static_cast<float>(lo)),
          std::min(max_, static_cast<float>(hi))};
}

Range TensorStatistics::EntropyRange() const {
  if (histogram_.empty() || bin_width_ == 0)
    return {min_, max_};
  // Data that never goes below zero (after ReLU) uses all 256 levels of
  // the asymmetric activation type on [0, T]; signed data spends half of
  // them on each side.
  const int levels = min_ >= 0 ? 256 : 128;
  int keep = EntropyThresholdBins(histogram_, levels);
  float threshold = static_cast<float>(keep * bin_width_);
  return {std::max(min_, -threshold), std::min(max_, threshold)};
}

int EntropyThresholdBins(const std::vector<uint64_t> &histogram, int levels) {
  const int bins = static_cast<int>(histogram.size());
  if (levels <= 0 || bins <= levels)
    return bins;
  // suffix[i] = count of bins i.. (the outliers a threshold at i clips).
  std::vector<double> suffix(bins + 1, 0.0);
  for (int i = bins - 1; i >= 0; --i)
    suffix[i] = suffix[i + 1] + static_cast<double>(histogram[i]);
  if (suffix[0] == 0)
    return bins;

  std::vector<double> p, q;
  int best = bins;
  double bestDivergence = std::numeric_limits<double>::infinity();
  for (int keep = levels; keep <= bins; ++keep) {
    // P: the kept bins, the clipped outliers added to the last one.
    p.assign(histogram.begin(), histogram.begin() + keep);
    p[keep - 1] += suffix[keep];
    // Q: the kept bins (without outliers) merged into `levels` chunks, each
    // chunk's count spread evenly over the bins where P is non-zero; the
    // last chunk takes the remainder bins.
    q.assign(keep, 0.0);
    const int merged = keep / levels;
    for (int chunk = 0; chunk < levels; ++chunk) {
      int start = chunk * merged;
      int end = chunk == levels - 1 ? keep : start + merged;
      double sum = 0;
      int nonZero = 0;
      for (int b = start; b < end; ++b) {
        sum += static_cast<double>(histogram[b]);
        nonZero += p[b] != 0;
      }
      if (nonZero == 0)
        continue;
      for (int b = start; b < end; ++b)
        if (p[b] != 0)
          q[b] = sum / nonZero;
    }
    double pSum = 0, qSum = 0;
    for (int b = 0; b < keep; ++b) {
      pSum += p[b];
      qSum += q[b];
    }
    // Where P has mass and Q none (the last bin's outliers, when the kept
    // bins of its chunk are empty), Q gets a tiny share instead of making
    // the divergence infinite.
    const double epsilon = 1e-10;
    double divergence = 0;
    for (int b = 0; b < keep; ++b) {
      if (p[b] == 0)
        continue;
      double pb = p[b] / pSum;
      double qb = qSum > 0 ? q[b] / qSum : 0;
      divergence += pb * std::log(pb / std::max(qb, epsilon));
    }
    if (divergence < bestDivergence) {
      bestDivergence = divergence;
      best = keep;
    }
  }
  return best;
}

} // namespace kiln::quant
