// One point of a plan measured: warm-up, the timed loop (or CUDA graph), the reduction
// over ranks, the stalls in its iterations, the checks; and the floor, the same loop
// around calls that do nothing.
#include "sweep/measure.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "coll/layout.h"
#include "core/clock.h"
#include "core/sizes.h"
#include "core/stall_monitor.h"
#include "core/stats.h"
#include "diag/stall.h"
#include "sweep/arrivals.h"

namespace fabscope {

size_t device_marker_stride(double iteration_us, size_t iterations) {
  const size_t n = std::max<size_t>(iterations, 1);
  if (!(iteration_us > 0)) return n;
  const double stride = std::ceil(kDeviceMarkerCostUs / (kDeviceMarkerShare * iteration_us));
  return stride >= static_cast<double>(n) ? n : std::max<size_t>(1, static_cast<size_t>(stride));
}

namespace {

// The floor: a backend whose calls do nothing, run through the same timed loop, clock
// reads and barriers as the real one. It keeps the real backend's device clock (whose
// markers are part of the loop) and wait (which the markers need).
class FloorBackend final : public Backend {
 public:
  explicit FloorBackend(Backend& real) : real_(real) {}
  std::string_view name() const override { return real_.name(); }
  std::string library() const override { return real_.library(); }
  Memory& memory() override { return real_.memory(); }
  Status run(const CollCall& /*call*/) override { return Status::Ok(); }
  Status wait() override { return real_.iteration_clock() ? real_.wait() : Status::Ok(); }
  IterationClock* iteration_clock() override { return real_.iteration_clock(); }

 private:
  Backend& real_;
};

// Iterations timed when measuring the floor: enough that the loop's mean is steady.
constexpr size_t kFloorIterations = 2000;
constexpr size_t kFloorIterationsMax = 20000;  // -n beyond this adds time, not precision

struct PointSetup {
  Collective coll;
  DataType dtype;
  std::optional<ReduceOp> op;
  int root;
  ElementCounts counts;
};

class SweepRunner {
 public:
  SweepRunner(const RankContext& ctx, Backend& backend, const SweepOptions& o, Buffers& buffers, Watchdog& watchdog)
      : ctx_(ctx), backend_(backend), o_(o), buf_(buffers), watchdog_(watchdog) {
    if (o.record_arrivals) stalls_ = std::make_unique<StallMonitor>();
  }

  // Timed and warm-up iterations of a point of `bytes` (the printed size).
  int iters_at(uint64_t bytes) const { return o_.iterations_by_method ? osu_collective_loop(bytes).iters : o_.iters; }
  int warmup_at(uint64_t bytes) const {
    return o_.warmup_by_method ? osu_collective_loop(bytes).warmup : o_.warmup_iters;
  }
  uint64_t printed_bytes(const PointSetup& p) const { return printed_size_bytes(p.counts, element_size(p.dtype)); }

  // The call for one placement, its buffers shifted by `shift` bytes (nccl-tests
  // moves buffers each iteration so caches do not flatter small sizes).
  CollCall call(const PointSetup& p, bool in_place, size_t shift) const {
    const size_t es = element_size(p.dtype);
    const size_t r = static_cast<size_t>(ctx_.rank());
    CollCall c;
    c.coll = p.coll;
    c.dtype = p.dtype;
    c.op = p.op;
    c.root = p.root;
    c.count = p.counts.param;
    c.in_place = in_place;
    char* recv = buf_.recv() + shift;
    c.send = in_place ? recv + r * p.counts.send_inplace_offset * es : buf_.send() + shift;
    c.recv = in_place ? recv + r * p.counts.recv_inplace_offset * es : recv;
    return c;
  }

