// counters.congestion_rose (diagnose): the link matrix measured twice with the same flows
// (its first run in phase 'links', its repeat in phase 'noise'), and on one host the
// fabric's push-back counters (RDMA congestion waits and ECN/CNP, pause frames,
// discards: CounterKind kCongestion, kPause, kDiscard) rose per GiB fabscope moved, by
// more than twice and by at least kMinEvents: fabscope's load was constant, so another
// tenant's traffic shares the fabric there. One finding per host, its largest riser as
// evidence. Hosts without such counters (no RDMA port, no driver statistics) have none.
#include <fmt/format.h>

#include <map>

#include "diag/nic_counters.h"
#include "diag/rules.h"

namespace fabscope {

namespace {

constexpr double kRise = 2.0;
constexpr double kMinEvents = 1000;

bool pushes_back(const std::string& counter) {
  auto kind = counter_kind(counter);
  return kind && (*kind == CounterKind::kCongestion || *kind == CounterKind::kPause || *kind == CounterKind::kDiscard);
}

struct Load {
  double gib = 0;                        // fabscope's bytes, sent and received
  std::map<std::string, double> events;  // counter -> summed delta
};

}  // namespace

void check_counters_congestion_rose(const CounterContext& c, FindingSink& sink) {
  // host -> (first run, repeat)
  std::map<std::string, std::pair<Load, Load>> by_host;
  for (const CounterSample& s : c.counters) {
    const bool first = s.phase.rfind("links: p2p pairs", 0) == 0;
    const bool repeat = s.phase.rfind("noise: p2p pairs", 0) == 0;
    if ((!first && !repeat) || !s.fabscope_tx_bytes || !s.fabscope_rx_bytes) continue;
    Load& load = first ? by_host[s.host].first : by_host[s.host].second;
    load.gib += static_cast<double>(*s.fabscope_tx_bytes + *s.fabscope_rx_bytes) / (1ull << 30);
    for (const PortDelta& p : s.ports) {
      for (const auto& [name, v] : p.counters) {
        if (pushes_back(name)) load.events[p.device + ":" + name] += static_cast<double>(v);
      }
    }
    for (const InterfaceDelta& d : s.interfaces) {
      for (const auto& [name, v] : d.ethtool) {
        if (pushes_back(name)) load.events[d.name + ":" + name] += static_cast<double>(v);
      }
    }
  }
  for (const auto& [host, loads] : by_host) {
    const auto& [first, repeat] = loads;
    if (first.gib <= 0 || repeat.gib <= 0) continue;
    std::string worst;
    double worst_rise = 0, worst_first = 0, worst_repeat = 0;
    for (const auto& [counter, events] : repeat.events) {
      auto it = first.events.find(counter);
      const double before = it == first.events.end() ? 0 : it->second / first.gib;  // per GiB
      const double now = events / repeat.gib;
      const double expected = before * repeat.gib;  // events the first run's rate gives this load
      if (events - expected < kMinEvents || now <= kRise * before) continue;
      const double rise = before > 0 ? now / before : now;
      if (worst.empty() || rise > worst_rise) {
        worst = counter;
        worst_rise = rise;
        worst_first = before;
        worst_repeat = now;
      }
    }
    if (worst.empty()) continue;
    sink.add(Severity::kWarning, "host " + host, {host},
             fmt::format("on host {}, {} rose from {:.0f} to {:.0f} per GiB fabscope moved between the link matrix "
                         "and its repeat, with the same flows: the fabric pushed back harder while fabscope's load "
                         "was constant",
                         host, worst, worst_first, worst_repeat),
             "another tenant's traffic shares this host's links or switch: find it before judging the fabric, "
             "or measure again when it is quiet",
             {{"counter", worst},
              {"first_per_gib", worst_first},
              {"repeat_per_gib", worst_repeat},
              {"first_gib", first.gib},
              {"repeat_gib", repeat.gib}});
  }
}

}  // namespace fabscope
