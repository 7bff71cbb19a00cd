// compare: the rank test against SciPy's figures, the crossover, and the comparison of
// reports built by hand: identical, one size slowed with its spread kept, a slowdown
// inside the noise, runs without samples or without spread, settings that differ, rows
// in one run only, p2p links and attribution; its findings.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/rank_test.h"
#include "core/stats.h"
#include "report/compare.h"
#include "report/report_json.h"

namespace fabscope {
namespace {

// Reference p-values: scipy.stats.mannwhitneyu(a, b, alternative="two-sided") (SciPy 1.10,
// method "exact" for the first two, "asymptotic" with continuity correction for the others).
TEST(RankTest, AgreesWithScipy) {
  const std::vector<double> a1 = {1.1, 2.3, 3.5, 4.2, 5.9}, b1 = {6.1, 7.4, 8.8, 2.0, 9.9, 10.5};
  RankTestResult r = mann_whitney_u(a1, b1);
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 4.0);
  EXPECT_NEAR(r.p_value, 0.05194805194805195, 1e-12);

  const std::vector<double> a2 = {10, 12, 11, 14, 13, 15, 9, 16}, b2 = {11.5, 12.5, 13.5, 10.5, 14.5, 9.5, 15.5, 8.5};
  r = mann_whitney_u(a2, b2);
  EXPECT_DOUBLE_EQ(r.u, 36.0);
  EXPECT_NEAR(r.p_value, 0.7209013209013208, 1e-12);

  const std::vector<double> a3 = {1, 2, 2, 3, 3, 3, 4, 5}, b3 = {3, 4, 4, 5, 5, 6, 6, 7, 8};
  r = mann_whitney_u(a3, b3);
  EXPECT_FALSE(r.exact);  // ties
  EXPECT_DOUBLE_EQ(r.u, 7.5);
  EXPECT_NEAR(r.p_value, 0.006373133838085873, 1e-9);

  std::vector<double> a4, b4;
  for (int i = 0; i < 30; ++i) a4.push_back(100 + std::fmod(i * 0.37, 5.0));
  for (int i = 0; i < 25; ++i) b4.push_back(101 + std::fmod(i * 0.53, 5.0));
  r = mann_whitney_u(a4, b4);
  EXPECT_FALSE(r.exact);  // 55 samples
  EXPECT_DOUBLE_EQ(r.u, 266.5);
  EXPECT_NEAR(r.p_value, 0.06791564316502899, 1e-9);

