// The topology section as text, from the report alone: per host a matrix like
// `nvidia-smi topo -m` (GPU rows, NIC columns), the NIC legend with port states, and
// each GPU's nearest NIC, NCCL's choice and the NIC it used.
#pragma once

#include <string>

#include "report/topology_section.h"

namespace fabscope {

std::string render_topology_text(const TopologySection& topology);

}  // namespace fabscope
