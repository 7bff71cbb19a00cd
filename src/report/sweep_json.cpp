// The report's `sweep_settings` and `sweeps`: what sweep measured per collective and size.
#include "report/model_json.h"

namespace fabscope {

Json to_json(const SweepSettings& v) {
  return {{"min_bytes", v.min_bytes},
          {"max_bytes", v.max_bytes},
          {"step_bytes", v.step_bytes},
          {"step_factor", v.step_factor},
          {"iters", v.iters},
          {"warmup_iters", v.warmup_iters},
          {"check_iters", v.check_iters},
          {"average", known_or_null(v.average)},
          {"seed", to_json_opt(v.seed)},
          {"graph_launches", v.graph_launches},
          {"blocking", to_json_opt(v.blocking)},
          {"report_timestamps", v.report_timestamps}};
}
void read(const JsonIn& in, SweepSettings& v) {
  in.field("min_bytes", v.min_bytes);
  in.field("max_bytes", v.max_bytes);
  in.field("step_bytes", v.step_bytes);
  in.field("step_factor", v.step_factor);
  in.field("iters", v.iters);
  in.field("warmup_iters", v.warmup_iters);
  in.field("check_iters", v.check_iters);
  in.field_or_unknown("average", v.average);
  in.field("seed", v.seed);
  in.field_or_keep("graph_launches", v.graph_launches);        // absent before -G: 0
  in.field_or_keep("blocking", v.blocking);                    // absent before -z: 0
  in.field_or_keep("report_timestamps", v.report_timestamps);  // absent before -S: false
}

// iteration_us: {min, median, mean, max, p99}, the unit in the parent's key.
Json to_json(const TimeStats& v) {
  return {{"min", v.min_us}, {"median", v.median_us}, {"mean", v.mean_us}, {"max", v.max_us}, {"p99", v.p99_us}};
}
void read(const JsonIn& in, TimeStats& v) {
  in.field("min", v.min_us);
  in.field("median", v.median_us);
  in.field("mean", v.mean_us);
  in.field("max", v.max_us);
  in.field("p99", v.p99_us);
}

Json to_json(const RankTiming& v) {
  return {
      {"rank", v.rank}, {"median_us", v.median_us}, {"mean_us", v.mean_us}, {"min_us", v.min_us}, {"max_us", v.max_us}};
}
void read(const JsonIn& in, RankTiming& v) {
  in.field("rank", v.rank);
  in.field("median_us", v.median_us);
  in.field("mean_us", v.mean_us);
  in.field("min_us", v.min_us);
  in.field("max_us", v.max_us);
}

Json to_json(const RankArrival& v) {
  return {{"rank", v.rank},
          {"late_us", v.late_us},
          {"last_count", v.last_count},
          {"held_us", v.held_us},
          {"held_share", v.held_share},
          {"stalled_us", v.stalled_us},
          {"stalled_share", v.stalled_share}};
}
void read(const JsonIn& in, RankArrival& v) {
  in.field("rank", v.rank);
  in.field("late_us", v.late_us);
  in.field("last_count", v.last_count);
  in.field("held_us", v.held_us);
  in.field("held_share", v.held_share);
  in.field_or_keep("stalled_us", v.stalled_us);  // absent before the stall monitor
  in.field_or_keep("stalled_share", v.stalled_share);
}

Json to_json(const ArrivalSplit& v) {
  return {{"clock_bound_us", v.clock_bound_us},
          {"iterations", v.iterations},
          {"span_us", v.span_us},
          {"skew_us", v.skew_us},
          {"transfer_us", v.transfer_us},
          {"ranks", to_json_array(v.ranks)}};
}
void read(const JsonIn& in, ArrivalSplit& v) {
  in.field("clock_bound_us", v.clock_bound_us);
  in.field("iterations", v.iterations);
  in.field("span_us", v.span_us);
  in.field("skew_us", v.skew_us);
  in.field("transfer_us", v.transfer_us);
  in.field("ranks", v.ranks);
}

Json to_json(const PlacementResult& v) {
  Json j = {{"time_us", v.time_us},
            {"algbw_gbps", v.algbw_gbps},
            {"busbw_gbps", v.busbw_gbps},
            {"wrong", to_json_opt(v.wrong)},
            {"wrong_ranks", v.wrong_ranks},
            {"iterations", known_or_null(v.iterations)},
            {"iteration_us", to_json_opt(v.iteration_us)},
            {"iteration_samples_us", v.samples_us},
            {"iterations_per_sample", v.iterations_per_sample},
            {"per_rank", to_json_array(v.per_rank)}};
  if (v.arrivals) j["arrivals"] = to_json(*v.arrivals);
  j["near_floor"] = v.near_floor;
  return j;
}
void read(const JsonIn& in, PlacementResult& v) {
  in.field("time_us", v.time_us);
  in.field("algbw_gbps", v.algbw_gbps);
  in.field("busbw_gbps", v.busbw_gbps);
  in.field("wrong", v.wrong);
  in.field("wrong_ranks", v.wrong_ranks);
  in.field_or_unknown("iterations", v.iterations);
  in.field("iteration_us", v.iteration_us);
  in.field_or_keep("iteration_samples_us", v.samples_us);              // absent before compare existed
  in.field_or_keep("iterations_per_sample", v.iterations_per_sample);  // absent before it existed: 1
  in.field("per_rank", v.per_rank);
  in.field_or_keep("arrivals", v.arrivals);      // sweep --arrivals only
  in.field_or_keep("near_floor", v.near_floor);  // absent before the floor: false
}

Json to_json(const SweepPoint& v) {
  return {{"size_bytes", v.size_bytes},
          {"count", v.count},
          {"time", known_or_null(v.time)},
          {"out_of_place", to_json_opt(v.out_of_place)},
          {"in_place", to_json_opt(v.in_place)}};
}
void read(const JsonIn& in, SweepPoint& v) {
  in.field("size_bytes", v.size_bytes);
  in.field("count", v.count);
  if (in.find("time")) in.field_or_unknown("time", v.time);  // absent before run cycles
  in.field("out_of_place", v.out_of_place);
  in.field("in_place", v.in_place);
}

Json to_json(const Sweep& v) {
  return {{"collective", v.collective},
          {"dtype", v.dtype},
          {"op", to_json_opt(v.op)},
          {"backend", v.backend},
          {"root", to_json_opt(v.root)},
          {"nranks", known_or_null(v.nranks)},
          {"busbw_factor", v.busbw_factor},
          {"iteration_clock", name(v.iteration_clock)},
          {"api", to_json_opt(v.api)},
          {"method", name(v.method)},
          {"floor_us", to_json_opt(v.floor_us)},
          {"points", to_json_array(v.points)}};
}
void read(const JsonIn& in, Sweep& v) {
  in.field("collective", v.collective);
  in.field("dtype", v.dtype);
  in.field("op", v.op);
  in.field("backend", v.backend);
  in.field("root", v.root);
  in.field_or_unknown("nranks", v.nranks);
  in.field("busbw_factor", v.busbw_factor);
  in.field_or_keep("iteration_clock", v.iteration_clock);  // absent before the nccl backend: "host"
  in.field_or_keep("api", v.api);                          // absent before it existed: null
  in.field_or_keep("method", v.method);                    // absent before --method: "nccl-tests"
  in.field_or_keep("floor_us", v.floor_us);                // absent before the floor: null
  in.field("points", v.points);
}

}  // namespace fabscope
