// p2p.slow_link: one link below kSlowRatio of the median of the links that touch no
// slow host, where neither of its hosts is slow: the path between them.
#include <fmt/format.h>

#include "core/sizes.h"
#include "core/stats.h"
#include "diag/rules.h"

namespace fabscope {

void check_p2p_slow_link(const P2pSizeContext& c, FindingSink& sink) {
  auto clean = [&](const P2pLink& l) { return !c.slow_hosts.count(l.src_host) && !c.slow_hosts.count(l.dst_host); };
  std::vector<double> reference_links;
  for (const P2pLink* l : c.links) {
    if (clean(*l)) reference_links.push_back(goodness(*l));
  }
  if (reference_links.size() < 2) return;
  const double reference = median(reference_links);
  for (const P2pLink* l : c.links) {
    if (!clean(*l) || goodness(*l) >= kSlowRatio * reference) continue;
    const std::string measured = c.latency ? fmt::format("{:.2f} us", l->lat_us.value_or(0))
                                           : fmt::format("{:.3f} GB/s", l->bw_gbps.value_or(0));
    sink.add(Severity::kError,
             fmt::format("link {} -> {} ({} -> {})", l->src_rank, l->dst_rank, l->src_host, l->dst_host),
             {l->src_host, l->dst_host},
             fmt::format("link {} -> {} measured {} at {}, against a median of {} over the other links", l->src_host,
                         l->dst_host, measured, format_size(c.size_bytes),
                         c.latency ? fmt::format("{:.2f} us", 1 / reference) : fmt::format("{:.3f} GB/s", reference)),
             "the hosts are fine on their other links: suspect the path between them (cable, switch, routing)",
             {{"size_bytes", c.size_bytes},
              {"src_rank", l->src_rank},
              {"dst_rank", l->dst_rank},
              {"value", c.latency ? l->lat_us.value_or(0) : l->bw_gbps.value_or(0)},
              {"reference", c.latency ? 1 / reference : reference}});
  }
}

}  // namespace fabscope
