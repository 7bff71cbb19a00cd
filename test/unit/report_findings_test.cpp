#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "diag/findings.h"
#include "report/report.h"

namespace fabscope {
namespace {

Report with_points(std::vector<std::optional<PlacementResult>> placements) {
  Report r;
  r.context.ranks = {{0, "a", 1, 0}, {1, "a", 2, 1}, {2, "b", 3, 0}};
  Sweep s;
  s.collective = "allgather";
  s.dtype = "int8";
  for (size_t i = 0; i < placements.size(); ++i) {
    SweepPoint p;
    p.size_bytes = 1024 * (i + 1);
    p.out_of_place = placements[i];
    s.points.push_back(p);
  }
  r.sweeps.push_back(s);
  return r;
}

PlacementResult checked(int64_t wrong, std::vector<int> ranks) {
  PlacementResult p;
  p.wrong = wrong;
  p.wrong_ranks = std::move(ranks);
  return p;
}

TEST(Findings, CleanRunPasses) {
  Report r = with_points({checked(0, {}), checked(0, {})});
  add_sweep_findings(r);
  decide_verdict(r);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(name(r.verdict.result), "pass");
}

TEST(Findings, UncheckedResultsAreNotCounted) {
  PlacementResult unchecked;
  Report r = with_points({unchecked});
  add_sweep_findings(r);
  decide_verdict(r);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(name(r.verdict.result), "pass");
}

TEST(Findings, OneFindingPerRankWithWrongData) {
  Report r = with_points({checked(0, {}), checked(5, {2}), checked(9, {1, 2})});
  add_sweep_findings(r);
  decide_verdict(r);
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].code, "sweep.wrong_results");
  EXPECT_EQ(r.findings[0].severity, Severity::kError);
  EXPECT_EQ(r.findings[0].subject, "rank 1 on a");
  EXPECT_EQ(r.findings[1].subject, "rank 2 on b");
  const auto& ev = r.findings[1].evidence;
  EXPECT_EQ(ev["failed_checks"], 2);
  EXPECT_EQ(ev["checked"], 3);
  EXPECT_EQ(ev["first"]["size_bytes"], 2048);
  EXPECT_EQ(ev["first"]["wrong_total"], 5);
  EXPECT_EQ(name(r.verdict.result), "fail");
  EXPECT_EQ(r.verdict.failed_codes, std::vector<std::string>{"sweep.wrong_results"});
  // The ranks' hosts are implicated, and drained.
  EXPECT_EQ(r.findings[1].hosts, std::vector<std::string>{"b"});
  EXPECT_EQ(r.verdict.drain, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r.verdict.drain_hostlist, "a,b");
}

TEST(Verdict, DrainsTheHostsOfErrorFindingsOnly) {
  Report r;
  r.findings.push_back({"x.error", Severity::kError, "link", {"node07", "node03"}, "m", "h", {}});
  r.findings.push_back({"x.error2", Severity::kError, "host", {"node08"}, "m", "h", {}});
  r.findings.push_back({"x.warning", Severity::kWarning, "host", {"node11"}, "m", "h", {}});
  r.findings.push_back({"x.info", Severity::kInfo, "host", {"node12"}, "m", "h", {}});
  decide_verdict(r);
  EXPECT_EQ(name(r.verdict.result), "fail");
  EXPECT_EQ(r.verdict.drain, (std::vector<std::string>{"node03", "node07", "node08"}));
  EXPECT_EQ(r.verdict.drain_hostlist, "node[03,07-08]");
  r.findings.resize(2);
  r.findings[0].severity = r.findings[1].severity = Severity::kWarning;
  decide_verdict(r);
  EXPECT_EQ(name(r.verdict.result), "pass");
  EXPECT_TRUE(r.verdict.drain.empty());
  EXPECT_EQ(r.verdict.drain_hostlist, "");
}

// tcp.idle_restart: the kernel's restarts named, with their cost, from 2% of the time in
// the engine's calls; cheaper ones, none, or none watched say nothing. The verdict passes.
TEST(Findings, TcpIdleRestartsCostingTwoPercentOrMoreAreNamed) {
  Report r = with_points({checked(0, {})});
  TcpIdleRestartSummary t;
  t.watched = true;
  t.idle_sends = 1694;
  t.restarts = 1693;
  t.cwnd_before_segments = 454.7;
  t.cwnd_after_segments = 209.4;
  t.estimated_cost_s = 6.14;
  t.busy_s = 121.0;  // 5.1%, as at 8 hosts x 250 Mbit/s all-to-all
  r.context.tcp_idle_restarts = t;
  add_sweep_findings(r);
  decide_verdict(r);
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.code, "tcp.idle_restart");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_NE(f.message.find("net.ipv4.tcp_slow_start_after_idle=1"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("455 to 209 segments"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("about 5%"), std::string::npos) << f.message;
  EXPECT_NE(f.hint.find("tcp_slow_start_after_idle=0"), std::string::npos);
  EXPECT_EQ(f.evidence.at("restarts"), 1693);
  EXPECT_EQ(name(r.verdict.result), "pass");

  for (double cost : {0.0, 2.0}) {  // 0% and 1.7%: below the bar
    Report quiet = with_points({checked(0, {})});
    t.estimated_cost_s = cost;
    quiet.context.tcp_idle_restarts = t;
    add_sweep_findings(quiet);
    EXPECT_TRUE(quiet.findings.empty()) << cost;
  }
  Report none = with_points({checked(0, {})});
  t.restarts = 0;
  t.estimated_cost_s = 6.14;
  none.context.tcp_idle_restarts = t;
  add_sweep_findings(none);
  EXPECT_TRUE(none.findings.empty());
}

}  // namespace
}  // namespace fabscope