  EXPECT_NEAR(mann_whitney_min_p(20, 20), 1.4508889103849684e-11, 1e-20);
  EXPECT_GT(mann_whitney_min_p(2, 2), 0.05);  // two repeats each can never decide at 0.05
  EXPECT_EQ(mann_whitney_u({}, b1).p_value, 1.0);
  const std::vector<double> same = {5, 5, 5};
  EXPECT_EQ(mann_whitney_u(same, same).p_value, 1.0);
}

// An allreduce sweep over 4 ranks from 1 KiB to 16 MiB (factor 4), with 20 samples per
// point around a time that grows with the size; `noise` is the samples' relative spread.
Report sweep_report(const std::string& backend = "tcp", int nranks = 4, double noise = 0.02) {
  Report r;
  r.context.tool = {"fabscope", "0.1.0", "abc"};
  r.context.backend = backend;
  r.context.backend_library = "fabscope engine";
  r.context.memory = "host";
  r.context.nranks = nranks;
  for (int i = 0; i < nranks; ++i) r.context.hosts.push_back("h" + std::to_string(i));
  r.sweep_settings = SweepSettings{1024, 16u << 20, 0, 4, 20, 1, 1, "mean", 1};
  Sweep s;
  s.collective = "allreduce";
  s.dtype = "float";
  s.op = "sum";
  s.backend = backend;
  s.nranks = nranks;
  s.busbw_factor = 1.5;
  for (uint64_t size = 1024; size <= (16u << 20); size *= 4) {
    SweepPoint p;
    p.size_bytes = size;
    p.count = size / 4;
    PlacementResult pr;
    pr.time_us = 50 + static_cast<double>(size) / 1000.0;  // 50 us latency, 1 GB/s
    pr.iterations = 20;
    for (int i = 0; i < 20; ++i) pr.samples_us.push_back(pr.time_us * (1 + noise * ((i * 7) % 20 - 9.5) / 10));
    Summary sum = summarize(pr.samples_us);
    pr.iteration_us = TimeStats{sum.min, sum.median, sum.mean, sum.max, sum.p99};
    pr.algbw_gbps = static_cast<double>(size) / pr.time_us / 1e3;
    pr.busbw_gbps = pr.algbw_gbps * 1.5;
    p.out_of_place = pr;
    p.in_place = pr;
    s.points.push_back(p);
  }
  r.sweeps.push_back(s);
  return r;
}

// Slows one point's placement by `factor`, samples and all.
void slow(Report& r, uint64_t size, double factor, const char* placement = "out_of_place") {
  for (SweepPoint& p : r.sweeps[0].points) {
    if (p.size_bytes != size) continue;
    PlacementResult& pr = std::string(placement) == "in_place" ? *p.in_place : *p.out_of_place;
    pr.time_us *= factor;
    pr.algbw_gbps /= factor;
    pr.busbw_gbps /= factor;
    for (double& v : pr.samples_us) v *= factor;
    TimeStats& t = *pr.iteration_us;
    t = {t.min_us * factor, t.median_us * factor, t.mean_us * factor, t.max_us * factor, t.p99_us * factor};
  }
}

std::vector<const ComparisonRow*> with_verdict(const Comparison& c, std::string_view verdict) {
  std::vector<const ComparisonRow*> out;
  for (const ComparisonRow& r : c.rows) {
    if (name(r.verdict) == verdict) out.push_back(&r);
  }
  return out;
}

TEST(Compare, IdenticalReportsAreUnchanged) {
  Report r = sweep_report();
  Comparison c = compare_reports(r, r, {});
  EXPECT_EQ(c.rows.size(), 2u * 8u);  // 1 KiB to 16 MiB by 4, both placements
  EXPECT_EQ(with_verdict(c, "unchanged").size(), c.rows.size());
  EXPECT_TRUE(c.differences.empty());
  EXPECT_TRUE(comparison_findings(c).empty());
}

TEST(Compare, OneSlowedSizeIsExactlyOneRegression) {
  Report base = sweep_report(), cur = sweep_report();
  slow(cur, 1u << 20, 1.2);
  Comparison c = compare_reports(base, cur, {});
  auto reg = with_verdict(c, "regression");
  ASSERT_EQ(reg.size(), 1u);
  EXPECT_EQ(reg[0]->size_bytes, 1u << 20);
  EXPECT_EQ(reg[0]->placement, Placement::kOutOfPlace);
  EXPECT_EQ(name(reg[0]->test), "mann_whitney_u");
  EXPECT_LT(*reg[0]->p_value, 1e-6);
  EXPECT_EQ(name(reg[0]->metric), "busbw_gbps");  // 1 MiB is above this sweep's n1/2
  EXPECT_NEAR(*reg[0]->change, 1 / 1.2 - 1, 1e-9);
  EXPECT_EQ(with_verdict(c, "unchanged").size(), c.rows.size() - 1);
  std::vector<Finding> f = comparison_findings(c);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "compare.regression");
  EXPECT_EQ(f[0].severity, Severity::kError);
  EXPECT_NE(f[0].message.find("allreduce"), std::string::npos);
  EXPECT_NE(f[0].message.find("1 MiB"), std::string::npos) << f[0].message;
}

TEST(Compare, SmallSizesAreJudgedOnTime) {
  Report base = sweep_report(), cur = sweep_report();
  slow(cur, 1024, 1.3);
  Comparison c = compare_reports(base, cur, {});
  auto reg = with_verdict(c, "regression");
  ASSERT_EQ(reg.size(), 1u);
  EXPECT_EQ(name(reg[0]->metric), "time_us");
  EXPECT_FALSE(reg[0]->higher_is_better);
  EXPECT_NEAR(*reg[0]->change, 0.3, 1e-9);
  // n1/2: 1 GB/s peak at 16 MiB; half is first reached at 64 KiB (65536 / 115.5 us).
  EXPECT_EQ(half_bandwidth_size(base.sweeps[0]), 64u << 10);
  CompareOptions all_bandwidth;
  all_bandwidth.crossover_bytes = 0;
  Comparison c2 = compare_reports(base, cur, all_bandwidth);
  EXPECT_EQ(name(with_verdict(c2, "regression")[0]->metric), "busbw_gbps");
}

TEST(Compare, ImprovementIsInfo) {
  Report base = sweep_report(), cur = sweep_report();
  slow(cur, 4u << 20, 0.7, "in_place");
  Comparison c = compare_reports(base, cur, {});
  ASSERT_EQ(with_verdict(c, "improvement").size(), 1u);
  std::vector<Finding> f = comparison_findings(c);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "compare.improvement");
  EXPECT_EQ(f[0].severity, Severity::kInfo);
}

