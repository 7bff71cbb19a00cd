// The verbs transport's wire formats, pure and device-free: the per-QP connection
// info every rank sends every peer over MPI before the queue pairs connect, and the
// clear-to-send (CTS) message a receiver sends for each posted receive. Both are
// fixed-size and little-endian whatever the host, and every decode checks magic,
// version, kind, length and ranges, and says what was wrong.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/status.h"

namespace fabscope {

inline constexpr uint32_t kVerbsWireMagic = 0x42565346;  // "FSVB" as little-endian bytes
inline constexpr uint16_t kVerbsWireVersion = 1;
inline constexpr uint16_t kVerbsWireEndpoint = 1;  // kinds of message
inline constexpr uint16_t kVerbsWireCts = 2;
inline constexpr uint32_t kVerbsMaxQps = 64;  // per peer

// What a peer needs to connect to one RC queue pair: its number, its first packet
// sequence number, its port's LID (InfiniBand) and GID (RoCE, or routed InfiniBand),
// and its port's active MTU as an ibv_mtu value (1 = 256 bytes ... 5 = 4096 bytes).
struct VerbsQpInfo {
  uint32_t qpn = 0;  // 24 bits
  uint32_t psn = 0;  // 24 bits
  uint16_t lid = 0;
  std::array<uint8_t, 16> gid{};
  uint8_t mtu = 0;
  bool operator==(const VerbsQpInfo&) const = default;
};

// Everything rank `rank` sends one peer: one VerbsQpInfo per queue pair to that peer.
struct VerbsEndpointInfo {
  uint32_t rank = 0;
  std::vector<VerbsQpInfo> qps;
  bool operator==(const VerbsEndpointInfo&) const = default;
};

inline constexpr size_t kVerbsEndpointHeaderBytes = 16;
inline constexpr size_t kVerbsQpInfoWireBytes = 32;
constexpr size_t verbs_endpoint_wire_bytes(uint32_t num_qps) {
  return kVerbsEndpointHeaderBytes + kVerbsQpInfoWireBytes * num_qps;
}
std::vector<uint8_t> encode_endpoint(const VerbsEndpointInfo& info);
// Accepts only an endpoint of exactly `expected_qps` queue pairs from rank `expected_rank`.
Result<VerbsEndpointInfo> decode_endpoint(std::span<const uint8_t> bytes, uint32_t expected_rank,
                                          uint32_t expected_qps);

// Clear to send: the receiver of message `sequence` has `length` bytes registered at
// `addr` under `rkey` for the sender to RDMA-write into.
struct VerbsCts {
  uint64_t sequence = 0;
  uint64_t addr = 0;
  uint64_t length = 0;
  uint32_t rkey = 0;
  bool operator==(const VerbsCts&) const = default;
};
inline constexpr size_t kVerbsCtsWireBytes = 40;
std::array<uint8_t, kVerbsCtsWireBytes> encode_cts(const VerbsCts& cts);
Result<VerbsCts> decode_cts(std::span<const uint8_t> bytes);

// 256 << (mtu - 1) for a valid ibv_mtu value (1..5), else 0.
uint32_t verbs_mtu_bytes(uint8_t mtu);

}  // namespace fabscope
