// The stall rule on recorded series (test/fixtures/stall), the timeline's aggregates,
// and the sweep.stall, link.flap and run.interrupted findings on hand-built reports.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "core/sizes.h"
#include "diag/findings.h"
#include "diag/rules.h"
#include "diag/stall.h"
#include "report/nccl_tests_parse.h"
#include "report/report_json.h"
#include "report/table.h"
#include "report/timeline_text.h"
#include "soak/timeline.h"

namespace fabscope {
namespace {

struct Series {
  std::string name;
  std::vector<double> samples_us;
};

std::vector<Series> healthy_series() {
  std::ifstream in(std::string(FABSCOPE_FIXTURES) + "/stall/healthy_4ranks_2cores.json");
  const auto doc = nlohmann::json::parse(in);
  std::vector<Series> out;
  for (const auto& s : doc.at("series")) {
    out.push_back({s.at("backend").get<std::string>() + " " + s.at("collective").get<std::string>() + " " +
                       std::to_string(s.at("size_bytes").get<uint64_t>()) + " " + s.at("placement").get<std::string>(),
                   s.at("samples_us").get<std::vector<double>>()});
  }
  return out;
}

TEST(StallRule, NoStallOnTheHealthySeriesOfThisMachine) {
  const auto all = healthy_series();
  ASSERT_EQ(all.size(), 56u);
  size_t without_min_excess = 0;
  for (const Series& s : all) {
    ASSERT_EQ(s.samples_us.size(), 500u) << s.name;
    const StallBound b = stall_bound(s.samples_us, kStallMinExcessMs * 1e3);
    EXPECT_GT(b.threshold_us, b.median_us) << s.name;
    EXPECT_TRUE(stalled_iterations(s.samples_us, b).empty()) << s.name << " median " << b.median_us;
    // Without the least excess, scheduler hiccups of a few milliseconds on this 2-core
    // machine (up to 46x a small point's median) would be called stalls: the reason it exists.
    without_min_excess += stalled_iterations(s.samples_us, stall_bound(s.samples_us, 0)).size();
  }
  EXPECT_GT(without_min_excess, 0u);
}

TEST(StallRule, ALinkLossInAHealthySeriesIsFound) {
  // The case: an 8 MiB-like point of a healthy tcp series, one iteration 4.06 s.
  for (const Series& s : healthy_series()) {
    if (s.name != "tcp allreduce 2097152 in_place") continue;
    std::vector<double> v = s.samples_us;
    v[117] = 4.06e6;
    const StallBound b = stall_bound(v, kStallMinExcessMs * 1e3);
    EXPECT_EQ(stalled_iterations(v, b), std::vector<size_t>{117});
    EXPECT_NEAR(b.median_us, 5142, 300);
    EXPECT_GE(b.threshold_us, 10 * b.median_us);
    // 150 ms over a 5 ms median is a stall too; 80 ms is not (under --stall-ms 100).
    v[117] = b.median_us + 150e3;
    v[300] = b.median_us + 80e3;
    EXPECT_EQ(stalled_iterations(v, stall_bound(v, kStallMinExcessMs * 1e3)), std::vector<size_t>{117});
    return;
  }
  FAIL() << "series not in the fixture";
}

TEST(StallRule, TooFewIterationsAreNotJudged) {
  const std::vector<double> four = {10, 10, 10, 5e6};
  EXPECT_EQ(stall_bound(four, 0).threshold_us, 0);
  EXPECT_TRUE(stalled_iterations(four, stall_bound(four, 0)).empty());
  const std::vector<double> five = {10, 11, 10, 12, 5e6};
  EXPECT_EQ(stalled_iterations(five, stall_bound(five, 0)), std::vector<size_t>{4});
}

TEST(StallRule, LateRanksAreThoseTheOthersWaitedFor) {
  // 3 ranks x 2 iterations, rank-major: in iteration 1 rank 2 took 0.1 s where the
  // others waited 4 s for it; in iteration 0 all waited alike.
  const std::vector<double> per_rank = {4e6, 4e6, 4e6, 4.1e6, 3.9e6, 1e5};
  EXPECT_TRUE(late_ranks(per_rank, 2, 0).empty());
  EXPECT_EQ(late_ranks(per_rank, 2, 1), std::vector<int>{2});
  EXPECT_TRUE(late_ranks(per_rank, 2, 5).empty());
}

Sweep allreduce_sweep() {
  Sweep s;
  s.collective = "allreduce";
  s.dtype = "float";
  s.op = "sum";
  s.nranks = 4;
  return s;
}

PlacementResult placement(double time_us, double busbw, std::vector<double> samples) {
  PlacementResult r;
  r.time_us = time_us;
  r.busbw_gbps = busbw;
  r.iterations = static_cast<int>(samples.size());
  r.samples_us = std::move(samples);
  return r;
}

TEST(Timeline, AnIntervalAggregatesItsCyclesPerPoint) {
  TimelineBuilder b;
  EXPECT_FALSE(b.is_open());
  b.open(0);
  const Sweep s = allreduce_sweep();
  SweepPoint p;
  p.size_bytes = 1 << 20;
  // Two cycles of the same point: 100 us then 300 us per iteration (busbw 1.5 then 0.5).
  b.add(s, p, false, placement(100, 1.5, {90, 100, 110, 100}));
  b.add(s, p, false, placement(300, 0.5, {300, 300, 300, 300}));
  b.add(s, p, true, placement(100, 1.5, {100, 100, 100, 100}));
  StallEvent e;
  e.collective = "allreduce";
  e.dtype = "float";
  e.op = "sum";
  e.size_bytes = 1 << 20;
  e.placement = Placement::kOutOfPlace;
  b.add_stall(e);
  EXPECT_EQ(b.latest().what, "allreduce 1 MiB");
  TimelineInterval iv = b.close(2, {});
  EXPECT_FALSE(b.is_open());
  EXPECT_EQ(iv.index, 0);
  EXPECT_EQ(iv.cycles, 2);
  ASSERT_EQ(iv.points.size(), 2u);
  const TimelinePoint& oop = iv.points[0];
  EXPECT_EQ(name(oop.placement), "out_of_place");
  EXPECT_EQ(oop.iterations, 8);
  EXPECT_DOUBLE_EQ(oop.time_us, 200);      // the loops' time over their iterations
  EXPECT_DOUBLE_EQ(oop.busbw_gbps, 0.75);  // the bandwidth of that time
  EXPECT_DOUBLE_EQ(oop.max_us, 300);
  EXPECT_DOUBLE_EQ(oop.median_us, 205);  // of 90 100 100 110 300 300 300 300
  EXPECT_EQ(oop.stalls, 1);
  EXPECT_EQ(iv.points[1].stalls, 0);
  b.open(2);
  b.add(s, p, false, placement(100, 1.5, {100}));
  TimelineInterval next = b.close(1, {});
  EXPECT_EQ(next.index, 1);
  EXPECT_EQ(next.first_cycle, 2);
  ASSERT_EQ(next.points.size(), 1u);  // a closed interval's samples are gone
  EXPECT_EQ(next.points[0].iterations, 1);
}

TEST(Timeline, FoldingPairsKeepsWhatAddsUp) {
  std::vector<TimelineInterval> ivs(5);
  for (int i = 0; i < 5; ++i) {
    TimelineInterval& iv = ivs[static_cast<size_t>(i)];
    iv.index = i;
    iv.cycles = 2;
    iv.seconds = 10;
    iv.start = fmt::format("s{}", i);
    iv.end = fmt::format("e{}", i);
    // 100 us per iteration in even intervals, 300 in odd ones; busbw 3 and 1.
    const double t = i % 2 ? 300 : 100;
    iv.points.push_back({"allreduce", "float", std::string("sum"), 8, Placement::kInPlace, 10, t, 300 / t, t, t + 1,
                         t + 2, i == 1 ? 1 : 0});
    CounterSample h;
    h.host = "h0";
    h.duration_s = 10;
    h.interfaces.push_back({"eth0", {{"carrier_changes", static_cast<uint64_t>(i)}, {"rx_bytes", 100}}, {}});
    iv.hosts.push_back(h);
  }
  fold_intervals(ivs);
  ASSERT_EQ(ivs.size(), 3u);
  EXPECT_EQ(ivs[1].index, 1);
  EXPECT_EQ(ivs[0].start, "s0");
  EXPECT_EQ(ivs[0].end, "e1");
  EXPECT_EQ(ivs[0].cycles, 4);
  EXPECT_DOUBLE_EQ(ivs[0].seconds, 20);
  const TimelinePoint& p = ivs[0].points[0];
  EXPECT_EQ(p.iterations, 20);
  EXPECT_DOUBLE_EQ(p.time_us, 200);
  EXPECT_DOUBLE_EQ(p.busbw_gbps, 1.5);
  EXPECT_DOUBLE_EQ(p.median_us, 200);
  EXPECT_DOUBLE_EQ(p.p99_us, 301);
  EXPECT_DOUBLE_EQ(p.max_us, 302);
  EXPECT_EQ(p.stalls, 1);
  EXPECT_EQ(ivs[0].hosts[0].interfaces[0].deltas.at("carrier_changes"), 1u);
  EXPECT_EQ(ivs[0].hosts[0].interfaces[0].deltas.at("rx_bytes"), 200u);
  EXPECT_EQ(ivs[2].cycles, 2);  // the odd one out stays as it was
  EXPECT_EQ(ivs[2].index, 2);
}

LinkRecord flapped_link(const std::string& host, double down_at, double up_at) {
  LinkRecord l;
  l.host = host;
  l.link = "eth0";
  l.up_at_start = l.up_at_end = true;
  l.flaps = 1;
  l.downtime_s = up_at - down_at;
  l.edges = {{"d", down_at, false, false}, {"u", up_at, true, false}};
  l.counter_deltas = {{"carrier_changes", 2}};
  return l;
}

Report soak_report() {
  Report r;
  r.context.ranks = {{0, "h0"}, {1, "h1"}, {2, "h2"}, {3, "h3"}};
  r.timeline = Timeline{};
  StallEvent e;
  e.collective = "allreduce";
  e.dtype = "float";
  e.op = "sum";
  e.size_bytes = 8 << 20;
  e.placement = Placement::kInPlace;
  e.cycle = 3;
  e.iteration = 117;
  e.time = "2026-11-26T04:20:31.000Z";
  e.start_unix_s = 1000;
  e.duration_us = 4.06e6;
  e.median_us = 16.8e3;
  e.threshold_us = 168e3;
  r.timeline->stalls.push_back(e);
  return r;
}

std::vector<const Finding*> with_code(const Report& r, const std::string& code) {
  std::vector<const Finding*> out;
  for (const Finding& f : r.findings) {
    if (f.code == code) out.push_back(&f);
  }
  return out;
}

TEST(StallFindings, AStallDuringAFlapNamesTheLinkAndTheFlapFails) {
  Report r = soak_report();
  r.timeline->links.push_back(flapped_link("h2", 1000.5, 1003.5));
  LinkRecord quiet = flapped_link("h1", 0, 0);
  quiet.flaps = 0;
  quiet.edges.clear();
  quiet.downtime_s = 0;
  r.timeline->links.push_back(quiet);
  add_sweep_findings(r);
  const auto stalls = with_code(r, "sweep.stall");
  ASSERT_EQ(stalls.size(), 1u);
  EXPECT_EQ(stalls[0]->severity, Severity::kWarning);
  EXPECT_NE(stalls[0]->message.find("stalled 4.06 s at 2026-11-26T04:20:31.000Z while h2 eth0 was down 3.0 s"),
            std::string::npos)
      << stalls[0]->message;
  EXPECT_NE(stalls[0]->message.find("every rank waited alike"), std::string::npos);
  EXPECT_EQ(stalls[0]->hosts, std::vector<std::string>{"h2"});
  const auto flaps = with_code(r, "link.flap");
  ASSERT_EQ(flaps.size(), 1u);  // the quiet link is no finding
  EXPECT_EQ(flaps[0]->severity, Severity::kError);
  EXPECT_EQ(flaps[0]->subject, "h2 eth0");
  EXPECT_NE(flaps[0]->message.find("went down 1 time during the run, 3.0 s down in all"), std::string::npos);
  decide_verdict(r);
  EXPECT_EQ(name(r.verdict.result), "fail");
  EXPECT_EQ(r.verdict.drain, std::vector<std::string>{"h2"});
}

TEST(StallFindings, WhatTheRanksWaitedOnIsQuotedThoseOnTheDownLinksHostFirst) {
  Report r = soak_report();
  r.timeline->links.push_back(flapped_link("h2", 1000.5, 1003.5));
  r.timeline->stalls[0].waits = {
      "rank 0 (h0) waited for a 256 KiB receive from rank 3 (h3), open 2.9 s, over tcp 198.18.4.4:5000 (rank 3)",
      "rank 1 (h1) waited for a 256 KiB receive from rank 0 (h0), open 2.8 s, over tcp 198.18.4.1:5000 (rank 0)",
      "rank 3 (h3) waited for a 256 KiB receive from rank 2 (h2), open 3.0 s, over tcp 198.18.4.3:5000 (rank 2)",
      "rank 4 (h4) waited for a 8 B send to rank 5 (h5), open 0.3 s, over tcp 198.18.4.6:5000 (rank 5)",
      "rank 5 (h5) waited for a 8 B receive from rank 4 (h4), open 0.3 s, over tcp 198.18.4.5:5000 (rank 4)"};
  add_sweep_findings(r);
  const auto stalls = with_code(r, "sweep.stall");
  ASSERT_EQ(stalls.size(), 1u);
  const std::string& m = stalls[0]->message;
  // The wait on rank 2, whose host's link was down, first; then the others in rank order, four in all.
  EXPECT_NE(m.find("time was spent in the transfer); rank 3 (h3) waited for a 256 KiB receive from rank 2 (h2), "
                   "open 3.0 s, over tcp 198.18.4.3:5000 (rank 2), rank 0 (h0) waited for a 256 KiB receive from "
                   "rank 3 (h3), open 2.9 s, over tcp 198.18.4.4"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find(", rank 4 (h4) waited for a 8 B send to rank 5 (h5)"), std::string::npos) << m;
  EXPECT_NE(m.find(" and 1 more"), std::string::npos) << m;
  EXPECT_EQ(m.find("rank 5 (h5) waited"), std::string::npos) << m;
  EXPECT_EQ(stalls[0]->evidence.at("waits").size(), 5u);
  // The waits survive the report's JSON.
  auto back = report_from_json_text(to_json_text(r), "test");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->timeline->stalls[0].waits, r.timeline->stalls[0].waits);
}

TEST(StallFindings, ThresholdsSayWhatFails) {
  Report r = soak_report();
  r.timeline->stalls[0].late_ranks = {3};
  r.timeline->links.push_back(flapped_link("h2", 2000, 2001));  // not during the stall
  r.timeline->max_downtime_s = 5;
  r.timeline->max_stalls = 1;
  add_sweep_findings(r);
  ASSERT_EQ(with_code(r, "sweep.stall").size(), 1u);
  const Finding& stall = *with_code(r, "sweep.stall")[0];
  EXPECT_EQ(stall.severity, Severity::kWarning);  // 1 stall, 1 allowed
  EXPECT_EQ(stall.message.find("while"), std::string::npos);
  EXPECT_NE(stall.message.find("the others waited for rank 3 (h3)"), std::string::npos) << stall.message;
  EXPECT_EQ(stall.hosts, std::vector<std::string>{"h3"});
  EXPECT_EQ(with_code(r, "link.flap")[0]->severity, Severity::kWarning);  // 1 s of 5 allowed
  decide_verdict(r);
  EXPECT_EQ(name(r.verdict.result), "pass");

  Report over = soak_report();
  over.timeline->stalls.push_back(over.timeline->stalls[0]);
  over.timeline->max_stalls = 1;
  add_sweep_findings(over);
  for (const Finding* f : with_code(over, "sweep.stall")) {
    EXPECT_EQ(f->severity, Severity::kError);
    EXPECT_NE(f->message.find("2 stalls in the run, over the 1 allowed"), std::string::npos);
  }
}

TEST(StallFindings, ALinkStillDownAtTheEndCountsToTheEnd) {
  LinkRecord l = flapped_link("h1", 10, 0);
  l.edges.pop_back();
  l.up_at_end = false;
  const auto down = link_down_intervals(l, 25);
  ASSERT_EQ(down.size(), 1u);
  EXPECT_DOUBLE_EQ(down[0].to_unix_s - down[0].from_unix_s, 15);
  l.edges = {{"", 5, false, true}, {"", 5, true, true}};
  const auto brief = link_down_intervals(l, 25);
  ASSERT_EQ(brief.size(), 1u);
  EXPECT_TRUE(brief[0].inferred);
}

TEST(StallFindings, ARunEndedBySignalSaysSo) {
  Report r;
  r.timeline = Timeline{};
  r.timeline->run_cycles = 0;
  r.timeline->cycles_completed = 4;
  r.timeline->ended_by = "signal SIGTERM";
  add_sweep_findings(r);
  const auto f = with_code(r, "run.interrupted");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0]->message.find("ended by SIGTERM after 4 complete cycles"), std::string::npos) << f[0]->message;
  Report done;
  done.timeline = Timeline{};
  add_sweep_findings(done);
  EXPECT_TRUE(done.findings.empty());
}

