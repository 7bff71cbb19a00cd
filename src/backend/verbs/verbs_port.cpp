#include "backend/verbs/verbs_port.h"

#include <fmt/format.h>

namespace fabscope {

namespace {

const VerbsPortSummary* find_port(const VerbsDeviceSummary& d, int port) {
  for (const auto& p : d.ports) {
    if (p.port == port) return &p;
  }
  return nullptr;
}

std::string describe_port(const VerbsDeviceSummary& d, const VerbsPortSummary& p) {
  std::string s = fmt::format("{} port {} {}", d.name, p.port, p.state);
  if (!p.link_layer.empty()) s += " " + p.link_layer;
  if (p.rate_gbps > 0) s += fmt::format(" {:g} Gb/s", p.rate_gbps);
  return s;
}

}  // namespace

std::string describe_verbs_devices(std::span<const VerbsDeviceSummary> devices) {
  std::string s;
  for (const auto& d : devices) {
    if (!d.error.empty()) {
      s += fmt::format("{}{} ({})", s.empty() ? "" : ", ", d.name, d.error);
      continue;
    }
    for (const auto& p : d.ports) s += fmt::format("{}{}", s.empty() ? "" : ", ", describe_port(d, p));
  }
  return s.empty() ? std::string("none") : s;
}

Result<std::string> choose_verbs_device(std::span<const VerbsDeviceSummary> devices, const VerbsOptions& o) {
  if (devices.empty()) return Status::Unavailable(kNoVerbsDevice);
  if (o.port < 1 || o.port > 255) return Status::Invalid(fmt::format("--verbs-port {}: ports are 1 to 255", o.port));
  if (!o.device.empty()) {
    for (const auto& d : devices) {
      if (d.name != o.device) continue;
      if (!d.error.empty()) return Status::Unavailable(fmt::format("--verbs-device {}: {}", d.name, d.error));
      const VerbsPortSummary* p = find_port(d, o.port);
      if (p == nullptr) {
        return Status::Invalid(
            fmt::format("--verbs-device {} has no port {} (it has {})", d.name, o.port,
                        d.ports.empty() ? std::string("none") : fmt::format("1 to {}", d.ports.back().port)));
      }
      if (!p->active) {
        return Status::Unavailable(
            fmt::format("{} is not ACTIVE (is the cable in and a subnet manager running?)", describe_port(d, *p)));
      }
      return d.name;
    }
    std::string names;
    for (const auto& d : devices) names += fmt::format("{}{}", names.empty() ? "" : ", ", d.name);
    return Status::Invalid(fmt::format("--verbs-device {} not found; devices: {}", o.device, names));
  }
  for (const auto& d : devices) {
    const VerbsPortSummary* p = d.error.empty() ? find_port(d, o.port) : nullptr;
    if (p != nullptr && p->active) return d.name;
  }
  return Status::Unavailable(
      fmt::format("no RDMA device has port {} ACTIVE: {}", o.port, describe_verbs_devices(devices)));
}

bool gid_is_zero(const std::array<uint8_t, 16>& gid) {
  for (uint8_t b : gid) {
    if (b != 0) return false;
  }
  return true;
}

bool gid_is_ipv4_mapped(const std::array<uint8_t, 16>& g) {
  for (int i = 0; i < 10; ++i) {
    if (g[i] != 0) return false;
  }
  return g[10] == 0xff && g[11] == 0xff;
}

int choose_gid_index(std::span<const VerbsGidCandidate> candidates) {
  const VerbsGidCandidate* best = nullptr;
  auto rank = [](const VerbsGidCandidate& c) { return (gid_is_ipv4_mapped(c.gid) ? 2 : 0) + (c.roce_v2 ? 1 : 0); };
  for (const auto& c : candidates) {
    if (gid_is_zero(c.gid)) continue;
    if (best == nullptr || rank(c) > rank(*best) || (rank(c) == rank(*best) && c.index < best->index)) best = &c;
  }
  return best == nullptr ? -1 : best->index;
}

double verbs_port_rate_gbps(uint32_t active_speed, uint32_t active_width) {
  // Per-lane Gb/s by IBV speed code (SDR ... NDR), lanes by IBV width code.
  double lane = 0;
  switch (active_speed) {
    case 1:
      lane = 2.5;
      break;
    case 2:
      lane = 5;
      break;
    case 4:
      lane = 10;
      break;
    case 8:
      lane = 10;
      break;  // FDR10
    case 16:
      lane = 14;
      break;
    case 32:
      lane = 25;
      break;
    case 64:
      lane = 50;
      break;
    case 128:
      lane = 100;
      break;
    default:
      return 0;
  }
  int lanes = 0;
  switch (active_width) {
    case 1:
      lanes = 1;
      break;
    case 2:
      lanes = 4;
      break;
    case 4:
      lanes = 8;
      break;
    case 8:
      lanes = 12;
      break;
    case 16:
      lanes = 2;
      break;
    default:
      return 0;
  }
  return lane * lanes;
}

}  // namespace fabscope
