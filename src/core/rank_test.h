// The Mann-Whitney U test (Wilcoxon rank-sum): do two sets of samples come from one
// distribution? Rank-based, so it holds for skewed timing samples and is the same for
// a time and for a bandwidth computed from it. The test google/benchmark's compare tool
// runs on repetitions; fabscope's compare runs it on per-iteration times.
#pragma once

#include <span>
#include <string_view>

namespace fabscope {

struct RankTestResult {
  double u = 0;        // U of the first sample: pairs (a, b) with a > b, ties counting half
  double p_value = 1;  // two-sided
  bool exact = false;  // from the exact distribution (small samples, no ties), else the normal approximation
};

// Two-sided test of `a` against `b`. Exact when there are no ties and at most 40 samples
// in all; otherwise the normal approximation with tie and continuity corrections. Empty
// input, or all values equal, gives p = 1.
RankTestResult mann_whitney_u(std::span<const double> a, std::span<const double> b);

// The smallest two-sided p-value samples of these sizes can reach (complete separation):
// below `alpha` means the test can decide at all.
double mann_whitney_min_p(size_t n_a, size_t n_b);

}  // namespace fabscope
