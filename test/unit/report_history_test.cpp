// The history compare and the change-point history (report/history.h) on reports built by
// hand, with answers worked out beside them: one row's prediction t-test (the figures are
// numpy's and scipy.stats.t's, printed by
//   h = np.log([10, 10.2, 9.8, 10.1, 9.9]); sd = sqrt(h.var(ddof=1) * (1 + 1/5));
//   p = 2 * stats.t.sf(abs((np.log(c) - h.mean()) / sd), 4)
// for each current figure c), Benjamini-Hochberg against Holm on four rows, a history too
// short, runs that are not alike, and a step found by the history.
#include <gtest/gtest.h>

#include <cmath>

#include "report/history.h"

namespace fabscope {
namespace {

// An allreduce sweep with one out-of-place point per bus bandwidth given, at 1 MiB, 2 MiB,
// 4 MiB ... (every size above its n1/2, so judged on bus bandwidth); no samples.
Report bandwidth_report(const std::vector<double>& busbw, const std::string& backend = "tcp") {
  Report r;
  r.context.tool = {"fabscope", "0.1.0", "abc"};
  r.context.backend = backend;
  r.context.memory = "host";
  r.context.nranks = 2;
  r.context.hosts = {"h0", "h1"};
  r.sweep_settings = SweepSettings{1u << 20, 8u << 20, 0, 2, 20, 1, 1, "mean", 1};
  Sweep s;
  s.collective = "allreduce";
  s.dtype = "float";
  s.op = "sum";
  s.backend = backend;
  s.nranks = 2;
  s.busbw_factor = 1;
  uint64_t size = 1u << 20;
  for (double bw : busbw) {
    SweepPoint p;
    p.size_bytes = size;
    p.count = size / 4;
    PlacementResult pr;
    pr.busbw_gbps = pr.algbw_gbps = bw;
    pr.time_us = static_cast<double>(size) / (bw * 1e3);
    pr.iterations = 20;
    p.out_of_place = pr;
    s.points.push_back(p);
    size *= 2;
  }
  r.sweeps.push_back(s);
  return r;
}

std::vector<LoadedRun> history_of(const std::vector<std::vector<double>>& runs) {
  std::vector<LoadedRun> out;
  for (size_t i = 0; i < runs.size(); ++i) out.push_back({"run" + std::to_string(i + 1), bandwidth_report(runs[i])});
  return out;
}

const std::vector<double> kHistory = {10, 10.2, 9.8, 10.1, 9.9};

// Five runs, each with `rows` rows at the history's figure of that run.
std::vector<LoadedRun> five_runs(size_t rows) {
  std::vector<std::vector<double>> runs;
  for (double v : kHistory) runs.push_back(std::vector<double>(rows, v));
  return history_of(runs);
}

TEST(HistoryCompare, OneRowAgreesWithTheWorkedPredictionTest) {
  CompareOptions o;
  o.threshold = 0.02;
  Comparison c = compare_to_history(five_runs(1), {"now", bandwidth_report({9.0})}, o);
  ASSERT_EQ(c.rows.size(), 1u);
  const ComparisonRow& r = c.rows[0];
  EXPECT_EQ(r.test, RowTest::kHistoryT);
  EXPECT_EQ(r.history_runs, 5);
  EXPECT_NEAR(*r.baseline, 9.99899987997199, 1e-9);  // the geometric mean
  EXPECT_NEAR(*r.change, -0.0999099801944183, 1e-9);
  EXPECT_NEAR(*r.noise, 0.017322774737079324, 1e-9);
  EXPECT_NEAR(*r.p_value, 0.0037063648399170393, 1e-9);
  EXPECT_EQ(r.verdict, RowVerdict::kRegression);
  // Alone, the row flags any change beyond t_{0.975, 4} * sd: expm1(2.776 * 0.01732) = 4.93%.
  EXPECT_NEAR(*r.detection_limit, 0.049271100520169205, 1e-7);
  EXPECT_FALSE(r.within_run_sd);  // no samples: the within-run spread is not known
  EXPECT_EQ(c.correction, "benjamini_hochberg");
  EXPECT_EQ(c.history.size(), 5u);
  EXPECT_EQ(c.baseline.path, "run5");

  // A current run at 10.05: p = 0.784, unchanged.
  Comparison same = compare_to_history(five_runs(1), {"now", bandwidth_report({10.05})}, o);
  EXPECT_NEAR(*same.rows[0].p_value, 0.7836016661572252, 1e-9);
  EXPECT_EQ(same.rows[0].verdict, RowVerdict::kUnchanged);
}

TEST(HistoryCompare, BenjaminiHochbergRejectsWhereHolmWouldStopAtTheFirst) {
  // p = 0.0037 (9.0) and three of 0.0418 (9.5). BH at 0.05 over 4 rows: the 4th smallest
  // is <= 4/4 x 0.05, so all four are rejected. Holm would stop at the second
  // (0.0418 > 0.05/3) and flag one.
  CompareOptions o;
  o.threshold = 0.02;
  Comparison c = compare_to_history(five_runs(4), {"now", bandwidth_report({9.0, 9.5, 9.5, 9.5})}, o);
  ASSERT_EQ(c.rows.size(), 4u);
  EXPECT_NEAR(*c.rows[1].p_value, 0.04175057169971439, 1e-9);
  for (const ComparisonRow& r : c.rows) EXPECT_EQ(r.verdict, RowVerdict::kRegression) << r.reason;
  // 9.0, 9.5, 9.6, 10.05: p 0.0037, 0.0418, 0.0784, 0.784 against 0.0125, 0.025, 0.0375,
  // 0.05: only the first.
  c = compare_to_history(five_runs(4), {"now", bandwidth_report({9.0, 9.5, 9.6, 10.05})}, o);
  EXPECT_EQ(c.rows[0].verdict, RowVerdict::kRegression);
  EXPECT_EQ(c.rows[1].verdict, RowVerdict::kWithinNoise);
  EXPECT_EQ(c.rows[2].verdict, RowVerdict::kWithinNoise);
  EXPECT_EQ(c.rows[3].verdict, RowVerdict::kUnchanged);
}

TEST(HistoryCompare, TheHistorysOwnRunsCalibrateItsTails) {
  // 20 rows x 5 runs: 100 leave-one-out tests, each run against the other four (3 df):
  // p = 0.9955, 0.1849, 0.1785, 0.5573, 0.5616, twenty times each. A current row at 8
  // (t-test p = 0.00021) counts as (1 + 0) / 101 = 0.0099: alone among 20 rows it is
  // beyond Benjamini-Hochberg's 0.05 / 20, so within noise; all 20 rows at 8 are
  // each <= 0.05 and all regress.
  CompareOptions o;
  o.threshold = 0.02;
  std::vector<double> one(20, 10.0);
  one[0] = 8.0;
  Comparison c = compare_to_history(five_runs(20), {"now", bandwidth_report(one)}, o);
  ASSERT_EQ(c.rows.size(), 20u);
  EXPECT_NEAR(*c.rows[0].p_value, 1.0 / 101, 1e-12);
  EXPECT_EQ(c.rows[0].verdict, RowVerdict::kWithinNoise);
  EXPECT_NE(c.rows[0].reason.find("in 0% of 100 tests: p = 0.0099"), std::string::npos) << c.rows[0].reason;
  Comparison all = compare_to_history(five_runs(20), {"now", bandwidth_report(std::vector<double>(20, 8.0))}, o);
  for (const ComparisonRow& r : all.rows) EXPECT_EQ(r.verdict, RowVerdict::kRegression) << r.reason;
  // The detection limit (rows moving together, each at p <= 0.05 after the calibration:
  // the t-test's own 0.05 here) is the one-row figure worked above.
  EXPECT_NEAR(*all.rows[0].detection_limit, 0.049271100520169205, 1e-7);
  // A row at 10.0 (t-test p 0.97): 80 of the 100 null p's are at or below it, so
  // max(0.97, 81 / 101) leaves it as the t-test gave it.
  EXPECT_GT(*c.rows[1].p_value, 0.9);
}

TEST(HistoryCompare, TheThresholdIsTheMinimumEffect) {
  // 9.5 against 10: -5.0%, significant alone (p 0.042) but inside a 6% threshold.
  CompareOptions o;
  o.threshold = 0.06;
  Comparison c = compare_to_history(five_runs(1), {"now", bandwidth_report({9.5})}, o);
  EXPECT_EQ(c.rows[0].verdict, RowVerdict::kUnchanged);
  EXPECT_DOUBLE_EQ(*c.rows[0].detection_limit, 0.06);
}

TEST(HistoryCompare, AHistoryTooShortJudgesNothing) {
  std::vector<LoadedRun> four = five_runs(1);
  four.pop_back();
  Comparison c = compare_to_history(four, {"now", bandwidth_report({5.0})}, CompareOptions{});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].verdict, RowVerdict::kNotJudged);
  EXPECT_EQ(c.rows[0].history_runs, 4);
  EXPECT_NE(c.rows[0].reason.find("judging needs 5"), std::string::npos) << c.rows[0].reason;
}

