#include "report/p2p_table.h"

#include <fmt/format.h>
#include <algorithm>
#include <map>

#include "core/hostlist.h"
#include "core/stats.h"

namespace fabscope {

std::string render_p2p(const Report& r) {
  if (!r.p2p) return "";
  const P2pSection& p = *r.p2p;
  const bool lat = p.mode == P2pMode::kLatency;
  std::string out =
      fmt::format("# fabscope {} ({}) p2p: pattern {}, mode {}, backend {}: {}, {} ranks\n", r.context.tool.version,
                  r.context.tool.git_id, p.pattern, p.mode, p.backend, r.context.backend_library, r.context.nranks);
  out += fmt::format(
      "# method {}: {}\n", name(p.method),
      lat ? (p.method == TimingMethod::kOsu ? "latency is the ping-pong loop's mean half round trip (osu_latency)"
                                            : "latency is the median half round trip of per-message stamps "
                                              "(perftest's t_typical)")
          : "bandwidth from the receiver's per-message completion stamps");
  if (p.floor_us) {
    out += fmt::format(
        "# Floor: {:.3f} us per {} (these loops around a transport that does nothing); '~' ends a link's row "
        "whose time per message is within {:g}x of it\n",
        *p.floor_us, lat ? "half round trip" : "message", kNearFloorFactor);
  }
  if (lat) {
    out += fmt::format(
        "# {:>5} {:>5} {:>5} {:>12} {:>12} {:>10} {:>11} {:>11} {:>11} {:>15} {:>11} {:>13} {:>20} {:>22}\n", "round",
        "src", "dst", "src_host", "dst_host", "#bytes", "#iterations", "t_min[usec]", "t_max[usec]", "t_typical[usec]",
        "t_avg[usec]", "t_stdev[usec]", "99% percentile[usec]", "99.9% percentile[usec]");
  } else {
    out += fmt::format(
        "# window: {} messages in flight per flow; peak: the best {} consecutive messages spanning at least 1 ms\n",
        p.window, std::max(p.window, 64));
    out += fmt::format("# {:>5} {:>5} {:>5} {:>12} {:>12} {:>10} {:>11} {:>13} {:>16} {:>13}\n", "round", "src", "dst",
                       "src_host", "dst_host", "#bytes", "#iterations", "BW peak[GB/s]", "BW average[GB/s]",
                       "MsgRate[Mpps]");
  }
  auto link_row = [&](const P2pLink& l, const std::string& round) {
    std::string row = fmt::format("  {:>5} {:>5} {:>5} {:>12} {:>12} {:>10} {:>11}", round, l.src_rank, l.dst_rank,
                                  l.src_host, l.dst_host, l.size_bytes, l.iterations);
    if (lat && l.lat) {
      row +=
          fmt::format(" {:>11.2f} {:>11.2f} {:>15.2f} {:>11.2f} {:>13.2f} {:>20.2f} {:>22.2f}", l.lat->min_us,
                      l.lat->max_us, l.lat->typical_us, l.lat->avg_us, l.lat->stdev_us, l.lat->p99_us, l.lat->p999_us);
    } else if (lat && l.lat_us) {  // imported (osu): only the loop's mean is known
      row += fmt::format(" {:>11} {:>11} {:>15} {:>11.2f} {:>13} {:>20} {:>22}", "N/A", "N/A", "N/A", *l.lat_us, "N/A",
                         "N/A", "N/A");
    } else if (!lat) {
      row += fmt::format(" {:>13.3f} {:>16.3f} {:>13.4f}", l.bw_peak_gbps.value_or(0), l.bw_gbps.value_or(0),
                         l.msg_rate_mpps.value_or(0));
    }
    return row + (l.near_floor ? "  ~\n" : "\n");
  };
  for (const P2pLink& l : p.links) {
    out += link_row(l, p.repeats > 1 ? fmt::format("{}.{}", l.round, l.repeat) : fmt::format("{}", l.round));
  }
  // Per size: the median link and the slowest (or, for latency, the highest) link.
  std::map<uint64_t, std::vector<const P2pLink*>> by_size;
  for (const P2pLink& l : p.links) by_size[l.size_bytes].push_back(&l);
  for (const auto& [size, links] : by_size) {
    auto value = [lat](const P2pLink* l) { return link_value(*l, lat); };
    std::vector<double> values;
    for (const P2pLink* l : links) values.push_back(value(l));
    const P2pLink* worst = *std::min_element(links.begin(), links.end(), [&](const P2pLink* a, const P2pLink* b) {
      return lat ? value(a) > value(b) : value(a) < value(b);
    });
    out += fmt::format("# {} bytes: {} links, median {:.3f} {}, {} {} -> {} ({} -> {}) {:.3f} {}\n", size, links.size(),
                       median(values), lat ? "us" : "GB/s", lat ? "slowest" : "lowest", worst->src_rank,
                       worst->dst_rank, worst->src_host, worst->dst_host, value(worst), lat ? "us" : "GB/s");
  }
  out += render_coverage(p);
  if (!p.alone.empty()) {
    out += fmt::format("# retested alone (--retest): {} suspect link(s), each with no other flow running\n",
                       p.alone.size());
    for (const P2pLink& l : p.alone) out += link_row(l, "alone");
  }
  return out;
}

std::string render_coverage(const P2pSection& p) {
  if (!p.coverage) return "";
  const LinkCoverage& c = *p.coverage;
  std::string rounds = fmt::format("{} rounds", c.rounds);
  if (c.intra_leaf_rounds > 0) rounds += fmt::format(" ({} within leaves)", c.intra_leaf_rounds);
  if (c.adaptive_rounds > 0) rounds += fmt::format(" and {} for suspects", c.adaptive_rounds);
  std::string out = fmt::format("# Links: schedule {}, {}: {} of {} host pairs measured", c.schedule, rounds,
                                c.measured_host_pairs, c.host_pairs);
  if (c.measured_host_pairs < c.host_pairs) {
    out += fmt::format("; not measured: {} inferred slow (a slow host at an end), {} inferred healthy, {} unjudged",
                       c.inferred_slow, c.inferred_healthy, c.unjudged);
  }
  out += "\n";
  if (!c.unmeasured_hosts.empty()) {
    out += fmt::format("# Links: hosts in no measured link: {}\n", compress_hostlist(c.unmeasured_hosts));
  }
  return out;
}

}  // namespace fabscope
