// The attribution arithmetic (diag/attribution.h) on reports built by hand: the ideal
// time at the median link, each cause's part, shares that add up to 1.
#include <gtest/gtest.h>

#include <map>
#include <numeric>

#include "diag/attribution.h"
#include "diag/findings.h"
#include "diag/link_trace.h"
#include "diag/rules.h"
#include "report/diagnosis_text.h"
#include "report/report_json.h"

namespace fabscope {
namespace {

constexpr uint64_t kSize = 64ull << 20;
constexpr double kFactor = 1.5;  // all-reduce over 4 ranks: 2(n-1)/n

// Four ranks on four hosts, an all-reduce at 64 MiB taking `time_us`, and a link matrix at
// 1 MiB where every link runs at 10 GB/s except those in `slow` (src, dst, GB/s).
Report make_report(double time_us, const std::vector<std::tuple<int, int, double>>& slow = {}) {
  Report r;
  for (int i = 0; i < 4; ++i) r.context.ranks.push_back({i, "h" + std::to_string(i), 100 + i, 0});
  Sweep s;
  s.collective = "allreduce";
  s.nranks = 4;
  s.busbw_factor = kFactor;
  SweepPoint p;
  p.size_bytes = kSize;
  PlacementResult pl;
  pl.time_us = time_us;
  pl.algbw_gbps = static_cast<double>(kSize) / 1e3 / time_us;
  pl.busbw_gbps = pl.algbw_gbps * kFactor;
  p.out_of_place = pl;
  s.points.push_back(p);
  r.sweeps.push_back(s);
  P2pSection links;
  links.mode = P2pMode::kBidirectional;
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) {
      if (a == b) continue;
      P2pLink l;
      l.src_rank = a;
      l.dst_rank = b;
      l.src_host = "h" + std::to_string(a);
      l.dst_host = "h" + std::to_string(b);
      l.size_bytes = 1 << 20;
      l.bw_gbps = 10.0;
      for (auto [sa, sb, bw] : slow) {
        if (sa == a && sb == b) l.bw_gbps = bw;
      }
      links.links.push_back(l);
    }
  }
  r.p2p = links;
  r.diagnosis = Diagnosis();
  r.diagnosis->link_size_bytes = 1 << 20;
  return r;
}

double ideal_us() { return static_cast<double>(kSize) * kFactor / 10e9 * 1e6; }

void expect_shares_add_up(const Attribution& a) {
  double sum = 0, us = 0;
  for (const AttributionEntry& e : a.entries) {
    EXPECT_GE(e.share, 0);
    sum += e.share;
    us += e.excess_us;
  }
  EXPECT_NEAR(sum, 1.0, 1e-9);
  EXPECT_NEAR(us, a.excess_us, 1e-6);
}

Finding finding(const std::string& code, std::vector<std::string> hosts, nlohmann::ordered_json evidence) {
  return {code, Severity::kError, "", std::move(hosts), "", "", std::move(evidence)};
}

TEST(Attribution, TheIdealTimeIsTheBusBandwidthAtTheMedianLink) {
  Report r = make_report(2 * ideal_us());
  attribute(r);
  ASSERT_EQ(r.attribution.size(), 1u);
  const Attribution& a = r.attribution[0];
  EXPECT_NEAR(a.ideal_us, ideal_us(), 1e-6);
  EXPECT_DOUBLE_EQ(a.link_rate_gbps, 10.0);
  EXPECT_NEAR(a.excess_us, ideal_us(), 1e-6);
  EXPECT_EQ(name(a.method), "link_matrix");
  EXPECT_EQ(a.model, "ring: 2(n-1)/n * S / B per rank");
  // Nothing flagged: the whole excess is unexplained.
  ASSERT_EQ(a.entries.size(), 1u);
  EXPECT_EQ(name(a.entries[0].kind), "unexplained");
  expect_shares_add_up(a);
}

TEST(Attribution, AtTheLinkRateThereIsNothingToSplit) {
  Report r = make_report(0.9 * ideal_us());
  attribute(r);
  ASSERT_EQ(r.attribution.size(), 1u);
  EXPECT_EQ(r.attribution[0].excess_us, 0);
  EXPECT_TRUE(r.attribution[0].entries.empty());
  EXPECT_NE(render_answer(r).find("ran at the link rate"), std::string::npos);
}

