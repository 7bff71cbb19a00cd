// The report's `p2p` section: one entry per link, size and repeat.
#include "report/model_json.h"

namespace fabscope {

Json to_json(const LatencyStats& v) {
  return {{"min_us", v.min_us},     {"max_us", v.max_us}, {"typical_us", v.typical_us}, {"avg_us", v.avg_us},
          {"stdev_us", v.stdev_us}, {"p99_us", v.p99_us}, {"p999_us", v.p999_us}};
}
void read(const JsonIn& in, LatencyStats& v) {
  in.field("min_us", v.min_us);
  in.field("max_us", v.max_us);
  in.field("typical_us", v.typical_us);
  in.field("avg_us", v.avg_us);
  in.field("stdev_us", v.stdev_us);
  in.field("p99_us", v.p99_us);
  in.field("p999_us", v.p999_us);
}

Json to_json(const P2pLink& v) {
  return {{"round", v.round},
          {"repeat", v.repeat},
          {"src_rank", v.src_rank},
          {"dst_rank", v.dst_rank},
          {"src_host", v.src_host},
          {"dst_host", v.dst_host},
          {"size_bytes", v.size_bytes},
          {"iterations", known_or_null(v.iterations)},
          {"bw_gbps", to_json_opt(v.bw_gbps)},
          {"bw_peak_gbps", to_json_opt(v.bw_peak_gbps)},
          {"msg_rate_mpps", to_json_opt(v.msg_rate_mpps)},
          {"lat_us", to_json_opt(v.lat_us)},
          {"lat", to_json_opt(v.lat)},
          {"near_floor", v.near_floor}};
}
void read(const JsonIn& in, P2pLink& v) {
  in.field("round", v.round);
  in.field("repeat", v.repeat);
  in.field("src_rank", v.src_rank);
  in.field("dst_rank", v.dst_rank);
  in.field("src_host", v.src_host);
  in.field("dst_host", v.dst_host);
  in.field("size_bytes", v.size_bytes);
  in.field_or_unknown("iterations", v.iterations);  // null: imported (osu)
  in.field("bw_gbps", v.bw_gbps);
  in.field("bw_peak_gbps", v.bw_peak_gbps);
  in.field("msg_rate_mpps", v.msg_rate_mpps);
  in.field("lat_us", v.lat_us);
  in.field("lat", v.lat);
  in.field_or_keep("near_floor", v.near_floor);  // absent before the floor: false
}

Json to_json(const LinkCoverage& v) {
  return {{"schedule", name(v.schedule)},
          {"rounds", v.rounds},
          {"intra_leaf_rounds", v.intra_leaf_rounds},
          {"adaptive_rounds", v.adaptive_rounds},
          {"hosts", v.hosts},
          {"host_pairs", v.host_pairs},
          {"measured_host_pairs", v.measured_host_pairs},
          {"inferred_slow", v.inferred_slow},
          {"inferred_healthy", v.inferred_healthy},
          {"unjudged", v.unjudged},
          {"unmeasured_hosts", v.unmeasured_hosts}};
}
void read(const JsonIn& in, LinkCoverage& v) {
  in.field("schedule", v.schedule);
  in.field("rounds", v.rounds);
  in.field("intra_leaf_rounds", v.intra_leaf_rounds);
  in.field("adaptive_rounds", v.adaptive_rounds);
  in.field("hosts", v.hosts);
  in.field("host_pairs", v.host_pairs);
  in.field("measured_host_pairs", v.measured_host_pairs);
  in.field("inferred_slow", v.inferred_slow);
  in.field("inferred_healthy", v.inferred_healthy);
  in.field("unjudged", v.unjudged);
  in.field("unmeasured_hosts", v.unmeasured_hosts);
}

Json to_json(const FabricSwitch& v) { return {{"name", v.name}, {"hosts", v.hosts}, {"switches", v.switches}}; }
void read(const JsonIn& in, FabricSwitch& v) {
  in.field("name", v.name);
  in.field("hosts", v.hosts);
  in.field("switches", v.switches);
}
Json to_json(const FabricDescription& v) {
  return {{"source", v.source}, {"switches", to_json_array(v.switches)}, {"oversubscription", v.oversubscription}};
}
void read(const JsonIn& in, FabricDescription& v) {
  in.field("source", v.source);
  in.field("switches", v.switches);
  in.field_or_keep("oversubscription", v.oversubscription);  // absent before --oversubscription: 1
}

Json to_json(const P2pSection& v) {
  return {{"pattern", name(v.pattern)},
          {"mode", name(v.mode)},
          {"backend", v.backend},
          {"window", v.window},
          {"warmup_iters", v.warmup_iters},
          {"repeats", v.repeats},
          {"method", name(v.method)},
          {"floor_us", to_json_opt(v.floor_us)},
          {"links", to_json_array(v.links)},
          {"alone", to_json_array(v.alone)},
          {"coverage", to_json_opt(v.coverage)}};
}
void read(const JsonIn& in, P2pSection& v) {
  in.field("pattern", v.pattern);
  in.field("mode", v.mode);
  in.field("backend", v.backend);
  in.field("window", v.window);
  in.field("warmup_iters", v.warmup_iters);
  in.field("repeats", v.repeats);
  in.field_or_keep("method", v.method);      // absent before --method: "perftest"
  in.field_or_keep("floor_us", v.floor_us);  // absent before the floor: null
  in.field("links", v.links);
  in.field_or_keep("alone", v.alone);        // absent before --retest
  in.field_or_keep("coverage", v.coverage);  // absent before link schedules
}

}  // namespace fabscope
