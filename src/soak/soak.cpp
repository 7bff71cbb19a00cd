#include "soak/soak.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "core/clock.h"
#include "core/sizes.h"
#include "core/stop_signal.h"
#include "core/watchdog.h"
#include "diag/net_counters.h"
#include "soak/mirror.h"
#include "soak/timeline_recorder.h"
#include "sweep/measure.h"
#include "sweep/plan.h"

namespace fabscope {

namespace {

std::string format_hms(double seconds) {
  const long s = static_cast<long>(std::max(0.0, seconds));
  return fmt::format("{:02}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
}

// Rank 0's progress line before each point: the live one on a terminal, else a plain
// line a minute on a long run (-N other than 1, or --duration).
class ProgressLine {
 public:
  ProgressLine(const RankContext& ctx, const SweepOptions& o, Progress* progress, size_t points_per_cycle)
      : ctx_(ctx),
        o_(o),
        progress_(progress),
        points_per_cycle_(points_per_cycle),
        long_run_(o.run_cycles != 1 || o.duration_s > 0) {}

  // `what()` names the point about to be measured; called only when a line is shown.
  template <typename What>
  void show(double elapsed_s, int cycle, size_t done_in_cycle, const What& what, const TimelineRecorder& recorder) {
    if (ctx_.rank() != 0) return;
    const bool live = progress_ && progress_->enabled();
    if (!live && !(long_run_ && elapsed_s >= next_plain_s_)) return;  // nothing to show: format nothing
    std::string remaining;
    if (o_.duration_s > 0) {
      remaining = " / " + format_hms(std::max(0.0, o_.duration_s - elapsed_s)) + " left";
    } else if (o_.run_cycles > 0 && cycle > 0) {
      remaining = " / " + format_hms(elapsed_s / cycle * (o_.run_cycles - cycle)) + " left";
    }
    const auto& latest = recorder.latest();
    const std::string line = fmt::format(
        "fabscope: {}{} cycle {}{} [{}/{}] {}  last {} busbw {:.2f} GB/s p99 {:.1f} us  stalls {} flaps {}",
        format_hms(elapsed_s), remaining, cycle + 1, o_.run_cycles > 0 ? fmt::format("/{}", o_.run_cycles) : "",
        done_in_cycle + 1, points_per_cycle_, what(), latest.what.empty() ? "-" : latest.what, latest.busbw_gbps,
        latest.p99_us, recorder.stalls_seen(), recorder.flaps_seen());
    if (live) {
      progress_->update(line);
    } else {
      std::fprintf(stderr, "%s\n", line.c_str());
      std::fflush(stderr);
      next_plain_s_ = elapsed_s + 60;
    }
  }
  // The point was measured: the live line gives way to what is printed of it.
  void clear() {
    if (progress_ && ctx_.rank() == 0) progress_->clear();
  }

 private:
  const RankContext& ctx_;
  const SweepOptions& o_;
  Progress* const progress_;
  const size_t points_per_cycle_;
  const bool long_run_;
  double next_plain_s_ = 60;
};

// One run of a plan: cycles of its sweeps, each sweep's points in turn, until the
// cycles or the duration are done or a signal ends it, every rank agreeing where.
class SoakRun {
 public:
  SoakRun(SweepPlan& plan, SweepObserver* observer, Progress* progress, std::vector<CounterSample>* counters);
  Result<std::vector<Sweep>> run(Timeline* timeline_out);

 private:
  Status run_cycle(int cycle);
  Status run_sweep(int cycle, const SweepKey& key);
  Status keep_point(int cycle, Sweep& s, MeasuredPoint measured);
  Result<double> agree_stop(bool planned_on_rank0);
  Status stop_if_signalled();
  Status stop_if_done(int cycle);
  std::string ended_by() const;
  double elapsed_s() const { return static_cast<double>(steady_now_ns() - run_start_ns_) * 1e-9; }

  // Every rank agrees whether to stop: the largest of every rank's signal (0: none) and
  // rank 0's own reason (kStopPlanned: the cycles or the duration are done).
  static constexpr double kStopPlanned = 1000;

  const SweepPlan& plan_;
  const RankContext& ctx_;
  const SweepOptions& o_;
  // The ranks that keep the report as it grows: rank 0, and every rank with --mirror.
  const bool mirror_;
  const bool keeper_;
  SweepObserver* const observer_;
  std::vector<CounterSample>* const counters_;
  const std::vector<SweepKey> keys_;
  Watchdog watchdog_;
  PlanMeasurer measurer_;
  TimelineRecorder recorder_;
  const int64_t run_start_ns_;
  ProgressLine progress_line_;

  std::vector<Sweep> sweeps_;  // the first cycle's
  size_t done_in_cycle_ = 0;
  bool cycle_complete_ = true;
  bool stop_ = false;
  int stopped_by_signal_ = 0;
};

SoakRun::SoakRun(SweepPlan& plan, SweepObserver* observer, Progress* progress, std::vector<CounterSample>* counters)
    : plan_(plan),
      ctx_(plan.ctx),
      o_(plan.options),
      mirror_(o_.mirror && ctx_.size() > 1),
      keeper_(ctx_.rank() == 0 || mirror_),
      observer_(observer),
      counters_(counters),
      keys_(sweep_keys(o_)),
      // A backend that enforces --timeout itself (and aborts its communicator) gets to
      // do so before the watchdog ends the process.
      watchdog_(o_.timeout_s > 0 ? o_.timeout_s + plan.backend.watchdog_grace_s() : 0,
                fmt::format("[r{} {}]", ctx_.rank(), ctx_.host()), stderr, ctx_.peer_view()),
      measurer_(plan, watchdog_),
      recorder_(ctx_, o_, keeper_, mirror_, observer),
      run_start_ns_(steady_now_ns()),
      progress_line_(ctx_, o_, progress, keys_.size() * plan.sizes.size()) {}

Result<std::vector<Sweep>> SoakRun::run(Timeline* timeline_out) {
  FABSCOPE_RETURN_IF_ERROR(measurer_.measure_floor());
  for (int cycle = 0; !stop_; ++cycle) FABSCOPE_RETURN_IF_ERROR(run_cycle(cycle));
  recorder_.timeline().ended_by = ended_by();
  FABSCOPE_RETURN_IF_ERROR(recorder_.finish());
  if (timeline_out && ctx_.rank() == 0) *timeline_out = std::move(recorder_.timeline());
  return std::move(sweeps_);
}

Status SoakRun::run_cycle(int cycle) {
  if (observer_ && keeper_) observer_->on_cycle_begin(cycle);
  recorder_.begin_cycle(cycle);
  done_in_cycle_ = 0;
  cycle_complete_ = true;
  for (const SweepKey& key : keys_) {
    if (stop_) break;
    FABSCOPE_RETURN_IF_ERROR(run_sweep(cycle, key));
  }
  if (cycle_complete_) recorder_.timeline().cycles_completed = cycle + 1;
  if (!stop_) FABSCOPE_RETURN_IF_ERROR(stop_if_done(cycle));
  return recorder_.end_cycle(cycle, stop_);
}

// One pass over a sweep's sizes; the first cycle's passes are the sweeps returned.
Status SoakRun::run_sweep(int cycle, const SweepKey& key) {
  Sweep s = measurer_.record(key);
  if (observer_ && keeper_) observer_->on_sweep_begin(s);
  // The sweep's counters (the report's `counters`): the first cycle's.
  PhaseCounters phase_counters(ctx_);
  const bool sweep_counters = counters_ && cycle == 0;
  if (sweep_counters) phase_counters.begin();
  FABSCOPE_RETURN_IF_ERROR(measurer_.begin_sweep(key, /*warm_up=*/cycle == 0));
  for (uint64_t size : plan_.sizes) {
    progress_line_.show(
        elapsed_s(), cycle, done_in_cycle_,
        [&] {
          return fmt::format("{} {}{}{} {}", info(key.coll).name, name(key.dtype), key.op ? " " : "",
                             key.op ? name(*key.op) : "", format_size(size));
        },
        recorder_);
    auto measured = measurer_.measure_point(size);
    if (!measured.ok()) return measured.status();
    FABSCOPE_RETURN_IF_ERROR(keep_point(cycle, s, std::move(*measured)));
    FABSCOPE_RETURN_IF_ERROR(stop_if_signalled());
    if (stop_) break;
  }
  FABSCOPE_RETURN_IF_ERROR(measurer_.end_sweep(s));
  if (sweep_counters) {
    FABSCOPE_RETURN_IF_ERROR(
        phase_counters.end(fmt::format("sweep {} {}{}{}", s.collective, s.dtype, s.op ? " " : "", s.op.value_or("")),
                           std::nullopt, std::nullopt, *counters_));
  }
  if (observer_ && keeper_) observer_->on_sweep_end(s);
  if (cycle == 0) sweeps_.push_back(std::move(s));
  return Status::Ok();
}

// A measured point: to every rank with --mirror, into the timeline, to the observer,
// and the sweep's next point.
Status SoakRun::keep_point(int cycle, Sweep& s, MeasuredPoint measured) {
  SweepPoint& point = measured.point;
  if (mirror_) FABSCOPE_RETURN_IF_ERROR(mirror_point(ctx_, point, measured.stalls));
  recorder_.add_point(s, point, std::move(measured.stalls), cycle);
  progress_line_.clear();
  if (observer_ && keeper_) observer_->on_point(s, point);
  s.points.push_back(std::move(point));
  ++done_in_cycle_;
  return Status::Ok();
}

Result<double> SoakRun::agree_stop(bool planned_on_rank0) {
  double mine = static_cast<double>(stop_signal());
  if (ctx_.rank() == 0 && planned_on_rank0) mine = std::max(mine, kStopPlanned);
  return ctx_.reduce(mine, RankReduction::kMax);
}

// After each point: a signal ends the run here, on every rank alike.
Status SoakRun::stop_if_signalled() {
  auto agreed = agree_stop(false);
  if (!agreed.ok()) return agreed.status();
  if (*agreed > 0) {
    stopped_by_signal_ = static_cast<int>(*agreed);
    stop_ = true;
    if (done_in_cycle_ < keys_.size() * plan_.sizes.size()) cycle_complete_ = false;
  }
  return Status::Ok();
}

// The cycle boundary: rank 0 says whether the cycles or the duration are done.
Status SoakRun::stop_if_done(int cycle) {
  const bool done =
      (o_.run_cycles > 0 && cycle + 1 >= o_.run_cycles) || (o_.duration_s > 0 && elapsed_s() >= o_.duration_s);
  auto agreed = agree_stop(done);
  if (!agreed.ok()) return agreed.status();
  if (*agreed > 0) {
    stop_ = true;
    if (*agreed < kStopPlanned) stopped_by_signal_ = static_cast<int>(*agreed);
  }
  return Status::Ok();
}

std::string SoakRun::ended_by() const {
  if (stopped_by_signal_ > 0) return fmt::format("signal {}", stop_signal_name(stopped_by_signal_));
  const Timeline& t = recorder_.timeline();
  if (o_.duration_s > 0 && (o_.run_cycles == 0 || t.cycles_completed < o_.run_cycles)) return "duration";
  return "cycles";
}

}  // namespace

Result<std::vector<Sweep>> run_sweeps(SweepPlan& plan, SweepObserver* observer, Progress* progress,
                                      std::vector<CounterSample>* counters, Timeline* timeline_out) {
  SoakRun run(plan, observer, progress, counters);
  return run.run(timeline_out);
}

Result<std::vector<Sweep>> run_sweeps(const RankContext& ctx, Backend& backend, const SweepOptions& o,
                                      SweepObserver* observer, Progress* progress) {
  auto plan = plan_sweeps(ctx, backend, o);
  if (!plan.ok()) return plan.status();
  return run_sweeps(**plan, observer, progress);
}

}  // namespace fabscope
