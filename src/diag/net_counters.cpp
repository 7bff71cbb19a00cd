#include "diag/net_counters.h"

#include "core/clock.h"

#include <fmt/format.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

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

void PhaseCounters::begin() {
  if (ctx_.local_rank() == 0) before_ = read_net_counters(root_);
  start_ns_ = steady_now_ns();
}

Status PhaseCounters::end(const std::string& phase, std::optional<uint64_t> my_tx, std::optional<uint64_t> my_rx,
                          std::vector<CounterSample>& out) {
  nlohmann::json mine = {{"host", ctx_.host()},
                         {"tx", my_tx ? nlohmann::json(*my_tx) : nlohmann::json(nullptr)},
                         {"rx", my_rx ? nlohmann::json(*my_rx) : nlohmann::json(nullptr)},
                         {"duration_s", static_cast<double>(steady_now_ns() - start_ns_) * 1e-9}};
  if (ctx_.local_rank() == 0) {
    nlohmann::json ifs = nlohmann::json::object();
    for (const InterfaceDelta& d : counter_deltas(before_, read_net_counters(root_))) ifs[d.name] = d.deltas;
    mine["interfaces"] = ifs;
  }
  auto all = ctx_.gather_text(mine.dump());
  if (!all.ok()) return all.status();
  if (ctx_.rank() != 0) return Status::Ok();
  std::map<std::string, CounterSample> by_host;
  std::vector<std::string> order;
  for (const std::string& text : *all) {
    nlohmann::json j = nlohmann::json::parse(text);
    const std::string host = j["host"];
    auto [it, fresh] = by_host.try_emplace(host);
    CounterSample& s = it->second;
    if (fresh) {
      order.push_back(host);
      s.host = host;
      s.phase = phase;
    }
    s.duration_s = std::max(s.duration_s, j["duration_s"].get<double>());
    if (!j["tx"].is_null()) s.fabscope_tx_bytes = s.fabscope_tx_bytes.value_or(0) + j["tx"].get<uint64_t>();
    if (!j["rx"].is_null()) s.fabscope_rx_bytes = s.fabscope_rx_bytes.value_or(0) + j["rx"].get<uint64_t>();
    if (j.contains("interfaces")) {
      for (const auto& [name, deltas] : j["interfaces"].items()) {
        InterfaceDelta d;
        d.name = name;
        for (const auto& [k, v] : deltas.items()) d.deltas[k] = v.get<uint64_t>();
        s.interfaces.push_back(std::move(d));
      }
    }
  }
  for (const std::string& h : order) out.push_back(std::move(by_host[h]));
  return Status::Ok();
}

}  // namespace fabscope
