// p2p.slow_host: a host whose links, at one message size, carry less than kSlowRatio of
// the bandwidth of the links that avoid it (or take more than 1/kSlowRatio their
// latency): its NIC, cable, port or a rate limit. Measured again alone (p2p --retest),
// its links must be slow alone too: fast alone, other flows or its CPU slowed them.
#include <fmt/format.h>

#include "core/sizes.h"
#include "diag/rules.h"

namespace fabscope {

void check_p2p_slow_host(const P2pSizeContext& c, FindingSink& sink) {
  for (const P2pSizeContext::HostComparison& h : c.hosts) {
    if (!h.slow) continue;
    const double mine = h.median_touching, others = h.median_avoiding;
    const double ratio = mine / others;
    sink.add(Severity::kError, fmt::format("host {}", h.host), {h.host},
             c.latency ? fmt::format("links of host {} take {:.1f}x the latency of the other links at {}", h.host,
                                     1 / ratio, format_size(c.size_bytes))
                       : fmt::format("links of host {} carry {:.0f}% of the bandwidth of the other links at {} "
                                     "({:.3f} against {:.3f} GB/s, medians){}",
                                     h.host, 100 * ratio, format_size(c.size_bytes), mine, others,
                                     h.retested ? fmt::format("; {} of them alone: {}, slow with no other traffic too",
                                                              h.retested, c.show(h.median_alone))
                                                : ""),
             "check this host's NIC: port speed and errors (ethtool, ibstat), cable, switch port, and any rate limit",
             {{"size_bytes", c.size_bytes},
              {"links_touching", h.touching},
              {"links_avoiding", h.avoiding},
              {c.latency ? "median_touching_inv_us" : "median_touching_gbps", mine},
              {c.latency ? "median_avoiding_inv_us" : "median_avoiding_gbps", others},
              {"ratio", ratio},
              {"retested_alone", h.retested},
              {c.latency ? "median_alone_inv_us" : "median_alone_gbps",
               h.retested ? nlohmann::ordered_json(h.median_alone) : nlohmann::ordered_json(nullptr)}});
  }
}

}  // namespace fabscope
