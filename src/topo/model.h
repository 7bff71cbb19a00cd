// The topology model: what fabscope knows about one node's NUMA nodes, PCI tree, GPUs,
// NICs and their ports, from whichever sources it was given (live hwloc and sysfs, an
// hwloc XML, an NCCL topology XML, `nvidia-smi topo -m` text, NCCL INFO logs, RDMA tool
// output). Every reader fills the same model; paths, NCCL's NIC choice and the findings
// are computed from it, not from any one source.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fabscope::topo {

// GPU-to-NIC path classes as nvidia-smi names them, nearest first.
enum class PathClass : int { kPix = 0, kPxb, kPhb, kNode, kSys, kUnknown };
std::string_view path_name(PathClass c);                           // "PIX" ... "SYS", "?" for unknown
std::optional<PathClass> parse_path_class(std::string_view text);  // "PIX" ... "SYS"

// A set of CPU numbers, as inclusive ranges, sorted and merged.
class CpuSet {
 public:
  CpuSet() = default;
  // "0-19,40-59" (Linux cpulist); empty text is the empty set. nullopt if malformed.
  static std::optional<CpuSet> from_list(std::string_view text);
  // "0000ffff,ffffffff" (comma-separated 32-bit hex words, most significant first, as
  // sysfs cpumap and NCCL's affinity attribute write it); "0x..." accepted.
  static std::optional<CpuSet> from_mask(std::string_view text);
  void add(int first, int last);
  bool empty() const { return ranges_.empty(); }
  bool contains(int cpu) const;
  bool intersects(const CpuSet& other) const;
  bool operator==(const CpuSet& other) const { return ranges_ == other.ranges_; }
  int count() const;
  std::string to_list() const;  // "0-19,40-59"
  const std::vector<std::pair<int, int>>& ranges() const { return ranges_; }

 private:
  std::vector<std::pair<int, int>> ranges_;
};

struct NumaNode {
  int id = -1;
  CpuSet cpus;
};

// A PCI device or bridge. Parents are indices into HostTopology::pci; a node whose
// parent is -1 hangs directly off its NUMA node's root complex.
struct PciNode {
  std::string busid;  // "0000:3f:01.1", lower case, 4-digit domain
  int parent = -1;
  bool bridge = false;
  // A root complex (hwloc's host bridge). Two devices whose nearest common ancestor is a
  // host bridge are PHB apart.
  bool host_bridge = false;
  // A bridge that is a whole switch already (NCCL's XML collapses each switch into one
  // <pci> node); false for bridges read from hwloc or sysfs, which are single ports.
  bool is_switch = false;
  uint32_t class_code = 0;  // class and subclass, e.g. 0x0302, 0x0207, 0x0604
  uint16_t vendor = 0;
  uint16_t device = 0;
  double link_gbytes = 0;  // link bandwidth, GB/s per direction; 0 = unknown
  std::string link;        // as the source wrote it, e.g. "32.0 GT/s PCIe x16"
  int numa = -1;           // NUMA node id, -1 unknown
};

// One port of an RDMA device (or the single "port" of a plain network interface).
struct Port {
  int number = 1;
  std::string state;       // ACTIVE, DOWN, INIT, ARMED, ...; empty = unknown
  double rate_gbits = 0;   // Gb/s, 0 = unknown
  std::string link_layer;  // InfiniBand, Ethernet; empty = unknown
  std::string netdev;      // the network interface on this port, if any
  // The subnet prefix of GID 0 (ibv_devinfo -v's "GID[ 0]:", its first four groups:
  // "fe80:0000:0000:0001"); empty when unknown.
  std::string subnet_prefix;
  int active_mtu = 0;  // bytes (ibv_devinfo's "active_mtu: 4096 (5)"); 0 = unknown
  // The fastest link mode the port both supports and advertises, and its link partner
  // advertises where that is listed (ethtool's link modes), in Gb/s; 0 = unknown.
  double capable_gbits = 0;
};

struct Nic {
  std::string name;   // mlx5_0, rdmap197s0, eth0; the bus id when the source names none
  std::string busid;  // empty when unknown
  int pci = -1;       // index into HostTopology::pci
  int numa = -1;
  std::vector<Port> ports;
  double speed_gbits = 0;   // link speed a source states for the device (NCCL's net speed)
  std::optional<bool> gdr;  // GPUDirect RDMA capability a source states (NCCL's gdr attribute)
  bool rdma = true;         // an RDMA device (false: a plain socket interface such as eth0)
};

