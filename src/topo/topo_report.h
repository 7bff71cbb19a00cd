// The report's `topology` section, and its text form (read back from the JSON, like
// every renderer): per host a matrix like `nvidia-smi topo -m` (GPU rows, NIC columns),
// the NIC legend with port states, and each GPU's best NIC, NCCL's choice and the NIC
// it used.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "topo/mapping.h"
#include "topo/model.h"

namespace fabscope::topo {

// One host's entry of topology.hosts[].
nlohmann::ordered_json host_json(const HostTopology& host, const HostAnalysis& analysis);
// {"hosts": [...]} for a whole set (hosts and analyses in the same order).
nlohmann::ordered_json topology_json(const TopologySet& set, const std::vector<HostAnalysis>& analyses);

// The text printout of a topology section (as written by topology_json).
std::string render_topology_text(const nlohmann::ordered_json& topology);

}  // namespace fabscope::topo