TEST(Attribution, AFlaggedSlowLinkOnTheRingTakesItsPart) {
  // Link 1 -> 2 at 1 GB/s: the ring's bound is 10x the ideal, 9 ideals of excess.
  Report r = make_report(11 * ideal_us(), {{1, 2, 1.0}, {2, 1, 1.0}});
  r.findings.push_back(finding("p2p.slow_link", {"h1", "h2"}, {{"src_rank", 1}, {"dst_rank", 2}}));
  r.findings.push_back(finding("p2p.slow_link", {"h2", "h1"}, {{"src_rank", 2}, {"dst_rank", 1}}));
  attribute(r);
  const Attribution& a = r.attribution.at(0);
  ASSERT_EQ(a.entries.size(), 2u);
  EXPECT_EQ(name(a.entries[0].kind), "link");
  EXPECT_EQ(a.entries[0].subject, "link 1 -> 2 (h1 -> h2)");
  EXPECT_EQ(a.entries[0].ranks, (std::vector<int>{1, 2}));
  EXPECT_EQ(a.entries[0].hosts, (std::vector<std::string>{"h1", "h2"}));
  EXPECT_NEAR(a.entries[0].excess_us, 9 * ideal_us(), 1e-6);
  EXPECT_NEAR(a.entries[0].share, 0.9, 1e-9);
  EXPECT_EQ(name(a.entries[1].kind), "unexplained");
  expect_shares_add_up(a);
  EXPECT_NE(render_answer(r).find("90% of the excess is link 1 -> 2 (h1 -> h2): 1.000 GB/s, 10.0x below"),
            std::string::npos)
      << render_answer(r);
  EXPECT_EQ(render_answer(r).find("also found"), std::string::npos) << render_answer(r);  // 2 -> 1: the same hosts
}

TEST(Attribution, AnUnflaggedSlowerLinkIsNotBlamed) {
  // 2 -> 3 at 8 GB/s is within healthy spread: no finding, so no entry.
  Report r = make_report(3 * ideal_us(), {{2, 3, 8.0}});
  attribute(r);
  ASSERT_EQ(r.attribution.at(0).entries.size(), 1u);
  EXPECT_EQ(name(r.attribution[0].entries[0].kind), "unexplained");
}

TEST(Attribution, ASlowLinkOffTheRingDoesNotBoundIt) {
  // 0 -> 2 is not a ring link (r -> r+1) of an all-reduce.
  Report r = make_report(3 * ideal_us(), {{0, 2, 1.0}});
  r.findings.push_back(finding("p2p.slow_link", {"h0", "h2"}, {{"src_rank", 0}, {"dst_rank", 2}}));
  r.findings.back().subject = "link 0 -> 2 (h0 -> h2)";
  attribute(r);
  EXPECT_EQ(name(r.attribution.at(0).entries.at(0).kind), "unexplained");
  // The answer still names the link it found, in its first lines, as off the path.
  EXPECT_NE(render_answer(r).find("also found: link 0 -> 2 (h0 -> h2) (p2p.slow_link; off the collective's path"),
            std::string::npos)
      << render_answer(r);
}

TEST(Attribution, ASlowHostIsNamedInsteadOfItsLink) {
  Report r = make_report(11 * ideal_us(), {{1, 2, 1.0}, {2, 3, 1.0}, {0, 2, 1.0}});
  r.findings.push_back(finding("p2p.slow_host", {"h2"}, {}));
  attribute(r);
  const Attribution& a = r.attribution.at(0);
  EXPECT_EQ(name(a.entries.at(0).kind), "host");
  EXPECT_EQ(a.entries[0].subject, "host h2");
  EXPECT_EQ(a.entries[0].hosts, (std::vector<std::string>{"h2"}));
  expect_shares_add_up(a);
}