TEST(Compare, ASlowdownOfTheMeanByOneHiccupIsWithinNoise) {
  // The loop time rose 20%, but only because one iteration of twenty stalled: the
  // iterations' distributions are the same.
  Report base = sweep_report(), cur = sweep_report();
  PlacementResult& pr = *cur.sweeps[0].points[3].out_of_place;
  pr.time_us *= 1.2;
  pr.busbw_gbps /= 1.2;
  pr.algbw_gbps /= 1.2;
  pr.samples_us[7] *= 5;
  Comparison c = compare_reports(base, cur, {});
  auto noisy = with_verdict(c, "within_noise");
  ASSERT_EQ(noisy.size(), 1u);
  EXPECT_EQ(name(noisy[0]->test), "mann_whitney_u");
  EXPECT_GT(*noisy[0]->p_value, 0.5);
  EXPECT_TRUE(with_verdict(c, "regression").empty());
  EXPECT_TRUE(comparison_findings(c).empty());
}

TEST(Compare, WithoutSamplesTheSpreadDecides) {
  for (double noise : {0.02, 0.6}) {
    Report base = sweep_report("tcp", 4, noise), cur = sweep_report("tcp", 4, noise);
    for (Report* r : {&base, &cur}) {
      for (SweepPoint& p : r->sweeps[0].points) {
        p.out_of_place->samples_us.clear();
        p.in_place->samples_us.clear();
      }
    }
    slow(cur, 16u << 20, 1.2);
    Comparison c = compare_reports(base, cur, {});
    const ComparisonRow* row = nullptr;
    for (const ComparisonRow& r : c.rows) {
      if (r.size_bytes == (16u << 20) && r.placement == Placement::kOutOfPlace) row = &r;
    }
    ASSERT_TRUE(row);
    EXPECT_EQ(name(row->test), "spread");
    EXPECT_EQ(row->verdict, noise < 0.1 ? RowVerdict::kRegression : RowVerdict::kWithinNoise) << row->reason;
  }
}

TEST(Compare, WithoutSpreadTheThresholdAloneDecidesAndSaysSo) {
  Report base = sweep_report(), cur = sweep_report();
  for (SweepPoint& p : base.sweeps[0].points) {
    p.out_of_place->samples_us.clear();
    p.out_of_place->iteration_us.reset();
  }
  slow(cur, 16u << 20, 1.2);
  Comparison c = compare_reports(base, cur, {});
  auto reg = with_verdict(c, "regression");
  ASSERT_EQ(reg.size(), 1u);
  EXPECT_EQ(name(reg[0]->test), "threshold");
  EXPECT_NE(reg[0]->reason.find("baseline report carries no spread"), std::string::npos) << reg[0]->reason;
  CompareOptions loose;
  loose.threshold = 0.25;
  EXPECT_TRUE(with_verdict(compare_reports(base, cur, loose), "regression").empty());
}

TEST(Compare, SettingsThatDifferAreStatedAndRowsStillMatch) {
  Report base = sweep_report("tcp", 4), cur = sweep_report("mpi", 8);
  cur.sweep_settings->blocking = 1;
  Comparison c = compare_reports(base, cur, {});
  std::vector<std::string> settings;
  for (const SettingDifference& d : c.differences) settings.push_back(d.setting);
  for (const char* s : {"backend", "ranks", "hosts", "-z blocking"}) {
    EXPECT_NE(std::find(settings.begin(), settings.end(), s), settings.end()) << s;
  }
  EXPECT_EQ(with_verdict(c, "unchanged").size(), c.rows.size());  // matched despite backend and ranks
  std::vector<Finding> f = comparison_findings(c);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "compare.settings_differ");
  EXPECT_NE(f[0].message.find("backend: tcp -> mpi"), std::string::npos) << f[0].message;
}

TEST(Compare, RowsInOneRunOnlyAreListed) {
  Report base = sweep_report(), cur = sweep_report();
  cur.sweeps[0].points.pop_back();           // 16 MiB gone
  cur.sweeps[0].points[0].in_place.reset();  // 1 KiB in-place gone
  Sweep extra = cur.sweeps[0];
  extra.collective = "allgather";
  cur.sweeps.push_back(extra);
  Comparison c = compare_reports(base, cur, {});
  EXPECT_EQ(with_verdict(c, "missing_in_current").size(), 3u);
  EXPECT_EQ(with_verdict(c, "missing_in_baseline").size(), extra.points.size() * 2 - 1);
  std::vector<Finding> f = comparison_findings(c);
  for (const Finding& x : f) EXPECT_EQ(x.code, "compare.missing");
  EXPECT_EQ(f.size(), 4u);  // oop and in-place missing now; allgather oop and in-place new
}

