#include "sweep/timeline.h"

#include <fmt/format.h>

#include "core/clock.h"
#include "core/sizes.h"
#include "core/stats.h"

namespace fabscope {

TimelineBuilder::Key TimelineBuilder::key_of(const std::string& coll, const std::string& dtype,
                                             const std::optional<std::string>& op, uint64_t size,
                                             const std::string& placement) {
  return {coll, dtype + "/" + op.value_or(""), placement, size, ""};
}

void TimelineBuilder::open(int cycle) {
  open_ = true;
  first_cycle_ = cycle;
  start_ns_ = steady_now_ns();
  start_ = utc_timestamp();
  points_.clear();
  where_.clear();
}

double TimelineBuilder::open_seconds() const {
  return open_ ? static_cast<double>(steady_now_ns() - start_ns_) * 1e-9 : 0.0;
}

void TimelineBuilder::add(const Sweep& s, const SweepPoint& p, bool in_place, const PlacementResult& r) {
  const std::string placement = in_place ? "in_place" : "out_of_place";
  const Key k = key_of(s.collective, s.dtype, s.op, p.size_bytes, placement);
  auto [it, fresh] = where_.try_emplace(k, points_.size());
  if (fresh) {
    Accumulated a;
    a.point.collective = s.collective;
    a.point.dtype = s.dtype;
    a.point.op = s.op;
    a.point.size_bytes = p.size_bytes;
    a.point.placement = placement;
    points_.push_back(std::move(a));
  }
  Accumulated& a = points_[it->second];
  a.point.iterations += r.iterations;
  a.time_sum_us += r.time_us * r.iterations;
  if (r.time_us > 0 && r.busbw_gbps > 0) a.bw_time = r.busbw_gbps * r.time_us;
  a.samples_us.insert(a.samples_us.end(), r.samples_us.begin(), r.samples_us.end());
  latest_.what = fmt::format("{} {}", s.collective, format_size(p.size_bytes));
  latest_.busbw_gbps = r.busbw_gbps;
  latest_.p99_us = r.iteration_us ? r.iteration_us->p99_us : 0;
}

void TimelineBuilder::add_stall(const StallEvent& stall) {
  auto it = where_.find(key_of(stall.collective, stall.dtype, stall.op, stall.size_bytes, stall.placement));
  if (it != where_.end()) ++points_[it->second].point.stalls;
}

TimelineInterval TimelineBuilder::build(int cycles) const {
  TimelineInterval iv;
  iv.index = index_;
  iv.first_cycle = first_cycle_;
  iv.cycles = cycles;
  iv.start = start_;
  iv.end = utc_timestamp();
  iv.seconds = open_seconds();
  for (const Accumulated& a : points_) {
    TimelinePoint tp = a.point;
    if (tp.iterations > 0) tp.time_us = a.time_sum_us / tp.iterations;
    if (tp.time_us > 0) tp.busbw_gbps = a.bw_time / tp.time_us;
    if (!a.samples_us.empty()) {
      const Summary sm = summarize(a.samples_us);
      tp.median_us = sm.median;
      tp.p99_us = sm.p99;
      tp.max_us = sm.max;
    }
    iv.points.push_back(std::move(tp));
  }
  return iv;
}

TimelineInterval TimelineBuilder::peek(int cycles) const { return build(cycles); }

TimelineInterval TimelineBuilder::close(int cycles, std::vector<CounterSample> hosts) {
  TimelineInterval iv = build(cycles);
  iv.hosts = std::move(hosts);
  ++index_;
  points_.clear();
  where_.clear();
  open_ = false;
  return iv;
}

}  // namespace fabscope
