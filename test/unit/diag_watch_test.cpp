// fabscope watch's series (diag/watch.h): a long watch thins each link's series by merging
// pairs of points, so it stays within max_points, each point still covering its intervals
// in order, its wait per step weighted by steps.
#include <gtest/gtest.h>

#include "diag/watch.h"

namespace fabscope {
namespace {

Snapshot snap(int rank, uint64_t seq, uint64_t steps, uint64_t wait_ns) {
  Snapshot s;
  s.file = "s" + std::to_string(rank) + "-" + std::to_string(seq);
  s.host = "h" + std::to_string(rank);
  s.pid = 100 + rank;
  s.rank = rank;
  s.nranks = 2;
  s.comm = "0x1";
  s.seq = seq;
  s.interval_s = 1;
  s.start_ns = (seq - 1) * 1000000000ull;
  s.end_ns = seq * 1000000000ull;
  s.links.push_back({1 - rank, true, steps * 1000, steps, wait_ns});
  return s;
}

TEST(WatchSeries, ThinnedByMergingPairsWithinMaxPoints) {
  WatchOptions o;
  o.max_points = 4;
  Watch w(o);
  std::vector<Finding> findings;
  for (uint64_t seq = 1; seq <= 11; ++seq) {
    // Rank 0's sends: 10 steps of 100 us in odd intervals, 30 steps of 300 us in even ones.
    const bool even = seq % 2 == 0;
    ASSERT_TRUE(
        w.add(snap(0, seq, even ? 30 : 10, even ? 30 * 300000ull : 10 * 100000ull), static_cast<double>(seq)).ok());
    ASSERT_TRUE(w.add(snap(1, seq, 10, 10 * 100000ull), static_cast<double>(seq)).ok());
    w.judge(static_cast<double>(seq), findings);
  }
  const WatchSection sec = w.section();
  EXPECT_EQ(sec.intervals, 11u);
  const WatchLink* l = nullptr;
  for (const WatchLink& x : sec.links) {
    if (x.rank == 0 && x.direction == "send") l = &x;
  }
  ASSERT_NE(l, nullptr);
  ASSERT_LE(l->points.size(), 4u);
  ASSERT_GE(l->points.size(), 2u);
  EXPECT_EQ(l->points.front().seq_first, 1u);
  EXPECT_EQ(l->points.back().seq_last, 11u);
  for (size_t i = 1; i < l->points.size(); ++i) {
    EXPECT_EQ(l->points[i].seq_first, l->points[i - 1].seq_last + 1) << "point " << i;
  }
  // The first point holds intervals 1..4 (thinned twice): 2 x 10 steps at 100 us, 2 x 30 at 300 us.
  EXPECT_EQ(l->points.front().seq_last, 4u);
  EXPECT_EQ(l->points.front().steps, 80u);
  EXPECT_NEAR(l->points.front().wait_us_per_step, (20 * 100.0 + 60 * 300.0) / 80, 1e-9);
}

}  // namespace
}  // namespace fabscope
