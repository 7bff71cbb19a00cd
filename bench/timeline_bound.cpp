// The bound on a long run's memory and report size (sweep -N / --duration): a simulated
// soak feeds the timeline exactly what run_sweeps feeds it (every point of every cycle,
// a stall in every cycle, every host's counters per interval), for runs from 1 hour to 3
// days, and prints the timeline's JSON size, the most samples held at once and the
// process's peak resident set. No MPI and no sleeping: the cycles are simulated.
//
//   fabscope_bench_timeline_bound [--cycle-s 5] [--points 40] [--iters 20] [--hosts 16]
#include <fmt/format.h>
#include <sys/resource.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "report/report_json.h"
#include "soak/timeline.h"

using namespace fabscope;

namespace {

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

struct Outcome {
  size_t intervals = 0;
  size_t json_bytes = 0;
  size_t max_samples_held = 0;
  size_t stalls_kept = 0;
  uint64_t stalls_dropped = 0;
};

// A run of `hours`, cycles of `cycle_s`, intervals closing every `interval_s` (doubled
// when they fold, as run_sweeps does).
Outcome simulate(double hours, double cycle_s, double interval_s, int points, int iters, int hosts) {
  TimelineBuilder b;
  Timeline t;
  Sweep s;
  s.collective = "allreduce";
  s.dtype = "float";
  s.op = "sum";
  const long cycles = static_cast<long>(hours * 3600 / cycle_s);
  double opened_at = 0;
  size_t held = 0;
  Outcome r;
  std::vector<double> samples(static_cast<size_t>(iters));
  for (long c = 0; c < cycles; ++c) {
    const double now = static_cast<double>(c) * cycle_s;
    if (!b.is_open()) {
      b.open(static_cast<int>(c));
      opened_at = now;
      held = 0;
    }
    for (int p = 0; p < points; ++p) {
      SweepPoint pt;
      pt.size_bytes = 1ull << (p / 2 + 3);
      PlacementResult pr;
      pr.iterations = iters;
      pr.time_us = 10.0 + p;
      pr.busbw_gbps = 1.0;
      for (int i = 0; i < iters; ++i) samples[static_cast<size_t>(i)] = pr.time_us + (i % 7) * 0.1;
      pr.samples_us = samples;
      b.add(s, pt, p % 2 == 1, pr);
      held += samples.size();
    }
    StallEvent e;  // a stall every cycle: far more than any healthy run has
    e.collective = s.collective;
    e.dtype = s.dtype;
    e.op = s.op;
    e.size_bytes = 8;
    e.placement = Placement::kOutOfPlace;
    e.cycle = static_cast<int>(c);
    e.time = "2026-11-26T00:00:00.000Z";
    b.add_stall(e);
    record_stall(t, e);
    r.max_samples_held = std::max(r.max_samples_held, held);
    if (now + cycle_s - opened_at >= interval_s || c + 1 == cycles) {
      std::vector<CounterSample> hs(static_cast<size_t>(hosts));
      for (int h = 0; h < hosts; ++h) {
        hs[static_cast<size_t>(h)].host = fmt::format("node{:03}", h);
        hs[static_cast<size_t>(h)].phase = "interval";
        hs[static_cast<size_t>(h)].interfaces.push_back(
            {"eth0",
             {{"rx_bytes", 123456789}, {"tx_bytes", 123456789}, {"rx_packets", 98765}, {"tx_packets", 98765}},
             {}});
      }
      t.intervals.push_back(b.close(1, std::move(hs)));
      if (t.intervals.size() >= 2 * kMaxTimelineIntervals) {  // as run_sweeps does
        fold_intervals(t.intervals);
        interval_s *= 2;
        b.skip_to(static_cast<int>(t.intervals.size()));
      }
    }
  }
  Report rep;
  rep.timeline = std::move(t);
  r.intervals = rep.timeline->intervals.size();
  r.stalls_kept = rep.timeline->stalls.size();
  r.stalls_dropped = rep.timeline->stalls_dropped;
  r.json_bytes = to_json_text(rep).size();
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  double cycle_s = 5;
  int points = 40, iters = 20, hosts = 16;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--cycle-s")) cycle_s = std::atof(argv[i + 1]);
    if (!std::strcmp(argv[i], "--points")) points = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--iters")) iters = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--hosts")) hosts = std::atoi(argv[i + 1]);
  }
  fmt::print("cycles of {:g} s, {} placements x {} iterations each, {} hosts; a stall every cycle\n", cycle_s, points,
             iters, hosts);
  fmt::print("{:<34} {:>9} {:>10} {:>12} {:>13} {:>14} {:>12}\n", "run", "cycles", "intervals", "report MB",
             "samples held", "stalls kept", "peak RSS MB");
  struct Case {
    std::string name;
    double hours;
    double interval_s;
  };
  const Case cases[] = {
      {"--duration 1h (interval 15 s)", 1, 3600.0 / 240},
      {"--duration 24h (interval 6 min)", 24, 24 * 3600.0 / 240},
      {"--duration 72h (interval 18 min)", 72, 72 * 3600.0 / 240},
      {"-N 0, 24 h (interval 60 s)", 24, 60},
      {"-N 0, 72 h (interval 60 s)", 72, 60},
      {"-N 0, 30 days (interval 60 s)", 720, 60},
  };
  for (const Case& c : cases) {
    const Outcome r = simulate(c.hours, cycle_s, c.interval_s, points, iters, hosts);
    fmt::print("{:<34} {:>9} {:>10} {:>12.2f} {:>13} {:>8}+{:<5} {:>12.1f}\n", c.name,
               static_cast<long>(c.hours * 3600 / cycle_s), r.intervals, static_cast<double>(r.json_bytes) / 1e6,
               r.max_samples_held, r.stalls_kept, r.stalls_dropped, static_cast<double>(peak_rss_kib()) / 1024);
  }
  fmt::print("every sample kept instead, 24 h: {:.0f} MB of doubles\n", 24 * 3600 / cycle_s * points * iters * 8 / 1e6);
  return 0;
}
