// topo.nic_shared: several GPUs on one NIC (used, or predicted) while a NIC near them
// carries no GPU traffic.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "topo/rules.h"

namespace fabscope::topo {

void check_nic_shared(const HostContext& c, FindingSink& sink) {
  const HostTopology& h = c.host;
  std::map<std::string, std::vector<int>> on_nic;  // NIC -> GPU positions
  bool from_log = false;
  for (int g : c.paths.order) {
    const GpuMapping& m = c.mappings[g];
    if (!m.used_nics.empty()) {
      from_log = true;
      for (const std::string& u : m.used_nics) on_nic[u].push_back(g);
    } else if (!m.nccl_choice.empty()) {
      on_nic[m.nccl_choice].push_back(g);
    }
  }
  for (const auto& [nic, gpus] : on_nic) {
    if (gpus.size() < 2) continue;
    int shared = h.find_nic(nic);
    std::vector<std::string> idle;
    for (int n : c.paths.pool) {
      if (on_nic.count(h.nics[n].name) || !usable(h.nics[n])) continue;
      for (int g : gpus) {
        PathClass here = shared >= 0 ? c.path(g, shared) : PathClass::kUnknown;
        if (near(c.path(g, n)) && (here == PathClass::kUnknown || !better(here, c.path(g, n)))) {
          idle.push_back(h.nics[n].name);
          break;
        }
      }
    }
    if (idle.empty()) continue;
    std::sort(idle.begin(), idle.end(), natural_less);
    std::vector<int> ids;
    for (int g : gpus) ids.push_back(h.gpus[g].index);
    sink.add(Severity::kWarning, c.subject(fmt::format("NIC {}", nic)), c.hosts(),
             fmt::format("GPUs {} on {} all use {} while {} near them carry no GPU traffic", fmt::join(ids, ", "),
                         c.label(), nic, fmt::join(idle, ", ")),
             "the shared NIC halves each GPU's bandwidth: check NCCL_IB_HCA and that the idle NICs' ports are up",
             {{"host", h.host},
              {"nic", nic},
              {"gpus", ids},
              {"idle_near_nics", idle},
              {"source", from_log ? "NCCL log" : "prediction"}});
  }
}

}  // namespace fabscope::topo