  // nccl-tests moves the buffers by one call's extent every iteration, through the
  // whole buffer; OSU keeps them fixed. The step and how many fit.
  struct Shifts {
    size_t step = 0;
    size_t count = 1;
  };
  Shifts shifts(const PointSetup& p) const {
    if (o_.method == TimingMethod::kOsu) return {};
    const size_t total = std::max(p.counts.send, p.counts.recv) * element_size(p.dtype);
    const size_t steps = total ? buf_.bytes() / total : 1;
    return {total, std::max<size_t>(steps, 1)};
  }
  size_t shift_for(const PointSetup& p, int iter) const {
    const Shifts sh = shifts(p);
    return sh.step * (static_cast<size_t>(iter) % sh.count);
  }

  BufferLayout layout(const PointSetup& p, bool in_place) const {
    LayoutArgs a;
    a.coll = p.coll;
    a.rank = ctx_.rank();
    a.nranks = ctx_.size();
    a.root = p.root;
    a.in_place = in_place;
    a.counts = p.counts;
    a.inplace_output_offset = backend_.inplace_output_offset(p.coll, ctx_.rank(), p.counts);
    return buffer_layout(a);
  }

  PatternSpec pattern(const PointSetup& p, uint64_t seed) const {
    return PatternSpec{p.dtype, p.op, seed, ctx_.size()};
  }

  // Writes this rank's inputs; first fills the output region with other values, so a
  // collective that writes nothing cannot pass on stale data.
  Status prepare(const PointSetup& p, bool in_place, uint64_t seed) {
    Memory& mem = backend_.memory();
    BufferLayout l = layout(p, in_place);
    const size_t recv_elems = std::max(p.counts.recv, p.counts.send);
    Segment poison{0, recv_elems, ctx_.rank(), 0};
    PatternSpec poison_spec = pattern(p, ~seed);
    poison_spec.op.reset();
    FABSCOPE_RETURN_IF_ERROR(mem.fill(buf_.recv(), poison_spec, std::span<const Segment>(&poison, 1)));
    FABSCOPE_RETURN_IF_ERROR(mem.fill(l.input_in_recv ? buf_.recv() : buf_.send(), pattern(p, seed), l.input));
    return backend_.prepare(call(p, in_place, 0));
  }

  Status run_once(const PointSetup& p, bool in_place, size_t shift) {
    FABSCOPE_RETURN_IF_ERROR(backend_.run(call(p, in_place, shift)));
    FABSCOPE_RETURN_IF_ERROR(backend_.wait());
    watchdog_.beat();
    return Status::Ok();
  }

  std::string describe(const PointSetup& p, bool in_place, const char* step) const {
    return fmt::format("{} {}{}{} of {} on rank {} ({}), {}", name(p.coll), name(p.dtype), p.op ? " " : "",
                       p.op ? name(*p.op) : "", format_size(printed_size_bytes(p.counts, element_size(p.dtype))),
                       ctx_.rank(), ctx_.host(), fmt::format("{} {}", in_place ? "in-place" : "out-of-place", step));
  }

  // Warm-up at every power-of-two size, out of place, as nccl-tests does (--method osu
  // warms each point up right before timing it instead: warm_up_point).
  Status warm_up(const PointSetup& base) {
    if (o_.warmup_iters == 0 || o_.method == TimingMethod::kOsu) return Status::Ok();
    const size_t es = element_size(base.dtype);
    for (uint64_t size = o_.sizes.min_bytes; size <= o_.sizes.max_bytes; size = size ? size * 2 : 1) {
      PointSetup p = base;
      p.counts = element_counts(base.coll, size / es, es, ctx_.size());
      watchdog_.set_phase(describe(p, false, "warm-up"));
      for (int i = 0; i < o_.warmup_iters; ++i) {
        FABSCOPE_RETURN_IF_ERROR(backend_.run(call(p, false, 0)));
        watchdog_.beat();
      }
      FABSCOPE_RETURN_IF_ERROR(backend_.wait());
      if (size == 0) break;
    }
    return Status::Ok();
  }