TEST(Attribution, AStragglerHoldsItsWaitAndTheLinksAreSpared) {
  const double t = 3 * ideal_us();
  Report r = make_report(t);
  ArrivalSplit split;
  split.iterations = 20;
  split.span_us = t;
  RankArrival late;
  late.rank = 3;
  late.held_share = 0.4;
  late.last_count = 18;
  RankArrival quiet;
  quiet.rank = 1;
  quiet.held_share = 0.01;  // below kMinRankShare of the excess: not named
  split.ranks = {quiet, late};
  r.sweeps[0].points[0].out_of_place->arrivals = split;
  // Unflagged, the wait stays unexplained (a loaded machine delays ranks a little).
  attribute(r);
  EXPECT_EQ(name(r.attribution.at(0).entries.at(0).kind), "unexplained");
  Finding flagged = finding("rank.straggler", {"h3"}, {{"rank", 3}});
  flagged.severity = Severity::kWarning;
  r.findings.push_back(flagged);
  attribute(r);
  const Attribution& a = r.attribution.at(0);
  ASSERT_EQ(a.entries.size(), 2u);
  EXPECT_EQ(name(a.entries[0].kind), "rank");
  EXPECT_EQ(a.entries[0].subject, "rank 3 on h3");
  EXPECT_NEAR(a.entries[0].excess_us, 0.4 * t, 1e-6);
  EXPECT_NEAR(a.entries[0].share, 0.4 * t / (2 * ideal_us()), 1e-9);
  expect_shares_add_up(a);
}

// A rank stopped now and then (SIGSTOP from outside, a throttled CPU) holds the others
// longer in some runs than in others: the runs vary because of it, and that variance is its.
TEST(Attribution, AStragglersUnevenStallsAreItsNotNoise) {
  const double i = ideal_us();
  Report r = make_report(3 * i);  // the collective phase's run: the best
  ArrivalSplit split;
  split.iterations = 20;
  split.span_us = 3 * i;
  RankArrival late;
  late.rank = 3;
  late.held_share = 0.1;
  late.stalled_share = 0.5 / 3 - 0.1;  // 0.5 ideals of the 3 in all
  split.ranks = {late};
  r.sweeps[0].points[0].out_of_place->arrivals = split;
  Finding flagged = finding("rank.straggler", {"h3"}, {{"rank", 3}});
  flagged.severity = Severity::kWarning;
  r.findings.push_back(flagged);
  // The noise phase's two runs took 5 and 4 ideals: the median run is 4, 1 over the best.
  r.diagnosis->collective_noise.push_back({"allreduce", kSize, {3 * i, 5 * i, 4 * i}, 0.2, {}});
  attribute(r);
  {
    // Without each run's arrivals (reports before them): the rank holds what it held in the
    // collective phase's run, and the runs' spread is noise.
    const Attribution& a = r.attribution.at(0);
    ASSERT_EQ(a.entries.size(), 3u);
    EXPECT_EQ(name(a.entries[0].kind), "noise");  // the largest share first
    EXPECT_NEAR(a.entries[0].excess_us, 1.0 * i, 1e-6);
    EXPECT_EQ(name(a.entries[1].kind), "rank");
    EXPECT_NEAR(a.entries[1].excess_us, 0.5 * i, 1e-6);
    expect_shares_add_up(a);
  }
  // With them: rank 3 held 0.5, 2.5 and 1.4 ideals. In the median run it held 1.4, 0.9 more
  // than in the best: 0.9 of the runs' spread of 1 is the rank's, 0.1 is left to noise.
  r.diagnosis->collective_noise[0].held = {{3, {0.5 * i, 2.5 * i, 1.4 * i}}};
  attribute(r);
  const Attribution& a = r.attribution.at(0);
  ASSERT_EQ(a.entries.size(), 3u);
  EXPECT_EQ(name(a.entries[0].kind), "rank");
  EXPECT_EQ(a.entries[0].subject, "rank 3 on h3");
  EXPECT_NEAR(a.entries[0].excess_us, 1.4 * i, 1e-6);
  EXPECT_NEAR(a.entries[0].evidence["held_us_per_run"][1].get<double>(), 2.5 * i, 1e-6);
  EXPECT_EQ(name(a.entries[1].kind), "noise");
  EXPECT_NEAR(a.entries[1].excess_us, 0.1 * i, 1e-6);
  EXPECT_NEAR(a.entries[1].evidence["ranks_held_us"].get<double>(), 0.9 * i, 1e-6);
  EXPECT_EQ(name(a.entries[2].kind), "unexplained");
  EXPECT_NEAR(a.entries[2].excess_us, 1.5 * i, 1e-6);  // the best run's excess the rank did not hold
  expect_shares_add_up(a);
  const std::string answer = render_answer(r);
  EXPECT_NE(answer.find("47% of the excess is rank 3 on h3"), std::string::npos) << answer;
  EXPECT_NE(answer.find("in the runs, "), std::string::npos) << answer;
  EXPECT_NE(answer.find("by which the ranks named held the others longer than in the best run"), std::string::npos)
      << answer;
  // Where the rank held the others back by all of the runs' spread, no noise is left to name.
  r.diagnosis->collective_noise[0].held = {{3, {0.5 * i, 2.5 * i, 1.5 * i}}};
  attribute(r);
  for (const AttributionEntry& e : r.attribution.at(0).entries) EXPECT_NE(name(e.kind), "noise");
  expect_shares_add_up(r.attribution.at(0));
}