TEST(Compare, P2pLinksMatchByRanksAndHosts) {
  auto p2p_report = [](double slow_factor) {
    Report r;
    r.context.backend = "tcp";
    r.context.nranks = 2;
    r.context.hosts = {"a", "b"};
    r.p2p.emplace();
    r.p2p->pattern = P2pPattern::kPairs;
    r.p2p->mode = P2pMode::kBandwidth;
    r.p2p->backend = "tcp";
    r.p2p->window = 16;
    r.p2p->warmup_iters = 2;
    r.p2p->repeats = 10;
    for (int rep = 0; rep < 10; ++rep) {
      for (int dir = 0; dir < 2; ++dir) {
        P2pLink l;
        l.repeat = rep;
        l.src_rank = dir;
        l.dst_rank = 1 - dir;
        l.src_host = dir ? "b" : "a";
        l.dst_host = dir ? "a" : "b";
        l.size_bytes = 1 << 20;
        l.iterations = 100;
        l.bw_gbps = (10.0 + 0.01 * rep) / (dir ? slow_factor : 1);
        r.p2p->links.push_back(l);
      }
    }
    return r;
  };
  Comparison c = compare_reports(p2p_report(1), p2p_report(1.5), {});
  ASSERT_EQ(c.rows.size(), 2u);
  auto reg = with_verdict(c, "regression");
  ASSERT_EQ(reg.size(), 1u);
  EXPECT_EQ(name(reg[0]->section), "p2p");
  EXPECT_EQ(name(reg[0]->metric), "bw_gbps");
  EXPECT_EQ(name(reg[0]->test), "mann_whitney_u");
  EXPECT_NE(reg[0]->subject.find("b -> a"), std::string::npos) << reg[0]->subject;
}

TEST(Compare, AttributionNamesACauseThatGrew) {
  auto diag = [](double link_share) {
    Report r;
    r.context.backend = "tcp";
    Attribution a;
    a.collective = "allreduce";
    a.size_bytes = 16u << 20;
    a.measured_us = 1000;
    a.ideal_us = 600;
    a.excess_us = 400;
    a.entries.push_back({AttributionKind::kLink, "h1 -> h2", {"h1", "h2"}, {1, 2}, link_share, 400 * link_share, {}});
    a.entries.push_back({AttributionKind::kUnexplained, "", {}, {}, 1 - link_share, 400 * (1 - link_share), {}});
    r.attribution.push_back(a);
    return r;
  };
  Comparison c = compare_reports(diag(0.1), diag(0.9), {});
  auto reg = with_verdict(c, "regression");
  ASSERT_EQ(reg.size(), 1u);
  EXPECT_EQ(name(reg[0]->metric), "share");
  EXPECT_NE(reg[0]->subject.find("link h1 -> h2"), std::string::npos);
  EXPECT_NEAR(*reg[0]->change, 0.32, 1e-9);  // 4% -> 36% of the measured time
  EXPECT_EQ(format_change(*reg[0]), "+32.0 pts");
  EXPECT_EQ(with_verdict(c, "improvement").size(), 1u);  // unexplained shrank
}

TEST(Compare, ComparisonRoundTripsThroughJson) {
  Report base = sweep_report(), cur = sweep_report();
  slow(cur, 1u << 20, 1.2);
  Report out;
  out.context = base.context;
  out.context.start_time = "2026-11-23T10:00:00Z";
  out.context.end_time = "2026-11-23T10:00:01Z";
  out.context.command_line = {"fabscope", "compare", "a.json", "b.json"};
  out.comparison = compare_reports(base, cur, {});
  out.findings = comparison_findings(*out.comparison);
  decide_verdict(out);
  EXPECT_EQ(name(out.verdict.result), "fail");
  auto back = report_from_json_text(to_json_text(out), "cmp.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(to_json_text(*back), to_json_text(out));
  ASSERT_TRUE(back->comparison);
  EXPECT_EQ(back->comparison->rows.size(), out.comparison->rows.size());
}

}  // namespace
}  // namespace fabscope
