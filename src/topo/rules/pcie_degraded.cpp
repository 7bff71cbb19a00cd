// topo.pcie_degraded: a GPU or NIC whose PCIe link is below 0.75 of its identical peers'
// median (same vendor and device), or PCI links NCCL measured far below their
// neighbours (its GRAPH dump; the reader compares measured PCI links only, never NCCL's
// LOC_BW stand-in nor NVL, NET, SYS or C2C links: topo/nccl_log.cpp).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "core/stats.h"
#include "topo/rules.h"

namespace fabscope::topo {

void check_pcie_degraded(const HostContext& c, FindingSink& sink) {
  const HostTopology& h = c.host;
  std::map<std::pair<std::string, uint32_t>, std::vector<std::pair<std::string, double>>> groups;
  auto add = [&](const char* kind, int pci, std::string who) {
    if (pci < 0 || pci >= static_cast<int>(h.pci.size()) || h.pci[pci].link_gbytes <= 0) return;
    const PciNode& p = h.pci[pci];
    groups[{kind, (static_cast<uint32_t>(p.vendor) << 16) | p.device}].emplace_back(std::move(who), p.link_gbytes);
  };
  for (const Gpu& g : h.gpus) add("GPU", g.pci, fmt::format("GPU {}", g.index));
  for (const Nic& n : h.nics) add("NIC", n.pci, fmt::format("NIC {}", n.name));
  for (const auto& [key, members] : groups) {
    if (members.size() < 2) continue;
    std::vector<double> v;
    for (const auto& m : members) v.push_back(m.second);
    const double med = median(v);
    for (const auto& [who, gb] : members) {
      if (gb >= 0.75 * med) continue;
      sink.add(Severity::kWarning, c.subject(who), c.hosts(),
               fmt::format("{} on {} has a PCIe link of {:.1f} GB/s, its {} identical peers' median is {:.1f} GB/s",
                           who, c.label(), gb, members.size() - 1, med),
               "the slot trained at a lower speed or width: check `lspci -vv` LnkSta against LnkCap; reseat the card",
               {{"host", h.host}, {"device", who}, {"link_gbytes", gb}, {"peers_median_gbytes", med}});
    }
  }
  if (!h.slow_pci_links.empty()) {
    nlohmann::ordered_json links = nlohmann::ordered_json::array();
    std::vector<std::string> names;
    for (const PciLinkObservation& o : h.slow_pci_links) {
      links.push_back({{"node", o.node}, {"gbytes", o.gbytes}, {"peer_median_gbytes", o.peer_median_gbytes}});
      names.push_back(o.node);
    }
    const PciLinkObservation& first = h.slow_pci_links.front();
    sink.add(
        Severity::kWarning, c.subject("PCI links"), c.hosts(),
        fmt::format("NCCL sees {} PCI link(s) on {} at {:g} GB/s against a median of {:g} GB/s ({})",
                    h.slow_pci_links.size(), c.label(), first.gbytes, first.peer_median_gbytes, fmt::join(names, ", ")),
        "NCCL will route around these links; in a VM, emulated switches often report bogus speeds: give NCCL a "
        "correct NCCL_TOPO_FILE",
        {{"host", h.host}, {"links", links}});
  }
}

}  // namespace fabscope::topo
