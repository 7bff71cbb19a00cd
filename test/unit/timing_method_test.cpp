// What keeps fabscope's own cost out of its figures: the stamp clock and its scale, the
// device markers' stride,
// watchdog's beat (a counter, no clock), the timing methods' names and OSU's counts, and
// how the floor shows in the table (and is read back by the nccl-tests reader).
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/clock.h"
#include "core/method.h"
#include "core/watchdog.h"
#include "report/nccl_tests_parse.h"
#include "report/table.h"
#include "sweep/sweep.h"

namespace fabscope {
namespace {

TEST(StampClock, TicksAreInvariantExactlyWhereTheCpuSaysSo) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  bool constant = false, nonstop = false, found = false;
  while (!found && std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    found = true;
    std::istringstream words(line);
    for (std::string w; words >> w;) {
      constant = constant || w == "constant_tsc";
      nonstop = nonstop || w == "nonstop_tsc";
    }
  }
#if defined(__x86_64__) || defined(__i386__)
  EXPECT_EQ(ticks_invariant(), constant && nonstop);
#else
  EXPECT_FALSE(ticks_invariant());
#endif
}

TEST(StampClock, TicksConvertToTheSteadyClocksMicroseconds) {
  const bool ticks = ticks_invariant();
  const int64_t ns0 = steady_now_ns();
  const int64_t t0 = stamp_now(ticks);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const int64_t t1 = stamp_now(ticks);
  const int64_t ns1 = steady_now_ns();
  ASSERT_GT(t1, t0);
  const TickScale scale = ticks ? TickScale::calibrate(t1 - t0, ns1 - ns0) : TickScale{};
  // The whole interval, converted, is the steady clock's (to its own reading error).
  EXPECT_NEAR(scale.us(t1 - t0), static_cast<double>(ns1 - ns0) * 1e-3, 50.0);
  EXPECT_GE(scale.us(t1 - t0), 20000 * 0.99);
  // Without ticks, stamps are nanoseconds: 1e-3 us each.
  EXPECT_DOUBLE_EQ(TickScale{}.us(1000), 1.0);
  EXPECT_DOUBLE_EQ(TickScale::calibrate(0, 5).us(1000), 1.0);  // nothing to calibrate with
}

TEST(TimingMethod, NamesAreCheckedAgainstWhatTheCommandTakes) {
  auto m = method_from_name("osu", "nccl-tests, osu");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(*m, TimingMethod::kOsu);
  auto perftest = method_from_name("perftest", "nccl-tests, osu");
  ASSERT_FALSE(perftest.ok());
  EXPECT_EQ(perftest.status().message(),
            "--method perftest does not apply here (perftest times point-to-point messages: use it with p2p); "
            "allowed: nccl-tests, osu");
  auto nccl = method_from_name("nccl-tests", "perftest, osu");
  ASSERT_FALSE(nccl.ok());
  EXPECT_NE(nccl.status().message().find("nccl-tests times collectives: use it with sweep"), std::string::npos);
  auto unknown = method_from_name("OSU", "perftest, osu");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(), "--method 'OSU' is not known; allowed: perftest, osu");
}

TEST(TimingMethod, OsuCountsChangeAbove8KiBAsOsuUtilSays) {
  EXPECT_EQ(osu_collective_loop(8192).iters, 1000);
  EXPECT_EQ(osu_collective_loop(8192).warmup, 100);
  EXPECT_EQ(osu_collective_loop(8193).iters, 100);
  EXPECT_EQ(osu_collective_loop(8193).warmup, 10);
  EXPECT_EQ(osu_latency_loop(8).iters, 10000);
  EXPECT_EQ(osu_latency_loop(1 << 20).iters, 1000);
  EXPECT_EQ(osu_bandwidth_loop(8).iters, 100 * 64);
  EXPECT_EQ(osu_bandwidth_loop(1 << 20).iters, 20 * 64);
  EXPECT_EQ(osu_bandwidth_loop(1 << 20).warmup, 2 * 64);
}

