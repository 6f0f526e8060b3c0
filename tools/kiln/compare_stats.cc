#include "tools/kiln/compare_stats.h"

#include <cmath>
#include <limits>

#include "tools/kiln/tensor_files.h"

namespace kiln::tools {
namespace {

// Index of the first maximum of row `row` (NaNs never win).
int64_t ArgMax(const Tensor& t, int64_t row, int64_t classes) {
  int64_t best = 0;
  double best_value = -std::numeric_limits<double>::infinity();
  for (int64_t c = 0; c < classes; ++c) {
    double v = ElementAsDouble(t, row * classes + c);
    if (v > best_value) {
      best_value = v;
      best = c;
    }
  }
  return best;
}

}  // namespace

bool LooksLikeClassScores(const std::vector<int64_t>& dims) {
  if (dims.size() == 2) return dims[1] >= 2;
  if (dims.size() == 4) return dims[1] >= 2 && dims[2] == 1 && dims[3] == 1;
  return false;
}

OutputComparison::OutputComparison(const std::vector<int64_t>& dims)
    : class_scores_(LooksLikeClassScores(dims)) {
  if (class_scores_) {
    rows_ = dims[0];
    classes_ = dims[1];
  }
}

void OutputComparison::Add(const Tensor& reference, const Tensor& candidate) {
  const int64_t n = reference.element_count();
  for (int64_t i = 0; i < n; ++i) {
    double r = ElementAsDouble(reference, i), c = ElementAsDouble(candidate, i);
    if (!std::isfinite(r) || !std::isfinite(c)) {
      // Equal infinities, or NaN on both sides, agree and add nothing to
      // the sums; anything else is a mismatch the statistics must show.
      bool same = (std::isnan(r) && std::isnan(c)) || r == c;
      if (!same) {
        ++non_finite_mismatches_;
        max_abs_error_ = std::numeric_limits<double>::infinity();
      }
      if (std::isinf(r)) max_abs_reference_ = std::numeric_limits<double>::infinity();
      ++elements_;
      continue;
    }
    double error = std::fabs(r - c);
    max_abs_error_ = std::fmax(max_abs_error_, error);
    sum_abs_error_ += error;
    max_abs_reference_ = std::fmax(max_abs_reference_, std::fabs(r));
    dot_ += r * c;
    reference_norm2_ += r * r;
    candidate_norm2_ += c * c;
    ++elements_;
  }
  if (class_scores_) {
    for (int64_t row = 0; row < rows_; ++row) {
      top1_agree_ += ArgMax(reference, row, classes_) == ArgMax(candidate, row, classes_);
      ++top1_total_;
    }
  }
}

double OutputComparison::cosine() const {
  if (non_finite_mismatches_ > 0) return std::numeric_limits<double>::quiet_NaN();
  if (reference_norm2_ == 0 && candidate_norm2_ == 0) return 1.0;
  if (reference_norm2_ == 0 || candidate_norm2_ == 0) return 0.0;
  return dot_ / (std::sqrt(reference_norm2_) * std::sqrt(candidate_norm2_));
}

double OutputComparison::mean_abs_error() const {
  if (non_finite_mismatches_ > 0) return std::numeric_limits<double>::infinity();
  return elements_ == 0 ? 0.0 : sum_abs_error_ / static_cast<double>(elements_);
}

}  // namespace kiln::tools