TEST(Attribution, TheRunsHeldAreTheRanksThatHeldSomeRun) {
  auto run = [](double span, std::vector<std::pair<int, double>> held) {
    ArrivalSplit s;
    s.span_us = span;
    for (auto [rank, us] : held) {
      RankArrival ra;
      ra.rank = rank;
      ra.held_share = us / span / 2;
      ra.stalled_share = us / span / 2;
      s.ranks.push_back(ra);
    }
    return std::optional<ArrivalSplit>(s);
  };
  // 1000 us runs: rank 2 held 5% or more of the second run only, rank 1 never did.
  const std::vector<double> t = {1000, 1000, 1000};
  const std::vector<std::optional<ArrivalSplit>> runs = {run(1000, {{1, 40}, {2, 10}}), run(1000, {{1, 30}, {2, 60}}),
                                                         run(1000, {{1, 20}})};
  const std::vector<RunsHeld> held = runs_held(t, runs);
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held[0].rank, 2);
  ASSERT_EQ(held[0].us.size(), 3u);
  EXPECT_NEAR(held[0].us[0], 10, 1e-9);
  EXPECT_NEAR(held[0].us[1], 60, 1e-9);
  EXPECT_EQ(held[0].us[2], 0);  // not among the third run's ranks: it held no one there
  // A run without arrivals (a device-timed backend) or a count that differs: none.
  EXPECT_TRUE(runs_held(t, {runs[0], std::nullopt, runs[2]}).empty());
  EXPECT_TRUE(runs_held({1000, 1000}, runs).empty());
}

TEST(Attribution, ARankWaitingOnTheSlowLinkCountsToTheLink) {
  const double t = 12 * ideal_us();  // 11 ideals of excess: 9 the link's bound, 1.2 the wait
  Report r = make_report(t, {{1, 2, 1.0}});
  r.findings.push_back(finding("p2p.slow_link", {"h1", "h2"}, {{"src_rank", 1}, {"dst_rank", 2}}));
  ArrivalSplit split;
  split.iterations = 10;
  split.span_us = t;
  RankArrival downstream;
  downstream.rank = 2;
  downstream.held_share = 0.1;
  split.ranks = {downstream};
  r.sweeps[0].points[0].out_of_place->arrivals = split;
  attribute(r);
  const Attribution& a = r.attribution.at(0);
  EXPECT_EQ(name(a.entries.at(0).kind), "link");
  for (const AttributionEntry& e : a.entries) EXPECT_NE(name(e.kind), "rank");
  EXPECT_NEAR(a.entries[0].excess_us, 9 * ideal_us() + 0.1 * t, 1e-6);
  EXPECT_NEAR(a.entries[0].evidence["downstream_wait_us"].get<double>(), 0.1 * t, 1e-6);
  expect_shares_add_up(a);
}

TEST(Attribution, ForeignTrafficOnTheBoundingLinkIsNoiseWithItsEvidence) {
  const double t = 4 * ideal_us();
  Report r = make_report(t, {{0, 1, 5.0}});
  r.findings.push_back(finding("counters.foreign_traffic", {"h0"}, {{"excess_bytes", 1000000}}));
  r.findings.push_back(finding("counters.foreign_traffic", {"h1"}, {{"excess_bytes", 2000000}}));
  r.diagnosis->collective_noise.push_back({"allreduce", kSize, {t, 0.75 * t, t}, 0.14, {}});
  r.diagnosis->link_noise.push_back({0, 1, "h0", "h1", {5.0, 3.0}, 0.35, std::nullopt});
  attribute(r);
  const Attribution& a = r.attribution.at(0);
  // The median of the runs is attributed; its excess over the best run is noise too.
  EXPECT_NEAR(a.measured_us, t, 1e-6);
  ASSERT_GE(a.entries.size(), 2u);
  EXPECT_EQ(name(a.entries[0].kind), "noise");
  EXPECT_EQ(a.entries[0].subject, "hosts h0, h1");
  EXPECT_NEAR(a.entries[0].excess_us, ideal_us() * (10.0 / 5.0 - 1) + 0.25 * t, 1e-6);
  EXPECT_EQ(a.entries[0].evidence["foreign_bytes"]["h1"].get<uint64_t>(), 2000000u);
  EXPECT_DOUBLE_EQ(a.entries[0].evidence["link_cv"].get<double>(), 0.35);
  expect_shares_add_up(a);
}

