// The report model's counters section (report/report.h holds the whole report).
// Interface and RDMA port counters: what rose during each phase, per host.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabscope {

// One interface's counter changes over a phase.
struct InterfaceDelta {
  std::string name;
  std::map<std::string, uint64_t> deltas;  // rx_bytes, tx_bytes, rx_packets, ... (sysfs names)
  // The driver's statistics that diag/nic_counters.h classifies (ethtool -S names); empty
  // where the driver reports none.
  std::map<std::string, uint64_t> ethtool;
};

// One RDMA port's counter changes over a phase: its counters/ and hw_counters/.
struct PortDelta {
  std::string device;  // mlx5_0
  int port = 1;
  std::map<std::string, uint64_t> counters;
};

// A host's interface and RDMA port counters around one phase, beside what fabscope's ranks on that
// host moved in it (payload bytes; null where the backend does not count them).
struct CounterSample {
  std::string host;
  std::string phase;
  double duration_s = 0;
  std::optional<uint64_t> fabscope_tx_bytes;
  std::optional<uint64_t> fabscope_rx_bytes;
  std::vector<InterfaceDelta> interfaces;
  std::vector<PortDelta> ports;  // RDMA ports; empty on hosts without
};

}  // namespace fabscope
