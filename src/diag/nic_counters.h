// The counters a NIC keeps beyond the interface statistics, read around each phase
// with them (diag/net_counters.h):
// - RDMA ports: /sys/class/infiniband/<dev>/ports/<port>/counters/* (the InfiniBand
//   port counters: data, packets, waits, discards, link errors) and hw_counters/* (the
//   driver's: ECN marks, CNPs, out-of-sequence, retransmission timeouts), every one the
//   port has. port_xmit_data and port_rcv_data count 4-byte words, as the IB spec says.
// - Ethernet NICs: the driver's statistics through the kernel's ethtool interface
//   (what `ethtool -S` prints), kept for the names counter_kind() classifies: link
//   errors, pause frames, discards, PCIe stalls.
// A counter a host does not have is absent, never zero.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fabscope {

// What a counter's rise means.
enum class CounterKind {
  kLinkError,   // the link corrupts or drops: cable, transceiver, switch port (should stay 0)
  kCongestion,  // the fabric pushed back: waits, ECN marks, congestion notifications
  kDiscard,     // packets dropped for lack of buffers or credits
  kPause,       // flow-control pause frames sent or received
  kRetransmit,  // RDMA transport recovery: out-of-sequence, timeouts, NAKs
  kPcieStall,   // the NIC waited on PCIe (the host cannot absorb)
};
std::string_view name(CounterKind kind);  // "link_error", ...

// The classes by name: exact names and patterns with one '*' (rx_prio*_pause).
struct CounterClass {
  std::string_view pattern;
  CounterKind kind;
};
std::span<const CounterClass> counter_classes();
std::optional<CounterKind> counter_kind(std::string_view counter);

// (device, port) -> counter -> value, from `infiniband_root` (a sysfs class/infiniband).
using PortCounters = std::map<std::pair<std::string, int>, std::map<std::string, uint64_t>>;
PortCounters read_port_counters(const std::string& infiniband_root = "/sys/class/infiniband");

// interface -> counter -> value: the ethtool statistics of each named interface whose
// driver reports any; only the ones counter_kind() classifies unless `all`.
using NicStats = std::map<std::string, std::map<std::string, uint64_t>>;
NicStats read_ethtool_stats(const std::vector<std::string>& interfaces, bool all = false);

// after - before per counter present in both; a counter that went back (a reset) is 0.
std::map<std::string, uint64_t> counter_delta(const std::map<std::string, uint64_t>& before,
                                              const std::map<std::string, uint64_t>& after);

}  // namespace fabscope
