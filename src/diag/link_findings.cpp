#include "diag/link_findings.h"

#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/sizes.h"
#include "core/stats.h"

namespace fabscope {

namespace {

// Higher is better for both modes: bandwidth, or 1 / latency.
double goodness(const P2pLink& l) {
  if (l.bw_gbps) return *l.bw_gbps;
  if (l.lat_us && *l.lat_us > 0) return 1.0 / *l.lat_us;
  return 0;
}

std::string show(const P2pLink& l, bool lat) {
  return lat ? fmt::format("{:.2f} us", l.lat_us.value_or(0)) : fmt::format("{:.3f} GB/s", l.bw_gbps.value_or(0));
}

}  // namespace

void add_p2p_findings(Report& report) {
  if (!report.p2p) return;
  const bool lat = report.p2p->mode == "lat";
  std::map<uint64_t, std::vector<const P2pLink*>> by_size;
  for (const P2pLink& l : report.p2p->links) by_size[l.size_bytes].push_back(&l);

  for (const auto& [size, links] : by_size) {
    std::set<std::string> hosts;
    for (const P2pLink* l : links) {
      hosts.insert(l->src_host);
      hosts.insert(l->dst_host);
    }
    // 1. Hosts: the links touching a host against those that avoid it.
    std::set<std::string> slow_hosts;
    for (const std::string& h : hosts) {
      std::vector<double> touching, avoiding;
      for (const P2pLink* l : links) {
        (l->src_host == h || l->dst_host == h ? touching : avoiding).push_back(goodness(*l));
      }
      if (touching.empty() || avoiding.empty()) continue;
      const double mine = median(touching), others = median(avoiding);
      if (others <= 0 || mine >= kSlowRatio * others) continue;
      slow_hosts.insert(h);
      Finding f;
      f.code = "p2p.slow_host";
      f.severity = Severity::kError;
      f.subject = fmt::format("host {}", h);
      const double ratio = mine / others;
      f.message = lat ? fmt::format("links of host {} take {:.1f}x the latency of the other links at {}", h, 1 / ratio,
                                    format_size(size))
                      : fmt::format(
                            "links of host {} carry {:.0f}% of the bandwidth of the other links at {} "
                            "({:.3f} against {:.3f} GB/s, medians)",
                            h, 100 * ratio, format_size(size), mine, others);
      f.hint = "check this host's NIC: port speed and errors (ethtool, ibstat), cable, switch port, and any rate limit";
      f.evidence = nlohmann::ordered_json{{"size_bytes", size},
                                          {"links_touching", touching.size()},
                                          {"links_avoiding", avoiding.size()},
                                          {lat ? "median_touching_inv_us" : "median_touching_gbps", mine},
                                          {lat ? "median_avoiding_inv_us" : "median_avoiding_gbps", others},
                                          {"ratio", ratio}};
      report.findings.push_back(std::move(f));
    }
    // 2. Links that no slow host explains, against the links that touch no slow host.
    std::vector<double> clean;
    for (const P2pLink* l : links) {
      if (!slow_hosts.count(l->src_host) && !slow_hosts.count(l->dst_host)) clean.push_back(goodness(*l));
    }
    if (clean.size() < 2) continue;
    const double reference = median(clean);
    for (const P2pLink* l : links) {
      if (slow_hosts.count(l->src_host) || slow_hosts.count(l->dst_host)) continue;
      if (goodness(*l) >= kSlowRatio * reference) continue;
      Finding f;
      f.code = "p2p.slow_link";
      f.severity = Severity::kError;
      f.subject = fmt::format("link {} -> {} ({} -> {})", l->src_rank, l->dst_rank, l->src_host, l->dst_host);
      f.message = fmt::format("link {} -> {} measured {} at {}, against a median of {} over the other links",
                              l->src_host, l->dst_host, show(*l, lat), format_size(size),
                              lat ? fmt::format("{:.2f} us", 1 / reference) : fmt::format("{:.3f} GB/s", reference));
      f.hint = "the hosts are fine on their other links: suspect the path between them (cable, switch, routing)";
      f.evidence = nlohmann::ordered_json{{"size_bytes", size},
                                          {"src_rank", l->src_rank},
                                          {"dst_rank", l->dst_rank},
                                          {"value", lat ? l->lat_us.value_or(0) : l->bw_gbps.value_or(0)},
                                          {"reference", lat ? 1 / reference : reference}};
      report.findings.push_back(std::move(f));
    }
  }
}

}  // namespace fabscope
