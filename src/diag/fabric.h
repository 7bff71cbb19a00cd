// A fabric description: which hosts hang off which switch, as Slurm's topology.conf
// (the tree plugin) writes it, the file operators of large clusters already keep:
//
//   SwitchName=leaf01 Nodes=node[001-016]
//   SwitchName=leaf02 Nodes=node[017-032]
//   SwitchName=spine1 Switches=leaf[01-02]
//
// A leaf is a switch with Nodes=. The link schedules sample hosts under one leaf first,
// then across leaves; the p2p rules name a leaf's uplinks as one cause where the slow
// links are the ones that cross them (p2p.congested_uplink).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "report/fabric_section.h"

namespace fabscope {

// Host -> the leaf that lists it.
std::map<std::string, std::string> leaf_of_hosts(const FabricDescription& fabric);

// Reads topology.conf text. Comments (#) and blank lines are skipped; a line may
// continue with a trailing backslash. Keys (SwitchName, Nodes, Switches, LinkSpeed) are
// case-insensitive as in Slurm. Refused, naming the source, line and value: an unknown
// key, a line without SwitchName, a switch named twice, a host under two switches, a
// Switches= name no line defines, a bad hostlist, no leaf at all.
Result<FabricDescription> parse_slurm_topology(std::string_view text, std::string_view source);
Result<FabricDescription> read_fabric_file(const std::string& path);

}  // namespace fabscope
