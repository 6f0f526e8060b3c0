// OutputComparison and LooksLikeClassScores on literal tensors.
#include "tools/kiln/compare_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace kiln::tools {
namespace {

double Cosine(std::vector<float> a, std::vector<float> b, OutputComparison* out = nullptr) {
  std::vector<int64_t> dims = {static_cast<int64_t>(a.size())};
  OutputComparison c(dims);
  c.Add(Tensor::Borrow(DType::F32, dims, a.data()), Tensor::Borrow(DType::F32, dims, b.data()));
  if (out != nullptr) *out = c;
  return c.cosine();
}

TEST(CompareStatsTest, CosineAndErrorsOfKnownVectors) {
  OutputComparison c({1});
  EXPECT_DOUBLE_EQ(Cosine({1, 2, 3}, {2, 4, 6}, &c), 1.0);  // parallel: cosine 1 whatever the scale
  EXPECT_DOUBLE_EQ(c.max_abs_error(), 3.0);
  EXPECT_DOUBLE_EQ(c.mean_abs_error(), 2.0);
  EXPECT_DOUBLE_EQ(c.max_abs_reference(), 3.0);
  EXPECT_EQ(c.elements(), 3);
  EXPECT_FALSE(c.class_scores());
  EXPECT_DOUBLE_EQ(Cosine({1, 0}, {0, 1}), 0.0);
  EXPECT_DOUBLE_EQ(Cosine({1, 2}, {-1, -2}), -1.0);
  EXPECT_NEAR(Cosine({1, 1}, {1, 0}), std::sqrt(0.5), 1e-15);
  EXPECT_DOUBLE_EQ(Cosine({0, 0}, {0, 0}), 1.0);
  EXPECT_DOUBLE_EQ(Cosine({0, 0}, {0, 1e-30f}), 0.0);
}

TEST(CompareStatsTest, AccumulatesOverSamples) {
  // Two samples of [1, 2]: the cosine is over the four elements together.
  std::vector<int64_t> dims = {1, 2};
  OutputComparison c(dims);
  std::vector<float> r1 = {1, 0}, c1 = {1, 0}, r2 = {0, 1}, c2 = {1, 0};
  c.Add(Tensor::Borrow(DType::F32, dims, r1.data()), Tensor::Borrow(DType::F32, dims, c1.data()));
  c.Add(Tensor::Borrow(DType::F32, dims, r2.data()), Tensor::Borrow(DType::F32, dims, c2.data()));
  EXPECT_DOUBLE_EQ(c.cosine(), 0.5);  // dot 1, |r| = |c| = sqrt(2)
  EXPECT_DOUBLE_EQ(c.max_abs_error(), 1.0);
  EXPECT_DOUBLE_EQ(c.mean_abs_error(), 0.5);
  ASSERT_TRUE(c.class_scores());
  EXPECT_EQ(c.top1_agree(), 1);
  EXPECT_EQ(c.top1_total(), 2);
}

TEST(CompareStatsTest, TopOneCountsRowsAndTakesTheFirstMaximum) {
  std::vector<int64_t> dims = {3, 4, 1, 1};
  OutputComparison c(dims);
  std::vector<float> reference = {0, 5, 1, 5,    // first maximum: class 1
                                  9, 1, 2, 3,    // class 0
                                  1, 2, 3, 4};   // class 3
  std::vector<float> candidate = {0, 4, 1, 4.5,  // class 3: disagrees
                                  9, 9, 2, 3,    // tie, first is 0: agrees
                                  1, 2, 3, 3.5}; // class 3: agrees
  c.Add(Tensor::Borrow(DType::F32, dims, reference.data()), Tensor::Borrow(DType::F32, dims, candidate.data()));
  EXPECT_EQ(c.top1_agree(), 2);
  EXPECT_EQ(c.top1_total(), 3);
}

TEST(CompareStatsTest, NonFiniteMismatchesMakeTheCosineNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  OutputComparison same({1});
  EXPECT_DOUBLE_EQ(Cosine({nan, inf, 1}, {nan, inf, 1}, &same), 1.0);  // NaN = NaN, inf = inf: agree
  EXPECT_EQ(same.non_finite_mismatches(), 0);
  OutputComparison differ({1});
  EXPECT_TRUE(std::isnan(Cosine({nan, 1, 2}, {0, 1, 2}, &differ)));
  EXPECT_EQ(differ.non_finite_mismatches(), 1);
  EXPECT_TRUE(std::isinf(differ.max_abs_error()));
  EXPECT_TRUE(std::isinf(differ.mean_abs_error()));
}

TEST(CompareStatsTest, OtherDtypesCompareAsNumbers) {
  std::vector<int64_t> dims = {4};
  std::vector<int32_t> a = {1, -2, 3, 4}, b = {1, -2, 3, 6};
  OutputComparison c(dims);
  c.Add(Tensor::Borrow(DType::I32, dims, a.data()), Tensor::Borrow(DType::I32, dims, b.data()));
  EXPECT_DOUBLE_EQ(c.max_abs_error(), 2.0);
  EXPECT_NEAR(c.cosine(), 38.0 / (std::sqrt(30.0) * std::sqrt(50.0)), 1e-15);
}

TEST(CompareStatsTest, ClassScoreShapes) {
  EXPECT_TRUE(LooksLikeClassScores({1, 1000}));
  EXPECT_TRUE(LooksLikeClassScores({8, 2}));
  EXPECT_TRUE(LooksLikeClassScores({1, 10, 1, 1}));
  EXPECT_FALSE(LooksLikeClassScores({8, 1}));
  EXPECT_FALSE(LooksLikeClassScores({1, 10, 2, 1}));
  EXPECT_FALSE(LooksLikeClassScores({10}));
  EXPECT_FALSE(LooksLikeClassScores({1, 128, 768}));
}

}  // namespace
}  // namespace kiln::tools
