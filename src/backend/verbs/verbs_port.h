// Pure facts and choices about RDMA devices and ports, kept apart from libibverbs so
// they are testable without a device: which device and port to use and what to say
// when there is none, which GID to use, a port's rate from its speed and width.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backend/verbs/verbs_options.h"
#include "core/status.h"

namespace fabscope {

struct VerbsPortSummary {
  int port = 1;
  bool active = false;
  std::string state;       // "ACTIVE", "DOWN", ...
  std::string link_layer;  // "InfiniBand" or "Ethernet"
  double rate_gbps = 0;    // 0 when unknown
};

struct VerbsDeviceSummary {
  std::string name;
  std::vector<VerbsPortSummary> ports;
  std::string error;  // why it could not be opened or queried, else ""
};

inline constexpr const char* kNoVerbsDevice =
    "no RDMA device found (ibv_get_device_list returned none; is rdma-core's provider for your NIC installed?)";

// The device the options select (by name, else the first whose port is ACTIVE), or why
// none: no device, an unknown name (listing the devices), a port it lacks or not ACTIVE.
Result<std::string> choose_verbs_device(std::span<const VerbsDeviceSummary> devices, const VerbsOptions& options);
// "mlx5_0 port 1 ACTIVE InfiniBand 200 Gb/s, mlx5_1 port 1 DOWN Ethernet"
std::string describe_verbs_devices(std::span<const VerbsDeviceSummary> devices);

// One GID table entry; zero entries (unused slots) are never chosen.
struct VerbsGidCandidate {
  int index = 0;
  std::array<uint8_t, 16> gid{};
  bool roce_v2 = false;
};
bool gid_is_zero(const std::array<uint8_t, 16>& gid);
bool gid_is_ipv4_mapped(const std::array<uint8_t, 16>& gid);
// perftest's choice when no GID index is given on RoCE: an IPv4-mapped GID before any
// other, RoCE v2 before v1, then the lowest index. -1 when every entry is zero.
int choose_gid_index(std::span<const VerbsGidCandidate> candidates);

// Gb/s of a port from ibv_port_attr's active_speed and active_width codes; 0 when
// either is unknown.
double verbs_port_rate_gbps(uint32_t active_speed, uint32_t active_width);

}  // namespace fabscope
