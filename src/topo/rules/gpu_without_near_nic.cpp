// topo.gpu_without_near_nic: a GPU with no NIC at PIX or PXB. A warning when other
// GPUs of the host have a nearer one (this GPU's traffic crosses the CPU interconnect),
// or when its nearest NIC is across the SMP interconnect (SYS: every byte it sends to
// another node crosses QPI/UPI, the likeliest cause of a slow inter-node ticket); info
// when no GPU of the host has one and the NIC is on the GPU's own CPU (NODE, PHB), and when
// the host has fewer NICs than GPUs and each is near a GPU already (a NIC for two GPUs, by
// design: the others reach theirs through their own CPU).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "topo/rules.h"

namespace fabscope::topo {

void check_gpu_without_near_nic(const HostContext& c, FindingSink& sink) {
  PathClass host_best = PathClass::kUnknown;
  for (const GpuMapping& m : c.mappings) {
    if (!m.best_nics.empty() && (host_best == PathClass::kUnknown || better(m.best_path, host_best))) {
      host_best = m.best_path;
    }
  }
  const std::set<std::string> near_nics = c.near_nics();
  const bool shared_by_design =
      !c.paths.pool.empty() && c.paths.pool.size() < c.mappings.size() && near_nics.size() == c.paths.pool.size();
  for (int g : c.paths.order) {
    const GpuMapping& m = c.mappings[g];
    if (m.best_nics.empty() || near(m.best_path)) continue;
    const bool worse = better(host_best, m.best_path);
    const bool across_sockets = m.best_path == PathClass::kSys;
    const bool warn = across_sockets || (worse && !shared_by_design);
    sink.add(warn ? Severity::kWarning : Severity::kInfo, c.subject(fmt::format("GPU {}", m.gpu)), c.hosts(),
             fmt::format("GPU {} on {} has no NIC at PIX or PXB: the nearest, {}, is {}{}{}", m.gpu, c.label(),
                         fmt::join(m.best_nics, ", "), path_name(m.best_path),
                         worse ? fmt::format(" while other GPUs here have one at {}", path_name(host_best)) : "",
                         worse && shared_by_design
                             ? fmt::format(" (the host's {} NICs are each near a GPU already)", c.paths.pool.size())
                             : ""),
             worse && shared_by_design
                 ? "fewer NICs than GPUs, each NIC near a GPU: this GPU shares its socket's NIC through the CPU's "
                   "PCIe root (NCCL's GPUDirect RDMA stops at PXB by default); expected on such a machine"
             : worse ? "this GPU's traffic crosses the CPU interconnect: expect it to be the slowest rank; place the "
                       "job's ranks on GPUs with a near NIC or add a NIC on this socket"
             : across_sockets
                 ? "every GPU here reaches the network across the CPU interconnect (QPI/UPI): GPUDirect RDMA "
                   "cannot be used and inter-node traffic is bound by that link; put a NIC on each GPU's "
                   "socket, or expect inter-node bandwidth well below the NIC's"
                 : "every GPU here reaches the network through the CPU: GPUDirect RDMA cannot be used",
             {{"host", c.host.host},
              {"gpu", m.gpu},
              {"nearest_nics", m.best_nics},
              {"path", path_name(m.best_path)},
              {"best_path_on_host", path_name(host_best)}});
  }
}

}  // namespace fabscope::topo
