#include "core/rank_test.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>
#include <vector>

namespace fabscope {

namespace {

// P(U <= u) for sizes m, n under the null hypothesis, by counting the arrangements of
// m + n ranks (no ties): c(m, n, u) = c(m-1, n, u-n) + c(m, n-1, u).
double exact_cdf(size_t m, size_t n, double u) {
  const size_t max_u = m * n;
  // counts[j][k]: arrangements of i a's and j b's with U = k, built up over i.
  std::vector<std::vector<double>> prev(n + 1), cur(n + 1);
  for (size_t j = 0; j <= n; ++j) prev[j].assign(1, 1.0);  // i = 0: U = 0 only
  for (size_t i = 1; i <= m; ++i) {
    cur[0].assign(1, 1.0);
    for (size_t j = 1; j <= n; ++j) {
      cur[j].assign(i * j + 1, 0.0);
      // The largest value is an a (above all j b's: U += j) or a b.
      for (size_t k = 0; k < prev[j].size(); ++k) cur[j][k + j] += prev[j][k];
      for (size_t k = 0; k < cur[j - 1].size(); ++k) cur[j][k] += cur[j - 1][k];
    }
    std::swap(prev, cur);
  }
  const std::vector<double>& counts = prev[n];
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  double below = 0;
  for (size_t k = 0; k <= max_u && static_cast<double>(k) <= u + 1e-9; ++k) below += counts[k];
  return below / total;
}

}  // namespace

RankTestResult mann_whitney_u(std::span<const double> a, std::span<const double> b) {
  RankTestResult r;
  const size_t m = a.size(), n = b.size();
  if (m == 0 || n == 0) return r;
  std::vector<std::pair<double, int>> all;
  all.reserve(m + n);
  for (double v : a) all.emplace_back(v, 0);
  for (double v : b) all.emplace_back(v, 1);
  std::sort(all.begin(), all.end());
  double rank_sum_a = 0;
  double tie_term = 0;  // sum of t^3 - t over groups of t equal values
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double avg_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (size_t k = i; k < j; ++k) {
      if (all[k].second == 0) rank_sum_a += avg_rank;
    }
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  const double md = static_cast<double>(m), nd = static_cast<double>(n), total = md + nd;
  r.u = rank_sum_a - md * (md + 1) / 2.0;
  const double mean_u = md * nd / 2.0;
  if (tie_term == 0 && m + n <= 40) {
    r.exact = true;
    const double lower = exact_cdf(m, n, std::min(r.u, md * nd - r.u));
    r.p_value = std::min(1.0, 2.0 * lower);
    return r;
  }
  const double var = md * nd / 12.0 * ((total + 1) - tie_term / (total * (total - 1)));
  if (var <= 0) return r;  // every value equal
  const double z = std::max(0.0, std::fabs(r.u - mean_u) - 0.5) / std::sqrt(var);
  r.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return r;
}

double mann_whitney_min_p(size_t n_a, size_t n_b) {
  std::vector<double> a(n_a), b(n_b);
  std::iota(a.begin(), a.end(), 0.0);
  std::iota(b.begin(), b.end(), static_cast<double>(n_a));
  return mann_whitney_u(a, b).p_value;
}

}  // namespace fabscope
