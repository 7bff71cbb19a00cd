// p2p's pure parts: the schedules and the bandwidth and latency statistics.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "p2p/p2p.h"
#include "p2p/schedule.h"

namespace fabscope {
namespace {

TEST(RoundRobin, EveryPairExactlyOnceInDisjointRounds) {
  for (int n = 2; n <= 11; ++n) {
    auto rounds = round_robin_pairs(n);
    EXPECT_EQ(static_cast<int>(rounds.size()), n % 2 == 0 ? n - 1 : n) << n;
    std::set<std::pair<int, int>> seen;
    for (const auto& round : rounds) {
      std::set<int> busy;
      EXPECT_EQ(static_cast<int>(round.size()), n / 2) << n;
      for (auto [a, b] : round) {
        EXPECT_LT(a, b);
        EXPECT_TRUE(busy.insert(a).second) << "rank " << a << " twice in a round, n=" << n;
        EXPECT_TRUE(busy.insert(b).second) << "rank " << b << " twice in a round, n=" << n;
        EXPECT_TRUE(seen.insert({a, b}).second) << "pair repeated, n=" << n;
      }
    }
    EXPECT_EQ(static_cast<int>(seen.size()), n * (n - 1) / 2) << n;
  }
  EXPECT_TRUE(round_robin_pairs(1).empty());
}

std::set<std::pair<int, int>> flows_of(const std::vector<Round>& rounds) {
  std::set<std::pair<int, int>> out;
  for (const Round& r : rounds) {
    for (const Flow& f : r) out.insert({f.src, f.dst});
  }
  return out;
}

TEST(P2pSchedule, RingIsEveryRankToTheNextAtOnce) {
  auto bw = p2p_schedule(P2pPattern::kRing, P2pMode::kBandwidth, 4, {0, 1});
  ASSERT_TRUE(bw.ok());
  ASSERT_EQ(bw->size(), 1u);
  EXPECT_EQ(flows_of(*bw), (std::set<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 3}, {3, 0}}));
  auto bi = p2p_schedule(P2pPattern::kRing, P2pMode::kBidirectional, 2, {0, 1});
  ASSERT_EQ(bi->size(), 1u);
  EXPECT_EQ((*bi)[0].size(), 2u);  // 0->1 and 1->0, not twice each
  auto lat = p2p_schedule(P2pPattern::kRing, P2pMode::kLatency, 5, {0, 1});
  ASSERT_TRUE(lat.ok());
  EXPECT_EQ(flows_of(*lat).size(), 5u);
  for (const Round& r : *lat) {
    std::set<int> busy;
    for (const Flow& f : r) {
      EXPECT_TRUE(busy.insert(f.src).second);
      EXPECT_TRUE(busy.insert(f.dst).second);
    }
  }
}

TEST(P2pSchedule, PairsMeasureEveryDirectedLink) {
  for (int n : {2, 3, 4, 7}) {
    auto bw = p2p_schedule(P2pPattern::kPairs, P2pMode::kBandwidth, n, {0, 1});
    ASSERT_TRUE(bw.ok());
    EXPECT_EQ(static_cast<int>(flows_of(*bw).size()), n * (n - 1));
    for (const Round& r : *bw) {  // one direction per round: a rank sends or receives once
      std::set<int> busy;
      for (const Flow& f : r) {
        EXPECT_TRUE(busy.insert(f.src).second);
        EXPECT_TRUE(busy.insert(f.dst).second);
      }
    }
    auto bi = p2p_schedule(P2pPattern::kPairs, P2pMode::kBidirectional, n, {0, 1});
    EXPECT_EQ(static_cast<int>(flows_of(*bi).size()), n * (n - 1));
    EXPECT_EQ(bi->size(), round_robin_pairs(n).size());
  }
}