TEST(Timeline, ItsJsonReadsBack) {
  Report r = soak_report();
  r.timeline->links.push_back(flapped_link("h2", 1000.5, 1003.5));
  r.timeline->duration_s = 60;
  r.timeline->max_stalls = 3;
  TimelineInterval iv;
  iv.points.push_back({"allreduce", "float", std::string("sum"), 8, Placement::kInPlace, 20, 5, 1, 4, 9, 10, 0});
  CounterSample h;
  h.host = "h2";
  h.interfaces.push_back({"eth0", {{"carrier_changes", 2}, {"rx_bytes", 100}}, {}});
  iv.hosts.push_back(h);
  r.timeline->intervals.push_back(iv);
  const std::string text = to_json_text(r);
  auto back = report_from_json_text(text, "test");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(to_json_text(*back), text);
  ASSERT_TRUE(back->timeline);
  EXPECT_EQ(back->timeline->stalls[0].iteration, 117);
  EXPECT_EQ(back->timeline->intervals[0].hosts[0].interfaces[0].deltas.at("carrier_changes"), 2u);
}

TEST(Timeline, TimestampedRowsReadBackAsNcclTestsRows) {
  Report r;
  r.sweep_settings = SweepSettings{};
  r.sweep_settings->report_timestamps = true;
  Sweep s = allreduce_sweep();
  SweepPoint p;
  p.size_bytes = 8;
  p.count = 2;
  p.time = "2026-11-26T04:20:31.123Z";
  p.out_of_place = placement(10, 0.001, {10});
  p.out_of_place->wrong = 0;
  p.out_of_place->near_floor = true;
  p.in_place = p.out_of_place;
  s.points.push_back(p);
  r.sweeps.push_back(s);
  const std::string text = render_tables(r);
  EXPECT_NE(text.find(" timestamp\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  2026-11-26T04:20:31.123Z  ~\n"), std::string::npos) << text;
  auto parsed = parse_nccl_tests_text(text, "table");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->size(), 1u);
  ASSERT_EQ((*parsed)[0].rows.size(), 1u);
  EXPECT_EQ((*parsed)[0].rows[0].timestamp.value_or(""), "2026-11-26T04:20:31.123Z");
}

