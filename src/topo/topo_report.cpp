#include "topo/topo_report.h"

#include <algorithm>

namespace fabscope::topo {

namespace {

std::optional<std::string> opt_str(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}
std::optional<int> opt_index(int v) { return v < 0 ? std::nullopt : std::optional<int>(v); }
std::optional<double> opt_positive(double v) { return v > 0 ? std::optional<double>(v) : std::nullopt; }
std::optional<std::string> opt_path(PathClass c) {
  return c == PathClass::kUnknown ? std::nullopt : std::optional<std::string>(path_name(c));
}

// A device's NUMA node and PCIe link: its own, else its PCI node's.
int numa_of(const HostTopology& h, int numa, int pci) {
  return numa >= 0 ? numa : (pci >= 0 && pci < static_cast<int>(h.pci.size()) ? h.pci[pci].numa : -1);
}
double link_of(const HostTopology& h, int pci) {
  return pci >= 0 && pci < static_cast<int>(h.pci.size()) ? h.pci[pci].link_gbytes : 0;
}

}  // namespace

TopoHostEntry host_section(const HostTopology& h, const HostAnalysis& a) {
  TopoHostEntry e;
  e.host = h.host;
  e.sources = h.sources;
  for (const NumaNode& n : h.numa) e.numa.push_back({n.id, n.cpus.to_list()});
  for (const Gpu& g : h.gpus) {
    e.gpus.push_back({g.index, opt_str(g.busid), opt_index(numa_of(h, g.numa, g.pci)), opt_str(g.model),
                      opt_positive(link_of(h, g.pci)), g.nccl_rank, g.gdr,
                      g.cpu_affinity.empty() ? std::nullopt : std::optional<std::string>(g.cpu_affinity.to_list())});
  }
  for (const Nic& n : h.nics) {
    TopoNicEntry nic{n.name,
                     opt_str(n.busid),
                     opt_index(numa_of(h, n.numa, n.pci)),
                     n.rdma,
                     opt_positive(n.speed_gbits),
                     opt_positive(link_of(h, n.pci)),
                     n.gdr,
                     {}};
    for (const Port& p : n.ports) {
      nic.ports.push_back(
          {p.number, opt_str(p.state), opt_positive(p.rate_gbits), opt_str(p.link_layer), opt_str(p.netdev)});
    }
    e.nics.push_back(std::move(nic));
  }
  for (const Gpu& g : h.gpus) e.paths.gpus.push_back(g.index);
  for (const Nic& n : h.nics) e.paths.nics.push_back(n.name);
  for (size_t g = 0; g < h.gpus.size(); ++g) {
    std::vector<std::optional<std::string>> row;
    for (size_t n = 0; n < h.nics.size(); ++n) {
      row.push_back(opt_path(path_class(h, static_cast<int>(g), static_cast<int>(n))));
    }
    e.paths.classes.push_back(std::move(row));
  }
  e.nccl = {a.ib_hca, opt_str(a.ib_hca_origin), h.nccl_nets, a.selected_nics};
  for (const GpuMapping& m : a.gpus) {
    e.mapping.push_back({m.gpu, opt_path(m.best_path), m.best_nics, opt_str(m.nccl_choice),
                         opt_path(m.nccl_choice_path), m.used_nics, m.used_gdr});
  }
  for (const RankBinding& r : h.ranks) e.ranks.push_back({r.rank, r.local_rank, opt_index(r.gpu), r.cpus.to_list()});
  if (h.gpus.empty()) e.notes.push_back("no GPU found");
  if (h.nics.empty()) {
    e.notes.push_back("no NIC found");
  } else if (std::none_of(h.nics.begin(), h.nics.end(), [](const Nic& n) { return n.rdma; })) {
    e.notes.push_back("no RDMA device found");
  }
  return e;
}

TopologySection topology_section(const TopologySet& set, const std::vector<HostAnalysis>& analyses) {
  TopologySection s;
  for (size_t i = 0; i < set.hosts.size() && i < analyses.size(); ++i) {
    s.hosts.push_back(host_section(set.hosts[i], analyses[i]));
  }
  return s;
}

}  // namespace fabscope::topo
