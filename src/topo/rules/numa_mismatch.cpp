// topo.numa_mismatch: a rank bound to CPUs away from its GPU's NUMA node.
#include <fmt/format.h>

#include "topo/rules.h"

namespace fabscope::topo {

void check_numa_mismatch(const HostContext& c, FindingSink& sink) {
  const HostTopology& h = c.host;
  for (const RankBinding& r : h.ranks) {
    if (r.gpu < 0 || r.cpus.empty()) continue;
    int g = h.find_gpu(r.gpu);
    if (g < 0) continue;
    const Gpu& gpu = h.gpus[g];
    int numa = gpu.numa >= 0 ? gpu.numa : (gpu.pci >= 0 ? h.pci[gpu.pci].numa : -1);
    CpuSet local = gpu.cpu_affinity;
    if (const NumaNode* nn = h.find_numa(numa); nn && !nn->cpus.empty()) local = nn->cpus;
    if (local.empty() || r.cpus.intersects(local)) continue;
    sink.add(Severity::kWarning, c.subject(fmt::format("rank {} GPU {}", r.rank, r.gpu)), c.hosts(),
             fmt::format("rank {} on {} is bound to CPUs {} but its GPU {} is on NUMA node {} (CPUs {})", r.rank,
                         c.label(), r.cpus.to_list(), r.gpu, numa, local.to_list()),
             "bind each rank to its GPU's NUMA node (mpirun --map-by / --bind-to, or numactl)",
             {{"host", h.host},
              {"rank", r.rank},
              {"gpu", r.gpu},
              {"rank_cpus", r.cpus.to_list()},
              {"gpu_numa", numa},
              {"gpu_cpus", local.to_list()}});
  }
}

}  // namespace fabscope::topo
