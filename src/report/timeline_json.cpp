// The report's `timeline`: a run's cycles interval by interval, its stalls and its
// links' down and up edges.
#include "report/model_json.h"

namespace fabscope {

Json to_json(const StallEvent& v) {
  return {{"collective", v.collective},     {"dtype", v.dtype},
          {"op", to_json_opt(v.op)},        {"size_bytes", v.size_bytes},
          {"placement", name(v.placement)}, {"cycle", v.cycle},
          {"iteration", v.iteration},       {"time", v.time},
          {"start_unix_s", v.start_unix_s}, {"duration_us", v.duration_us},
          {"median_us", v.median_us},       {"threshold_us", v.threshold_us},
          {"late_ranks", v.late_ranks},     {"waits", v.waits}};
}
void read(const JsonIn& in, StallEvent& v) {
  in.field("collective", v.collective);
  in.field("dtype", v.dtype);
  in.field("op", v.op);
  in.field("size_bytes", v.size_bytes);
  in.field("placement", v.placement);
  in.field("cycle", v.cycle);
  in.field("iteration", v.iteration);
  in.field("time", v.time);
  in.field("start_unix_s", v.start_unix_s);
  in.field("duration_us", v.duration_us);
  in.field("median_us", v.median_us);
  in.field("threshold_us", v.threshold_us);
  in.field("late_ranks", v.late_ranks);
  in.field_or_keep("waits", v.waits);  // absent before the heartbeat carried waits
}

Json to_json(const LinkEdgeRecord& v) {
  return {{"time", v.time}, {"unix_s", v.unix_s}, {"up", v.up}, {"inferred", v.inferred}};
}
void read(const JsonIn& in, LinkEdgeRecord& v) {
  in.field("time", v.time);
  in.field("unix_s", v.unix_s);
  in.field("up", v.up);
  in.field("inferred", v.inferred);
}

Json to_json(const LinkRecord& v) {
  return {{"host", v.host},
          {"link", v.link},
          {"rdma", v.rdma},
          {"up_at_start", v.up_at_start},
          {"up_at_end", v.up_at_end},
          {"flaps", v.flaps},
          {"downtime_s", v.downtime_s},
          {"edges", to_json_array(v.edges)},
          {"edges_dropped", v.edges_dropped},
          {"counter_deltas", v.counter_deltas}};
}
void read(const JsonIn& in, LinkRecord& v) {
  in.field("host", v.host);
  in.field("link", v.link);
  in.field("rdma", v.rdma);
  in.field("up_at_start", v.up_at_start);
  in.field("up_at_end", v.up_at_end);
  in.field("flaps", v.flaps);
  in.field("downtime_s", v.downtime_s);
  in.field("edges", v.edges);
  in.field("edges_dropped", v.edges_dropped);
  in.field("counter_deltas", v.counter_deltas);
}

Json to_json(const TimelinePoint& v) {
  return {{"collective", v.collective},
          {"dtype", v.dtype},
          {"op", to_json_opt(v.op)},
          {"size_bytes", v.size_bytes},
          {"placement", name(v.placement)},
          {"iterations", v.iterations},
          {"time_us", v.time_us},
          {"busbw_gbps", v.busbw_gbps},
          {"median_us", v.median_us},
          {"p99_us", v.p99_us},
          {"max_us", v.max_us},
          {"stalls", v.stalls}};
}
void read(const JsonIn& in, TimelinePoint& v) {
  in.field("collective", v.collective);
  in.field("dtype", v.dtype);
  in.field("op", v.op);
  in.field("size_bytes", v.size_bytes);
  in.field("placement", v.placement);
  in.field("iterations", v.iterations);
  in.field("time_us", v.time_us);
  in.field("busbw_gbps", v.busbw_gbps);
  in.field("median_us", v.median_us);
  in.field("p99_us", v.p99_us);
  in.field("max_us", v.max_us);
  in.field("stalls", v.stalls);
}

Json to_json(const TimelineInterval& v) {
  return {{"index", v.index},
          {"first_cycle", v.first_cycle},
          {"cycles", v.cycles},
          {"start", v.start},
          {"end", v.end},
          {"seconds", v.seconds},
          {"points", to_json_array(v.points)},
          {"hosts", to_json_array(v.hosts)}};
}
void read(const JsonIn& in, TimelineInterval& v) {
  in.field("index", v.index);
  in.field("first_cycle", v.first_cycle);
  in.field("cycles", v.cycles);
  in.field("start", v.start);
  in.field("end", v.end);
  in.field("seconds", v.seconds);
  in.field("points", v.points);
  in.field("hosts", v.hosts);
}

Json to_json(const Timeline& v) {
  return {{"run_cycles", v.run_cycles},
          {"duration_s", to_json_opt(v.duration_s)},
          {"interval_s", v.interval_s},
          {"cycles_completed", v.cycles_completed},
          {"ended_by", v.ended_by},
          {"hang", known_or_null(v.hang)},
          {"max_downtime_s", v.max_downtime_s},
          {"max_stalls", to_json_opt(v.max_stalls)},
          {"links_watched", v.links_watched},
          {"intervals", to_json_array(v.intervals)},
          {"stalls", to_json_array(v.stalls)},
          {"stalls_dropped", v.stalls_dropped},
          {"links", to_json_array(v.links)}};
}
void read(const JsonIn& in, Timeline& v) {
  in.field("run_cycles", v.run_cycles);
  in.field("duration_s", v.duration_s);
  in.field("interval_s", v.interval_s);
  in.field("cycles_completed", v.cycles_completed);
  in.field("ended_by", v.ended_by);
  in.field_or_unknown("hang", v.hang);
  in.field("max_downtime_s", v.max_downtime_s);
  in.field("max_stalls", v.max_stalls);
  in.field("links_watched", v.links_watched);
  in.field("intervals", v.intervals);
  in.field("stalls", v.stalls);
  in.field("stalls_dropped", v.stalls_dropped);
  in.field("links", v.links);
}

}  // namespace fabscope
