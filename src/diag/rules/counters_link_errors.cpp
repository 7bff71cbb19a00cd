// counters.link_errors: during a phase a link-quality counter rose on one of a host's
// RDMA ports (symbol_error, link_downed, port_rcv_errors, ...) or NICs (the drivers'
// symbol, CRC and link-down counters): the link corrupts or drops packets, whatever the
// load. One finding per host and port, with every link-quality counter that rose and the
// phases it rose in.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "diag/nic_counters.h"
#include "diag/rules.h"

namespace fabscope {

void check_counters_link_errors(const CounterContext& c, FindingSink& sink) {
  struct Seen {
    std::map<std::string, uint64_t> rose;  // counter -> total rise
    std::vector<std::string> phases;
  };
  std::map<std::pair<std::string, std::string>, Seen> by_port;  // (host, "mlx5_0 port 1" / "NIC eth0")
  auto note = [&](const std::string& host, const std::string& where, const std::string& phase,
                  const std::map<std::string, uint64_t>& deltas) {
    for (const auto& [counter, rise] : deltas) {
      if (rise == 0 || counter_kind(counter) != CounterKind::kLinkError) continue;
      Seen& s = by_port[{host, where}];
      s.rose[counter] += rise;
      if (s.phases.empty() || s.phases.back() != phase) s.phases.push_back(phase);
    }
  };
  for (const CounterSample& s : c.counters) {
    for (const PortDelta& p : s.ports) note(s.host, fmt::format("{} port {}", p.device, p.port), s.phase, p.counters);
    for (const InterfaceDelta& i : s.interfaces) note(s.host, fmt::format("NIC {}", i.name), s.phase, i.ethtool);
  }
  for (const auto& [key, seen] : by_port) {
    const auto& [host, where] = key;
    std::vector<std::string> rose;
    for (const auto& [counter, rise] : seen.rose) rose.push_back(fmt::format("{} +{}", counter, rise));
    nlohmann::ordered_json counters = seen.rose;
    sink.add(Severity::kError, fmt::format("host {} {}", host, where), {host},
             fmt::format("{} on host {} counted link errors while fabscope ran: {} (in {})", where, host,
                         fmt::join(rose, ", "), fmt::join(seen.phases, ", ")),
             "these counters stay at 0 on a healthy link: check the cable, transceiver and switch port (`ibstat`, "
             "`perfquery -x`, ethtool -S on both ends); receive errors point at the link's other end",
             {{"host", host}, {"where", where}, {"counters", counters}, {"phases", seen.phases}});
  }
}

}  // namespace fabscope