  // OSU's warm-up: the point itself, on its fixed buffer, right before its timed loop.
  Status warm_up_point(const PointSetup& p, bool in_place) {
    const int n = warmup_at(printed_bytes(p));
    for (int i = 0; i < n; ++i) {
      FABSCOPE_RETURN_IF_ERROR(backend_.run(call(p, in_place, 0)));
      FABSCOPE_RETURN_IF_ERROR(backend_.wait());
      if (o_.blocking == 1 || o_.blocking == 3) FABSCOPE_RETURN_IF_ERROR(ctx_.barrier());
      watchdog_.beat();
    }
    return Status::Ok();
  }

  // The timed loop's result: seconds per iteration by the host clock over the whole
  // loop (nccl-tests' time), and one sample per iteration (or per graph launch).
  struct LoopTiming {
    double seconds = 0;
    std::vector<double> samples_us;
    std::vector<double> enter_ns, exit_ns;  // --arrivals, host-timed loops: steady clock
    std::vector<double> stalled_ns;         // --arrivals: time in each iteration the process did not run
    // Rank 0: when the loop started (wall clock) and each iteration after it (stalls).
    int64_t start_unix_ns = 0;
    std::vector<double> starts_us;
  };

  // Iterations enqueued one after another; with -z, waited for (and a barrier) after
  // each. A backend with a device clock gives each iteration's device time. `be` is the
  // real backend, or the FloorBackend for the floor.
  //
  // Inside the loop, per iteration: the call's two pointers moved, one stamp (two with
  // -z: around the call, not the barrier), a watchdog beat (a plain store), and the call:
  // no allocation, no formatting, no lock. Stamps are time-stamp-counter ticks where
  // those are invariant (ticks_invariant), converted with the steady clock read at the
  // loop's two ends; steady-clock nanoseconds with --arrivals (times across ranks).
  // `stride`: without -z, a device marker after every stride-th iteration only (and the
  // last), each sample the mean of the iterations since the one before
  // (device_marker_stride); with -z, markers around every iteration.
  Result<LoopTiming> timed_loop(Backend& be, const PointSetup& p, bool in_place, size_t n, size_t stride = 1) {
    IterationClock* clock = be.iteration_clock();
    const bool paired = o_.blocking != 0;  // markers around each iteration, not between
    const bool barrier = o_.blocking == 1 || o_.blocking == 3;
    stride = paired ? 1 : std::clamp<size_t>(stride, 1, std::max<size_t>(n, 1));
    const size_t spans = (n + stride - 1) / stride;
    if (clock) FABSCOPE_RETURN_IF_ERROR(clock->reset(paired ? 2 * n : spans + 1));
    size_t next_mark = stride;                                     // iterations done at the next marker
    const bool arrivals = o_.record_arrivals && &be == &backend_;  // plan_sweeps refuses it with a device clock
    const bool ticks = !arrivals && ticks_invariant();
    std::vector<int64_t> stamps(paired ? 2 * n : n + 1);
    int64_t excluded = 0;  // -z 3: barrier time, in stamps' units
    CollCall c = call(p, in_place, 0);
    char* const send0 = static_cast<char*>(const_cast<void*>(c.send));
    char* const recv0 = static_cast<char*>(c.recv);
    const Shifts sh = shifts(p);
    size_t at = 0;  // which shift
    const int64_t unix_start = system_now_ns();
    const int64_t steady_start = steady_now_ns();
    const int64_t start = stamp_now(ticks);
    if (!paired) stamps[0] = start;
    if (clock && !paired) FABSCOPE_RETURN_IF_ERROR(clock->mark(0));
    for (size_t i = 0; i < n; ++i) {
      const size_t shift = sh.step * at;
      if (++at == sh.count) at = 0;
      c.send = send0 + shift;
      c.recv = recv0 + shift;
      if (paired) stamps[2 * i] = stamp_now(ticks);
      if (clock && paired) FABSCOPE_RETURN_IF_ERROR(clock->mark(2 * i));
      FABSCOPE_RETURN_IF_ERROR(be.run(c));
      if (clock && paired) FABSCOPE_RETURN_IF_ERROR(clock->mark(2 * i + 1));
      if (clock && !paired && (i + 1 == next_mark || i + 1 == n)) {
        FABSCOPE_RETURN_IF_ERROR(clock->mark((i + stride) / stride));
        next_mark += stride;
      }
      if (paired) {
        FABSCOPE_RETURN_IF_ERROR(be.wait());
        stamps[2 * i + 1] = stamp_now(ticks);
      } else {
        stamps[i + 1] = stamp_now(ticks);
      }
      if (barrier) {
        FABSCOPE_RETURN_IF_ERROR(ctx_.barrier());
        if (o_.blocking == 3) excluded += stamp_now(ticks) - stamps[2 * i + 1];
      }
      watchdog_.beat();
    }
    FABSCOPE_RETURN_IF_ERROR(be.wait());
    const int64_t end = stamp_now(ticks);
    const int64_t steady_end = steady_now_ns();
    const TickScale scale = ticks ? TickScale::calibrate(end - start, steady_end - steady_start) : TickScale{};
    LoopTiming t;
    t.seconds =
        (static_cast<double>(steady_end - steady_start) * 1e-9 - scale.us(excluded) * 1e-6) / static_cast<double>(n);
    if (ctx_.rank() == 0 && &be == &backend_) {
      t.start_unix_ns = unix_start;
      t.starts_us.resize(n);
      for (size_t i = 0; i < n; ++i) t.starts_us[i] = scale.us((paired ? stamps[2 * i] : stamps[i]) - start);
    }
    if (arrivals) {  // steady-clock nanoseconds; without -z a call starts where the last ended
      t.enter_ns.resize(n);
      t.exit_ns.resize(n);
      for (size_t i = 0; i < n; ++i) {
        t.enter_ns[i] = static_cast<double>(paired ? stamps[2 * i] : stamps[i]);
        t.exit_ns[i] = static_cast<double>(paired ? stamps[2 * i + 1] : stamps[i + 1]);
      }
      if (stalls_) {
        t.stalled_ns.resize(n);
        for (size_t i = 0; i < n; ++i) {
          t.stalled_ns[i] = static_cast<double>(
              stalls_->stalled_ns(static_cast<int64_t>(t.enter_ns[i]), static_cast<int64_t>(t.exit_ns[i])));
        }
      }
    }
    t.samples_us.resize(n);
    if (!clock) {
      for (size_t i = 0; i < n; ++i) {
        t.samples_us[i] = scale.us(paired ? stamps[2 * i + 1] - stamps[2 * i] : stamps[i + 1] - stamps[i]);
      }
      return t;
    }
    if (paired) {
      for (size_t i = 0; i < n; ++i) {
        auto us = clock->elapsed_us(2 * i, 2 * i + 1);
        if (!us.ok()) return us.status();
        t.samples_us[i] = *us;
      }
      return t;
    }
    t.samples_us.resize(spans);
    for (size_t k = 0; k < spans; ++k) {
      auto us = clock->elapsed_us(k, k + 1);
      if (!us.ok()) return us.status();
      const size_t iterations = std::min(stride, n - k * stride);
      t.samples_us[k] = *us / static_cast<double>(iterations);
    }
    return t;
  }

