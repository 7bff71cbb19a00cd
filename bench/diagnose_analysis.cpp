// How long diagnose's analysis (phases 6 and 7: the finding rules, the attribution and the
// verdict) takes on a synthetic report at scale: 4096 ranks on 512 hosts (8 per host), an
// all-reduce at 4 sizes with every rank's arrivals, the link matrix among the hosts' first
// ranks (512 x 511 directed links, one slow link and one slow host among them, suspects
// retested alone), counter samples of every host around 10 phases, and the collective's
// noise repeats. The target is 1 s; it is printed, and the exit code says whether it was met.
//
//   fabscope_bench_diagnose_analysis [--ranks N] [--hosts H] [--reps R]
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "core/clock.h"
#include "core/stats.h"
#include "diag/attribution.h"
#include "diag/findings.h"
#include "diag/rules.h"

using namespace fabscope;

namespace {

Report synthetic(int nranks, int nhosts) {
  std::mt19937_64 rng(42);
  std::normal_distribution<double> jitter(1.0, 0.03);
  Report r;
  const int per_host = nranks / nhosts;
  for (int i = 0; i < nranks; ++i)
    r.context.ranks.push_back({i, fmt::format("node{:04d}", i / per_host), 1000 + i, i % per_host});
  for (int h = 0; h < nhosts; ++h) r.context.hosts.push_back(fmt::format("node{:04d}", h));
  r.context.nranks = nranks;
  Sweep s;
  s.collective = "allreduce";
  s.dtype = "float";
  s.op = "sum";
  s.nranks = nranks;
  s.busbw_factor = 2.0 * (nranks - 1) / nranks;
  for (uint64_t size = 1 << 20; size <= (64u << 20); size *= 4) {
    SweepPoint p;
    p.size_bytes = size;
    PlacementResult pl;
    pl.time_us = static_cast<double>(size) * s.busbw_factor / 20e3 * 1.6;  // 20 GB/s links, 1.6x slower
    pl.algbw_gbps = static_cast<double>(size) / 1e3 / pl.time_us;
    pl.busbw_gbps = pl.algbw_gbps * s.busbw_factor;
    pl.wrong = 0;
    pl.iterations = 20;
    ArrivalSplit a;
    a.iterations = 20;
    a.span_us = pl.time_us;
    for (int i = 0; i < nranks; ++i) {
      RankArrival ra;
      ra.rank = i;
      ra.late_us = std::abs(jitter(rng) - 1) * 10;
      ra.held_share = i == 777 ? 0.3 : 0.0005;
      ra.last_count = i == 777 ? 15 : 0;
      a.ranks.push_back(ra);
    }
    pl.arrivals = a;
    p.out_of_place = pl;
    p.in_place = pl;
    s.points.push_back(p);
  }
  r.sweeps.push_back(s);
  P2pSection p2p;
  p2p.pattern = P2pPattern::kPairs;
  p2p.mode = P2pMode::kBidirectional;
  const uint64_t chunk = 4 << 20;
  for (int a = 0; a < nhosts; ++a) {
    for (int b = 0; b < nhosts; ++b) {
      if (a == b) continue;
      P2pLink l;
      l.src_rank = a * per_host;
      l.dst_rank = b * per_host;
      l.src_host = r.context.hosts[a];
      l.dst_host = r.context.hosts[b];
      l.size_bytes = chunk;
      l.iterations = 100;
      double bw = 20 * jitter(rng);
      if (a == 100 || b == 100) bw = 4;                      // a slow host
      if ((a == 7 && b == 8) || (a == 8 && b == 7)) bw = 2;  // a slow link
      l.bw_gbps = bw;
      p2p.links.push_back(l);
    }
  }
  for (const P2pLink& l : links_to_retest(p2p)) {
    P2pLink alone = l;
    alone.bw_gbps = *l.bw_gbps * 1.05;
    p2p.alone.push_back(alone);
  }
  r.p2p = p2p;
  for (int phase = 0; phase < 10; ++phase) {
    for (int h = 0; h < nhosts; ++h) {
      CounterSample c;
      c.host = r.context.hosts[h];
      c.phase = fmt::format("links: p2p pairs bibw 4 MiB round {}", phase);
      c.duration_s = 1;
      c.fabscope_tx_bytes = 1ull << 30;
      c.fabscope_rx_bytes = 1ull << 30;
      InterfaceDelta d;
      d.name = "ib0";
      d.deltas = {{"tx_bytes", (1ull << 30) + 1000}, {"rx_bytes", (1ull << 30) + 1000}, {"rx_errors", 0}};
      c.interfaces.push_back(d);
      PortDelta port;
      port.device = "mlx5_0";
      port.counters = {{"port_xmit_wait", 10}, {"symbol_error", 0}, {"link_downed", 0}};
      c.ports.push_back(port);
      r.counters.push_back(c);
    }
  }
  r.diagnosis = Diagnosis();
  r.diagnosis->link_size_bytes = chunk;
  const double t = r.sweeps[0].points.back().out_of_place->time_us;
  r.diagnosis->collective_noise.push_back({"allreduce", 64u << 20, {t, t * 0.97, t * 1.02}, 0.025, {}});
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int nranks = 4096, nhosts = 512, reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--ranks")) nranks = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--hosts")) nhosts = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
  }
  if (nranks < 2 || nhosts < 2 || nranks % nhosts != 0 || reps < 1) {
    fmt::print(stderr, "--ranks must be a multiple of --hosts, both at least 2, --reps at least 1\n");
    return 2;
  }
  const Report base = synthetic(nranks, nhosts);
  std::vector<double> seconds;
  Report last;
  for (int rep = 0; rep < reps; ++rep) {
    Report r = base;
    const double t0 = steady_now_s();
    add_sweep_findings(r);
    add_p2p_findings(r);
    add_counter_findings(r);
    attribute(r);
    decide_verdict(r);
    seconds.push_back(steady_now_s() - t0);
    last = std::move(r);
  }
  const double med = median(seconds);
  fmt::print("diagnose analysis: {} ranks on {} hosts, {} links, {} counter samples\n", nranks, nhosts,
             base.p2p->links.size(), base.counters.size());
  fmt::print("  findings {}, attribution entries {}, drain {}\n", last.findings.size(),
             last.attribution.empty() ? 0 : last.attribution[0].entries.size(), last.verdict.drain_hostlist);
  for (const AttributionEntry& e : last.attribution.at(0).entries) {
    fmt::print("  {:<12} {:>5.1f}%  {}\n", name(e.kind), 100 * e.share, e.subject);
  }
  fmt::print("  analysis time: median {:.3f} s over {} runs (min {:.3f}, max {:.3f}); target 1 s: {}\n", med, reps,
             *std::min_element(seconds.begin(), seconds.end()), *std::max_element(seconds.begin(), seconds.end()),
             med <= 1.0 ? "met" : "MISSED");
  return med <= 1.0 ? 0 : 1;
}
