// Interface counters from /sys/class/net/*/statistics, with the NIC counters of
// diag/nic_counters.h (RDMA ports, the drivers' statistics), sampled around each phase
// on one rank per host. Set beside the bytes fabscope itself moved, they show traffic
// that is not fabscope's (counters.foreign_traffic) and links that corrupt or drop
// (counters.link_errors).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "comm/context.h"
#include "diag/nic_counters.h"
#include "report/report.h"

namespace fabscope {

// Counter name -> value per interface, read from `root` (a sysfs class/net directory).
using NetCounters = std::map<std::string, std::map<std::string, uint64_t>>;
inline constexpr const char* kNetCounterNames[] = {"rx_bytes",  "tx_bytes",  "rx_packets", "tx_packets",
                                                   "rx_errors", "tx_errors", "rx_dropped", "tx_dropped"};
// The statistics named here, and carrier_changes where the kernel has it.
NetCounters read_net_counters(const std::string& root = "/sys/class/net");
// after - before, per interface present in both (counters that went back count as 0).
std::vector<InterfaceDelta> counter_deltas(const NetCounters& before, const NetCounters& after);

// Samples around phases. Every rank calls begin() and end() together (they gather to
// rank 0); one rank per host reads the counters; each rank reports the payload bytes it
// sent and received in the phase, summed per host.
// Where the counters are read (tests point them at copied trees).
struct CounterSources {
  std::string net = "/sys/class/net";
  std::string infiniband = "/sys/class/infiniband";
  bool ethtool = true;  // the drivers' statistics of the interfaces under `net`
};

// One host's counters at one moment, and their changes over a phase.
struct CounterSnapshot {
  NetCounters net;
  PortCounters ports;
  NicStats nic;
};
CounterSnapshot read_counters(const CounterSources& sources);
// after - before: the interfaces (with their drivers' statistics) and RDMA ports present
// in both.
void counter_changes(const CounterSnapshot& before, const CounterSnapshot& after, CounterSample& sample);

class PhaseCounters {
 public:
  explicit PhaseCounters(const RankContext& ctx, CounterSources sources = {})
      : ctx_(ctx), sources_(std::move(sources)) {}
  void begin();
  Status end(const std::string& phase, std::optional<uint64_t> my_tx_bytes, std::optional<uint64_t> my_rx_bytes,
             std::vector<CounterSample>& out);

 private:
  const RankContext& ctx_;
  CounterSources sources_;
  CounterSnapshot before_;
  int64_t start_ns_ = 0;
};

}  // namespace fabscope
