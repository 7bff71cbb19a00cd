// p2p.slow_nic: one rank of a host whose links, at one message size, carry less than
// kSlowRatio of the bandwidth of the links that avoid it, while its host's other ranks
// are fine: the NIC that rank uses (or the rail behind it, or a GPU-NIC path across the
// CPU socket). Judged where hosts run several ranks in the link matrix (rail by rail).
#include <fmt/format.h>

#include "core/sizes.h"
#include "diag/rules.h"

namespace fabscope {

// Other ranks of the host slowed less (P2pSizeContext::RankComparison::sharing) are named
// as what this rank's traffic slows, their links folded under this finding.
void check_p2p_slow_nic(const P2pSizeContext& c, FindingSink& sink) {
  for (const P2pSizeContext::RankComparison& r : c.slow_ranks) {
    const double ratio = r.median_touching / r.median_avoiding;
    const std::string others =
        r.sharing.empty()
            ? std::string("while the host's other ranks are fine")
            : fmt::format(
                  "and rank{} {} of the same host {} slowed too: this rank's traffic shares {} NIC, "
                  "likely (a GPU on another's NIC)",
                  r.sharing.size() == 1 ? "" : "s", fmt::join(r.sharing, ", "), r.sharing.size() == 1 ? "is" : "are",
                  r.sharing.size() == 1 ? "its" : "their") +
                  (r.folded == 0
                       ? std::string()
                       : fmt::format(", so {} more slow link{} follow{} from this one and {} not judged apart",
                                     r.folded, r.folded == 1 ? "" : "s", r.folded == 1 ? "s" : "",
                                     r.folded == 1 ? "is" : "are")) +
                  (r.folded_uplinks.empty()
                       ? std::string()
                       : fmt::format(", with the congestion its traffic across rails makes on the uplinks of leaf {}",
                                     fmt::join(r.folded_uplinks, ", ")));
    sink.add(Severity::kError, fmt::format("rank {} on {} (its NIC)", r.rank, r.host), {r.host},
             c.latency ? fmt::format("links of rank {} on {} take {:.1f}x the latency of the other links at {}, {}",
                                     r.rank, r.host, 1 / ratio, format_size(c.size_bytes), others)
                       : fmt::format("links of rank {} on {} carry {:.0f}% of the bandwidth of the other links at {} "
                                     "({:.3f} against {:.3f} GB/s, medians), {}",
                                     r.rank, r.host, 100 * ratio, format_size(c.size_bytes), r.median_touching,
                                     r.median_avoiding, others),
             r.sharing.empty()
                 ? "check the NIC this rank's GPU uses: its port speed and errors, its cable and switch port (its "
                   "rail), and that the GPU uses its nearest NIC (fabscope topo)"
                 : "check which NIC this rank's GPU uses (fabscope topo, NCCL's 'NET/IB : Using' and channel lines): a "
                   "GPU on another GPU's NIC doubles that NIC's load and crosses the CPU sockets; else its own NIC's "
                   "port speed, errors, cable and switch port",
             {{"size_bytes", c.size_bytes},
              {"rank", r.rank},
              {"host", r.host},
              {"links_touching", r.touching},
              {c.latency ? "median_touching_inv_us" : "median_touching_gbps", r.median_touching},
              {c.latency ? "median_avoiding_inv_us" : "median_avoiding_gbps", r.median_avoiding},
              {"ratio", ratio},
              {"sharing_ranks", r.sharing},
              {"links_folded", r.folded},
              {"uplinks_folded", r.folded_uplinks}});
  }
}

}  // namespace fabscope
