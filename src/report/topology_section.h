// The report's `topology` section: what `fabscope topo` found per host, as the report
// stores it (topo::host_section builds it from the topology model; renderers and
// `fabscope report` read only this). Optional fields are null in the JSON where no
// source said.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fabscope {

struct TopoNumaEntry {
  int id = 0;
  std::string cpus;  // cpulist, "0-19,40-59"
};

struct TopoGpuEntry {
  int index = 0;
  std::optional<std::string> busid;
  std::optional<int> numa;
  std::optional<std::string> model;
  std::optional<double> pcie_gbytes;
  std::optional<int> nccl_rank;
  std::optional<bool> gdr;
  std::optional<std::string> cpu_affinity;
};

struct TopoPortEntry {
  int port = 1;
  std::optional<std::string> state;
  std::optional<double> rate_gbits;
  std::optional<std::string> link_layer;
  std::optional<std::string> netdev;
};

struct TopoNicEntry {
  std::string name;
  std::optional<std::string> busid;
  std::optional<int> numa;
  bool rdma = true;
  std::optional<double> speed_gbits;
  std::optional<double> pcie_gbytes;
  std::optional<bool> gdr;
  std::vector<TopoPortEntry> ports;
};

// GPU-to-NIC path classes ("PIX" ... "SYS"; null unknown), [gpu][nic] in the order of
// the host's gpus and nics.
struct TopoPaths {
  std::vector<int> gpus;
  std::vector<std::string> nics;
  std::vector<std::vector<std::optional<std::string>>> classes;
};

struct TopoNcclEntry {
  std::optional<std::string> ib_hca;  // NCCL_IB_HCA in effect
  std::optional<std::string> ib_hca_origin;
  std::vector<std::string> net_devices;  // NCCL's NET/IB list
  std::vector<std::string> selected;     // devices NCCL would use
};

struct TopoMappingEntry {
  int gpu = 0;
  std::optional<std::string> best_path;
  std::vector<std::string> best_nics;
  std::optional<std::string> nccl_choice;
  std::optional<std::string> nccl_choice_path;
  std::vector<std::string> used_nics;
  std::optional<bool> used_gdr;
};

struct TopoRankEntry {
  int rank = 0;
  int local_rank = 0;
  std::optional<int> gpu;
  std::string cpus;
};

struct TopoHostEntry {
  std::string host;
  std::vector<std::string> sources;
  std::vector<TopoNumaEntry> numa;
  std::vector<TopoGpuEntry> gpus;
  std::vector<TopoNicEntry> nics;
  TopoPaths paths;
  TopoNcclEntry nccl;
  std::vector<TopoMappingEntry> mapping;
  std::vector<TopoRankEntry> ranks;
  std::vector<std::string> notes;  // "no GPU found", ...
};

struct TopologySection {
  std::vector<TopoHostEntry> hosts;
};

}  // namespace fabscope
