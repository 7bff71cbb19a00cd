// The report's `topology` section built from the topology model and its analysis: per
// host the NUMA nodes, GPUs, NICs and ports, the GPU-NIC path classes, NCCL's NIC
// choice and the NICs used. report/topology_text.h renders it.
#pragma once

#include <vector>

#include "report/topology_section.h"
#include "topo/mapping.h"
#include "topo/model.h"

namespace fabscope::topo {

// One host's entry of topology.hosts[].
TopoHostEntry host_section(const HostTopology& host, const HostAnalysis& analysis);
// Every host of a set (hosts and analyses in the same order).
TopologySection topology_section(const TopologySet& set, const std::vector<HostAnalysis>& analyses);

}  // namespace fabscope::topo
