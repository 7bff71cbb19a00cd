#include "diag/net_counters.h"

#include "core/clock.h"
#include "report/model_json.h"

#include <fmt/format.h>
#include <filesystem>
#include <fstream>

namespace fabscope {

NetCounters read_net_counters(const std::string& root) {
  NetCounters out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
    const std::string iface = entry.path().filename().string();
    for (const char* name : kNetCounterNames) {
      std::ifstream in(entry.path() / "statistics" / name);
      uint64_t v = 0;
      if (in >> v) out[iface][name] = v;
    }
    // How often the carrier came and went (a link flap moves it by 2): beside the
    // statistics, in the interface's own directory.
    std::ifstream changes(entry.path() / "carrier_changes");
    uint64_t v = 0;
    if (changes >> v) out[iface]["carrier_changes"] = v;
  }
  return out;
}

std::vector<InterfaceDelta> counter_deltas(const NetCounters& before, const NetCounters& after) {
  std::vector<InterfaceDelta> out;
  for (const auto& [iface, values] : after) {
    auto b = before.find(iface);
    if (b == before.end()) continue;
    InterfaceDelta d;
    d.name = iface;
    for (const auto& [name, v] : values) {
      auto old = b->second.find(name);
      if (old != b->second.end()) d.deltas[name] = v >= old->second ? v - old->second : 0;
    }
    out.push_back(std::move(d));
  }
  return out;
}

CounterSnapshot read_counters(const CounterSources& sources) {
  CounterSnapshot s;
  s.net = read_net_counters(sources.net);
  s.ports = read_port_counters(sources.infiniband);
  if (sources.ethtool) {
    std::vector<std::string> interfaces;
    for (const auto& [name, values] : s.net) interfaces.push_back(name);
    s.nic = read_ethtool_stats(interfaces);
  }
  return s;
}

void counter_changes(const CounterSnapshot& before, const CounterSnapshot& after, CounterSample& sample) {
  sample.interfaces = counter_deltas(before.net, after.net);
  for (InterfaceDelta& d : sample.interfaces) {
    auto b = before.nic.find(d.name);
    auto a = after.nic.find(d.name);
    if (b != before.nic.end() && a != after.nic.end()) d.ethtool = counter_delta(b->second, a->second);
  }
  for (const auto& [key, values] : after.ports) {
    auto b = before.ports.find(key);
    if (b != before.ports.end()) sample.ports.push_back({key.first, key.second, counter_delta(b->second, values)});
  }
}

void PhaseCounters::begin() {
  if (ctx_.local_rank() == 0) before_ = read_counters(sources_);
  start_ns_ = steady_now_ns();
}

Status PhaseCounters::end(const std::string& phase, std::optional<uint64_t> my_tx, std::optional<uint64_t> my_rx,
                          std::vector<CounterSample>& out) {
  // This rank's part: its bytes; on the host's first rank, the host's counters too.
  CounterSample mine;
  mine.host = ctx_.host();
  mine.phase = phase;
  mine.duration_s = static_cast<double>(steady_now_ns() - start_ns_) * 1e-9;
  mine.fabscope_tx_bytes = my_tx;
  mine.fabscope_rx_bytes = my_rx;
  if (ctx_.local_rank() == 0) counter_changes(before_, read_counters(sources_), mine);
  auto all = ctx_.gather_text(dump_json(to_json(mine)));
  if (!all.ok()) return all.status();
  if (ctx_.rank() != 0) return Status::Ok();
  std::map<std::string, CounterSample> by_host;
  std::vector<std::string> order;
  for (size_t r = 0; r < all->size(); ++r) {
    CounterSample part;
    try {
      const Json j = Json::parse((*all)[r]);
      read(JsonIn(j, "", fmt::format("rank {}'s counters", r)), part);
    } catch (const std::exception& e) {  // not what the rank sent: a fabscope defect
      return Status::Runtime(e.what());
    }
    auto [it, fresh] = by_host.try_emplace(part.host);
    CounterSample& s = it->second;
    if (fresh) {
      order.push_back(part.host);
      s.host = part.host;
      s.phase = phase;
    }
    s.duration_s = std::max(s.duration_s, part.duration_s);
    if (part.fabscope_tx_bytes) s.fabscope_tx_bytes = s.fabscope_tx_bytes.value_or(0) + *part.fabscope_tx_bytes;
    if (part.fabscope_rx_bytes) s.fabscope_rx_bytes = s.fabscope_rx_bytes.value_or(0) + *part.fabscope_rx_bytes;
    for (InterfaceDelta& d : part.interfaces) s.interfaces.push_back(std::move(d));
    for (PortDelta& d : part.ports) s.ports.push_back(std::move(d));
  }
  for (const std::string& h : order) out.push_back(std::move(by_host[h]));
  return Status::Ok();
}

}  // namespace fabscope
