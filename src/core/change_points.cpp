#include "core/change_points.h"

#include <algorithm>
#include <cmath>

#include "core/student_t.h"

namespace fabscope {

namespace {

double mean_of(std::span<const double> v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

double variance_of(std::span<const double> v, double mean) {
  double s = 0;
  for (double x : v) s += (x - mean) * (x - mean);
  return v.size() < 2 ? 0 : s / static_cast<double>(v.size() - 1);
}

// Sums of |x_i - x_j| over rectangles of index pairs, in O(1) each after O(n^2) set-up:
// S[i][j] = sum over i' < i, j' < j of |x_i' - x_j'|.
class DistanceSums {
 public:
  explicit DistanceSums(std::span<const double> x) : n_(x.size()), s_((n_ + 1) * (n_ + 1), 0.0) {
    for (size_t i = 0; i < n_; ++i) {
      double row = 0;
      for (size_t j = 0; j < n_; ++j) {
        row += std::fabs(x[i] - x[j]);
        at(i + 1, j + 1) = at(i, j + 1) + row;
      }
    }
  }
  // Sum over i in [a, b), j in [c, d).
  double rect(size_t a, size_t b, size_t c, size_t d) const { return get(b, d) - get(a, d) - get(b, c) + get(a, c); }

 private:
  double& at(size_t i, size_t j) { return s_[i * (n_ + 1) + j]; }
  double get(size_t i, size_t j) const { return s_[i * (n_ + 1) + j]; }
  size_t n_;
  std::vector<double> s_;
};

// Q(tau) for the split of [s, e) at tau (both sides with 2 runs or more).
double energy(const DistanceSums& d, size_t s, size_t tau, size_t e) {
  const double m = static_cast<double>(tau - s), k = static_cast<double>(e - tau);
  const double between = d.rect(s, tau, tau, e);
  const double left = d.rect(s, tau, s, tau);  // every pair twice: / (m (m - 1)) is / C(m, 2) of the half
  const double right = d.rect(tau, e, tau, e);
  const double divergence = 2 * between / (m * k) - left / (m * (m - 1)) - right / (k * (k - 1));
  return m * k / (m + k) * divergence;
}

bool passes(std::span<const double> x, size_t s, size_t tau, size_t e, const ChangePointOptions& o, ChangePoint& cp) {
  auto before = x.subspan(s, tau - s), after = x.subspan(tau, e - tau);
  cp.index = tau;
  cp.segment_begin = s;
  cp.segment_end = e;
  cp.before = mean_of(before);
  cp.after = mean_of(after);
  cp.p_value = welch_t_test_p(before, after);
  const double step = cp.before != 0 ? std::fabs(cp.after / cp.before - 1) : std::fabs(cp.after - cp.before);
  return cp.p_value < o.max_p && step >= o.min_step;
}

}  // namespace

double welch_t_test_p(std::span<const double> a, std::span<const double> b) {
  if (a.size() < 2 || b.size() < 2) return 1;
  const double ma = mean_of(a), mb = mean_of(b);
  const double va = variance_of(a, ma) / static_cast<double>(a.size());
  const double vb = variance_of(b, mb) / static_cast<double>(b.size());
  const double se2 = va + vb;
  if (se2 <= 0) return ma == mb ? 1.0 : 0.0;
  const double t = (ma - mb) / std::sqrt(se2);
  // Welch-Satterthwaite degrees of freedom.
  const double df =
      se2 * se2 / (va * va / static_cast<double>(a.size() - 1) + vb * vb / static_cast<double>(b.size() - 1));
  return student_t_two_sided_p(t, df);
}

std::vector<ChangePoint> e_divisive_means(std::span<const double> x, const ChangePointOptions& o) {
  const size_t n = x.size();
  const size_t min_seg = std::max<size_t>(o.min_segment, 2);
  std::vector<ChangePoint> found;
  if (n < 2 * min_seg) return found;
  const DistanceSums d(x);
  std::vector<std::pair<size_t, size_t>> work = {{0, n}};
  while (!work.empty()) {
    auto [s, e] = work.back();
    work.pop_back();
    if (e - s < 2 * min_seg) continue;
    size_t best = 0;
    double best_q = -1;
    for (size_t tau = s + min_seg; tau + min_seg <= e; ++tau) {
      const double q = energy(d, s, tau, e);
      if (q > best_q) best_q = q, best = tau;
    }
    ChangePoint cp;
    if (best_q <= 0 || !passes(x, s, best, e, o, cp)) continue;
    cp.energy = best_q;
    found.push_back(cp);
    work.push_back({s, best});
    work.push_back({best, e});
  }
  std::sort(found.begin(), found.end(), [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  // Each split again between its final neighbours: a split found early in a long segment
  // may not hold once the segment is cut further.
  std::vector<ChangePoint> kept;
  for (size_t i = 0; i < found.size(); ++i) {
    const size_t s = i == 0 ? 0 : found[i - 1].index;
    const size_t e = i + 1 == found.size() ? n : found[i + 1].index;
    ChangePoint cp = found[i];
    if (passes(x, s, cp.index, e, o, cp)) kept.push_back(cp);
  }
  return kept;
}

}  // namespace fabscope
