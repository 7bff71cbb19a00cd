// The report's `counters`: interface counter changes per host and phase.
#include "report/model_json.h"

namespace fabscope {

// {"name": "eth0", "rx_bytes": ..., ...}: the counters beside the name.
Json to_json(const InterfaceDelta& v) {
  Json e = {{"name", v.name}};
  for (const auto& [k, d] : v.deltas) e[k] = d;
  return e;
}
void read(const JsonIn& in, InterfaceDelta& v) {
  in.field("name", v.name);
  v.deltas.clear();
  for (const auto& [key, value] : in.members()) {
    if (key != "name") read(value, v.deltas[key]);
  }
}

Json to_json(const CounterSample& v) {
  return {{"host", v.host},
          {"phase", v.phase},
          {"duration_s", v.duration_s},
          {"fabscope_tx_bytes", json_or_null(v.fabscope_tx_bytes)},
          {"fabscope_rx_bytes", json_or_null(v.fabscope_rx_bytes)},
          {"interfaces", to_json_array(v.interfaces)}};
}
void read(const JsonIn& in, CounterSample& v) {
  in.field("host", v.host);
  in.field("phase", v.phase);
  in.field("duration_s", v.duration_s);
  in.field("fabscope_tx_bytes", v.fabscope_tx_bytes);
  in.field("fabscope_rx_bytes", v.fabscope_rx_bytes);
  in.field("interfaces", v.interfaces);
}

}  // namespace fabscope
