// topo.numa_affinity: NUMA nodes whose CPU sets overlap (error), or node 0 without
// CPU 0 while another node has it (warning): swapped masks in a hand-written topology
// file.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "topo/rules.h"

namespace fabscope::topo {

void check_numa_affinity(const HostContext& c, FindingSink& sink) {
  const HostTopology& h = c.host;
  std::vector<std::string> overlaps;
  for (size_t i = 0; i < h.numa.size(); ++i) {
    for (size_t j = i + 1; j < h.numa.size(); ++j) {
      if (h.numa[i].cpus.intersects(h.numa[j].cpus))
        overlaps.push_back(fmt::format("{}&{}", h.numa[i].id, h.numa[j].id));
    }
  }
  if (!overlaps.empty()) {
    nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
    for (const NumaNode& n : h.numa) nodes.push_back({{"id", n.id}, {"cpus", n.cpus.to_list()}});
    sink.add(Severity::kError, c.subject("NUMA nodes"), c.hosts(),
             fmt::format("NUMA nodes on {} claim the same CPUs ({})", c.label(), fmt::join(overlaps, ", ")),
             "a topology file with wrong CPU affinities makes NCCL bind its threads to the wrong socket: regenerate "
             "it with NCCL_TOPO_DUMP_FILE on the real machine",
             {{"host", h.host}, {"overlapping", overlaps}, {"numa", nodes}});
    return;
  }
  const NumaNode* zero = h.find_numa(0);
  const NumaNode* holder = nullptr;
  for (const NumaNode& n : h.numa) {
    if (n.cpus.contains(0)) holder = &n;
  }
  if (zero && !zero->cpus.empty() && holder && holder->id != 0) {
    sink.add(Severity::kWarning, c.subject("NUMA node 0"), c.hosts(),
             fmt::format("NUMA node 0 on {} has CPUs {} and node {} has CPU 0; Linux puts CPU 0 on node 0, so the "
                         "masks look swapped",
                         c.label(), zero->cpus.to_list(), holder->id),
             "compare with `lscpu` on the machine and regenerate the topology file",
             {{"host", h.host}, {"node0_cpus", zero->cpus.to_list()}, {"cpu0_node", holder->id}});
  }
}

}  // namespace fabscope::topo