TEST(Attribution, NoLinkMatrixNoAttribution) {
  Report r = make_report(2 * ideal_us());
  r.p2p.reset();
  attribute(r);
  EXPECT_TRUE(r.attribution.empty());
  EXPECT_NE(render_answer(r).find("the link matrix was not measured"), std::string::npos);
}

TEST(Attribution, LinkVariationAndTheImpactFactor) {
  P2pSection p2p;
  P2pLink l;
  l.src_rank = 0;
  l.dst_rank = 1;
  l.size_bytes = 1 << 20;
  l.bw_gbps = 4.0;
  p2p.links.push_back(l);
  P2pLink again = l;
  again.bw_gbps = 2.0;
  P2pLink alone = l;
  alone.bw_gbps = 9.0;
  p2p.alone.push_back(alone);
  auto v = link_variation(p2p, {again});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].bw_gbps, (std::vector<double>{4.0, 2.0}));
  EXPECT_NEAR(v[0].cv, std::sqrt(2.0) / 3.0, 1e-12);  // stddev sqrt(2), mean 3
  EXPECT_NEAR(*v[0].impact, 3.0, 1e-12);              // alone 9 over the loaded median 3
  EXPECT_TRUE(link_variation(p2p, {}).empty());       // measured once: no variation
}

TEST(Attribution, SurvivesTheJsonRoundTrip) {
  Report r = make_report(11 * ideal_us(), {{1, 2, 1.0}});
  r.findings.push_back(finding("p2p.slow_link", {"h1", "h2"}, {{"src_rank", 1}, {"dst_rank", 2}}));
  r.diagnosis->phases = {"collective", "links"};
  r.diagnosis->budget_s = 30;
  r.diagnosis->timings = {{"collective", 1.5}, {"links", 2.5}};
  const double t = r.sweeps[0].points[0].out_of_place->time_us;
  r.diagnosis->collective_noise.push_back({"allreduce", kSize, {t, t, t}, 0, {{3, {0.5, 1, 1.5}}}});
  attribute(r);
  auto back = report_from_json_text(to_json_text(r), "round trip");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->attribution.size(), 1u);
  EXPECT_EQ(back->attribution[0].entries.size(), r.attribution[0].entries.size());
  EXPECT_EQ(back->attribution[0].entries[0].subject, "link 1 -> 2 (h1 -> h2)");
  EXPECT_DOUBLE_EQ(back->attribution[0].entries[0].share, r.attribution[0].entries[0].share);
  EXPECT_EQ(back->diagnosis->timings.size(), 2u);
  ASSERT_EQ(back->diagnosis->collective_noise.at(0).held.size(), 1u);
  EXPECT_EQ(back->diagnosis->collective_noise[0].held[0].rank, 3);
  EXPECT_EQ(back->diagnosis->collective_noise[0].held[0].us, (std::vector<double>{0.5, 1, 1.5}));
  EXPECT_EQ(render_answer(*back), render_answer(r));
  // An unknown kind is refused with its path.
  std::string text = to_json_text(r);
  text.replace(text.find("\"kind\": \"link\""), 14, "\"kind\": \"lnik\"");
  auto bad = report_from_json_text(text, "bad.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("attribution[0].entries[0].kind"), std::string::npos) << bad.status().message();
}

