// The report's `counters`: interface counter changes per host and phase.
#include "report/model_json.h"

namespace fabscope {

// {"name": "eth0", "rx_bytes": ..., ..., "ethtool": {...}}: the sysfs counters beside
// the name; the driver's statistics, where it has any, in "ethtool".
Json to_json(const InterfaceDelta& v) {
  Json e = {{"name", v.name}};
  for (const auto& [k, d] : v.deltas) e[k] = d;
  if (!v.ethtool.empty()) e["ethtool"] = v.ethtool;
  return e;
}
void read(const JsonIn& in, InterfaceDelta& v) {
  in.field("name", v.name);
  v.deltas.clear();
  v.ethtool.clear();
  for (const auto& [key, value] : in.members()) {
    if (key == "ethtool") {
      read(value, v.ethtool);
    } else if (key != "name") {
      read(value, v.deltas[key]);
    }
  }
}

Json to_json(const PortDelta& v) { return {{"device", v.device}, {"port", v.port}, {"counters", v.counters}}; }
void read(const JsonIn& in, PortDelta& v) {
  in.field("device", v.device);
  in.field("port", v.port);
  in.field("counters", v.counters);
}

Json to_json(const CounterSample& v) {
  return {{"host", v.host},
          {"phase", v.phase},
          {"duration_s", v.duration_s},
          {"fabscope_tx_bytes", to_json_opt(v.fabscope_tx_bytes)},
          {"fabscope_rx_bytes", to_json_opt(v.fabscope_rx_bytes)},
          {"interfaces", to_json_array(v.interfaces)},
          {"ports", to_json_array(v.ports)}};
}
void read(const JsonIn& in, CounterSample& v) {
  in.field("host", v.host);
  in.field("phase", v.phase);
  in.field("duration_s", v.duration_s);
  in.field("fabscope_tx_bytes", v.fabscope_tx_bytes);
  in.field("fabscope_rx_bytes", v.fabscope_rx_bytes);
  in.field("interfaces", v.interfaces);
  in.field_or_keep("ports", v.ports);  // absent before RDMA port counters
}

}  // namespace fabscope
