// p2p.congested_link: a link slow beside the other flows of its round (below kSlowRatio
// of the median) but at least kSlowRatio of it when measured again alone (p2p
// --retest): the link is fine; traffic sharing the fabric slows it (an oversubscribed
// switch, flows hashed onto one path). The impact factor is alone / loaded, as GPCNeT's.
#include <fmt/format.h>

#include "core/sizes.h"
#include "diag/rules.h"

namespace fabscope {

void check_p2p_congested_link(const P2pSizeContext& c, FindingSink& sink) {
  for (const P2pLink* l : c.slow_links) {
    const P2pLink* alone = c.alone_of(*l);
    if (!alone || goodness(*alone) < kSlowRatio * c.reference) continue;
    const double impact = goodness(*alone) / goodness(*l);
    sink.add(Severity::kWarning,
             fmt::format("link {} -> {} ({} -> {})", l->src_rank, l->dst_rank, l->src_host, l->dst_host), {},
             fmt::format("link {} -> {} measured {} at {} beside other flows but {} alone ({:.1f}x): congestion, not "
                         "the link",
                         l->src_host, l->dst_host, c.show(goodness(*l)), format_size(c.size_bytes),
                         c.show(goodness(*alone)), impact),
             "the path is healthy when it has the fabric to itself: look for oversubscribed switch uplinks or flows "
             "hashed onto one path (more QPs per connection spread them)",
             {{"size_bytes", c.size_bytes},
              {"src_rank", l->src_rank},
              {"dst_rank", l->dst_rank},
              {"loaded", link_value(*l, c.latency)},
              {"alone", link_value(*alone, c.latency)},
              {"reference", c.latency ? 1 / c.reference : c.reference},
              {"impact_factor", impact}});
  }
}

}  // namespace fabscope