  // This run's floor, microseconds per iteration reduced over ranks: the timed loop of
  // `p` around calls that do nothing (FloorBackend).
  Result<double> floor_us(const PointSetup& p) {
    FloorBackend nothing(backend_);
    watchdog_.set_phase(describe(p, false, "floor (the timed loop around calls that do nothing)"));
    FABSCOPE_RETURN_IF_ERROR(ctx_.barrier());
    const size_t n = std::clamp<size_t>(static_cast<size_t>(o_.iters), kFloorIterations, kFloorIterationsMax);
    // Device markers at the loop's ends only, as the real loop has them at the sizes
    // where the floor matters (device_marker_stride).
    auto t = timed_loop(nothing, p, false, n, /*stride=*/n);
    if (!t.ok()) return t.status();
    auto sec = ctx_.reduce(t->seconds, o_.average);
    if (!sec.ok()) return sec.status();
    return *sec * 1e6;
  }

  // -G: the iterations captured once in a CUDA graph, launched graph_launches times;
  // one sample per launch (its device time over the iterations it holds).
  Result<LoopTiming> timed_graph(const PointSetup& p, bool in_place) {
    const size_t n = static_cast<size_t>(iters_at(printed_bytes(p)));
    const size_t launches = static_cast<size_t>(o_.graph_launches);
    auto work = backend_.capture([&]() -> Status {
      for (size_t i = 0; i < n; ++i) {
        FABSCOPE_RETURN_IF_ERROR(backend_.run(call(p, in_place, shift_for(p, static_cast<int>(i)))));
      }
      return Status::Ok();
    });
    if (!work.ok()) return work.status();
    IterationClock* clock = backend_.iteration_clock();
    if (clock) FABSCOPE_RETURN_IF_ERROR(clock->reset(launches + 1));
    auto start = SteadyClock::now();
    auto prev = start;
    std::vector<double> host_us(launches);
    if (clock) FABSCOPE_RETURN_IF_ERROR(clock->mark(0));
    for (size_t g = 0; g < launches; ++g) {
      FABSCOPE_RETURN_IF_ERROR((*work)->launch());
      if (clock) FABSCOPE_RETURN_IF_ERROR(clock->mark(g + 1));
      auto now = SteadyClock::now();
      host_us[g] = seconds_between(prev, now) * 1e6 / static_cast<double>(n);
      prev = now;
      watchdog_.beat();
    }
    FABSCOPE_RETURN_IF_ERROR(backend_.wait());
    LoopTiming t;
    t.seconds = seconds_between(start, SteadyClock::now()) / static_cast<double>(n * launches);
    if (!clock) {
      t.samples_us = std::move(host_us);
      return t;
    }
    t.samples_us.resize(launches);
    for (size_t g = 0; g < launches; ++g) {
      auto us = clock->elapsed_us(g, g + 1);
      if (!us.ok()) return us.status();
      t.samples_us[g] = *us / static_cast<double>(n);
    }
    return t;
  }

