#include "diag/stall.h"

#include <algorithm>
#include <cmath>

#include "core/stats.h"

namespace fabscope {

StallBound stall_bound(std::span<const double> samples_us, double min_excess_us) {
  StallBound b;
  if (samples_us.size() < kStallMinSamples) return b;
  std::vector<double> v(samples_us.begin(), samples_us.end());
  std::sort(v.begin(), v.end());
  b.median_us = median_sorted(v);
  for (double& x : v) x = std::fabs(x - b.median_us);
  std::sort(v.begin(), v.end());
  b.spread_us = 1.4826 * median_sorted(v);
  b.threshold_us = std::max({kStallFactor * b.median_us, b.median_us + kStallSpreads * b.spread_us,
                             b.median_us + std::max(min_excess_us, 0.0)});
  return b;
}

std::vector<size_t> stalled_iterations(std::span<const double> samples_us, const StallBound& bound) {
  std::vector<size_t> out;
  if (!(bound.threshold_us > 0)) return out;
  for (size_t i = 0; i < samples_us.size(); ++i) {
    if (samples_us[i] > bound.threshold_us) out.push_back(i);
  }
  return out;
}

std::vector<int> late_ranks(std::span<const double> per_rank, size_t iters, size_t i) {
  std::vector<int> out;
  if (iters == 0 || i >= iters) return out;
  const size_t nranks = per_rank.size() / iters;
  double slowest = 0;
  for (size_t r = 0; r < nranks; ++r) slowest = std::max(slowest, per_rank[r * iters + i]);
  for (size_t r = 0; r < nranks; ++r) {
    if (per_rank[r * iters + i] < 0.5 * slowest) out.push_back(static_cast<int>(r));
  }
  if (out.size() == nranks) out.clear();
  return out;
}

}  // namespace fabscope
