#include "compiler/quant/Ranges.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace kiln::quant {
namespace {

TensorStatistics Observe(const std::vector<float>& values, CalibrationMethod method) {
  TensorStatistics stats;
  // Two "samples", to exercise accumulation.
  size_t half = values.size() / 2;
  EXPECT_TRUE(stats.ObserveMinMax(values.data(), half));
  EXPECT_TRUE(stats.ObserveMinMax(values.data() + half, values.size() - half));
  stats.StartHistogram(method);
  stats.ObserveHistogram(values.data(), half);
  stats.ObserveHistogram(values.data() + half, values.size() - half);
  return stats;
}

TEST(RangesTest, ParsesMethods) {
  CalibrationMethod method;
  EXPECT_TRUE(ParseCalibrationMethod("entropy", &method));
  EXPECT_EQ(method, CalibrationMethod::Entropy);
  EXPECT_STREQ(CalibrationMethodName(method), "entropy");
  EXPECT_FALSE(ParseCalibrationMethod("kl", &method));
  EXPECT_FALSE(ParseCalibrationMethod("MinMax", &method));
}

TEST(RangesTest, MinMaxSpansSamplesAndContainsZero) {
  TensorStatistics stats;
  const float a[] = {1.5f, 2.0f, 3.0f};
  const float b[] = {4.0f, 2.5f};
  ASSERT_TRUE(stats.ObserveMinMax(a, 3));
  ASSERT_TRUE(stats.ObserveMinMax(b, 2));
  EXPECT_EQ(stats.min(), 1.5f);
  EXPECT_EQ(stats.max(), 4.0f);
  Range range = stats.ComputeRange(CalibrationMethod::MinMax, 100);
  EXPECT_EQ(range.lo, 0.0f);  // widened to contain 0
  EXPECT_EQ(range.hi, 4.0f);
}

TEST(RangesTest, NonFiniteValuesAreRefused) {
  TensorStatistics stats;
  const float values[] = {1.0f, NAN};
  EXPECT_FALSE(stats.ObserveMinMax(values, 2));
  const float inf[] = {INFINITY};
  EXPECT_FALSE(stats.ObserveMinMax(inf, 1));
  EXPECT_FALSE(stats.has_values());
}

TEST(RangesTest, PercentileDropsTheTails) {
  // 0, 1, ..., 9999 and one outlier at 1e6 on each side.
  std::vector<float> values;
  for (int i = 0; i < 10000; ++i) values.push_back(static_cast<float>(i));
  values.push_back(1e6f);
  values.push_back(-1e6f);
  TensorStatistics stats = Observe(values, CalibrationMethod::Percentile);
  Range range = stats.ComputeRange(CalibrationMethod::Percentile, 99.9);
  // 99.9% of 10002 values lie below ~9991; the histogram bins are
  // 2e6 / 16384 ~ 122 wide, so the edges are within a bin of that.
  EXPECT_GT(range.hi, 9990.0f - 130.0f);
  EXPECT_LT(range.hi, 10000.0f + 130.0f);
  EXPECT_LE(range.lo, 0.0f);
  EXPECT_GT(range.lo, -130.0f);
  Range all = stats.ComputeRange(CalibrationMethod::Percentile, 100);
  EXPECT_EQ(all.lo, -1e6f);
  EXPECT_EQ(all.hi, 1e6f);
}

TEST(RangesTest, EntropyClipsRareOutliers) {
  // Mostly N(0, 1) with a few far outliers: the KL threshold lands near the
  // bulk of the distribution, far below max |x|.
  std::mt19937 generator(1);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> values;
  for (int i = 0; i < 200000; ++i) values.push_back(normal(generator));
  values.push_back(60.0f);
  values.push_back(-55.0f);
  TensorStatistics stats = Observe(values, CalibrationMethod::Entropy);
  Range range = stats.ComputeRange(CalibrationMethod::Entropy, 0);
  EXPECT_GT(range.hi, 2.5f);
  EXPECT_LT(range.hi, 20.0f);
  EXPECT_EQ(range.lo, -range.hi);
}

TEST(RangesTest, EntropyKeepsAUniformRange) {
  // No tail to clip: the whole range is the best threshold.
  std::vector<float> values;
  for (int i = 0; i <= 100000; ++i) values.push_back(static_cast<float>(i) / 100000.0f);
  TensorStatistics stats = Observe(values, CalibrationMethod::Entropy);
  Range range = stats.ComputeRange(CalibrationMethod::Entropy, 0);
  EXPECT_EQ(range.lo, 0.0f);
  EXPECT_GT(range.hi, 0.97f);
  EXPECT_LE(range.hi, 1.0f);
}

TEST(RangesTest, EntropyThresholdOfAnExplicitHistogram) {
  // A decaying bulk in the first bins and one count far out: clipping near
  // the bulk loses less than merging 16 bins per level across all 2048.
  // (A flat bulk would not do: merging equal bins loses nothing in KL.)
  std::vector<uint64_t> histogram(kEntropyBins, 0);
  for (int i = 0; i < 600; ++i) histogram[i] = static_cast<uint64_t>(100000 * std::exp(-i / 40.0));
  histogram[2000] = 1;
  int keep = EntropyThresholdBins(histogram, 128);
  EXPECT_GE(keep, 128);
  EXPECT_LE(keep, 700);
  // Fewer bins than levels: everything is kept.
  EXPECT_EQ(EntropyThresholdBins(std::vector<uint64_t>(64, 1), 128), 64);
}

TEST(RangesTest, SameSamplesGiveTheSameBits) {
  std::mt19937 generator(7);
  std::normal_distribution<float> normal(0.5f, 2.0f);
  std::vector<float> values;
  for (int i = 0; i < 50000; ++i) values.push_back(normal(generator));
  for (CalibrationMethod method :
       {CalibrationMethod::MinMax, CalibrationMethod::Percentile, CalibrationMethod::Entropy}) {
    Range a = Observe(values, method).ComputeRange(method, 99.99);
    Range b = Observe(values, method).ComputeRange(method, 99.99);
    EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << CalibrationMethodName(method);
  }
}

}  // namespace
}  // namespace kiln::quant