TEST(LinkTrace, ASlowLinkIsBusyAndTheLinksAfterItAreNot) {
  // Ranks 0 -> 1 -> 2, one call, one message per link, all clocks alike. Both receives are
  // posted at 0; 0 sends at 0 and it arrives at 900 (slow); 1 forwards at 900 and it
  // arrives at 1000 (fast), though rank 2 waited 1000 ns from its post.
  std::vector<RankMessages> ranks(3);
  ranks[0].send_posted[1] = {0};
  ranks[1].recv[0] = {{0, 900}};
  ranks[1].send_posted[2] = {900};
  ranks[2].recv[1] = {{0, 1000}};
  const ClockMap same(0, {{0, 10}, {0, 10}, {0, 10}}, 1, {{0, 10}, {0, 10}, {0, 10}});
  auto busy = link_busy_times(ranks, same, 1, "allreduce");
  ASSERT_EQ(busy.size(), 2u);
  std::map<std::pair<int, int>, double> by;
  for (const LinkBusy& b : busy) by[{b.src_rank, b.dst_rank}] = b.busy_us;
  EXPECT_DOUBLE_EQ((by[{0, 1}]), 0.9);
  EXPECT_DOUBLE_EQ((by[{1, 2}]), 0.1);
}

TEST(LinkTrace, SlicesInFlightTogetherCountOnceAndClocksAreAligned) {
  // Rank 1's clock is 5000 ns ahead of rank 0's. Two slices posted together at 0 (rank
  // 0's clock) arrive at 400 and 800: the link was busy 800 ns, not 1200. Two calls.
  std::vector<RankMessages> ranks(2);
  ranks[0].send_posted[1] = {0, 0, 2000, 2000};
  ranks[1].recv[0] = {{5000, 5400}, {5000, 5800}, {7000, 7400}, {7000, 7800}};
  const ClockMap map(0, {{0, 10}, {5000, 10}}, 1, {{0, 10}, {5000, 10}});
  auto busy = link_busy_times(ranks, map, 2, "allgather");
  ASSERT_EQ(busy.size(), 1u);
  EXPECT_EQ(busy[0].messages, 4);
  EXPECT_DOUBLE_EQ(busy[0].busy_us, 0.8);  // (800 + 800) ns over 2 calls
  EXPECT_EQ(busy[0].collective, "allgather");
}

TEST(Attribution, TheEngineTraceMeasuresTheBoundingLinksPart) {
  Report r = make_report(11 * ideal_us(), {{1, 2, 1.0}});
  r.findings.push_back(finding("p2p.slow_link", {"h1", "h2"}, {{"src_rank", 1}, {"dst_rank", 2}}));
  // Ring links busy 1000 us per call, link 1 -> 2 busy 7000 us.
  for (int a = 0; a < 4; ++a) {
    r.diagnosis->link_busy.push_back({"allreduce", a, (a + 1) % 4, 10, a == 1 ? 7000.0 : 1000.0});
  }
  r.diagnosis->traced_calls = 3;
  attribute(r);
  const Attribution& a = r.attribution.at(0);
  EXPECT_EQ(name(a.method), "engine_trace");
  EXPECT_EQ(name(a.entries.at(0).kind), "link");
  EXPECT_NEAR(a.entries[0].excess_us, 6000, 1e-6);  // its busy time beyond the median link's
  EXPECT_DOUBLE_EQ(a.entries[0].evidence["busy_us"].get<double>(), 7000);
  expect_shares_add_up(a);
}

TEST(Attribution, AStalledStragglersLinksAreNotJudged) {
  Report r = make_report(3 * ideal_us(), {{3, 0, 1.0}});
  Finding straggler = finding("rank.straggler", {"h3"}, {{"rank", 3}, {"stalled_share", 0.3}});
  straggler.severity = Severity::kWarning;
  r.findings.push_back(straggler);
  Finding stalled_link = finding("p2p.slow_link", {"h3", "h0"}, {{"src_rank", 3}, {"dst_rank", 0}});
  stalled_link.subject = "link 3 -> 0 (h3 -> h0)";
  r.findings.push_back(stalled_link);
  r.findings.push_back(finding("p2p.slow_link", {"h1", "h2"}, {{"src_rank", 1}, {"dst_rank", 2}}));
  discount_stalled_links(r);
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].code, "rank.straggler");
  EXPECT_EQ(r.findings[0].evidence["links_not_judged"][0].get<std::string>(), "link 3 -> 0 (h3 -> h0)");
  EXPECT_EQ(r.findings[1].evidence["src_rank"].get<int>(), 1);  // a link without the straggler stays
}

