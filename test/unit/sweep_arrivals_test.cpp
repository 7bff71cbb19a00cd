// Clock offsets from ping-pong samples, their interpolation, and the arrival split.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "comm/clock_sync.h"
#include "core/clock.h"
#include "core/stall_monitor.h"
#include "sweep/arrivals.h"

namespace fabscope {
namespace {

// A rank whose clock is `offset` ns ahead of rank 0's, a one-way delay of `out` ns
// there and `back` ns back, and `turn` ns between its receive and its answer.
PingPongSample exchange(int64_t at, int64_t offset, int64_t out, int64_t back, int64_t turn) {
  PingPongSample s;
  s.t0 = at;
  s.t1 = at + out + offset;
  s.t2 = s.t1 + turn;
  s.t3 = at + out + turn + back;
  return s;
}

TEST(ClockSync, TheShortestRoundTripBoundsTheOffset) {
  const int64_t offset = 123'456'789;
  std::vector<PingPongSample> samples = {exchange(0, offset, 9000, 1000, 500),       // asymmetric, slow
                                         exchange(50'000, offset, 2000, 2000, 300),  // symmetric, fast
                                         exchange(90'000, offset, 30'000, 2000, 100)};
  ClockOffset o = offset_from_samples(samples);
  EXPECT_DOUBLE_EQ(o.bound_ns, 2000);  // half the shortest round trip (4000 ns)
  EXPECT_NEAR(o.offset_ns, offset, o.bound_ns);
  EXPECT_DOUBLE_EQ(o.offset_ns, offset);  // symmetric delays: exact
  // The truth lies within the bound even for the asymmetric exchange alone.
  ClockOffset slow = offset_from_samples(std::span(samples).first(1));
  EXPECT_LE(std::abs(slow.offset_ns - offset), slow.bound_ns);
  EXPECT_TRUE(std::isinf(offset_from_samples({}).bound_ns));
}

TEST(ClockSync, OffsetsAreInterpolatedBetweenTheTwoMoments) {
  // Rank 1's clock drifts: 1000 ns ahead at t=1e9, 3000 ns ahead at t=3e9.
  ClockMap map(1'000'000'000, {{0, 0}, {1000, 50}}, 3'000'000'000, {{0, 0}, {3000, 80}});
  EXPECT_DOUBLE_EQ(map.to_rank0(0, 2'000'000'000), 2'000'000'000);
  EXPECT_NEAR(map.to_rank0(1, 2'000'002'000), 2'000'000'000, 1);  // halfway: 2000 ahead
  EXPECT_NEAR(map.to_rank0(1, 1'000), 0, 1);                      // before: the first offset held
  EXPECT_NEAR(map.to_rank0(1, 5'000'003'000), 5'000'000'000, 1);  // after: the last offset held
  EXPECT_DOUBLE_EQ(map.bound_ns(), 80);
}

RankIterations ranks_times(std::vector<double> enter, double span) {
  RankIterations r;
  r.enter_ns = enter;
  for (double e : enter) r.exit_ns.push_back(e + span);
  return r;
}

TEST(Arrivals, TheRankTheOthersWaitedForHoldsTheSkew) {
  // 4 iterations 100 us apart; rank 2 enters 30 us late in 3 of them; every exit is
  // 20 us after the last entry.
  std::vector<RankIterations> ranks(3);
  for (int r = 0; r < 3; ++r) {
    for (int i = 0; i < 4; ++i) {
      const double base = i * 100'000.0;
      const double enter = base + r * 100.0 + (r == 2 && i > 0 ? 30'000 : 0);
      ranks[r].enter_ns.push_back(enter);
      ranks[r].exit_ns.push_back(base + (i > 0 ? 30'000 : 200) + 20'000);
    }
  }
  ArrivalSplit a = split_arrivals(ranks, 500);
  EXPECT_EQ(a.iterations, 4);
  EXPECT_DOUBLE_EQ(a.clock_bound_us, 0.5);
  EXPECT_NEAR(a.span_us, (20.2 + 3 * 50.0) / 4, 1e-9);
  EXPECT_NEAR(a.skew_us + a.transfer_us, a.span_us, 1e-9);
  EXPECT_EQ(a.ranks[2].last_count, 3);  // iteration 0: 100 ns ahead of rank 1, within twice the bound
  EXPECT_NEAR(a.ranks[2].held_us, 3 * (30'000 + 100.0) / 4 * 1e-3, 1e-9);
  EXPECT_NEAR(a.ranks[2].held_share, 3 * 30'100.0 / ((20'200.0 + 3 * 50'000.0)), 1e-9);
  EXPECT_EQ(a.ranks[0].last_count, 0);
  EXPECT_DOUBLE_EQ(a.ranks[0].held_share, 0);
  EXPECT_NEAR(a.ranks[2].late_us, 30.2, 1e-9);  // median of 0.2, 30.2, 30.2, 30.2
}

TEST(Arrivals, ClocksTooCoarseToTellBlameNoOne) {
  std::vector<RankIterations> ranks = {ranks_times({0, 1000}, 500), ranks_times({300, 1300}, 500)};
  ArrivalSplit a = split_arrivals(ranks, 1000);  // 300 ns apart, bound 1000 ns
  for (const RankArrival& r : a.ranks) {
    EXPECT_EQ(r.last_count, 0);
    EXPECT_DOUBLE_EQ(r.held_share, 0);
  }
  EXPECT_NEAR(a.skew_us, 0.3, 1e-9);  // the skew is still measured
  ArrivalSplit one = split_arrivals(std::span(ranks).first(1), 0);
  EXPECT_DOUBLE_EQ(one.skew_us, 0);
}

TEST(Arrivals, TheRankThatDidNotRunInsideTheIterationsIsTheStraggler) {
  // Three ranks enter and leave together (the stopped rank held everyone inside), but
  // rank 2's process lost 4 ms of each 10 ms iteration, rank 1 lost 1 ms.
  std::vector<RankIterations> ranks(3);
  for (int i = 0; i < 5; ++i) {
    for (int r = 0; r < 3; ++r) {
      ranks[r].enter_ns.push_back(i * 10e6);
      ranks[r].exit_ns.push_back(i * 10e6 + 10e6);
      ranks[r].stalled_ns.push_back(r == 2 ? 4e6 : r == 1 ? 1e6 : 0);
    }
  }
  ArrivalSplit a = split_arrivals(ranks, 1000);
  EXPECT_DOUBLE_EQ(a.ranks[2].stalled_us, 3000);  // beyond the 1 ms rank 1 lost too
  EXPECT_DOUBLE_EQ(a.ranks[2].stalled_share, 0.3);
  EXPECT_DOUBLE_EQ(a.ranks[1].stalled_share, 0);
  EXPECT_DOUBLE_EQ(a.ranks[2].held_share, 0);  // no one entered late
  // Without stall records (older data, or no monitor) nothing is stalled.
  for (auto& r : ranks) r.stalled_ns.clear();
  EXPECT_DOUBLE_EQ(split_arrivals(ranks, 1000).ranks[2].stalled_share, 0);
}

TEST(StallMonitor, SumsTheStallsInsideAWindow) {
  StallMonitor m(1'000'000'000'000);  // a threshold no real wake-up reaches: only what is recorded here
  m.record(100, 200);
  m.record(300, 400);
  EXPECT_EQ(m.stalled_ns(150, 350), 100);
  EXPECT_EQ(m.stalled_ns(0, 1000), 200);
  EXPECT_EQ(m.stalled_ns(200, 300), 0);
  EXPECT_EQ(m.stalled_ns(500, 600), 0);
}

TEST(StallMonitor, SeesItsProcessStopped) {
  // A child process watches itself while the parent stops it for 80 ms.
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    StallMonitor m;
    const int64_t start = steady_now_ns();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    char c = 1;
    if (write(ready[1], &c, 1) != 1) _exit(3);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const int64_t lost = m.stalled_ns(start, steady_now_ns());
    _exit(lost >= 50'000'000 && lost <= 250'000'000 ? 0 : 1);
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  kill(child, SIGSTOP);
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  kill(child, SIGCONT);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  close(ready[0]);
  close(ready[1]);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the monitor did not see about 80 ms stopped";
}

}  // namespace
}  // namespace fabscope
