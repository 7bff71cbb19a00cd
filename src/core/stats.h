// Summary statistics over samples: the aggregates every report section uses.
#pragma once

#include <optional>
#include <span>
#include <vector>

namespace fabscope {

struct Summary {
  size_t n = 0;
  double min = 0;
  double median = 0;
  double mean = 0;
  double max = 0;
  double p99 = 0;
  std::optional<double> stddev;  // sample standard deviation; needs two samples
};

// Percentile by linear interpolation between closest ranks (p in [0, 100]).
// `sorted` must be sorted ascending and non-empty.
double percentile_sorted(std::span<const double> sorted, double p);
// The middle value, or the mean of the two middle values; 0 for no values.
double median_sorted(std::span<const double> sorted);
double median(std::vector<double> values);
// Sorts ascending. Values that are all non-negative (the rates and inverse latencies of
// a link matrix) are sorted by their bit patterns, which order as they do: a radix sort,
// linear in their number; others by std::sort.
void sort_values(std::vector<double>& values);
Summary summarize(std::span<const double> values);  // n == 0 and zeros for no values

}  // namespace fabscope