  // With `arrival_times` (sweep --arrivals), every rank's entries, exits and stalled
  // time of each timed iteration on its own steady clock, rank-major, arrive there on rank 0.
  Result<PlacementResult> measure(const PointSetup& p, bool in_place, std::vector<double>* arrival_times = nullptr) {
    PlacementResult res;
    const int iters = iters_at(printed_bytes(p));
    res.iterations = iters;
    watchdog_.set_phase(describe(p, in_place, "timed iterations"));
    FABSCOPE_RETURN_IF_ERROR(prepare(p, in_place, o_.seed));
    const int64_t once_start_ns = steady_now_ns();
    FABSCOPE_RETURN_IF_ERROR(run_once(p, in_place, 0));
    const double once_us = static_cast<double>(steady_now_ns() - once_start_ns) * 1e-3;
    if (o_.method == TimingMethod::kOsu) FABSCOPE_RETURN_IF_ERROR(warm_up_point(p, in_place));
    size_t stride = 1;
    if (backend_.iteration_clock() != nullptr && o_.blocking == 0 && o_.graph_launches == 0) {
      // Every rank the same stride (their samples are compared by index): from the
      // fastest rank's single call, which also serves as the barrier.
      auto fastest = ctx_.reduce(once_us, RankReduction::kMin);
      if (!fastest.ok()) return fastest.status();
      stride = device_marker_stride(*fastest, static_cast<size_t>(iters));
    } else {
      FABSCOPE_RETURN_IF_ERROR(ctx_.barrier());
    }
    // -G: each sample is a graph launch's time over the iterations it holds.
    res.iterations_per_sample = o_.graph_launches > 0 ? iters : static_cast<int>(stride);

    auto timing = o_.graph_launches > 0 ? timed_graph(p, in_place)
                                        : timed_loop(backend_, p, in_place, static_cast<size_t>(iters), stride);
    if (!timing.ok()) return timing.status();

    auto sec = ctx_.reduce(timing->seconds, o_.average);
    if (!sec.ok()) return sec.status();
    const size_t es = element_size(p.dtype);
    Bandwidth bw = bandwidth(p.coll, p.counts.param, es, *sec, ctx_.size());
    res.time_us = *sec * 1e6;
    res.algbw_gbps = bw.algbw_gbps;
    res.busbw_gbps = bw.busbw_gbps;

    auto all = ctx_.gather(timing->samples_us);
    if (!all.ok()) return all.status();
    if (ctx_.rank() == 0) {
      summarize_iterations(*all, timing->samples_us.size(), res);
      find_stalls(*all, *timing, in_place, res);
    }
    if (arrival_times && !timing->enter_ns.empty()) {
      std::vector<double> mine = timing->enter_ns;
      mine.insert(mine.end(), timing->exit_ns.begin(), timing->exit_ns.end());
      std::vector<double> stalled = timing->stalled_ns;
      stalled.resize(timing->enter_ns.size(), 0.0);
      mine.insert(mine.end(), stalled.begin(), stalled.end());
      auto times = ctx_.gather(mine);
      if (!times.ok()) return times.status();
      *arrival_times = std::move(*times);
    }

    if (o_.check_iters > 0 && (!in_place || backend_.in_place_checkable(p.coll))) {
      FABSCOPE_RETURN_IF_ERROR(check(p, in_place, res));
    }
    return res;
  }

