// topo.port_degraded: an active port below --expect-rate, or below 0.9 of the median
// of its peers (the GPUs' near NICs; every RDMA port where no GPU path is known; of its
// link layer: a host's 200 Gb/s Ethernet bond is no peer of its 400 Gb/s InfiniBand ports),
// or below the speed its link modes allow (ethtool).
#include <fmt/format.h>

#include <set>
#include <utility>

#include "core/stats.h"
#include "topo/rules.h"

namespace fabscope::topo {

void check_port_degraded(const HostContext& c, FindingSink& sink) {
  struct Rated {
    std::string nic;
    int port;
    double rate;
    std::string layer;  // InfiniBand, Ethernet; empty where not said
  };
  const std::set<std::string> near_nics = c.near_nics();
  std::vector<Rated> rated;
  for (int n : c.paths.pool) {
    const Nic& nic = c.host.nics[n];
    if (!near_nics.empty() && !near_nics.count(nic.name)) continue;
    for (const Port& p : nic.ports) {
      if (!p.state.empty() && p.state != "ACTIVE") continue;
      double r = p.rate_gbits > 0 ? p.rate_gbits : 0;
      if (r > 0) rated.push_back({nic.name, p.number, r, p.link_layer});
    }
    if (nic.ports.empty() && nic.speed_gbits > 0) rated.push_back({nic.name, 1, nic.speed_gbits, ""});
  }
  // A port's peers: the ports of its link layer and those whose layer is not said; a port whose
  // layer is not said (a listing cut short) has every port for its peers.
  const auto peers_of = [&](const Rated& r) {
    std::vector<double> rates;
    for (const Rated& o : rated) {
      if (r.layer.empty() || o.layer.empty() || o.layer == r.layer) rates.push_back(o.rate);
    }
    return rates;
  };
  const double expect = c.options.expect_rate_gbits;
  std::set<std::pair<std::string, int>> named;
  for (const Rated& r : rated) {
    const std::vector<double> peers = peers_of(r);
    const double med = median(peers);
    bool below_expect = expect > 0 && r.rate < expect;
    bool below_peers = peers.size() >= 2 && r.rate < 0.9 * med;
    if (!below_expect && !below_peers) continue;
    named.insert({r.nic, r.port});
    sink.add(Severity::kWarning, c.subject(fmt::format("NIC {} port {}", r.nic, r.port)), c.hosts(),
             fmt::format("{} port {} on {} runs at {:g} Gb/s, below {}", r.nic, r.port, c.label(), r.rate,
                         below_expect ? fmt::format("the expected {:g} Gb/s", expect)
                                      : fmt::format("its peers' median of {:g} Gb/s", med)),
             "a link trained at a lower speed or width: reseat or replace the cable, check `ibstat` / ethtool",
             {{"host", c.host.host},
              {"nic", r.nic},
              {"port", r.port},
              {"rate_gbits", r.rate},
              {"peers_median_gbits", med},
              {"expected_gbits", expect}});
  }
  // A port whose link modes say it could run faster (ethtool: the fastest mode it supports
  // and advertises, and its link partner advertises where listed), up below that.
  for (const Nic& nic : c.host.nics) {
    for (const Port& p : nic.ports) {
      if (p.capable_gbits <= 0 || p.rate_gbits <= 0 || p.rate_gbits >= p.capable_gbits || !port_active(p) ||
          named.count({nic.name, p.number})) {
        continue;
      }
      sink.add(Severity::kWarning, c.subject(fmt::format("NIC {} port {}", nic.name, p.number)), c.hosts(),
               fmt::format("{} port {} on {} runs at {:g} Gb/s, below the {:g} Gb/s its link modes allow (the "
                           "fastest it supports and advertises{})",
                           nic.name, p.number, c.label(), p.rate_gbits, p.capable_gbits,
                           p.netdev.empty() || p.netdev == nic.name ? "" : fmt::format(", {}", p.netdev)),
               "a link that negotiated a lower speed: the cable or transceiver (a slower one, or failing), or the "
               "switch port configured lower; `ethtool IF` shows the partner's modes",
               {{"host", c.host.host},
                {"nic", nic.name},
                {"port", p.number},
                {"rate_gbits", p.rate_gbits},
                {"capable_gbits", p.capable_gbits}});
    }
  }
}

}  // namespace fabscope::topo
