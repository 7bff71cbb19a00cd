// p2p.slow_link: one link below kSlowRatio of the median of the links that touch no
// slow host, where neither of its hosts is slow: the path between them. Measured again
// alone (p2p --retest), it must be slow alone too; fast alone, it is p2p.congested_link.
#include <fmt/format.h>

#include "core/sizes.h"
#include "diag/rules.h"

namespace fabscope {

void check_p2p_slow_link(const P2pSizeContext& c, FindingSink& sink) {
  for (const P2pLink* l : c.slow_links) {
    const P2pLink* alone = c.alone_of(*l);
    if (alone && goodness(*alone) >= kSlowRatio * c.reference) continue;  // congestion, not the link
    sink.add(
        Severity::kError, fmt::format("link {} -> {} ({} -> {})", l->src_rank, l->dst_rank, l->src_host, l->dst_host),
        {l->src_host, l->dst_host},
        fmt::format("link {} -> {} measured {} at {}, against a median of {} over the other links{}", l->src_host,
                    l->dst_host, c.show(goodness(*l)), format_size(c.size_bytes), c.show(c.reference),
                    alone ? fmt::format(", and {} alone", c.show(goodness(*alone))) : ""),
        alone ? "slow with no other traffic too: suspect the path between these hosts (cable, switch port, "
                "routing), not congestion"
              : "the hosts are fine on their other links: suspect the path between them (cable, switch, routing); "
                "p2p --retest measures it alone to rule out congestion",
        {{"size_bytes", c.size_bytes},
         {"src_rank", l->src_rank},
         {"dst_rank", l->dst_rank},
         {"value", link_value(*l, c.latency)},
         {"reference", c.latency ? 1 / c.reference : c.reference},
         {"alone", alone ? nlohmann::ordered_json(link_value(*alone, c.latency)) : nlohmann::ordered_json(nullptr)}});
  }
  // Across oversubscribed uplinks, a link within its share beside the others may still be
  // slow: measured alone, it has the path to itself.
  for (const P2pLink* l : c.share_suspects) {
    const P2pLink* alone = c.alone_of(*l);
    if (!alone || goodness(*alone) >= kSlowRatio * c.reference) continue;
    sink.add(Severity::kError,
             fmt::format("link {} -> {} ({} -> {})", l->src_rank, l->dst_rank, l->src_host, l->dst_host),
             {l->src_host, l->dst_host},
             fmt::format("link {} -> {} measured {} alone at {}, against a full rate of {} (the median of the other "
                         "links over their uplinks' share); beside the others it read {}, which the oversubscribed "
                         "uplinks' share hid",
                         l->src_host, l->dst_host, c.show(goodness(*alone)), format_size(c.size_bytes),
                         c.show(c.reference), c.show(goodness(*l))),
             "slow with no other traffic: suspect the path between these hosts (cable, switch port, routing), not the "
             "uplinks",
             {{"size_bytes", c.size_bytes},
              {"src_rank", l->src_rank},
              {"dst_rank", l->dst_rank},
              {"value", link_value(*l, c.latency)},
              {"reference", c.reference},
              {"alone", link_value(*alone, c.latency)},
              {"within_share", true}});
  }
}

}  // namespace fabscope
