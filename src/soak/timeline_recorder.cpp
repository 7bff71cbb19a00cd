#include "soak/timeline_recorder.h"

#include <fmt/format.h>

#include <algorithm>

#include "soak/links.h"
#include "soak/mirror.h"

namespace fabscope {

TimelineRecorder::TimelineRecorder(const RankContext& ctx, const SweepOptions& o, bool keeper, bool mirror,
                                   SweepObserver* observer)
    : ctx_(ctx),
      keeper_(keeper),
      mirror_(mirror),
      observer_(observer),
      watch_(start_link_watch(ctx, o)),
      interval_s_(o.interval_s),
      counters_(ctx) {
  timeline_.run_cycles = o.run_cycles;
  if (o.duration_s > 0) timeline_.duration_s = o.duration_s;
  timeline_.interval_s = o.interval_s;
  timeline_.links_watched = o.watch_links;
}

TimelineRecorder::~TimelineRecorder() = default;

void TimelineRecorder::begin_cycle(int cycle) {
  if (!builder_.is_open() && keeper_) builder_.open(cycle);
  if (cycle == first_cycle_) counters_.begin();
}

void TimelineRecorder::add_point(const Sweep& s, const SweepPoint& point, std::vector<StallEvent> stalls, int cycle) {
  if (!keeper_) return;
  builder_.add(s, point, false, *point.out_of_place);
  builder_.add(s, point, true, *point.in_place);
  for (StallEvent& e : stalls) {
    e.collective = s.collective;
    e.dtype = s.dtype;
    e.op = s.op;
    e.size_bytes = point.size_bytes;
    e.cycle = cycle;
    builder_.add_stall(e);
    if (observer_) observer_->on_stall(e);
    record_stall(timeline_, std::move(e));
  }
}

Status TimelineRecorder::end_cycle(int cycle, bool run_over) {
  // Every rank knows both: the period by rank 0's clock, agreed.
  double close_now = 1.0;
  if (!run_over) {
    const double mine = ctx_.rank() == 0 && builder_.open_seconds() >= interval_s_ ? 1.0 : 0.0;
    auto agreed = ctx_.reduce(mine, RankReduction::kMax);
    if (!agreed.ok()) return agreed.status();
    close_now = *agreed;
  }
  if (close_now > 0) {
    FABSCOPE_RETURN_IF_ERROR(close_interval(cycle - first_cycle_ + 1));
    first_cycle_ = cycle + 1;
  }
  return Status::Ok();
}

// Closes the open interval (collective: every host's counters and links).
Status TimelineRecorder::close_interval(int cycles) {
  std::vector<CounterSample> hosts;
  FABSCOPE_RETURN_IF_ERROR(
      counters_.end(fmt::format("interval {}", timeline_.intervals.size()), std::nullopt, std::nullopt, hosts));
  FABSCOPE_RETURN_IF_ERROR(gather_links(ctx_, watch_.get(), timeline_.links));
  if (mirror_) FABSCOPE_RETURN_IF_ERROR(mirror_interval(ctx_, hosts, timeline_.links));
  if (!keeper_) return Status::Ok();
  // Only the hosts' interfaces and ports that moved or changed: the interval's record
  // of a quiet interface is all zeros.
  for (CounterSample& h : hosts) {
    std::erase_if(h.interfaces, [](const InterfaceDelta& d) {
      return std::all_of(d.deltas.begin(), d.deltas.end(), [](const auto& kv) { return kv.second == 0; });
    });
  }
  timeline_.intervals.push_back(builder_.close(cycles, std::move(hosts)));
  fold_when_full();
  flaps_seen_ = 0;
  for (const LinkRecord& l : timeline_.links) flaps_seen_ += l.flaps;
  if (observer_) observer_->on_interval(timeline_);
  return Status::Ok();
}

// A run longer than its intervals were set for: halve them, and double the period.
void TimelineRecorder::fold_when_full() {
  if (timeline_.intervals.size() < 2 * kMaxTimelineIntervals) return;
  double seconds = 0;
  for (const TimelineInterval& iv : timeline_.intervals) seconds += iv.seconds;
  fold_intervals(timeline_.intervals);
  interval_s_ = std::max(2 * interval_s_, seconds / static_cast<double>(timeline_.intervals.size()));
  timeline_.interval_s = interval_s_;
  builder_.skip_to(static_cast<int>(timeline_.intervals.size()));
}

Status TimelineRecorder::finish() {
  if (watch_) watch_->stop();
  return gather_links(ctx_, watch_.get(), timeline_.links);
}

}  // namespace fabscope
