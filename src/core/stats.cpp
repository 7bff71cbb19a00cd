#include "core/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <utility>

namespace fabscope {

double percentile_sorted(std::span<const double> sorted, double p) {
  if (sorted.empty()) return 0;
  if (sorted.size() == 1) return sorted[0];
  double pos = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(sorted.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

double median_sorted(std::span<const double> sorted) {
  const size_t n = sorted.size();
  if (n == 0) return 0;
  return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

// The middle values found by selection (linear time), not by a full sort.
double median(std::vector<double> values) {
  const size_t n = values.size();
  if (n == 0) return 0;
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(values.begin(), mid, values.end());
  if (n % 2) return *mid;
  return (*std::max_element(values.begin(), mid) + *mid) / 2;
}

void sort_values(std::vector<double>& values) {
  constexpr size_t kRadixFrom = 1024;  // below, a comparison sort is as fast
  const size_t n = values.size();
  if (n < kRadixFrom) {
    std::sort(values.begin(), values.end());
    return;
  }
  std::vector<uint64_t> keys(n), spare(n);
  std::memcpy(keys.data(), values.data(), n * sizeof(double));
  for (uint64_t k : keys) {
    // A sign bit (a negative value, -0.0) or a NaN's pattern: not ordered as the bits are.
    if ((k >> 63) != 0 || (k & 0x7ff0000000000000ull) == 0x7ff0000000000000ull) {
      std::sort(values.begin(), values.end());
      return;
    }
  }
  constexpr int kDigit = 11;  // 6 passes of 2,048 buckets; a pass where every key has one digit is skipped
  std::vector<size_t> count(size_t{1} << kDigit);
  for (int shift = 0; shift < 64; shift += kDigit) {
    std::fill(count.begin(), count.end(), 0);
    for (uint64_t k : keys) ++count[(k >> shift) & (count.size() - 1)];
    if (std::find(count.begin(), count.end(), n) != count.end()) continue;
    size_t at = 0;
    for (size_t& c : count) at += std::exchange(c, at);
    for (uint64_t k : keys) spare[count[(k >> shift) & (count.size() - 1)]++] = k;
    keys.swap(spare);
  }
  std::memcpy(values.data(), keys.data(), n * sizeof(double));
}

Summary summarize(std::span<const double> values) {
  Summary s;
  s.n = values.size();
  if (values.empty()) return s;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = median_sorted(sorted);
  s.p99 = percentile_sorted(sorted, 99);
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(s.n);
  if (s.n >= 2) {
    double ss = 0;
    for (double v : sorted) ss += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(ss / static_cast<double>(s.n - 1));
  }
  return s;
}

}  // namespace fabscope