TEST(Attribution, ATopologyFindingMakesTheSlowLinkItsHostsNicPath) {
  Report r = make_report(11 * ideal_us(), {{1, 2, 1.0}});
  r.findings.push_back(finding("p2p.slow_link", {"h1", "h2"}, {{"src_rank", 1}, {"dst_rank", 2}}));
  Finding far = finding("topo.nic_far", {"h2"}, {});
  far.subject = "GPU 0 on h2";
  far.severity = Severity::kWarning;
  r.findings.push_back(far);
  attribute(r);
  const Attribution& a = r.attribution.at(0);
  EXPECT_EQ(name(a.entries.at(0).kind), "nic");
  EXPECT_EQ(a.entries[0].subject, "NIC path of host h2 (topo.nic_far)");
  EXPECT_EQ(a.entries[0].hosts, (std::vector<std::string>{"h2"}));
  EXPECT_EQ(a.entries[0].evidence["topology"]["subject"].get<std::string>(), "GPU 0 on h2");
  expect_shares_add_up(a);
}

CounterSample congestion_sample(const std::string& phase, uint64_t bytes, uint64_t xmit_wait) {
  CounterSample s;
  s.host = "h1";
  s.phase = phase;
  s.fabscope_tx_bytes = bytes / 2;
  s.fabscope_rx_bytes = bytes / 2;
  PortDelta p;
  p.device = "mlx5_0";
  p.counters = {{"port_xmit_wait", xmit_wait}, {"symbol_error", 0}};
  s.ports.push_back(p);
  return s;
}

// Over NCCL, with its profiler plugin's data: the link whose sends waited longest on the
// network per call (2 -> 3: 300 us against 100 us on the others) bounds the collective,
// by its wait beyond the median link's.
TEST(Attribution, TheNcclProfileMeasuresTheBoundingLinksPart) {
  Report r = make_report(15000, {{2, 3, 3.0}});
  ProfilePoint p;
  p.collective = "allreduce";
  p.size_bytes = kSize;
  for (int rank = 0; rank < 4; ++rank) {
    ProfileLink l;
    l.rank = rank;
    l.peer = (rank + 1) % 4;
    l.direction = LinkDirection::kSend;
    l.channels = 2;
    l.ops = 20;  // 10 calls
    l.wait_us[2] = rank == 2 ? 3000 : 1000;
    p.links.push_back(l);
  }
  r.nccl_profile = NcclProfileSection{ProfileStatus::kCollected, "", {}, {p}};
  add_p2p_findings(r);
  attribute(r);
  ASSERT_EQ(r.attribution.size(), 1u);
  const Attribution& a = r.attribution[0];
  EXPECT_EQ(name(a.method), "nccl_profile");
  ASSERT_FALSE(a.entries.empty());
  EXPECT_EQ(name(a.entries[0].kind), "link");
  EXPECT_NEAR(a.entries[0].excess_us, 200.0, 1e-6);  // 300 us against the median's 100 us
  EXPECT_NEAR(a.entries[0].evidence["busy_us"].get<double>(), 300.0, 1e-6);
}

TEST(CongestionRose, TheSameLoadMetMorePushBack) {
  const uint64_t gib = 1ull << 30;
  std::vector<CounterSample> samples = {
      congestion_sample("links: p2p pairs bibw 1 MiB round 0 repeat 0", 4 * gib, 400),
      congestion_sample("links: p2p pair bibw 1 MiB round 0 repeat 0", gib, 900000),  // a retest: not compared
      congestion_sample("noise: p2p pairs bibw 1 MiB round 0 repeat 0", 2 * gib, 20000)};
  std::vector<Finding> out;
  const auto* rule = find_rule(counter_rules(), "counters.congestion_rose");
  ASSERT_NE(rule, nullptr);
  FindingSink sink(rule->code, out);
  rule->check(CounterContext{samples}, sink);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].subject, "host h1");
  EXPECT_EQ(out[0].evidence["counter"].get<std::string>(), "mlx5_0:port_xmit_wait");
  EXPECT_DOUBLE_EQ(out[0].evidence["first_per_gib"].get<double>(), 100);
  EXPECT_DOUBLE_EQ(out[0].evidence["repeat_per_gib"].get<double>(), 10000);
  // As much push-back per GiB as before: nothing.
  samples[2] = congestion_sample("noise: p2p pairs bibw 1 MiB round 0 repeat 0", 2 * gib, 250);
  out.clear();
  rule->check(CounterContext{samples}, sink);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace fabscope