  static constexpr int64_t kWaitHeardSlackNs = 1'200'000'000;  // a heartbeat period (1 s) and some
  // Rank 0: the placement's stalled iterations (diag/stall.h), kept until take_stalls().
  void find_stalls(const std::vector<double>& all, const LoopTiming& t, bool in_place, const PlacementResult& res) {
    if (t.starts_us.size() != res.samples_us.size()) return;  // -G: no iteration's own start
    const StallBound bound = stall_bound(res.samples_us, o_.stall_min_excess_us);
    for (size_t i : stalled_iterations(res.samples_us, bound)) {
      StallEvent e;
      e.placement = placement_of(in_place);
      e.iteration = static_cast<int>(i);
      const int64_t at_ns = t.start_unix_ns + static_cast<int64_t>(t.starts_us[i] * 1e3);
      e.start_unix_s = static_cast<double>(at_ns) * 1e-9;
      e.time = utc_timestamp_ns(at_ns);
      e.duration_us = res.samples_us[i];
      e.median_us = bound.median_us;
      e.threshold_us = bound.threshold_us;
      e.late_ranks = late_ranks(all, res.samples_us.size(), i);
      // What the ranks said they waited on while it lasted (their heartbeats carry the
      // message of fabscope's engine open longest), on rank 0's steady clock; for a rank
      // not heard then, the first heard within a heartbeat period after its end.
      const int64_t at_steady_ns = at_ns + (steady_now_ns() - system_now_ns());
      e.waits =
          ctx_.waits_heard(at_steady_ns, at_steady_ns + static_cast<int64_t>(e.duration_us * 1e3), kWaitHeardSlackNs);
      stalls_found_.push_back(std::move(e));
    }
  }
  std::vector<StallEvent> take_stalls() { return std::exchange(stalls_found_, {}); }

  // `all` holds `iters` samples of every rank, rank-major.
  void summarize_iterations(const std::vector<double>& all, size_t iters, PlacementResult& res) const {
    std::vector<double> slowest(iters, 0.0);
    for (int r = 0; r < ctx_.size(); ++r) {
      std::span<const double> mine(all.data() + static_cast<size_t>(r) * iters, iters);
      Summary s = summarize(mine);
      res.per_rank.push_back({r, s.median, s.mean, s.min, s.max});
      for (size_t i = 0; i < iters; ++i) slowest[i] = std::max(slowest[i], mine[i]);
    }
    Summary s = summarize(slowest);
    res.iteration_us = TimeStats{s.min, s.median, s.mean, s.max, s.p99};
    res.samples_us = std::move(slowest);
  }