TEST(P2pSchedule, OnePairAndItsErrors) {
  auto p = p2p_schedule(P2pPattern::kPair, P2pMode::kBidirectional, 8, {0, 5});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(flows_of(*p), (std::set<std::pair<int, int>>{{0, 5}, {5, 0}}));
  auto bad = p2p_schedule(P2pPattern::kPair, P2pMode::kBandwidth, 4, {0, 9});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--pair 0,9"), std::string::npos);
  EXPECT_FALSE(p2p_schedule(P2pPattern::kPair, P2pMode::kBandwidth, 4, {2, 2}).ok());
  auto one = p2p_schedule(P2pPattern::kRing, P2pMode::kBandwidth, 1, {0, 1});
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.status().message().find("at least 2 ranks"), std::string::npos);
  EXPECT_FALSE(p2p_pattern_from_name("mesh").ok());
  EXPECT_NE(p2p_mode_from_name("fast").status().message().find("bw"), std::string::npos);
}

TEST(FlowBandwidth, AverageAndPeakFromCompletionTimes) {
  // 128 messages of 1 MB: the first 64 at one per ms, the last 64 at one per 0.5 ms.
  std::vector<int64_t> t;
  int64_t now = 0;
  for (int i = 0; i < 64; ++i) t.push_back(now += 1000000);
  for (int i = 0; i < 64; ++i) t.push_back(now += 500000);
  FlowBandwidth bw = flow_bandwidth(1000000, t, 0, 4);
  // The 127 messages after the first, from its arrival (1 ms) to the last's (96 ms).
  EXPECT_DOUBLE_EQ(bw.avg_gbps, 127.0 * 1e6 / 95e-3 / 1e9);
  EXPECT_DOUBLE_EQ(bw.peak_gbps, 64.0 * 1e6 / 32e-3 / 1e9);  // the best 64: 64 MB in 32 ms
  EXPECT_DOUBLE_EQ(bw.msg_rate_mpps, 127.0 / 95e-3 / 1e6);
  FlowBandwidth none = flow_bandwidth(100, {}, 0, 4);
  EXPECT_EQ(none.avg_gbps, 0);
  // One message has nothing after it: timed from the start.
  FlowBandwidth one = flow_bandwidth(1000000, {2000000}, 0, 4);
  EXPECT_DOUBLE_EQ(one.avg_gbps, 1e6 / 2e-3 / 1e9);
  EXPECT_DOUBLE_EQ(one.peak_gbps, one.avg_gbps);
}

TEST(FlowBandwidth, TheWaitBeforeTheFirstMessageIsNotTheLinks) {
  // The receiver left the barrier 300 ms before its sender (a third rank stopped in the
  // barrier let the sender out late); then 200 messages of 1 MB at one per ms.
  std::vector<int64_t> t;
  int64_t now = 300000000;
  for (int i = 0; i < 200; ++i) t.push_back(now += 1000000);
  FlowBandwidth bw = flow_bandwidth(1000000, t, 0, 64);
  EXPECT_DOUBLE_EQ(bw.avg_gbps, 1.0);
  EXPECT_DOUBLE_EQ(bw.peak_gbps, 1.0);
  EXPECT_DOUBLE_EQ(bw.msg_rate_mpps, 1e-3);
}

TEST(FlowBandwidth, BurstsOfCompletionsDoNotMakeAPeak) {
  // A transport that hands over buffered messages in bursts: 64 completions 10 ns apart
  // after each 100 ms wait. No span of 64 messages shorter than 1 ms may count.
  std::vector<int64_t> t;
  int64_t now = 0;
  for (int i = 0; i < 256; ++i) t.push_back(now += (i % 64 == 0 ? 100000000 : 10));
  FlowBandwidth bw = flow_bandwidth(1000, t, 0, 1);
  EXPECT_LE(bw.peak_gbps, 64.0 * 1000 / 1e-3 / 1e9);
  EXPECT_GE(bw.peak_gbps, bw.avg_gbps);
}

TEST(LatencyStats, AsPerftestReportsThem) {
  std::vector<double> v;
  for (int i = 1; i <= 1000; ++i) v.push_back(i);
  LatencyStats s = latency_stats(v);
  EXPECT_EQ(s.min_us, 1);
  EXPECT_EQ(s.max_us, 1000);
  EXPECT_DOUBLE_EQ(s.typical_us, 500.5);
  EXPECT_DOUBLE_EQ(s.avg_us, 500.5);
  EXPECT_NEAR(s.p99_us, 990.01, 1e-9);
  EXPECT_NEAR(s.p999_us, 999.001, 1e-9);
  EXPECT_GT(s.stdev_us, 288);
}

}  // namespace
}  // namespace fabscope