TEST(HistoryCompare, RowsInOneSideOnlyAreMissingNotJudged) {
  // The current run has a second size the history never measured, and lacks nothing.
  Comparison c = compare_to_history(five_runs(1), {"now", bandwidth_report({10.0, 20.0})}, CompareOptions{});
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.rows[1].verdict, RowVerdict::kMissingInBaseline);
  // The current run lacks the history's second size.
  std::vector<LoadedRun> two = history_of({{10, 20}, {10, 20}, {10, 20}, {10, 20}, {10, 20}});
  c = compare_to_history(two, {"now", bandwidth_report({10.0})}, CompareOptions{});
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_EQ(c.rows[1].verdict, RowVerdict::kMissingInCurrent);
}

TEST(HistoryCompare, WithinRunSamplesSplitTheSpread) {
  // Every run's 1 MiB point with 20 samples spread +-1% around its time: the within-run
  // variance of the mean log time is known, and the between share follows.
  std::vector<LoadedRun> runs = five_runs(1);
  for (LoadedRun& run : runs) {
    PlacementResult& pr = *run.report.sweeps[0].points[0].out_of_place;
    for (int i = 0; i < 20; ++i) pr.samples_us.push_back(pr.time_us * (1 + 0.01 * ((i % 2) ? 1 : -1)));
  }
  Comparison c = compare_to_history(runs, {"now", bandwidth_report({10.0})}, CompareOptions{});
  const ComparisonRow& r = c.rows[0];
  ASSERT_TRUE(r.within_run_sd);
  // Samples at t(1 +- 0.01): the log's variance is ((ln 1.01 - ln 0.99) / 2)^2 x 20/19 per
  // sample, over 20 for the mean: sd = 0.01000033 x sqrt(1/19) = 0.0022943.
  EXPECT_NEAR(*r.within_run_sd, 0.0022943, 1e-6);
  ASSERT_TRUE(r.between_run_sd && r.between_share);
  EXPECT_NEAR(*r.between_run_sd * *r.between_run_sd + *r.within_run_sd * *r.within_run_sd, 0.00025006543715966133,
              1e-9);  // the whole: the runs' sample variance
  EXPECT_GT(*r.between_share, 0.9);
}