  // Verification passes with fresh seeds; stops at the first pass that finds errors.
  Status check(const PointSetup& p, bool in_place, PlacementResult& res) {
    int64_t total = 0;
    int64_t mine = 0;
    watchdog_.set_phase(describe(p, in_place, "verification"));
    for (int rep = 0; rep < o_.check_iters; ++rep) {
      const uint64_t seed = o_.seed + 1 + static_cast<uint64_t>(rep);
      FABSCOPE_RETURN_IF_ERROR(prepare(p, in_place, seed));
      FABSCOPE_RETURN_IF_ERROR(ctx_.barrier());
      FABSCOPE_RETURN_IF_ERROR(run_once(p, in_place, 0));
      BufferLayout l = layout(p, in_place);
      auto wrong = backend_.memory().count_wrong(buf_.recv(), pattern(p, seed), l.expected);
      if (!wrong.ok()) return wrong.status();
      mine = static_cast<int64_t>(*wrong);
      auto sum = ctx_.sum(mine);
      if (!sum.ok()) return sum.status();
      total = *sum;
      if (total != 0) break;
    }
    res.wrong = total;
    if (total != 0) {
      double flag = mine != 0 ? 1.0 : 0.0;
      auto flags = ctx_.gather(std::span<const double>(&flag, 1));
      if (!flags.ok()) return flags.status();
      for (size_t r = 0; r < flags->size(); ++r) {
        if ((*flags)[r] != 0) res.wrong_ranks.push_back(static_cast<int>(r));
      }
    }
    return Status::Ok();
  }

 private:
  const RankContext& ctx_;
  Backend& backend_;
  const SweepOptions& o_;
  Buffers& buf_;
  Watchdog& watchdog_;
  std::unique_ptr<StallMonitor> stalls_;  // --arrivals: when this process did not run
  std::vector<StallEvent> stalls_found_;  // rank 0: since the last take_stalls()
};

}  // namespace

struct PlanMeasurer::State {
  State(SweepPlan& p, Watchdog& watchdog) : plan(p), runner(p.ctx, p.backend, p.options, p.buffers, watchdog) {}
  SweepPlan& plan;
  SweepRunner runner;
  std::optional<double> floor;  // the run's, once measured

  // The sweep begun: its points without a size, and with --arrivals its clocks before
  // and each placement's times, which wait on rank 0 until the clocks after are known.
  PointSetup base{};
  ClockSnapshot clocks_before;
  struct Pending {
    size_t point;  // the sweep's points measured before it
    bool in_place;
    std::vector<double> times;
  };
  std::vector<Pending> pending;
  size_t points = 0;

