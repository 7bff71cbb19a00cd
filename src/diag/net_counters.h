// Interface counters from /sys/class/net/*/statistics, sampled around each phase on
// one rank per host. Set beside the bytes fabscope itself moved, they show traffic
// that is not fabscope's: another tenant, a noisy neighbour (the rule
// counters.foreign_traffic, diag/rules/counters_foreign_traffic.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "comm/context.h"
#include "report/report.h"

namespace fabscope {

// Counter name -> value per interface, read from `root` (a sysfs class/net directory).
using NetCounters = std::map<std::string, std::map<std::string, uint64_t>>;
inline constexpr const char* kNetCounterNames[] = {"rx_bytes",  "tx_bytes",  "rx_packets", "tx_packets",
                                                   "rx_errors", "tx_errors", "rx_dropped", "tx_dropped"};
NetCounters read_net_counters(const std::string& root = "/sys/class/net");
// after - before, per interface present in both (counters that went back count as 0).
std::vector<InterfaceDelta> counter_deltas(const NetCounters& before, const NetCounters& after);

// Samples around phases. Every rank calls begin() and end() together (they gather to
// rank 0); one rank per host reads the counters; each rank reports the payload bytes it
// sent and received in the phase, summed per host.
class PhaseCounters {
 public:
  explicit PhaseCounters(const RankContext& ctx, std::string root = "/sys/class/net")
      : ctx_(ctx), root_(std::move(root)) {}
  void begin();
  Status end(const std::string& phase, std::optional<uint64_t> my_tx_bytes, std::optional<uint64_t> my_rx_bytes,
             std::vector<CounterSample>& out);

 private:
  const RankContext& ctx_;
  std::string root_;
  NetCounters before_;
  int64_t start_ns_ = 0;
};

}  // namespace fabscope
