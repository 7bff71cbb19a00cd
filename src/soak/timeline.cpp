#include "soak/timeline.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/clock.h"
#include "core/sizes.h"
#include "core/stats.h"

namespace fabscope {

TimelineBuilder::Key TimelineBuilder::key_of(const std::string& coll, const std::string& dtype,
                                             const std::optional<std::string>& op, uint64_t size, Placement placement) {
  return {coll, dtype, op.value_or(""), size, placement};
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
  const Placement placement = placement_of(in_place);
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

namespace {

void merge_counters(std::vector<CounterSample>& into, const std::vector<CounterSample>& from) {
  for (const CounterSample& f : from) {
    auto it = std::find_if(into.begin(), into.end(), [&](const CounterSample& c) { return c.host == f.host; });
    if (it == into.end()) {
      into.push_back(f);
      continue;
    }
    it->duration_s += f.duration_s;
    for (const InterfaceDelta& d : f.interfaces) {
      auto i = std::find_if(it->interfaces.begin(), it->interfaces.end(),
                            [&](const InterfaceDelta& x) { return x.name == d.name; });
      if (i == it->interfaces.end()) {
        it->interfaces.push_back(d);
        continue;
      }
      for (const auto& [k, v] : d.deltas) i->deltas[k] += v;
      for (const auto& [k, v] : d.ethtool) i->ethtool[k] += v;
    }
    for (const PortDelta& d : f.ports) {
      auto p = std::find_if(it->ports.begin(), it->ports.end(),
                            [&](const PortDelta& x) { return x.device == d.device && x.port == d.port; });
      if (p == it->ports.end()) {
        it->ports.push_back(d);
        continue;
      }
      for (const auto& [k, v] : d.counters) p->counters[k] += v;
    }
  }
}

void merge_point(TimelinePoint& a, const TimelinePoint& b) {
  const int n = a.iterations + b.iterations;
  if (n > 0) {
    const double time = (a.time_us * a.iterations + b.time_us * b.iterations) / n;
    const double bw_time = a.time_us > 0 ? a.busbw_gbps * a.time_us : b.busbw_gbps * b.time_us;
    a.median_us = (a.median_us * a.iterations + b.median_us * b.iterations) / n;
    a.time_us = time;
    a.busbw_gbps = time > 0 ? bw_time / time : 0;
  }
  a.iterations = n;
  a.p99_us = std::max(a.p99_us, b.p99_us);
  a.max_us = std::max(a.max_us, b.max_us);
  a.stalls += b.stalls;
}

}  // namespace

void record_stall(Timeline& timeline, StallEvent stall) {
  if (timeline.stalls.size() < kMaxStallEvents) {
    timeline.stalls.push_back(std::move(stall));
  } else {
    ++timeline.stalls_dropped;
  }
}

void fold_intervals(std::vector<TimelineInterval>& intervals) {
  std::vector<TimelineInterval> out;
  for (size_t i = 0; i < intervals.size(); i += 2) {
    TimelineInterval a = std::move(intervals[i]);
    a.index = static_cast<int>(out.size());
    if (i + 1 < intervals.size()) {
      const TimelineInterval& b = intervals[i + 1];
      a.cycles += b.cycles;
      a.end = b.end;
      a.seconds += b.seconds;
      for (const TimelinePoint& p : b.points) {
        auto it = std::find_if(a.points.begin(), a.points.end(), [&](const TimelinePoint& q) {
          return q.collective == p.collective && q.dtype == p.dtype && q.op == p.op && q.size_bytes == p.size_bytes &&
                 q.placement == p.placement;
        });
        if (it == a.points.end()) {
          a.points.push_back(p);
        } else {
          merge_point(*it, p);
        }
      }
      merge_counters(a.hosts, b.hosts);
    }
    out.push_back(std::move(a));
  }
  intervals = std::move(out);
}

}  // namespace fabscope