  void mark_floor(std::optional<PlacementResult>& r) const {
    if (r && floor) r->near_floor = r->time_us < kNearFloorFactor * *floor;
  }
};

PlanMeasurer::PlanMeasurer(SweepPlan& plan, Watchdog& watchdog) : state_(std::make_unique<State>(plan, watchdog)) {}
PlanMeasurer::~PlanMeasurer() = default;

Status PlanMeasurer::measure_floor() {
  const SweepPlan& plan = state_->plan;
  const SweepOptions& o = plan.options;
  if (o.collectives.empty() || plan.sizes.empty()) return Status::Ok();
  const DataType t = o.dtypes.front();
  const Collective c = o.collectives.front();
  std::optional<ReduceOp> op;
  if (info(c).reduces) op = o.ops.front();
  PointSetup first{c, t, op, o.root,
                   element_counts(c, plan.sizes.front() / element_size(t), element_size(t), plan.ctx.size())};
  auto f = state_->runner.floor_us(first);
  if (!f.ok()) return f.status();
  state_->floor = *f;
  return Status::Ok();
}

Sweep PlanMeasurer::record(const SweepKey& key) const {
  const SweepPlan& plan = state_->plan;
  const SweepOptions& o = plan.options;
  const CollectiveInfo& ci = info(key.coll);
  Sweep s;
  s.collective = std::string(ci.name);
  s.dtype = std::string(name(key.dtype));
  if (key.op) s.op = std::string(name(*key.op));
  s.backend = std::string(plan.backend.name());
  if (ci.rooted) s.root = o.root;
  s.nranks = plan.ctx.size();
  s.busbw_factor = busbw_factor(key.coll, plan.ctx.size());
  s.method = o.method;
  if (std::string api = plan.backend.api(key.coll); !api.empty()) s.api = std::move(api);
  s.floor_us = state_->floor;
  if (o.graph_launches > 0) {
    s.iteration_clock = IterationTimer::kCudaGraphLaunch;
  } else if (IterationClock* clock = plan.backend.iteration_clock()) {
    s.iteration_clock = clock->kind();
  }
  return s;
}

Status PlanMeasurer::begin_sweep(const SweepKey& key, bool warm_up) {
  State& st = *state_;
  st.base = PointSetup{key.coll, key.dtype, key.op, st.plan.options.root, {}};
  st.pending.clear();
  st.points = 0;
  // --arrivals: host-timed loops only (plan_sweeps checks).
  if (st.plan.options.record_arrivals) FABSCOPE_RETURN_IF_ERROR(st.clocks_before.take(st.plan.ctx));
  if (warm_up) FABSCOPE_RETURN_IF_ERROR(st.runner.warm_up(st.base));
  return Status::Ok();
}

Result<MeasuredPoint> PlanMeasurer::measure_point(uint64_t size) {
  State& st = *state_;
  const bool arrivals = st.plan.options.record_arrivals;
  const size_t es = element_size(st.base.dtype);
  PointSetup p = st.base;
  p.counts = element_counts(p.coll, size / es, es, st.plan.ctx.size());
  MeasuredPoint m;
  SweepPoint& point = m.point;
  point.size_bytes = printed_size_bytes(p.counts, es);
  point.count = p.counts.param;
  std::vector<double> oop_times, ip_times;
  auto oop = st.runner.measure(p, false, arrivals ? &oop_times : nullptr);
  if (!oop.ok()) return oop.status();
  point.out_of_place = std::move(*oop);
  m.stalls = st.runner.take_stalls();
  auto ip = st.runner.measure(p, true, arrivals ? &ip_times : nullptr);
  if (!ip.ok()) return ip.status();
  point.in_place = std::move(*ip);
  for (StallEvent& e : st.runner.take_stalls()) m.stalls.push_back(std::move(e));
  point.time = utc_timestamp();
  st.mark_floor(point.out_of_place);
  st.mark_floor(point.in_place);
  if (!oop_times.empty()) st.pending.push_back({st.points, false, std::move(oop_times)});
  if (!ip_times.empty()) st.pending.push_back({st.points, true, std::move(ip_times)});
  ++st.points;
  return m;
}

Status PlanMeasurer::end_sweep(Sweep& sweep) {
  State& st = *state_;
  if (!st.plan.options.record_arrivals) return Status::Ok();
  const RankContext& ctx = st.plan.ctx;
  ClockSnapshot clocks_after;
  FABSCOPE_RETURN_IF_ERROR(clocks_after.take(ctx));
  if (ctx.rank() != 0) return Status::Ok();
  const ClockMap map(st.clocks_before.at_ns, std::move(st.clocks_before.offsets), clocks_after.at_ns,
                     std::move(clocks_after.offsets));
  for (State::Pending& pd : st.pending) {
    SweepPoint& pt = sweep.points[pd.point];
    auto& placement = pd.in_place ? pt.in_place : pt.out_of_place;
    placement->arrivals = arrival_split(map, pd.times, ctx.size());
  }
  return Status::Ok();
}

}  // namespace fabscope
