// The topo.* rules, in the order their findings are reported. A new rule: its function
// in topo/rules/<name>.cpp, one declaration and one row here, its file in
// src/CMakeLists.txt, and a paragraph in the README's findings list.
#include "topo/rules.h"

namespace fabscope::topo {

void check_gpu_without_near_nic(const HostContext&, FindingSink&);
void check_nic_far(const HostContext&, FindingSink&);
void check_nic_shared(const HostContext&, FindingSink&);
void check_gdr_off(const HostContext&, FindingSink&);
void check_port_down(const HostContext&, FindingSink&);
void check_port_degraded(const HostContext&, FindingSink&);
void check_pcie_degraded(const HostContext&, FindingSink&);
void check_numa_mismatch(const HostContext&, FindingSink&);
void check_numa_affinity(const HostContext&, FindingSink&);
void check_nvlink_mismatch(const HostContext&, FindingSink&);
void check_hca_filter(const HostContext&, FindingSink&);
void check_host_differs(const FleetContext&, FindingSink&);

namespace {

constexpr Rule<HostContext> kHostRules[] = {
    {"topo.gpu_without_near_nic", "a GPU with no NIC at PIX or PXB", check_gpu_without_near_nic},
    {"topo.nic_far", "a GPU using (log) or predicted to use a NIC farther than its nearest", check_nic_far},
    {"topo.nic_shared", "GPUs piled on one NIC while a NIC near them idles", check_nic_shared},
    {"topo.gdr_off", "GPUDirect RDMA off where the path allows it", check_gdr_off},
    {"topo.port_down", "a NIC port not ACTIVE", check_port_down},
    {"topo.port_degraded", "an active port below the expected rate or its peers'", check_port_degraded},
    {"topo.pcie_degraded", "a PCIe link well below its identical peers' or its neighbours'", check_pcie_degraded},
    {"topo.numa_mismatch", "a rank bound to CPUs away from its GPU's NUMA node", check_numa_mismatch},
    {"topo.numa_affinity", "NUMA nodes with overlapping or swapped CPU sets", check_numa_affinity},
    {"topo.nvlink_mismatch", "NVLinks declared that NCCL's graph or the peer GPU contradicts", check_nvlink_mismatch},
    {"topo.hca_filter", "NCCL_IB_HCA entries that select, miss or misparse devices", check_hca_filter},
};

constexpr Rule<FleetContext> kFleetRules[] = {
    {"topo.host_differs", "a host whose GPUs, NICs or rails differ from the majority's", check_host_differs},
};

}  // namespace

std::span<const Rule<HostContext>> host_rules() { return kHostRules; }
std::span<const Rule<FleetContext>> fleet_rules() { return kFleetRules; }

}  // namespace fabscope::topo
