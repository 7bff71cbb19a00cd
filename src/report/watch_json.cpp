// The report's `watch`: a running job's links over time (`fabscope watch`).
#include "report/model_json.h"

namespace fabscope {

Json to_json(const WatchPoint& v) {
  return {{"seq_first", v.seq_first},
          {"seq_last", v.seq_last},
          {"start_s", v.start_s},
          {"end_s", v.end_s},
          {"wait_us_per_step", v.wait_us_per_step},
          {"bytes", v.bytes},
          {"steps", v.steps},
          {"slow", v.slow}};
}
void read(const JsonIn& in, WatchPoint& v) {
  in.field("seq_first", v.seq_first);
  in.field("seq_last", v.seq_last);
  in.field("start_s", v.start_s);
  in.field("end_s", v.end_s);
  in.field("wait_us_per_step", v.wait_us_per_step);
  in.field("bytes", v.bytes);
  in.field("steps", v.steps);
  in.field("slow", v.slow);
}

Json to_json(const WatchLink& v) {
  return {{"comm", v.comm},
          {"rank", v.rank},
          {"peer", v.peer},
          {"direction", v.direction},
          {"host", v.host},
          {"peer_host", v.peer_host},
          {"nic", v.nic},
          {"bytes_total", v.bytes_total},
          {"steps_total", v.steps_total},
          {"network_wait_s_total", v.network_wait_s_total},
          {"last_wait_us_per_step", v.last_wait_us_per_step},
          {"last_bytes_per_s", v.last_bytes_per_s},
          {"median_wait_us_per_step", v.median_wait_us_per_step},
          {"slow_from", to_json_opt(v.slow_from)},
          {"points", to_json_array(v.points)}};
}
void read(const JsonIn& in, WatchLink& v) {
  in.field("comm", v.comm);
  in.field("rank", v.rank);
  in.field("peer", v.peer);
  in.field("direction", v.direction);
  if (v.direction != "send" && v.direction != "recv") in.at("direction").fail("want \"send\" or \"recv\"");
  in.field("host", v.host);
  in.field("peer_host", v.peer_host);
  in.field("nic", v.nic);
  in.field("bytes_total", v.bytes_total);
  in.field("steps_total", v.steps_total);
  in.field("network_wait_s_total", v.network_wait_s_total);
  in.field("last_wait_us_per_step", v.last_wait_us_per_step);
  in.field("last_bytes_per_s", v.last_bytes_per_s);
  in.field("median_wait_us_per_step", v.median_wait_us_per_step);
  in.field("slow_from", v.slow_from);
  in.field("points", v.points);
}

Json to_json(const WatchSection& v) {
  return {{"interval_s", v.interval_s},
          {"snapshots", v.snapshots},
          {"intervals", v.intervals},
          {"max_points", v.max_points},
          {"links", to_json_array(v.links)}};
}
void read(const JsonIn& in, WatchSection& v) {
  in.field("interval_s", v.interval_s);
  in.field("snapshots", v.snapshots);
  in.field("intervals", v.intervals);
  in.field("max_points", v.max_points);
  in.field("links", v.links);
}

}  // namespace fabscope