TEST(HistoryCompare, RunsNotAlikeAreRefused) {
  std::vector<LoadedRun> runs = five_runs(1);
  LoadedRun other{"other.json", bandwidth_report({10.0}, "mpi")};
  Status s = check_runs_alike(runs, other);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("differ in backend (tcp against mpi)"), std::string::npos) << s.message();
  // The library may differ: what changed between nights is what a history is for.
  LoadedRun newer{"newer.json", bandwidth_report({10.0})};
  newer.report.context.backend_library = "fabscope engine 2";
  EXPECT_TRUE(check_runs_alike(runs, newer).ok());
  // Nothing in common: another collective only.
  LoadedRun bcast{"bcast.json", bandwidth_report({10.0})};
  bcast.report.sweeps[0].collective = "broadcast";
  s = check_runs_alike(runs, bcast);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("measures none of the rows"), std::string::npos) << s.message();
}

TEST(History, FindsTheStepAndNamesTheRun) {
  // Twelve runs at 10 (+-1%), then eight at 9 (-10%): the change is at the 13th run (index 12).
  RunSeries series;
  series.order = "command_line";
  const double wiggle[] = {1.0, 1.01, 0.99, 1.005, 0.995};
  for (int i = 0; i < 20; ++i) {
    const double level = i < 12 ? 10 : 9;
    series.runs.push_back(
        {"r" + std::to_string(i + 1), bandwidth_report({level * wiggle[i % 5], 10.0 * wiggle[i % 5]})});
  }
  HistorySection h = build_history(series, HistoryOptions{});
  ASSERT_EQ(h.rows.size(), 2u);
  ASSERT_EQ(h.rows[0].change_points.size(), 1u);
  const HistoryChange& c = h.rows[0].change_points[0];
  EXPECT_EQ(c.index, 12u);
  EXPECT_EQ(c.path, "r13");
  EXPECT_NEAR(c.step, -0.1, 0.01);
  EXPECT_TRUE(c.worse);
  EXPECT_LT(c.p_value, 0.001);
  EXPECT_TRUE(h.rows[1].change_points.empty());  // the second size never moved
  EXPECT_EQ(h.latest_change, 12u);
  EXPECT_EQ(h.rows[0].values.size(), 20u);
  // Since the change: 8 runs. The smallest step a new segment of 3 shows against them at
  // p < 0.001 is bounded below by nothing else: it is positive and finite.
  ASSERT_TRUE(h.rows[0].detection_limit);
  EXPECT_GT(*h.rows[0].detection_limit, 0);
  std::vector<Finding> f = history_findings(h);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "history.step_worse");
  EXPECT_NE(f[0].message.find("stepped worse at 1 MiB -10."), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("% from run 13 (r13)"), std::string::npos) << f[0].message;
}

}  // namespace
}  // namespace fabscope
