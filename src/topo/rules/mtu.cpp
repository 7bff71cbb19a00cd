// topo.mtu_mismatch: RDMA ports of one link layer whose active MTU differs from host to
// host. A queue pair between two hosts must use one path MTU; NCCL from 2.20 sets each
// end to its own port's MTU rather than the lower of the two, so a host at 1024 beside
// hosts at 4096 fails with a queue pair's access violation or a local length error
// (nccl#1524), and other stacks fall back to the lower MTU at a cost in bandwidth. On RoCE
// the interface's MTU sets it (1500 gives 1024, 9000 gives 4096); on InfiniBand the subnet
// manager's partition and the switch ports do.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>

#include "topo/rules.h"

namespace fabscope::topo {

void check_mtu(const FleetContext& c, FindingSink& sink) {
  if (!c.set || c.set->hosts.size() < 2) return;
  // link layer -> MTU -> hosts (each host once per MTU), and the ports that show it
  std::map<std::string, std::map<int, std::set<std::string>>> layers;
  std::map<std::string, std::map<int, std::vector<std::string>>> ports;
  for (const HostTopology& h : c.set->hosts) {
    const std::string host = h.host.empty() ? "the unnamed host" : h.host;
    for (const Nic& n : h.nics) {
      for (const Port& p : n.ports) {
        if (p.active_mtu <= 0 || (!p.state.empty() && p.state != "ACTIVE")) continue;
        const std::string layer = p.link_layer.empty() ? "RDMA" : p.link_layer;
        layers[layer][p.active_mtu].insert(host);
        auto& shown = ports[layer][p.active_mtu];
        if (shown.size() < 4) shown.push_back(fmt::format("{}:{} {}", host, n.name, p.number));
      }
    }
  }
  for (const auto& [layer, mtus] : layers) {
    if (mtus.size() < 2) continue;
    std::vector<std::string> parts, hosts;
    nlohmann::ordered_json evidence = nlohmann::ordered_json::object();
    for (const auto& [mtu, on] : mtus) {
      parts.push_back(fmt::format("{} on {}", mtu, fmt::join(on, ", ")));
      hosts.insert(hosts.end(), on.begin(), on.end());
      evidence[std::to_string(mtu)] = ports.at(layer).at(mtu);
    }
    const bool roce = layer == "Ethernet";
    sink.add(Severity::kWarning, fmt::format("{} ports' MTU", layer), hosts,
             fmt::format("active {} ports run at {} different MTUs across the hosts: {}: a queue pair between hosts "
                         "of different MTUs fails (NCCL 2.20 and later: a local access violation or a local length "
                         "error) or runs at the lower one",
                         layer, mtus.size(), fmt::join(parts, "; ")),
             roce ? "set the same MTU on every host's RoCE interface (`ip link set DEV mtu 9000`, and the switch "
                    "ports to allow it); `ibv_devinfo | grep active_mtu` shows what RDMA uses"
                  : "the subnet manager sets an InfiniBand port's MTU (its partition's mtu, the switch ports' "
                    "capability): make them the same on every host's path; `ibv_devinfo | grep active_mtu` shows it",
             {{"link_layer", layer}, {"ports_by_mtu", evidence}});
  }
}

}  // namespace fabscope::topo
