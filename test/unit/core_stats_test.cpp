// Summary statistics: percentiles by linear interpolation, and summarize().
#include "core/stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace fabscope {
namespace {

TEST(PercentileSorted, InterpolatesBetweenClosestRanks) {
  const std::vector<double> v = {10, 20, 30, 40};
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 0), 10);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 100), 40);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 50), 25);         // position 1.5
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 25), 17.5);       // position 0.75
  EXPECT_NEAR(percentile_sorted(v, 99), 39.7, 1e-12);     // position 2.97
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 100.0 / 3), 20);  // position exactly 1
}

TEST(PercentileSorted, ClampsOutOfRangePercentiles) {
  const std::vector<double> v = {1, 2, 3};
  EXPECT_DOUBLE_EQ(percentile_sorted(v, -5), 1);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 150), 3);
}

TEST(PercentileSorted, SingleValue) {
  const std::vector<double> v = {7.5};
  for (double p : {0.0, 50.0, 99.0, 100.0}) EXPECT_DOUBLE_EQ(percentile_sorted(v, p), 7.5);
}

TEST(PercentileSorted, RepeatedValues) {
  const std::vector<double> v = {2, 2, 2, 5};
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 50), 2);
  EXPECT_NEAR(percentile_sorted(v, 90), 2 + 3 * 0.7, 1e-12);  // position 2.7
}

TEST(Median, OddEvenAndUnsorted) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({-1}), -1);
  EXPECT_DOUBLE_EQ(median({}), 0);
}

// The median by selection: the same as a sort's, for odd and even counts, repeats included.
TEST(Median, SelectionAgreesWithASort) {
  std::mt19937_64 rng(5);
  for (size_t n : {1u, 2u, 3u, 10u, 11u, 1000u, 1001u}) {
    std::vector<double> v(n);
    for (double& x : v) x = static_cast<double>(rng() % 50);  // repeats
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_DOUBLE_EQ(median(v), median_sorted(sorted)) << n;
  }
}

// sort_values: the radix sort of non-negative values (zeros, subnormals, infinities and a
// run of equal values among them) and the fallback for values with a sign, as std::sort.
TEST(SortValues, AsStdSortForEveryKindOfValue) {
  std::mt19937_64 rng(7);
  for (size_t n : {0u, 5u, 1023u, 1024u, 5000u, 200000u}) {
    for (bool with_negatives : {false, true}) {
      std::vector<double> v(n);
      for (size_t i = 0; i < n; ++i) {
        switch (rng() % 6) {
          case 0:
            v[i] = 0;
            break;
          case 1:
            v[i] = std::numeric_limits<double>::denorm_min() * static_cast<double>(rng() % 100);
            break;
          case 2:
            v[i] = 2.5;
            break;
          case 3:
            v[i] = std::ldexp(static_cast<double>(rng() % 1000000), static_cast<int>(rng() % 80) - 40);
            break;
          case 4:
            v[i] = with_negatives ? -static_cast<double>(rng() % 1000) : 1e300;
            break;
          default:
            v[i] = i == 3 ? std::numeric_limits<double>::infinity() : static_cast<double>(rng() % 7) / 3;
            break;
        }
      }
      std::vector<double> want = v;
      std::sort(want.begin(), want.end());
      sort_values(v);
      EXPECT_EQ(v, want) << n << (with_negatives ? " with negatives" : "");
    }
  }
}

TEST(Summarize, Empty) {
  const std::vector<double> none;
  Summary s = summarize(none);
  EXPECT_EQ(s.n, 0u);
  EXPECT_EQ(s.min, 0);
  EXPECT_EQ(s.median, 0);
  EXPECT_EQ(s.mean, 0);
  EXPECT_EQ(s.max, 0);
  EXPECT_EQ(s.p99, 0);
  EXPECT_FALSE(s.stddev.has_value());
}

TEST(Summarize, OneSampleHasNoStddev) {
  const std::vector<double> one = {42.5};
  Summary s = summarize(one);
  EXPECT_EQ(s.n, 1u);
  EXPECT_DOUBLE_EQ(s.min, 42.5);
  EXPECT_DOUBLE_EQ(s.median, 42.5);
  EXPECT_DOUBLE_EQ(s.mean, 42.5);
  EXPECT_DOUBLE_EQ(s.max, 42.5);
  EXPECT_DOUBLE_EQ(s.p99, 42.5);
  EXPECT_FALSE(s.stddev.has_value());
}

TEST(Summarize, TwoSamples) {
  const std::vector<double> two = {3, 1};
  Summary s = summarize(two);
  EXPECT_EQ(s.n, 2u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 3);
  EXPECT_DOUBLE_EQ(s.median, 2);
  EXPECT_DOUBLE_EQ(s.mean, 2);
  EXPECT_DOUBLE_EQ(s.p99, 2.98);
  ASSERT_TRUE(s.stddev.has_value());
  EXPECT_DOUBLE_EQ(*s.stddev, std::sqrt(2.0));  // sample (n - 1) deviation
}

TEST(Summarize, UnsortedSamples) {
  const std::vector<double> v = {5, 1, 3};
  Summary s = summarize(v);
  EXPECT_EQ(s.n, 3u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.p99, 4.96);  // position 1.98
  ASSERT_TRUE(s.stddev.has_value());
  EXPECT_DOUBLE_EQ(*s.stddev, 2);
}

TEST(Summarize, HundredSamples) {
  // 1..100 shuffled by a fixed permutation (37 is coprime to 100).
  std::vector<double> v;
  for (int i = 0; i < 100; ++i) v.push_back((i * 37) % 100 + 1);
  Summary s = summarize(v);
  EXPECT_EQ(s.n, 100u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_DOUBLE_EQ(s.median, 50.5);
  EXPECT_NEAR(s.p99, 99.01, 1e-9);  // position 98.01
  ASSERT_TRUE(s.stddev.has_value());
  EXPECT_NEAR(*s.stddev, std::sqrt(100.0 * 101.0 / 12.0), 1e-12);  // variance of 1..N is N(N+1)/12
}

TEST(Summarize, ConstantSamplesHaveZeroStddev) {
  const std::vector<double> v(7, 3.25);
  Summary s = summarize(v);
  ASSERT_TRUE(s.stddev.has_value());
  EXPECT_DOUBLE_EQ(*s.stddev, 0);
  EXPECT_DOUBLE_EQ(s.p99, 3.25);
  EXPECT_DOUBLE_EQ(s.mean, 3.25);
}

TEST(Summarize, OutlierMovesMeanAndP99ButNotMedian) {
  std::vector<double> v(99, 10.0);
  v.push_back(1010.0);
  Summary s = summarize(v);
  EXPECT_DOUBLE_EQ(s.median, 10);
  EXPECT_DOUBLE_EQ(s.mean, 20);
  EXPECT_DOUBLE_EQ(s.max, 1010);
  EXPECT_NEAR(s.p99, 10 + 1000 * 0.01, 1e-9);  // position 98.01: 1% of the way to the outlier
}

}  // namespace
}  // namespace fabscope
