// Student's t and the change-point search (core/student_t.h, core/change_points.h).
// The t figures are SciPy 1.10's (Debian's python3-scipy), printed by
//   /usr/bin/python3 -c "from scipy import stats, special; print(2*stats.t.sf(t, df), stats.t.ppf(p, df),
//                        special.betainc(a, b, x))"
// SciPy has no E-divisive: its tests are series whose change points are known, and one
// energy statistic worked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/change_points.h"
#include "core/student_t.h"

namespace fabscope {
namespace {

TEST(StudentT, TwoSidedPAgreesWithScipy) {
  struct Case {
    double t, df, p;
  };
  const Case cases[] = {
      {0.1, 1, 0.9365489651388929},     {6.0, 1, 0.10513691342250685},    {2.5, 2, 0.1296117202215108},
      {1.0, 4, 0.373900966300059},      {30.0, 4, 7.352856097661323e-06}, {2.5, 9, 0.03386182768298571},
      {6.0, 19, 8.979235472490839e-06}, {2.0, 100, 0.04821217873113364},  {1.7, 3.5, 0.17448073295072772},
  };
  for (const Case& c : cases) {
    EXPECT_NEAR(student_t_two_sided_p(c.t, c.df), c.p, 1e-9 * std::max(1.0, c.p)) << "t " << c.t << " df " << c.df;
    EXPECT_NEAR(student_t_two_sided_p(-c.t, c.df), c.p, 1e-9 * std::max(1.0, c.p));
  }
  EXPECT_EQ(student_t_two_sided_p(0, 5), 1.0);
}

TEST(StudentT, QuantileAgreesWithScipy) {
  struct Case {
    double p, df, t;
  };
  const Case cases[] = {
      {0.975, 4, 2.7764451051977987},         {0.975, 9, 2.2621571627409915},   {1 - 0.05 / 864, 4, 14.978462611408263},
      {1 - 0.05 / 864, 9, 6.467578058225204}, {0.999, 19, 3.579400148163749},   {0.9, 1, 3.0776835372078066},
      {0.025, 30, -2.042272456301238},        {0.999999, 2, 707.1057205157683},
  };
  for (const Case& c : cases) {
    EXPECT_NEAR(student_t_quantile(c.p, c.df), c.t, 1e-7 * std::fabs(c.t)) << "p " << c.p << " df " << c.df;
  }
  EXPECT_EQ(student_t_quantile(0.5, 3), 0.0);
}

TEST(StudentT, IncompleteBetaAgreesWithScipy) {
  EXPECT_NEAR(incomplete_beta(0.5, 0.5, 0.3), 0.3690101195655454, 1e-12);
  EXPECT_NEAR(incomplete_beta(2, 3, 0.4), 0.5248, 1e-12);  // by hand: 1 - sum_{j<2} C(4,j) .4^j .6^(4-j)
  EXPECT_NEAR(incomplete_beta(10, 0.5, 0.9), 0.15164090963470997, 1e-12);
  EXPECT_NEAR(incomplete_beta(0.5, 10, 0.01), 0.3420718248432155, 1e-12);
  EXPECT_NEAR(incomplete_beta(50, 50, 0.5), 0.5, 1e-12);
  EXPECT_EQ(incomplete_beta(2, 2, 0), 0.0);
  EXPECT_EQ(incomplete_beta(2, 2, 1), 1.0);
}

TEST(Welch, AgreesWithAHandWorkedCase) {
  // a: mean 2, variance 1 (n 3); b: mean 5, variance 1 (n 3). t = -3 / sqrt(2/3) = -3.674;
  // df = (2/3)^2 / (2 * (1/3)^2 / 2) = 4. scipy.stats.ttest_ind(a, b, equal_var=False).pvalue = 0.021311641128756727.
  const std::vector<double> a = {1, 2, 3}, b = {4, 5, 6};
  EXPECT_NEAR(welch_t_test_p(a, b), 0.021311641128756727, 1e-12);
  EXPECT_EQ(welch_t_test_p(std::vector<double>{1}, b), 1.0);                             // too few
  EXPECT_EQ(welch_t_test_p(std::vector<double>{2, 2}, std::vector<double>{2, 2}), 1.0);  // no spread, no step
  EXPECT_EQ(welch_t_test_p(std::vector<double>{2, 2}, std::vector<double>{3, 3}), 0.0);  // no spread, a step
}

std::vector<double> noisy(std::vector<double> levels, size_t each, double sd, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0, sd);
  std::vector<double> out;
  for (double level : levels) {
    for (size_t i = 0; i < each; ++i) out.push_back(level * (1 + noise(rng)));
  }
  return out;
}

TEST(EDivisive, FindsOneStepWhereItIs) {
  // 10 runs at 100, then 10 at 90 (a 10% loss), 1% noise: the change is run 10 (0-based).
  for (unsigned seed = 1; seed <= 10; ++seed) {
    std::vector<double> x = noisy({100, 90}, 10, 0.01, seed);
    std::vector<ChangePoint> cps = e_divisive_means(x);
    ASSERT_EQ(cps.size(), 1u) << "seed " << seed;
    EXPECT_EQ(cps[0].index, 10u);
    EXPECT_NEAR(cps[0].after / cps[0].before, 0.9, 0.02);
    EXPECT_LT(cps[0].p_value, 0.001);
  }
}

TEST(EDivisive, AnExactStepHasAHandWorkedEnergy) {
  // 0,0,0,1,1,1 split at 3: between pairs 9 at distance 1, no distance within:
  // Q = 3*3/6 * (2/9 * 9) = 3. The t-test of {0,0,0} against {1,1,1} (no spread, a step) is p = 0.
  const std::vector<double> x = {0, 0, 0, 1, 1, 1};
  std::vector<ChangePoint> cps = e_divisive_means(x, {.max_p = 0.001, .min_segment = 3, .min_step = 0});
  ASSERT_EQ(cps.size(), 1u);
  EXPECT_EQ(cps[0].index, 3u);
  EXPECT_DOUBLE_EQ(cps[0].energy, 3.0);
  EXPECT_EQ(cps[0].p_value, 0.0);
}

TEST(EDivisive, FindsTwoStepsAndNoneInNoise) {
  std::vector<double> x = noisy({100, 80, 100}, 8, 0.01, 7);
  std::vector<ChangePoint> cps = e_divisive_means(x);
  ASSERT_EQ(cps.size(), 2u);
  EXPECT_EQ(cps[0].index, 8u);
  EXPECT_EQ(cps[1].index, 16u);
  // Pure noise: no change point in 20 series of 30 runs at the default p < 0.001.
  int false_points = 0;
  for (unsigned seed = 1; seed <= 20; ++seed)
    false_points += static_cast<int>(e_divisive_means(noisy({100}, 30, 0.05, seed)).size());
  EXPECT_LE(false_points, 1);
}

TEST(EDivisive, AnOutlierIsNotAStepAndADriftIsNotSplitEverywhere) {
  std::vector<double> x = noisy({100}, 20, 0.01, 3);
  x[9] = 150;  // one run far off: a single point cannot make a segment of min_segment
  EXPECT_TRUE(e_divisive_means(x).empty());
  // A slow drift of 0.2% per run over 30 runs: at most a few splits, never one per run.
  std::vector<double> drift;
  for (int i = 0; i < 30; ++i) drift.push_back(100 * (1 - 0.002 * i));
  EXPECT_LE(e_divisive_means(drift).size(), 30u / 3);
}

TEST(EDivisive, ASeriesTooShortHasNoChangePoint) {
  EXPECT_TRUE(e_divisive_means(std::vector<double>{}).empty());
  EXPECT_TRUE(e_divisive_means(std::vector<double>{100, 100, 100, 50, 50}).empty());  // 5 < 2 x 3
  EXPECT_EQ(e_divisive_means(std::vector<double>{100, 100, 100, 50, 50, 50}).size(), 1u);
}

TEST(EDivisive, MinStepDropsSmallSteps) {
  std::vector<double> x = noisy({100, 98}, 15, 0.001, 5);  // a 2% step, clear in 0.1% noise
  EXPECT_EQ(e_divisive_means(x).size(), 1u);
  EXPECT_TRUE(e_divisive_means(x, {.max_p = 0.001, .min_segment = 3, .min_step = 0.05}).empty());
}

}  // namespace
}  // namespace fabscope
