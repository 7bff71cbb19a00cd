// The stall rule (sweep.stall): a timed iteration far outside its point's robust
// spread. A point's nccl-tests figure is the loop's mean, so one iteration that waited
// seconds on a link that went down doubles a mean and hides in it; this rule finds it.
// An iteration stalls when it is above all three of: kStallFactor times the point's
// median, the median plus kStallSpreads robust standard deviations (1.4826 × the median
// absolute deviation), and the median plus a minimum excess (--stall-ms). The first two
// keep a noisy but healthy series quiet; the third keeps microsecond-sized points from
// calling an operating system's hiccup a stall.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace fabscope {

inline constexpr double kStallFactor = 10;
inline constexpr double kStallSpreads = 20;
inline constexpr double kStallMinExcessMs = 100;  // --stall-ms default
// Fewer timed iterations than this give no median to judge against.
inline constexpr size_t kStallMinSamples = 5;

struct StallBound {
  double median_us = 0;
  double spread_us = 0;     // 1.4826 × median absolute deviation
  double threshold_us = 0;  // an iteration above it stalled; 0: too few samples to judge
};
StallBound stall_bound(std::span<const double> samples_us, double min_excess_us);
// The iterations above the bound, in order (none where the bound could not be set).
std::vector<size_t> stalled_iterations(std::span<const double> samples_us, const StallBound& bound);
// `per_rank`: every rank's time of each of `iters` iterations, rank-major. The ranks
// whose own time of iteration `i` was under half the slowest rank's: they entered it
// late and the others waited. Empty when every rank waited alike (or all were late).
std::vector<int> late_ranks(std::span<const double> per_rank, size_t iters, size_t i);

}  // namespace fabscope
