// topo.port_down: a NIC port not ACTIVE. An error when a GPU has the NIC as a near one
// or NCCL_IB_HCA names it; info otherwise (an unused port may be down on purpose), or,
// for triage (AnalysisOptions::down_ports_warn), a warning unless the files show the port
// unused: NCCL's NET/IB list on the host leaves the NIC out, NCCL_IB_HCA excludes it, the
// GPUs' paths are known and it is near none of them, or another port of the same card is
// up (a dual-port card with one port cabled: another function of the card, or on every
// multi-port device of the host the same port down beside another up), or it is an Ethernet
// port on a host whose InfiniBand ports are up (another layer than the fabric's).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "topo/rules.h"

namespace fabscope::topo {

namespace {

// The card of a PCI function's interface name: "enp27s0f1np1" -> "enp27s0" (systemd's
// names end in f<function>); "" for names without one.
std::string_view card_of(std::string_view netdev) {
  for (size_t i = 1; i + 1 < netdev.size(); ++i) {
    if (netdev[i] == 'f' && std::isdigit(static_cast<unsigned char>(netdev[i - 1])) &&
        std::isdigit(static_cast<unsigned char>(netdev[i + 1]))) {
      return netdev.substr(0, i);
    }
  }
  return {};
}

// For multi-port devices (mlx4's dual-port HCA, ibv_devinfo's "port: 2"), where one device
// holds both ports, the spare is told by the pattern: every multi-port device of the host
// (two or more) has this port number down beside another port up, a cabling plan; one
// device's port down where its peers' is up is a fault.
bool spare_port_pattern(const HostTopology& h, const Port& port) {
  int devices = 0;
  for (const Nic& n : h.nics) {
    if (n.ports.size() < 2) continue;
    ++devices;
    const auto same =
        std::find_if(n.ports.begin(), n.ports.end(), [&](const Port& p) { return p.number == port.number; });
    const bool other_up = std::any_of(n.ports.begin(), n.ports.end(), [&](const Port& p) {
      return p.number != port.number && !p.state.empty() && port_active(p);
    });
    if (same == n.ports.end() || same->state.empty() || port_active(*same) || !other_up) return false;
  }
  return devices >= 2;
}

// Another function of the same card has an active port (or the pattern above): this one is
// its uncabled spare.
bool sibling_active(const HostTopology& h, const Port& port) {
  if (spare_port_pattern(h, port)) return true;
  const std::string_view card = card_of(port.netdev);
  if (card.empty()) return false;
  for (const Nic& n : h.nics) {
    for (const Port& p : n.ports) {
      if (&p != &port && p.netdev != port.netdev && card_of(p.netdev) == card && !p.state.empty() && port_active(p)) {
        return true;
      }
    }
  }
  return false;
}

// An Ethernet port on a host whose InfiniBand ports are up: not a port of the fabric the job
// runs on (a management or front-end port beside it, as a GH200's 2.5 GbE functions beside its
// HDR ones); where all the host's ports are Ethernet, a port down may be one the job uses.
bool beside_infiniband(const HostTopology& h, const Port& port) {
  if (port.link_layer != "Ethernet") return false;
  return std::any_of(h.nics.begin(), h.nics.end(), [](const Nic& n) {
    return std::any_of(n.ports.begin(), n.ports.end(),
                       [](const Port& p) { return p.link_layer == "InfiniBand" && port_active(p); });
  });
}

}  // namespace

void check_port_down(const HostContext& c, FindingSink& sink) {
  const std::set<std::string> near_nics = c.near_nics();
  for (const Nic& nic : c.host.nics) {
    bool named = c.filter && !c.filter->exclude &&
                 std::any_of(c.filter->entries.begin(), c.filter->entries.end(),
                             [&](const HcaEntry& e) { return e.name == nic.name; });
    for (const Port& p : nic.ports) {
      if (port_active(p)) continue;
      bool matters = near_nics.count(nic.name) || named;
      const bool unused =
          (!c.host.nccl_nets.empty() &&
           std::find(c.host.nccl_nets.begin(), c.host.nccl_nets.end(), nic.name) == c.host.nccl_nets.end()) ||
          (c.filter && !c.filter->selects(nic.name, p.number)) || (!c.paths.order.empty() && !near_nics.empty()) ||
          sibling_active(c.host, p) || beside_infiniband(c.host, p);
      const Severity severity = matters                                ? Severity::kError
                                : c.options.down_ports_warn && !unused ? Severity::kWarning
                                                                       : Severity::kInfo;
      sink.add(
          severity, c.subject(fmt::format("NIC {} port {}", nic.name, p.number)), c.hosts(),
          fmt::format("{} port {} on {} is {}{}", nic.name, p.number, c.label(), p.state,
                      matters ? (named ? " and NCCL_IB_HCA names it" : " and a GPU has it as its near NIC") : ""),
          matters                          ? "check the cable, the switch port and `ibstat`; NCCL will skip this port"
          : severity == Severity::kWarning ? "nothing in the files shows it unused: check the cable, the switch port "
                                             "and the subnet manager (`ibstat`: Polling is no link partner, Init is "
                                             "no subnet manager), or say it is unused on purpose"
                                           : "not a GPU's near NIC; ignore if it is unused on purpose",
          {{"host", c.host.host}, {"nic", nic.name}, {"port", p.number}, {"state", p.state}, {"netdev", p.netdev}});
    }
  }
}

}  // namespace fabscope::topo
