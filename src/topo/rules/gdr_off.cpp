// topo.gdr_off: GPUDirect RDMA off where the path allows it: a GPU whose channels run
// without /GDRDMA through a near NIC (NCCL log), or a near NIC whose GDR capability a
// source states as off.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "topo/rules.h"

namespace fabscope::topo {

void check_gdr_off(const HostContext& c, FindingSink& sink) {
  const HostTopology& h = c.host;
  for (int g : c.paths.order) {
    const GpuMapping& m = c.mappings[g];
    if (!m.used_gdr || *m.used_gdr) continue;
    for (const std::string& used : m.used_nics) {
      int n = h.find_nic(used);
      if (n < 0 || !near(c.path(g, n))) continue;
      sink.add(
          Severity::kWarning, c.subject(fmt::format("GPU {} NIC {}", m.gpu, used)), c.hosts(),
          fmt::format("GPU {} on {} sends through {} without GPUDirect RDMA although the path is {}", m.gpu, c.label(),
                      used, path_name(c.path(g, n))),
          "load nvidia-peermem (or use dma-buf), check NCCL_NET_GDR_LEVEL and that ACS is off on the switch",
          {{"host", h.host}, {"gpu", m.gpu}, {"nic", used}, {"path", path_name(c.path(g, n))}, {"source", "NCCL log"}});
    }
  }
  for (int n : c.paths.pool) {
    const Nic& nic = h.nics[n];
    if (!nic.gdr || *nic.gdr) continue;
    std::vector<int> near_gpus;
    for (int g : c.paths.order) {
      if (near(c.path(g, n))) near_gpus.push_back(h.gpus[g].index);
    }
    if (near_gpus.empty()) continue;
    sink.add(Severity::kWarning, c.subject(fmt::format("NIC {}", nic.name)), c.hosts(),
             fmt::format("{} on {} has GPUDirect RDMA off although GPUs {} are at PIX/PXB to it", nic.name, c.label(),
                         fmt::join(near_gpus, ", ")),
             "load nvidia-peermem (or use dma-buf) and check NCCL_NET_GDR_LEVEL",
             {{"host", h.host}, {"nic", nic.name}, {"near_gpus", near_gpus}});
  }
}

}  // namespace fabscope::topo
