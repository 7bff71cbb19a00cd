// A fabric description as the report stores it (`fabric`): the switches and the hosts
// under each leaf, read from Slurm's topology.conf (p2p/fabric.h) or made by the fabric
// simulator. Null when no description was given.
#pragma once

#include <string>
#include <vector>

namespace fabscope {

struct FabricSwitch {
  std::string name;
  std::vector<std::string> hosts;     // Nodes= (a leaf)
  std::vector<std::string> switches;  // Switches= (a switch above leaves)
  bool operator==(const FabricSwitch&) const = default;
};

struct FabricDescription {
  std::string source;  // the file, or "simulated"
  std::vector<FabricSwitch> switches;
  // A leaf's host-facing capacity over its uplinks' (2 for 2:1; --oversubscription): links
  // across leaves are expected at the share of the uplinks each gets in its round.
  double oversubscription = 1;
  bool operator==(const FabricDescription&) const = default;
};

}  // namespace fabscope
