// p2p.slow_nic: one rank of a host whose links, at one message size, carry less than
// kSlowRatio of the bandwidth of the links that avoid it, while its host's other ranks
// are fine: the NIC that rank uses (or the rail behind it, or a GPU-NIC path across the
// CPU socket). Judged where hosts run several ranks in the link matrix (rail by rail).
#include <fmt/format.h>

#include "core/sizes.h"
#include "diag/rules.h"

namespace fabscope {

void check_p2p_slow_nic(const P2pSizeContext& c, FindingSink& sink) {
  for (const P2pSizeContext::RankComparison& r : c.slow_ranks) {
    const double ratio = r.median_touching / r.median_avoiding;
    sink.add(Severity::kError, fmt::format("rank {} on {} (its NIC)", r.rank, r.host), {r.host},
             c.latency ? fmt::format("links of rank {} on {} take {:.1f}x the latency of the other links at {}, "
                                     "while the host's other ranks are fine",
                                     r.rank, r.host, 1 / ratio, format_size(c.size_bytes))
                       : fmt::format("links of rank {} on {} carry {:.0f}% of the bandwidth of the other links at {} "
                                     "({:.3f} against {:.3f} GB/s, medians), while the host's other ranks are fine",
                                     r.rank, r.host, 100 * ratio, format_size(c.size_bytes), r.median_touching,
                                     r.median_avoiding),
             "check the NIC this rank's GPU uses: its port speed and errors, its cable and switch port (its rail), "
             "and that the GPU uses its nearest NIC (fabscope topo)",
             {{"size_bytes", c.size_bytes},
              {"rank", r.rank},
              {"host", r.host},
              {"links_touching", r.touching},
              {c.latency ? "median_touching_inv_us" : "median_touching_gbps", r.median_touching},
              {c.latency ? "median_avoiding_inv_us" : "median_avoiding_gbps", r.median_avoiding},
              {"ratio", ratio}});
  }
}

}  // namespace fabscope