TEST(Timeline, ALongRunsTableShowsItsEdgesAndItsStalls) {
  Report r;
  r.timeline = Timeline{};
  r.timeline->cycles_completed = 30;
  for (int i = 0; i < 30; ++i) {
    TimelineInterval iv;
    iv.index = i;
    iv.cycles = 1;
    iv.start = fmt::format("T{:02}", i);
    iv.points.push_back(
        {"allreduce", "float", std::string("sum"), 1 << 20, Placement::kInPlace, 20, 5, 1, 4, 9, 10, i == 10 ? 1 : 0});
    r.timeline->intervals.push_back(iv);
  }
  r.timeline->links.push_back(flapped_link("h2", 1000.5, 1003.5));
  const std::string text = render_timeline(r);
  EXPECT_NE(text.find("# Timeline: 30 cycles in 30 intervals"), std::string::npos) << text;
  for (const char* shown : {" T00 ", " T10 ", " T29 "}) EXPECT_NE(text.find(shown), std::string::npos) << shown;
  EXPECT_EQ(text.find(" T05 "), std::string::npos);
  EXPECT_NE(text.find("(9 intervals without a stall)"), std::string::npos) << text;
  EXPECT_NE(text.find("(18 intervals without a stall)"), std::string::npos) << text;
  EXPECT_NE(text.find("# Link h2 eth0: 1 flap, 3.0 s down: down d up u"), std::string::npos) << text;
  Report one;
  one.timeline = Timeline{};
  one.timeline->cycles_completed = 1;
  one.timeline->intervals.resize(1);
  EXPECT_EQ(render_timeline(one), "");  // a single cycle with no link event: nothing
}

TEST(Durations, SecondsAndUnits) {
  EXPECT_DOUBLE_EQ(*parse_duration_s("90", "--duration"), 90);
  EXPECT_DOUBLE_EQ(*parse_duration_s("90s", "--duration"), 90);
  EXPECT_DOUBLE_EQ(*parse_duration_s("30m", "--duration"), 1800);
  EXPECT_DOUBLE_EQ(*parse_duration_s("1.5h", "--duration"), 5400);
  EXPECT_DOUBLE_EQ(*parse_duration_s("1d", "--duration"), 86400);
  for (const char* bad : {"", "m", "-5", "0", "2x", "1e999", "0x10", "nan", "1 h"}) {
    auto d = parse_duration_s(bad, "--duration");
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_NE(d.status().message().find("--duration"), std::string::npos);
    EXPECT_NE(d.status().message().find(std::string("'") + bad + "'"), std::string::npos);
  }
}

}  // namespace
}  // namespace fabscope
