// What a topology read from files lacks for a judgement of its hosts' GPU-NIC mapping:
// `topo` on files and `triage` say it instead of passing (topo/mapping.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/hostlist.h"
#include "topo/mapping.h"

namespace fabscope::topo {

std::vector<std::string> missing_inputs(const TopologySet& set, const std::vector<HostAnalysis>& analyses) {
  std::vector<std::string> missing;
  if (set.hosts.empty()) {
    missing.emplace_back("the files describe no host: no GPU, NIC or PCI device");
    return missing;
  }
  // Each lack, with the hosts that have it (one line for many hosts alike), in this order.
  enum Lack { kNothing, kNoGpu, kNoNic, kNoPath };
  std::map<Lack, std::vector<std::string>> lacking;
  for (size_t i = 0; i < set.hosts.size(); ++i) {
    const HostTopology& h = set.hosts[i];
    if (h.gpus.empty() && h.nics.empty() && h.uses.empty()) {
      lacking[kNothing].push_back(h.host);
      continue;
    }
    if (h.gpus.empty()) {
      lacking[kNoGpu].push_back(h.host);
      continue;
    }
    std::set<int> unnamed;  // NET/IB/k indices used without the process's NET/IB list
    for (const NicUse& u : h.uses) {
      if (u.nic.empty() && u.net_index >= 0) unnamed.insert(u.net_index);
    }
    if (!unnamed.empty()) {
      std::vector<std::string> nets;
      for (int k : unnamed) nets.push_back(fmt::format("NET/IB/{}", k));
      missing.push_back(fmt::format("{}: no `NET/IB : Using` line: cannot tell which NIC {} {}",
                                    h.host.empty() ? "the host" : "host " + h.host, fmt::join(nets, ", "),
                                    nets.size() == 1 ? "is" : "are"));
    }
    if (h.nics.empty()) {
      if (unnamed.empty()) lacking[kNoNic].push_back(h.host);
      continue;
    }
    // Where each GPU's NIC sits: a path class for some GPU-NIC pair, or GPUDirect RDMA on
    // some channel of every GPU seen using a NIC (NCCL allows it only on a near path).
    const HostAnalysis* a = i < analyses.size() && analyses[i].host == h.host ? &analyses[i] : nullptr;
    if (!a) continue;
    const bool paths_known = std::any_of(a->gpus.begin(), a->gpus.end(),
                                         [](const GpuMapping& g) { return g.best_path != PathClass::kUnknown; });
    std::map<int, bool> gdr_of;  // GPU -> GPUDirect RDMA on some channel
    for (const NicUse& u : h.uses) gdr_of[u.gpu] = gdr_of[u.gpu] || u.gdr;
    const bool near_shown =
        !gdr_of.empty() && std::all_of(gdr_of.begin(), gdr_of.end(), [](const auto& g) { return g.second; });
    if (!paths_known && !near_shown) lacking[kNoPath].push_back(h.host);
  }
  const std::map<Lack, std::string_view> what = {
      {kNothing, "no GPU and no NIC in the files"},
      {kNoGpu,
       "no GPU in the files (add nvidia-smi topo -m, an hwloc or NCCL topology XML, or an NCCL log): which NIC each "
       "GPU uses is not judged"},
      {kNoNic,
       "no NIC in the files (add ibdev2netdev, ibstat, nvidia-smi topo -m with NIC columns, or a topology XML): which "
       "NIC each GPU should use is not judged"},
      {kNoPath,
       "no PCI tree or GPU-NIC path matrix (nvidia-smi topo -m, an hwloc or NCCL topology XML): cannot tell which NIC "
       "is nearest each GPU"},
  };
  for (const auto& [lack, hosts] : lacking) {
    std::vector<std::string> named;
    for (const std::string& h : hosts) {
      if (!h.empty()) named.push_back(h);
    }
    const std::string who = named.empty()       ? std::string("the host")
                            : named.size() == 1 ? "host " + named[0]
                                                : "hosts " + compress_hostlist(named);
    missing.push_back(fmt::format("{}: {}", who, what.at(lack)));
  }
  return missing;
}

}  // namespace fabscope::topo
