// The topo.* rules, in the order their findings are reported. A new rule: its function
// in topo/rules/<name>.cpp, one declaration and one row here, its file in
// src/CMakeLists.txt, and a paragraph in the README's findings list.
#include "report/finding_codes.h"
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
void check_subnet_prefix(const FleetContext&, FindingSink&);
void check_mtu(const FleetContext&, FindingSink&);

namespace {

constexpr Rule<HostContext> kHostRules[] = {
    {code::kTopoGpuWithoutNearNic, "a GPU with no NIC at PIX or PXB", check_gpu_without_near_nic},
    {code::kTopoNicFar, "a GPU using (log) or predicted to use a NIC farther than its nearest", check_nic_far},
    {code::kTopoNicShared, "GPUs piled on one NIC while a NIC near them idles", check_nic_shared},
    {code::kTopoGdrOff, "GPUDirect RDMA off where the path allows it", check_gdr_off},
    {code::kTopoPortDown, "a NIC port not ACTIVE", check_port_down},
    {code::kTopoPortDegraded, "an active port below the expected rate or its peers'", check_port_degraded},
    {code::kTopoPcieDegraded, "a PCIe link well below its identical peers' or its neighbours'", check_pcie_degraded},
    {code::kTopoNumaMismatch, "a rank bound to CPUs away from its GPU's NUMA node", check_numa_mismatch},
    {code::kTopoNumaAffinity, "NUMA nodes with overlapping or swapped CPU sets", check_numa_affinity},
    {code::kTopoNvlinkMismatch, "NVLinks declared that NCCL's graph or the peer GPU contradicts",
     check_nvlink_mismatch},
    {code::kTopoHcaFilter, "NCCL_IB_HCA entries that select, miss or misparse devices", check_hca_filter},
};

constexpr Rule<FleetContext> kFleetRules[] = {
    {code::kTopoHostDiffers, "a host whose GPUs, NICs or rails differ from the majority's", check_host_differs},
    {code::kTopoSubnetPrefixMismatch, "one port number on different InfiniBand subnets across hosts",
     check_subnet_prefix},
    {code::kTopoMtuMismatch, "RDMA ports of one link layer at different MTUs across hosts", check_mtu},
};

}  // namespace

std::span<const Rule<HostContext>> host_rules() { return kHostRules; }
std::span<const Rule<FleetContext>> fleet_rules() { return kFleetRules; }

}  // namespace fabscope::topo