struct NvLink {
  std::string target;  // bus id of the peer GPU or NVSwitch
  int count = 0;
};

struct Gpu {
  int index = -1;     // CUDA/NVML index as the source numbers it (GPUn, dev=, nvmlN)
  std::string busid;  // empty when unknown
  int pci = -1;
  int numa = -1;
  std::string model;  // "NVIDIA H100 80GB HBM3", or "10de:2330"
  std::optional<int> nccl_rank;
  std::optional<bool> gdr;
  std::vector<NvLink> nvlinks;
  CpuSet cpu_affinity;  // as nvidia-smi's "CPU Affinity" column or the GPU's NUMA node
};

// Which NIC a GPU's rank actually sent or received on, as an NCCL log shows it.
struct NicUse {
  int gpu = -1;     // GPU index (the [d] of the log line / cudaDev)
  int rank = -1;    // NCCL rank
  std::string nic;  // device name from the "NET/IB : Using" list
  int net_index = -1;
  bool gdr = false;  // /GDRDMA on the channel line
  int channels = 0;  // channel lines seen for this (rank, nic, gdr)
};

// A rank's CPU binding and GPU (live runs).
struct RankBinding {
  int rank = 0;
  int local_rank = 0;
  int gpu = -1;  // -1: none
  CpuSet cpus;
};

// An NCCL-measured PCI link far slower than its neighbours (NCCL's GRAPH dump).
struct PciLinkObservation {
  std::string node;  // "PCI/0-65000"
  double gbytes = 0;
  double peer_median_gbytes = 0;
};

struct HostTopology {
  std::string host;                  // empty when no source named it
  std::vector<std::string> sources;  // "hwloc (live)", "nvidia-smi-topo:FILE", ...
  std::vector<NumaNode> numa;
  std::vector<PciNode> pci;
  std::vector<Gpu> gpus;
  std::vector<Nic> nics;
  // Path classes a source states outright (nvidia-smi topo -m), by (GPU index in
  // gpus, NIC index in nics); they take precedence over the PCI tree.
  std::map<std::pair<int, int>, PathClass> given_paths;
  std::vector<std::string> nccl_nets;  // NCCL's NET/IB device list, in its index order
  std::vector<NicUse> uses;
  std::optional<std::string> nccl_ib_hca;  // NCCL_IB_HCA in effect on this host
  std::vector<RankBinding> ranks;
  std::vector<PciLinkObservation> slow_pci_links;
  // NVLink statements a graph file contradicts, etc.: free-form facts for findings.
  std::optional<std::string> graph_intra_type;  // NCCL graph file's typeintra (e.g. "SYS")

  int find_gpu(int index) const;  // position in gpus, -1 if absent
  int find_gpu_by_busid(std::string_view busid) const;
  int find_nic(std::string_view name) const;  // position in nics, -1 if absent
  int find_nic_by_busid(std::string_view busid) const;
  int find_pci(std::string_view busid) const;
  const NumaNode* find_numa(int id) const;
  Gpu& add_gpu(int index);  // the GPU with this index, created if absent
  Nic& add_nic(std::string_view name);
  int add_pci(PciNode node);  // returns its index; an existing bus id is updated, not duplicated
};

// All hosts one run knows about, in the order first seen.
struct TopologySet {
  std::vector<HostTopology> hosts;
  // The host with this name; "" means "the only host" when the set has exactly one
  // (sources that do not name their host merge into it), else a new unnamed host.
  HostTopology& host(std::string_view name);
};

// Adds everything `src` knows to `dst` (GPUs matched by index, NICs by name, PCI nodes
// by bus id), as when several files describe one host.
void merge_host(HostTopology& dst, const HostTopology& src);

// Normalises a PCI bus id to "dddd:bb:dd.f" lower case ("0000:3b:00.0"); accepts
// "3b:00.0", NCCL's "0000:3b:00.0", nvidia-smi's "00000000:3B:00.0" and NCCL log's
// compact "3b000" / "0-65000". Returns empty if it is not a bus id.
std::string normalize_busid(std::string_view text);

// The path class between a GPU and a NIC of the host (positions in gpus / nics):
// the class a source gave, else computed from the PCI tree and NUMA nodes the way
// NCCL and nvidia-smi compute it; kUnknown where neither is known.
PathClass path_class(const HostTopology& host, int gpu, int nic);

}  // namespace fabscope::topo
