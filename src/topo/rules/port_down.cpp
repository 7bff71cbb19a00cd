// topo.port_down: a NIC port not ACTIVE. An error when a GPU has the NIC as a near one
// or NCCL_IB_HCA names it; info otherwise (an unused port may be down on purpose).
#include <fmt/format.h>

#include <algorithm>

#include "topo/rules.h"

namespace fabscope::topo {

void check_port_down(const HostContext& c, FindingSink& sink) {
  const std::set<std::string> near_nics = c.near_nics();
  for (const Nic& nic : c.host.nics) {
    bool named = c.filter && !c.filter->exclude &&
                 std::any_of(c.filter->entries.begin(), c.filter->entries.end(),
                             [&](const HcaEntry& e) { return e.name == nic.name; });
    for (const Port& p : nic.ports) {
      if (port_active(p)) continue;
      bool matters = near_nics.count(nic.name) || named;
      sink.add(
          matters ? Severity::kError : Severity::kInfo, c.subject(fmt::format("NIC {} port {}", nic.name, p.number)),
          c.hosts(),
          fmt::format("{} port {} on {} is {}{}", nic.name, p.number, c.label(), p.state,
                      matters ? (named ? " and NCCL_IB_HCA names it" : " and a GPU has it as its near NIC") : ""),
          matters ? "check the cable, the switch port and `ibstat`; NCCL will skip this port"
                  : "not a GPU's near NIC; ignore if it is unused on purpose",
          {{"host", c.host.host}, {"nic", nic.name}, {"port", p.number}, {"state", p.state}, {"netdev", p.netdev}});
    }
  }
}

}  // namespace fabscope::topo
