// counters.foreign_traffic: in a phase where fabscope counted its own bytes, a host's
// network interfaces (loopback aside) sent more than 1.10x fabscope's sent bytes plus 5%
// of its received ones (acknowledgements) plus 4 MiB, or likewise received. TCP/IP's own
// bytes are about half that: headers 4.6% of a 1500-byte MTU's payload, an ACK of 66
// bytes per two segments received 2.3% (less with jumbo frames or segmentation offload:
// the virtual cluster's quiet hosts measure 0.95-0.96 of fabscope's bytes by this
// formula); the rest is another tenant or a noisy neighbour on the links. (The margin was
// 1.25x and a tenth until a 64 MiB-burst neighbour beside phases of 500 MB went unseen in
// about one run in six.) One finding per host, with its worst phase as evidence.
#include <fmt/format.h>

#include <map>

#include "diag/rules.h"

namespace fabscope {

void check_counters_foreign_traffic(const CounterContext& c, FindingSink& sink) {
  constexpr double kOverhead = 1.10, kAcks = 0.05;
  constexpr double kSlack = 4.0 * (1 << 20);
  std::map<std::string, std::pair<int, nlohmann::ordered_json>> by_host;  // flagged phases, worst evidence
  for (const CounterSample& s : c.counters) {
    if (!s.fabscope_tx_bytes || !s.fabscope_rx_bytes) continue;
    uint64_t tx = 0, rx = 0;
    for (const InterfaceDelta& d : s.interfaces) {
      if (d.name == "lo") continue;
      auto get = [&](const char* k) {
        auto it = d.deltas.find(k);
        return it == d.deltas.end() ? uint64_t{0} : it->second;
      };
      tx += get("tx_bytes");
      rx += get("rx_bytes");
    }
    const uint64_t ftx = *s.fabscope_tx_bytes, frx = *s.fabscope_rx_bytes;
    auto over = [&](uint64_t iface, uint64_t mine, uint64_t other) {
      return static_cast<double>(iface) >
             kOverhead * static_cast<double>(mine) + kAcks * static_cast<double>(other) + kSlack;
    };
    const bool foreign_tx = over(tx, ftx, frx), foreign_rx = over(rx, frx, ftx);
    if (!foreign_tx && !foreign_rx) continue;
    auto& [count, evidence] = by_host[s.host];
    ++count;
    const uint64_t excess = (tx > ftx ? tx - ftx : 0) + (rx > frx ? rx - frx : 0);
    if (evidence.is_null() || excess > evidence["excess_bytes"].get<uint64_t>()) {
      evidence = {{"phase", s.phase},         {"interface_tx_bytes", tx}, {"interface_rx_bytes", rx},
                  {"fabscope_tx_bytes", ftx}, {"fabscope_rx_bytes", frx}, {"excess_bytes", excess}};
    }
  }
  for (auto& [host, flagged] : by_host) {
    auto& [count, ev] = flagged;
    const std::string message = fmt::format(
        "host {} moved {} bytes on its interfaces in '{}' where fabscope moved {}; traffic not fabscope's shares "
        "these links ({} phases)",
        host, ev["interface_tx_bytes"].get<uint64_t>() + ev["interface_rx_bytes"].get<uint64_t>(),
        ev["phase"].get<std::string>(),
        ev["fabscope_tx_bytes"].get<uint64_t>() + ev["fabscope_rx_bytes"].get<uint64_t>(), count);
    ev["phases"] = count;
    sink.add(Severity::kWarning, "host " + host, {host}, message,
             "find the other traffic on this host's NIC (another job, storage, a backup); measurements here are not "
             "of a quiet fabric",
             ev);
  }
}

}  // namespace fabscope
