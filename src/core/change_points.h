// Change points in a series of runs: where a row's level stepped.
//
// The method is E-divisive means (Matteson & James, "A Nonparametric Approach for Multiple
// Change Point Analysis of Multivariate Data", JASA 2014), with exponent alpha = 1, as
// MongoDB's performance CI and Hunter / Apache Otava use it: the split of a segment that
// maximises the energy statistic
//   Q(tau) = m k / (m + k) * [ 2/(m k) sum |x_i - y_j| - sum_{i<i'} |x_i - x_i'| / C(m,2)
//                              - sum_{j<j'} |y_j - y_j'| / C(k,2) ]
// (x the m runs before tau, y the k from tau on) is the candidate. Its significance is
// tested as Hunter does (Fleming et al., ICPE 2023) instead of the original's permutation
// test, which is slow and random: Welch's t-test between the two sides; a split with
// p < max_p (and a step of at least min_step, relative) is kept and both sides are
// searched again, until no segment splits. Each kept change point is then tested again
// between its final neighbouring segments, and dropped when it no longer passes.
// Each side holds at least min_segment runs.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace fabscope {

struct ChangePointOptions {
  double max_p = 0.001;
  size_t min_segment = 3;
  double min_step = 0;  // |after / before - 1| at least this
};

struct ChangePoint {
  size_t index = 0;          // the first run of the new level
  double before = 0;         // the mean of the segment before it
  double after = 0;          // the mean of the segment from it on
  double p_value = 1;        // Welch's t-test between the two segments
  double energy = 0;         // Q(tau) when it was found
  size_t segment_begin = 0;  // the two segments tested: [segment_begin, index), [index, segment_end)
  size_t segment_end = 0;
};

// The change points of `series`, in index order.
std::vector<ChangePoint> e_divisive_means(std::span<const double> series, const ChangePointOptions& options = {});

// Welch's two-sample t-test, two-sided: p = 1 when a side has fewer than 2 values.
double welch_t_test_p(std::span<const double> a, std::span<const double> b);

}  // namespace fabscope
