// p2p.congested_uplink (with a fabric description, --fabric): slow links that all cross
// one leaf's uplinks, named once as that leaf's uplinks rather than as many slow links or
// slow hosts: at least kUplinkMinLinks slow links crossing the leaf, or every host under
// the leaf slow across leaves while fast within it. Measured again alone (--retest), fast
// alone is congestion (an oversubscribed or hashed-onto uplink: a warning); slow alone
// too is a degraded uplink (an error). No host is to blame, so none is drained.
#include <fmt/format.h>

#include <algorithm>

#include "core/hostlist.h"
#include "core/sizes.h"
#include "diag/rules.h"

namespace fabscope {

void check_p2p_congested_uplink(const P2pSizeContext& c, FindingSink& sink) {
  for (const P2pSizeContext::UplinkGroup& g : c.uplinks) {
    size_t retested = 0, slow_alone = 0;
    nlohmann::ordered_json sample = nlohmann::ordered_json::array();
    for (const P2pLink* l : g.links) {
      const P2pLink* alone = c.alone_of(*l);
      if (alone) {
        ++retested;
        if (goodness(*alone) < kSlowRatio * c.reference) ++slow_alone;
      }
      if (sample.size() < 8) {
        sample.push_back({{"src_rank", l->src_rank},
                          {"dst_rank", l->dst_rank},
                          {"src_host", l->src_host},
                          {"dst_host", l->dst_host},
                          {"value", link_value(*l, c.latency)},
                          {"alone", alone ? nlohmann::ordered_json(link_value(*alone, c.latency))
                                          : nlohmann::ordered_json(nullptr)}});
      }
    }
    const bool degraded = retested > 0 && slow_alone == retested;
    std::vector<std::string> hosts = g.hosts;
    sink.add(degraded ? Severity::kError : Severity::kWarning, fmt::format("uplinks of leaf {}", g.leaf), {},
             fmt::format("{} links crossing the uplinks of leaf {} ({}) measured {} at {} (median) against {} over "
                         "the other links{}{}",
                         g.links.size(), g.leaf, compress_hostlist(hosts), c.show(g.median), format_size(c.size_bytes),
                         c.show(c.reference),
                         g.whole_leaf ? fmt::format(", while links within the leaf measured {}", c.show(g.inside_leaf))
                                      : std::string(),
                         retested ? fmt::format("; {} of {} retested alone were slow alone too", slow_alone, retested)
                                  : std::string()),
             degraded ? "slow with no other traffic too: a degraded uplink of this leaf (cable, optics, port speed, "
                        "a spine port): check the leaf's uplink ports and their error counters"
                      : "one cause, not many slow links: the leaf's uplinks are oversubscribed or flows hash onto one "
                        "of them (check the leaf's uplink utilisation and ECMP balance; more QPs per connection "
                        "spread flows); the hosts are fine",
             {{"size_bytes", c.size_bytes},
              {"leaf", g.leaf},
              {"hosts", g.hosts},
              {"whole_leaf", g.whole_leaf},
              {"links", g.links.size()},
              {"median", c.latency ? 1 / g.median : g.median},
              {"inside_leaf", g.inside_leaf > 0 ? nlohmann::ordered_json(c.latency ? 1 / g.inside_leaf : g.inside_leaf)
                                                : nlohmann::ordered_json(nullptr)},
              {"reference", c.latency ? 1 / c.reference : c.reference},
              {"retested", retested},
              {"slow_alone", slow_alone},
              {"sample", sample}});
  }
}

}  // namespace fabscope
