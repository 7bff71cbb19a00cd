// topo.subnet_prefix_mismatch: one port number (of one device name) on different
// InfiniBand subnets across hosts, by GID 0's subnet prefix. Two fabrics cabled to the
// same-numbered ports the other way round on some hosts: port N of one host cannot reach
// port N of another although every port is Active, and a job that picks ports by number
// (the default of NCCL, MPIs and perftest) cannot connect across them.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>

#include "topo/rules.h"

namespace fabscope::topo {

void check_subnet_prefix(const FleetContext& c, FindingSink& sink) {
  if (!c.set || c.set->hosts.size() < 2) return;
  // (device, port) -> subnet prefix -> hosts
  std::map<std::pair<std::string, int>, std::map<std::string, std::vector<std::string>>> ports;
  for (const HostTopology& h : c.set->hosts) {
    for (const Nic& n : h.nics) {
      for (const Port& p : n.ports) {
        if (!p.subnet_prefix.empty()) ports[{n.name, p.number}][p.subnet_prefix].push_back(h.host);
      }
    }
  }
  for (const auto& [port, prefixes] : ports) {
    if (prefixes.size() < 2) continue;
    std::vector<std::string> parts, hosts;
    nlohmann::ordered_json evidence = nlohmann::ordered_json::object();
    for (const auto& [prefix, on] : prefixes) {
      std::vector<std::string> named;
      for (const std::string& h : on) named.push_back(h.empty() ? "the unnamed host" : h);
      parts.push_back(fmt::format("{} on {}", prefix, fmt::join(named, ", ")));
      hosts.insert(hosts.end(), on.begin(), on.end());
      evidence[prefix] = named;
    }
    sink.add(Severity::kWarning, fmt::format("{} port {}", port.first, port.second), hosts,
             fmt::format("{} port {} is on {} InfiniBand subnets across the hosts: {}: the hosts' port {}s cannot "
                         "reach each other although each is up",
                         port.first, port.second, prefixes.size(), fmt::join(parts, "; "), port.second),
             "two fabrics cabled to the same-numbered ports differently on some hosts: recable them alike, or pick "
             "the port by subnet (NCCL_IB_HCA=device:port per host, the MPI's GID or subnet option)",
             {{"device", port.first}, {"port", port.second}, {"hosts_by_prefix", evidence}});
  }
}

}  // namespace fabscope::topo
