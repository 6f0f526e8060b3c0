// compare_stats.h - how far one model's outputs are from another's, for
// `kiln compare`: accumulated over samples, per output.
#ifndef KILN_TOOLS_KILN_COMPARE_STATS_H_
#define KILN_TOOLS_KILN_COMPARE_STATS_H_

#include <cstdint>
#include <vector>

#include "kiln/runtime.h"

namespace kiln::tools {

// True for shapes that hold one score per class per row: [N, C] or
// [N, C, 1, 1] with C >= 2 (what classifiers end with, before or after
// softmax). Top-1 agreement is computed for those.
bool LooksLikeClassScores(const std::vector<int64_t>& dims);

// Error statistics of a candidate output against a reference output, over
// every element of every sample added. Not thread-safe; one per output.
class OutputComparison {
 public:
  explicit OutputComparison(const std::vector<int64_t>& dims);

  // Both tensors must have the dims given at construction (any dtype; the
  // elements are compared as doubles).
  void Add(const Tensor& reference, const Tensor& candidate);

  // Cosine similarity of the two outputs seen as one long vector each
  // (all samples). 1 when both are all zeros, 0 when only one is; NaN when
  // an element is non-finite in one output and not the same in the other.
  double cosine() const;
  double max_abs_error() const { return max_abs_error_; }
  double mean_abs_error() const;
  double max_abs_reference() const { return max_abs_reference_; }
  int64_t elements() const { return elements_; }
  // Elements where one side is NaN or infinite and the other is not the
  // same value (they make the cosine NaN and the errors infinite).
  int64_t non_finite_mismatches() const { return non_finite_mismatches_; }

  bool class_scores() const { return class_scores_; }
  // Rows whose argmax (first maximum) is the same in both, of all rows.
  int64_t top1_agree() const { return top1_agree_; }
  int64_t top1_total() const { return top1_total_; }

 private:
  bool class_scores_;
  int64_t rows_ = 0, classes_ = 0;
  double dot_ = 0, reference_norm2_ = 0, candidate_norm2_ = 0;
  double max_abs_error_ = 0, sum_abs_error_ = 0, max_abs_reference_ = 0;
  int64_t elements_ = 0, non_finite_mismatches_ = 0;
  int64_t top1_agree_ = 0, top1_total_ = 0;
};

}  // namespace kiln::tools

#endif  // KILN_TOOLS_KILN_COMPARE_STATS_H_
