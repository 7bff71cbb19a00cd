// Which NIC each GPU should use and which NCCL would: the NICs that count for GPU
// traffic, the GPU-NIC path classes, and per GPU the nearest usable NICs, NCCL's pick
// (closest path, then bandwidth, ties spread by GPU index, among the devices
// NCCL_IB_HCA selects) and the NICs an NCCL log shows in use. Prediction only: the
// findings about it are rules (topo/rules.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "topo/hca.h"
#include "topo/model.h"

namespace fabscope::topo {

struct GpuMapping {
  int gpu = -1;  // the GPU's index (not its position)
  PathClass best_path = PathClass::kUnknown;
  std::vector<std::string> best_nics;  // every usable NIC at best_path
  std::string nccl_choice;             // empty: NCCL would use no RDMA device
  PathClass nccl_choice_path = PathClass::kUnknown;
  std::vector<std::string> used_nics;  // from NCCL logs
  std::optional<bool> used_gdr;        // all channels with /GDRDMA (true), none or some without (false)
};

// A host's NICs and paths as the choice sees them.
struct HostPaths {
  std::vector<int> pool;                      // NIC positions that count: RDMA devices, else every interface
  bool rdma = false;                          // the pool is RDMA devices
  std::vector<std::vector<PathClass>> paths;  // [gpu position][nic position]; kUnknown outside the pool
  std::vector<int> order;                     // GPU positions in GPU index order
};
HostPaths host_paths(const HostTopology& host);

// Whether NCCL would use this NIC (a port up, and NCCL_IB_HCA selects it).
bool nccl_selects(const HostTopology& host, const HostPaths& paths, const std::optional<HcaFilter>& filter, int nic);
// The names of the NICs NCCL would use, in natural order.
std::vector<std::string> selected_nics(const HostTopology& host, const HostPaths& paths,
                                       const std::optional<HcaFilter>& filter);
// Per GPU position: nearest NICs, NCCL's choice, NICs used.
std::vector<GpuMapping> predict_mappings(const HostTopology& host, const HostPaths& paths,
                                         const std::optional<HcaFilter>& filter);

// Small facts the choice and the rules share.
bool port_active(const Port& p);                                // ACTIVE, or state unknown
bool usable(const Nic& n);                                      // no port known to be down
double nic_rate(const Nic& n);                                  // best active port's rate, else the stated speed
bool natural_less(const std::string& a, const std::string& b);  // "mlx5_9" before "mlx5_10"
inline bool better(PathClass a, PathClass b) { return static_cast<int>(a) < static_cast<int>(b); }
inline bool near(PathClass c) { return c == PathClass::kPix || c == PathClass::kPxb; }

}  // namespace fabscope::topo