// The beat is a counter the checking thread watches: beats keep it quiet, silence for
// the timeout ends the process with exit code 4, naming the phase.
TEST(WatchdogDeathTest, BeatsKeepItQuietAndSilenceEndsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  {
    Watchdog beating(0.3, "[t]", stderr);
    beating.set_phase("beating");
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1200);
    while (std::chrono::steady_clock::now() < until) {
      beating.beat();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }  // still here: it did not fire
  EXPECT_EXIT(
      {
        Watchdog silent(0.3, "[t]", stderr);
        silent.set_phase("a silent phase");
        std::this_thread::sleep_for(std::chrono::seconds(5));
        std::exit(0);
      },
      ::testing::ExitedWithCode(4), "no progress for [0-9]+ s \\(--timeout 0.3\\) in a silent phase");
}

Sweep one_point_sweep(double time_us, bool near) {
  Sweep s;
  s.collective = "allreduce";
  s.dtype = "float";
  s.op = "sum";
  s.backend = "mpi";
  s.nranks = 2;
  s.floor_us = 0.011;
  SweepPoint p;
  p.size_bytes = 8;
  p.count = 2;
  PlacementResult r;
  r.time_us = time_us;
  r.algbw_gbps = 0.01;
  r.busbw_gbps = 0.01;
  r.wrong = 0;
  r.near_floor = near;
  p.out_of_place = r;
  p.in_place = r;
  s.points.push_back(p);
  return s;
}

TEST(FloorInTheTable, HeaderSaysTheFloorAndRowsNearItEndWithATilde) {
  const Sweep near = one_point_sweep(0.04, true);
  const Sweep far = one_point_sweep(0.5, false);
  EXPECT_EQ(render_floor(near),
            "# Floor: 0.011 us per iteration (nccl-tests method: this loop around calls that do nothing); '~' ends "
            "a row whose time is within 5x of it\n");
  const std::string marked = render_row(near, near.points[0]);
  const std::string plain = render_row(far, far.points[0]);
  EXPECT_EQ(marked.substr(marked.size() - 4), "  ~\n");
  EXPECT_NE(plain.substr(plain.size() - 2), "~\n");
  Sweep imported = near;
  imported.floor_us.reset();
  EXPECT_EQ(render_floor(imported), "");
  // fabscope's own table, marks and all, still reads as nccl-tests output.
  Report r;
  r.sweeps = {near};
  auto tables = parse_nccl_tests(render_tables(r), "fabscope.txt");
  ASSERT_TRUE(tables.ok()) << tables.status().message();
  ASSERT_EQ(tables->size(), 1u);
  ASSERT_EQ(tables->front().rows.size(), 1u);
  EXPECT_DOUBLE_EQ(tables->front().rows[0].out_of_place->time_us, 0.04);
}

TEST(DeviceMarkers, EveryIterationOnlyWhereAMarkerCostsAtMostHalfAPercentOfIt) {
  // 2 us a marker, at most 0.5% of the loop: iterations of 400 us and more get their own.
  EXPECT_EQ(device_marker_stride(400, 20), 1u);
  EXPECT_EQ(device_marker_stride(36'000, 20), 1u);
  EXPECT_EQ(device_marker_stride(100, 1000), 4u);
  EXPECT_EQ(device_marker_stride(10, 1000), 40u);
  // Shorter than that for the whole loop: its two ends only (the floor's case).
  EXPECT_EQ(device_marker_stride(5, 20), 20u);
  EXPECT_EQ(device_marker_stride(0, 20), 20u);
  EXPECT_EQ(device_marker_stride(-1, 0), 1u);
  // What the markers then cost stays within the share, for any iteration time.
  for (double us : {1.0, 3.0, 7.5, 40.0, 399.0, 1e4}) {
    const size_t s = device_marker_stride(us, 1'000'000);
    EXPECT_LE(kDeviceMarkerCostUs / (static_cast<double>(s) * us), kDeviceMarkerShare * 1.000001) << us;
  }
}

}  // namespace
}  // namespace fabscope
