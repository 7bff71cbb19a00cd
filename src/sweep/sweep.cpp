#include "sweep/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "backend/host_memory.h"
#include "coll/layout.h"
#include "comm/clock_sync.h"
#include "core/clock.h"
#include "core/sizes.h"
#include "core/stall_monitor.h"
#include "core/stats.h"
#include "core/stop_signal.h"
#include "core/watchdog.h"
#include "diag/link_watch.h"
#include "diag/net_counters.h"
#include "diag/stall.h"
#include "report/model_json.h"
#include "sweep/arrivals.h"
#include "sweep/timeline.h"

namespace fabscope {

Status validate(const SweepOptions& o, int nranks, uint64_t backend_max_count) {
  if (o.collectives.empty()) return Status::Invalid("no collective given; name at least one, e.g. allreduce");
  if (o.dtypes.empty()) return Status::Invalid("no data type given");
  if (o.ops.empty()) return Status::Invalid("no reduction operator given");
  if (o.iters < 1) return Status::Invalid(fmt::format("iterations -n {} is not allowed; use an integer >= 1", o.iters));
  if (o.warmup_iters < 0) {
    return Status::Invalid(fmt::format("warmup iterations -w {} is not allowed; use an integer >= 0", o.warmup_iters));
  }
  if (!(o.timeout_s >= 0) || std::isinf(o.timeout_s)) {  // NaN fails every comparison: refused too
    return Status::Invalid(
        fmt::format("--timeout {} is not allowed; use a finite number of seconds >= 0 (0 disables it)", o.timeout_s));
  }
  if (o.check_iters < 0) {
    return Status::Invalid(fmt::format("check passes -c {} is not allowed; use an integer >= 0", o.check_iters));
  }
  if (o.graph_launches < 0) {
    return Status::Invalid(fmt::format(
        "-G/--cudagraph {} is not allowed; use an integer >= 0 (graph launches; 0: no graph)", o.graph_launches));
  }
  if (o.blocking < 0 || o.blocking > 3) {
    return Status::Invalid(fmt::format(
        "-z/--blocking {} is not allowed; use 0 (asynchronous), 1 (wait and barrier after each iteration), 2 (wait "
        "after each iteration) or 3 (wait and barrier, barrier time not counted)",
        o.blocking));
  }
  if (o.graph_launches > 0 && o.blocking != 0) {
    return Status::Invalid(fmt::format(
        "-G {} cannot be combined with -z {}: a captured CUDA graph cannot wait between its iterations; drop one",
        o.graph_launches, o.blocking));
  }
  if (o.graph_launches > 0 && o.record_arrivals) {
    return Status::Invalid(fmt::format(
        "--arrivals cannot be combined with -G {}: a graph launch runs many iterations with no host time between "
        "them; drop one",
        o.graph_launches));
  }
  if (o.method == TimingMethod::kPerftest) {
    return Status::Invalid("--method perftest is for point-to-point runs (p2p); a sweep takes nccl-tests or osu");
  }
  if (o.method == TimingMethod::kOsu && o.blocking != 3) {
    return Status::Invalid(fmt::format(
        "--method osu times each call between barriers (-z 3); -z {} contradicts it: drop one", o.blocking));
  }
  if (o.method == TimingMethod::kOsu && o.graph_launches > 0) {
    return Status::Invalid(fmt::format(
        "--method osu times each call between barriers; -G {} replays them without: drop one", o.graph_launches));
  }
  if (o.run_cycles < 0) {
    return Status::Invalid(fmt::format(
        "-N/--run_cycles {} is not allowed; use 0 (cycles until --duration or a signal ends the run) or more",
        o.run_cycles));
  }
  if (!(o.duration_s >= 0) || std::isinf(o.duration_s)) {
    return Status::Invalid(
        fmt::format("--duration {} is not allowed; use a finite time >= 0 (0: no limit)", o.duration_s));
  }
  if (!(o.interval_s >= 0) || std::isinf(o.interval_s)) {
    return Status::Invalid(fmt::format(
        "--interval {} is not allowed; use a finite number of seconds >= 0 (0: one per cycle)", o.interval_s));
  }
  if (!(o.stall_min_excess_us >= 0) || std::isinf(o.stall_min_excess_us)) {
    return Status::Invalid(fmt::format("--stall-ms {} is not allowed; use a finite number of milliseconds >= 0",
                                       o.stall_min_excess_us * 1e-3));
  }
  FABSCOPE_RETURN_IF_ERROR(validate(o.sizes));
  bool rooted = std::any_of(o.collectives.begin(), o.collectives.end(), [](Collective c) { return info(c).rooted; });
  if (rooted && (o.root < 0 || o.root >= nranks)) {
    return Status::Invalid(fmt::format("root -r {} is not a rank of this job; allowed: 0 to {}", o.root, nranks - 1));
  }
  for (DataType t : o.dtypes) {
    const uint64_t es = element_size(t);
    auto check = [&](uint64_t bytes, const char* what) -> Status {
      if (bytes % es == 0) return Status::Ok();
      return Status::Invalid(
          fmt::format("{} {} bytes is not a multiple of the {}-byte element size of {}", what, bytes, es, name(t)));
    };
    FABSCOPE_RETURN_IF_ERROR(check(o.sizes.min_bytes, "minimum size -b"));
    FABSCOPE_RETURN_IF_ERROR(check(o.sizes.max_bytes, "maximum size -e"));
    if (o.sizes.step_factor <= 1) FABSCOPE_RETURN_IF_ERROR(check(o.sizes.step_bytes, "step -i"));
    for (Collective c : o.collectives) {
      ElementCounts e = element_counts(c, o.sizes.max_bytes / es, es, nranks);
      if (std::max(e.send, e.recv) > backend_max_count) {
        return Status::Invalid(
            fmt::format("maximum size -e {} gives {} elements of {} per call for {}, over this "
                        "backend's limit of {}",
                        o.sizes.max_bytes, std::max(e.send, e.recv), name(t), name(c), backend_max_count));
      }
    }
  }
  return Status::Ok();
}

size_t device_marker_stride(double iteration_us, size_t iterations) {
  const size_t n = std::max<size_t>(iterations, 1);
  if (!(iteration_us > 0)) return n;
  const double stride = std::ceil(kDeviceMarkerCostUs / (kDeviceMarkerShare * iteration_us));
  return stride >= static_cast<double>(n) ? n : std::max<size_t>(1, static_cast<size_t>(stride));
}

namespace {

// Buffers sized for the largest point, owned for the whole run.
class Buffers {
 public:
  explicit Buffers(Memory& mem) : mem_(mem) {}
  ~Buffers() {
    if (send_) mem_.release(send_);
    if (recv_) mem_.release(recv_);
  }
  Status allocate(size_t bytes) {
    auto s = mem_.allocate(bytes);
    if (!s.ok()) return s.status();
    send_ = static_cast<char*>(*s);
    auto r = mem_.allocate(bytes);
    if (!r.ok()) return r.status();
    recv_ = static_cast<char*>(*r);
    bytes_ = bytes;
    return Status::Ok();
  }
  char* send() const { return send_; }
  char* recv() const { return recv_; }
  size_t bytes() const { return bytes_; }

 private:
  Memory& mem_;
  char* send_ = nullptr;
  char* recv_ = nullptr;
  size_t bytes_ = 0;
};

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
      e.placement = in_place ? "in_place" : "out_of_place";
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

class SweepPlan {
 public:
  SweepPlan(const RankContext& context, Backend& be, const SweepOptions& o)
      : ctx(context), backend(be), options(o), sizes(expand(o.sizes)), buffers(be.memory()) {}
  const RankContext& ctx;
  Backend& backend;
  SweepOptions options;
  std::vector<uint64_t> sizes;
  Buffers buffers;
  uint64_t memory_estimate_bytes = 0;
};

uint64_t memory_estimate_bytes(const SweepPlan& plan) { return plan.memory_estimate_bytes; }

Result<std::shared_ptr<SweepPlan>> plan_sweeps(const RankContext& ctx, Backend& backend, const SweepOptions& o) {
  FABSCOPE_RETURN_IF_ERROR(validate(o, ctx.size(), backend.max_count()));
  if (o.graph_launches > 0 && !backend.can_capture()) {
    return Status::Invalid(
        fmt::format("-G {} needs a backend that runs on CUDA streams (nccl); backend '{}' cannot capture a CUDA graph",
                    o.graph_launches, backend.name()));
  }
  if (o.record_arrivals && backend.iteration_clock()) {
    return Status::Invalid(fmt::format(
        "--arrivals needs a backend whose calls complete on the host (mpi, tcp, verbs); backend '{}' only enqueues "
        "them, so the host cannot see when a rank entered or left one",
        backend.name()));
  }
  // One pair of buffers for the largest point of any sweep.
  size_t max_bytes = 0;
  for (Collective c : o.collectives) {
    for (DataType t : o.dtypes) {
      const size_t es = element_size(t);
      ElementCounts e = element_counts(c, o.sizes.max_bytes / es, es, ctx.size());
      max_bytes = std::max(max_bytes, std::max(e.send, e.recv) * es);
    }
  }
  // What a rank holds at most: the two buffers, and on the host also the backend's
  // working memory and the process itself. Checked before allocating; the report says it.
  uint64_t estimate = 2 * max_bytes;
  if (backend.memory().kind() == "host") estimate += backend.working_bytes(o.collectives, max_bytes) + kRankBaseBytes;
  {
    Status cap = backend.memory().check_capacity(estimate, ctx.local_size());
    if (!cap.ok()) cap = Status::Invalid(fmt::format("the sweep needs {}; lower the maximum size -e", cap.message()));
    FABSCOPE_RETURN_IF_ERROR(ctx.agree(cap));
  }
  auto plan = std::make_shared<SweepPlan>(ctx, backend, o);
  plan->memory_estimate_bytes = estimate;
  FABSCOPE_RETURN_IF_ERROR(ctx.agree(plan->buffers.allocate(max_bytes)));
  return plan;
}

namespace {

// Every rank's clock offset to rank 0's, and when (on rank 0's clock) they were taken.
struct ClockSnapshot {
  int64_t at_ns = 0;
  std::vector<ClockOffset> offsets;
  Status take(const RankContext& ctx) {
    at_ns = steady_now_ns();
    auto o = measure_clock_offsets(ctx);
    if (!o.ok()) return o.status();
    offsets = std::move(*o);
    return Status::Ok();
  }
};

// `times`: per rank, its iterations' entries, exits (on its own clock) and stalled time
// (rank-major).
ArrivalSplit arrival_split(const ClockMap& map, const std::vector<double>& times, int nranks) {
  const size_t per_rank = times.size() / static_cast<size_t>(nranks);
  const size_t iters = per_rank / 3;
  std::vector<RankIterations> ranks(static_cast<size_t>(nranks));
  for (int r = 0; r < nranks; ++r) {
    const double* t = times.data() + static_cast<size_t>(r) * per_rank;
    RankIterations& ri = ranks[static_cast<size_t>(r)];
    for (size_t i = 0; i < iters; ++i) {
      ri.enter_ns.push_back(map.to_rank0(r, static_cast<int64_t>(t[i])));
      ri.exit_ns.push_back(map.to_rank0(r, static_cast<int64_t>(t[iters + i])));
      ri.stalled_ns.push_back(t[2 * iters + i]);
    }
  }
  return split_arrivals(ranks, map.bound_ns());
}

}  // namespace

Result<std::vector<Sweep>> run_sweeps(const RankContext& ctx, Backend& backend, const SweepOptions& o,
                                      SweepObserver* observer, Progress* progress) {
  auto plan = plan_sweeps(ctx, backend, o);
  if (!plan.ok()) return plan.status();
  return run_sweeps(**plan, observer, progress);
}

namespace {

// A link's history as the report keeps it.
LinkRecord link_record(const LinkHistory& h, const std::string& host) {
  LinkRecord r;
  r.host = host;
  r.link = h.link;
  r.rdma = h.rdma;
  r.up_at_start = h.up_at_start;
  r.up_at_end = h.up_at_end;
  r.flaps = h.flaps;
  r.downtime_s = h.downtime_s;
  for (const LinkEdge& e : h.edges) {
    r.edges.push_back({utc_timestamp_ns(e.utc_ns), static_cast<double>(e.utc_ns) * 1e-9, e.up, e.inferred});
  }
  r.edges_dropped = h.edges_dropped;
  r.counter_deltas = h.counter_deltas;
  return r;
}

// The links a host's flaps are judged on: its RDMA ports and its physical interfaces
// (a `device` in sysfs); on a host with no physical interface (a container, a network
// namespace), its interfaces that were up when the run began. Bridges and virtual
// interfaces of other workloads beside physical NICs come and go without being the fabric.
std::vector<LinkHistory> judged_links(std::vector<LinkHistory> all, const std::string& net_root) {
  auto physical = [&](const LinkHistory& h) {
    std::error_code ec;
    return !h.rdma && std::filesystem::exists(std::filesystem::path(net_root) / h.link / "device", ec);
  };
  const bool any_physical = std::any_of(all.begin(), all.end(), physical);
  std::erase_if(all, [&](const LinkHistory& h) {
    if (h.rdma) return false;
    return any_physical ? !physical(h) : !h.up_at_start;
  });
  return all;
}

// The hosts' links as every host's link watch saw them, gathered to rank 0 (collective).
Status gather_links(const RankContext& ctx, const LinkWatch* watch, std::vector<LinkRecord>& out) {
  Json mine = Json::array();
  if (watch) {
    for (const LinkHistory& h : judged_links(watch->histories(), LinkSources{}.net)) {
      mine.push_back(to_json(link_record(h, ctx.host())));
    }
  }
  auto all = ctx.gather_text(dump_json(mine));
  if (!all.ok()) return all.status();
  if (ctx.rank() != 0) return Status::Ok();
  out.clear();
  for (size_t r = 0; r < all->size(); ++r) {
    try {
      const Json j = Json::parse((*all)[r]);
      std::vector<LinkRecord> links;
      read(JsonIn(j, "", fmt::format("rank {}'s links", r)), links);
      for (LinkRecord& l : links) out.push_back(std::move(l));
    } catch (const std::exception& e) {  // not what the rank sent: a fabscope defect
      return Status::Runtime(e.what());
    }
  }
  return Status::Ok();
}

// SweepOptions::mirror: `doc` (rank 0's) to every rank (collective); `read` takes it in
// on the others. `what` names it in an error, which would be a fabscope defect.
template <typename Read>
Status mirror_from_rank0(const RankContext& ctx, const char* what, const Json& doc, Read read) {
  auto got = ctx.broadcast(ctx.rank() == 0 ? dump_json(doc) : std::string(), 0);
  if (!got.ok()) return got.status();
  if (ctx.rank() == 0) return Status::Ok();
  try {
    const Json j = Json::parse(*got);
    read(JsonIn(j, "", what));
  } catch (const std::exception& e) {
    return Status::Runtime(e.what());
  }
  return Status::Ok();
}

// Rank 0's `point` and the stalls found in it; the other ranks' own are replaced.
Status mirror_point(const RankContext& ctx, SweepPoint& point, std::vector<StallEvent>& stalls) {
  const Json doc = ctx.rank() == 0 ? Json{{"point", to_json(point)}, {"stalls", to_json_array(stalls)}} : Json();
  return mirror_from_rank0(ctx, "rank 0's point", doc, [&](const JsonIn& in) {
    SweepPoint p;
    std::vector<StallEvent> st;
    in.field("point", p);
    in.field("stalls", st);
    point = std::move(p);
    stalls = std::move(st);
  });
}

// The interval's host counters and the links, gathered on rank 0.
Status mirror_interval(const RankContext& ctx, std::vector<CounterSample>& hosts, std::vector<LinkRecord>& links) {
  const Json doc = ctx.rank() == 0 ? Json{{"hosts", to_json_array(hosts)}, {"links", to_json_array(links)}} : Json();
  return mirror_from_rank0(ctx, "rank 0's interval", doc, [&](const JsonIn& in) {
    in.field("hosts", hosts);
    in.field("links", links);
  });
}

std::string format_hms(double seconds) {
  const long s = static_cast<long>(std::max(0.0, seconds));
  return fmt::format("{:02}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
}

}  // namespace

Result<std::vector<Sweep>> run_sweeps(SweepPlan& plan, SweepObserver* observer, Progress* progress,
                                      std::vector<CounterSample>* counters, Timeline* timeline_out) {
  const RankContext& ctx = plan.ctx;
  Backend& backend = plan.backend;
  const SweepOptions& o = plan.options;
  const std::vector<uint64_t>& sizes = plan.sizes;
  // The ranks that keep the report as it grows: rank 0, and every rank with --mirror.
  const bool mirror = o.mirror && ctx.size() > 1;
  const bool keeper = ctx.rank() == 0 || mirror;
  // A backend that enforces --timeout itself (and aborts its communicator) gets to do
  // so before the watchdog ends the process.
  Watchdog watchdog(o.timeout_s > 0 ? o.timeout_s + backend.watchdog_grace_s() : 0,
                    fmt::format("[r{} {}]", ctx.rank(), ctx.host()), stderr, ctx.peer_view());
  SweepRunner runner(ctx, backend, o, plan.buffers, watchdog);
  // One rank per host watches its links, off the timed path.
  std::unique_ptr<LinkWatch> watch;
  if (o.watch_links && ctx.local_rank() == 0) {
    watch = std::make_unique<LinkWatch>(LinkSources{}, o.link_watch_period_s);
  }

  std::vector<Sweep> sweeps;
  size_t points_per_cycle = 0;
  for (Collective c : o.collectives)
    points_per_cycle += sizes.size() * o.dtypes.size() * (info(c).reduces ? o.ops.size() : 1);

  Timeline timeline;
  timeline.run_cycles = o.run_cycles;
  if (o.duration_s > 0) timeline.duration_s = o.duration_s;
  timeline.interval_s = o.interval_s;
  timeline.links_watched = o.watch_links;
  TimelineBuilder builder;
  double interval_s = o.interval_s;  // rank 0's: doubled as intervals fold
  PhaseCounters interval_counters(ctx);
  const int64_t run_start_ns = steady_now_ns();
  auto elapsed_s = [&] { return static_cast<double>(steady_now_ns() - run_start_ns) * 1e-9; };
  // A plain progress line a minute where no terminal shows the live one (long runs only).
  const bool long_run = o.run_cycles != 1 || o.duration_s > 0;
  double next_plain_s = 60;
  int flaps_seen = 0;
  auto show_progress = [&](int cycle, size_t done_in_cycle, const auto& what) {
    if (ctx.rank() != 0) return;
    const double el = elapsed_s();
    const bool live = progress && progress->enabled();
    if (!live && !(long_run && el >= next_plain_s)) return;  // nothing to show: format nothing
    std::string remaining;
    if (o.duration_s > 0) {
      remaining = " / " + format_hms(std::max(0.0, o.duration_s - el)) + " left";
    } else if (o.run_cycles > 0 && cycle > 0) {
      remaining = " / " + format_hms(el / cycle * (o.run_cycles - cycle)) + " left";
    }
    const auto& latest = builder.latest();
    const std::string line =
        fmt::format("fabscope: {}{} cycle {}{} [{}/{}] {}  last {} busbw {:.2f} GB/s p99 {:.1f} us  stalls {} flaps {}",
                    format_hms(el), remaining, cycle + 1, o.run_cycles > 0 ? fmt::format("/{}", o.run_cycles) : "",
                    done_in_cycle + 1, points_per_cycle, what(), latest.what.empty() ? "-" : latest.what,
                    latest.busbw_gbps, latest.p99_us, timeline.stalls.size() + timeline.stalls_dropped, flaps_seen);
    if (live) {
      progress->update(line);
    } else {
      std::fprintf(stderr, "%s\n", line.c_str());
      std::fflush(stderr);
      next_plain_s = el + 60;
    }
  };

  // The floor, once per run: the first sweep's first point, its loop around nothing.
  std::optional<double> floor;
  if (!o.collectives.empty() && !sizes.empty()) {
    const DataType t = o.dtypes.front();
    const Collective c = o.collectives.front();
    std::optional<ReduceOp> op;
    if (info(c).reduces) op = o.ops.front();
    PointSetup first{c, t, op, o.root, element_counts(c, sizes.front() / element_size(t), element_size(t), ctx.size())};
    auto f = runner.floor_us(first);
    if (!f.ok()) return f.status();
    floor = *f;
  }
  auto mark_floor = [&](std::optional<PlacementResult>& r) {
    if (r && floor) r->near_floor = r->time_us < kNearFloorFactor * *floor;
  };
  // Every rank agrees whether to stop: the largest of every rank's signal (0: none) and
  // rank 0's own reason (kStopPlanned: the cycles or the duration are done).
  constexpr double kStopPlanned = 1000;
  auto agree_stop = [&](bool planned_on_rank0) -> Result<double> {
    double mine = static_cast<double>(stop_signal());
    if (ctx.rank() == 0 && planned_on_rank0) mine = std::max(mine, kStopPlanned);
    return ctx.reduce(mine, RankReduction::kMax);
  };
  int stopped_by_signal = 0;
  // Closes the open interval (collective: every host's counters and links).
  auto close_interval = [&](int cycles) -> Status {
    std::vector<CounterSample> hosts;
    FABSCOPE_RETURN_IF_ERROR(interval_counters.end(fmt::format("interval {}", timeline.intervals.size()), std::nullopt,
                                                   std::nullopt, hosts));
    FABSCOPE_RETURN_IF_ERROR(gather_links(ctx, watch.get(), timeline.links));
    if (mirror) FABSCOPE_RETURN_IF_ERROR(mirror_interval(ctx, hosts, timeline.links));
    if (!keeper) return Status::Ok();
    // Only the hosts' interfaces and ports that moved or changed: the interval's record
    // of a quiet interface is all zeros.
    for (CounterSample& h : hosts) {
      std::erase_if(h.interfaces, [](const InterfaceDelta& d) {
        return std::all_of(d.deltas.begin(), d.deltas.end(), [](const auto& kv) { return kv.second == 0; });
      });
    }
    timeline.intervals.push_back(builder.close(cycles, std::move(hosts)));
    if (timeline.intervals.size() >= 2 * kMaxTimelineIntervals) {
      // A run longer than its intervals were set for: halve them, and double the period.
      double seconds = 0;
      for (const TimelineInterval& iv : timeline.intervals) seconds += iv.seconds;
      fold_intervals(timeline.intervals);
      interval_s = std::max(2 * interval_s, seconds / static_cast<double>(timeline.intervals.size()));
      timeline.interval_s = interval_s;
      builder.skip_to(static_cast<int>(timeline.intervals.size()));
    }
    flaps_seen = 0;
    for (const LinkRecord& l : timeline.links) flaps_seen += l.flaps;
    if (observer) observer->on_interval(timeline);
    return Status::Ok();
  };

  int interval_first_cycle = 0;
  bool stop = false;
  for (int cycle = 0; !stop; ++cycle) {
    if (observer && keeper) observer->on_cycle_begin(cycle);
    if (!builder.is_open() && keeper) builder.open(cycle);
    if (cycle == interval_first_cycle) interval_counters.begin();
    size_t done_in_cycle = 0;
    bool cycle_complete = true;
    for (Collective c : o.collectives) {
      const CollectiveInfo& ci = info(c);
      for (DataType t : o.dtypes) {
        std::vector<std::optional<ReduceOp>> ops;
        if (ci.reduces) {
          for (ReduceOp op : o.ops) ops.emplace_back(op);
        } else {
          ops.emplace_back(std::nullopt);
        }
        for (const auto& op : ops) {
          if (stop) break;
          Sweep s;
          s.collective = std::string(ci.name);
          s.dtype = std::string(name(t));
          if (op) s.op = std::string(name(*op));
          s.backend = std::string(backend.name());
          if (ci.rooted) s.root = o.root;
          s.nranks = ctx.size();
          s.busbw_factor = busbw_factor(c, ctx.size());
          s.method = std::string(name(o.method));
          if (std::string api = backend.api(c); !api.empty()) s.api = std::move(api);
          s.floor_us = floor;
          if (o.graph_launches > 0) {
            s.iteration_clock = "cuda_graph_launch";
          } else if (IterationClock* clock = backend.iteration_clock()) {
            s.iteration_clock = std::string(clock->name());
          }
          if (observer && keeper) observer->on_sweep_begin(s);
          // The sweep's counters (the report's `counters`): the first cycle's.
          PhaseCounters phase_counters(ctx);
          const bool sweep_counters = counters && cycle == 0;
          if (sweep_counters) phase_counters.begin();
          // --arrivals: the clocks against rank 0's before and after the sweep; each
          // placement's times wait on rank 0 until both are known.
          const bool arrivals = o.record_arrivals;  // host-timed loops only (plan_sweeps checks)
          ClockSnapshot clocks_before;
          if (arrivals) FABSCOPE_RETURN_IF_ERROR(clocks_before.take(ctx));
          struct Pending {
            size_t point;
            bool in_place;
            std::vector<double> times;
          };
          std::vector<Pending> pending;

          PointSetup base{c, t, op, o.root, {}};
          if (cycle == 0) FABSCOPE_RETURN_IF_ERROR(runner.warm_up(base));
          const size_t es = element_size(t);
          for (uint64_t size : sizes) {
            show_progress(cycle, done_in_cycle, [&] {
              return fmt::format("{} {}{}{} {}", ci.name, name(t), op ? " " : "", op ? name(*op) : "",
                                 format_size(size));
            });
            PointSetup p = base;
            p.counts = element_counts(c, size / es, es, ctx.size());
            SweepPoint point;
            point.size_bytes = printed_size_bytes(p.counts, es);
            point.count = p.counts.param;
            std::vector<double> oop_times, ip_times;
            auto oop = runner.measure(p, false, arrivals ? &oop_times : nullptr);
            if (!oop.ok()) return oop.status();
            point.out_of_place = std::move(*oop);
            std::vector<StallEvent> found = runner.take_stalls();
            auto ip = runner.measure(p, true, arrivals ? &ip_times : nullptr);
            if (!ip.ok()) return ip.status();
            point.in_place = std::move(*ip);
            for (StallEvent& e : runner.take_stalls()) found.push_back(std::move(e));
            point.time = utc_timestamp();
            mark_floor(point.out_of_place);
            mark_floor(point.in_place);
            if (!oop_times.empty()) pending.push_back({s.points.size(), false, std::move(oop_times)});
            if (!ip_times.empty()) pending.push_back({s.points.size(), true, std::move(ip_times)});
            if (mirror) FABSCOPE_RETURN_IF_ERROR(mirror_point(ctx, point, found));
            if (keeper) {
              builder.add(s, point, false, *point.out_of_place);
              builder.add(s, point, true, *point.in_place);
              for (StallEvent& e : found) {
                e.collective = s.collective;
                e.dtype = s.dtype;
                e.op = s.op;
                e.size_bytes = point.size_bytes;
                e.cycle = cycle;
                builder.add_stall(e);
                if (observer) observer->on_stall(e);
                record_stall(timeline, std::move(e));
              }
            }
            if (progress && ctx.rank() == 0) progress->clear();
            if (observer && keeper) observer->on_point(s, point);
            s.points.push_back(std::move(point));
            ++done_in_cycle;
            // A signal ends the run here, on every rank alike.
            auto agreed = agree_stop(false);
            if (!agreed.ok()) return agreed.status();
            if (*agreed > 0) {
              stopped_by_signal = static_cast<int>(*agreed);
              stop = true;
              if (done_in_cycle < points_per_cycle) cycle_complete = false;
              break;
            }
          }
          if (arrivals) {
            ClockSnapshot clocks_after;
            FABSCOPE_RETURN_IF_ERROR(clocks_after.take(ctx));
            if (ctx.rank() == 0) {
              const ClockMap map(clocks_before.at_ns, std::move(clocks_before.offsets), clocks_after.at_ns,
                                 std::move(clocks_after.offsets));
              for (Pending& pd : pending) {
                SweepPoint& pt = s.points[pd.point];
                auto& placement = pd.in_place ? pt.in_place : pt.out_of_place;
                placement->arrivals = arrival_split(map, pd.times, ctx.size());
              }
            }
          }
          if (sweep_counters) {
            FABSCOPE_RETURN_IF_ERROR(phase_counters.end(
                fmt::format("sweep {} {}{}{}", s.collective, s.dtype, s.op ? " " : "", s.op.value_or("")), std::nullopt,
                std::nullopt, *counters));
          }
          if (observer && keeper) observer->on_sweep_end(s);
          if (cycle == 0) sweeps.push_back(std::move(s));
        }
        if (stop) break;
      }
      if (stop) break;
    }
    if (cycle_complete) timeline.cycles_completed = cycle + 1;
    // The cycle boundary: rank 0 says whether the cycles or the duration are done.
    if (!stop) {
      const bool done =
          (o.run_cycles > 0 && cycle + 1 >= o.run_cycles) || (o.duration_s > 0 && elapsed_s() >= o.duration_s);
      auto agreed = agree_stop(done);
      if (!agreed.ok()) return agreed.status();
      if (*agreed > 0) {
        stop = true;
        if (*agreed < kStopPlanned) stopped_by_signal = static_cast<int>(*agreed);
      }
    }
    // The interval closes when its period is over, or the run is (every rank knows both:
    // the period by rank 0's clock, agreed).
    double close_now = 1.0;
    if (!stop) {
      const double mine = ctx.rank() == 0 && builder.open_seconds() >= interval_s ? 1.0 : 0.0;
      auto agreed = ctx.reduce(mine, RankReduction::kMax);
      if (!agreed.ok()) return agreed.status();
      close_now = *agreed;
    }
    if (close_now > 0) {
      FABSCOPE_RETURN_IF_ERROR(close_interval(cycle - interval_first_cycle + 1));
      interval_first_cycle = cycle + 1;
    }
  }
  if (stopped_by_signal > 0) {
    timeline.ended_by = fmt::format("signal {}", stop_signal_name(stopped_by_signal));
  } else if (o.duration_s > 0 && (o.run_cycles == 0 || timeline.cycles_completed < o.run_cycles)) {
    timeline.ended_by = "duration";
  } else {
    timeline.ended_by = "cycles";
  }
  if (watch) watch->stop();
  FABSCOPE_RETURN_IF_ERROR(gather_links(ctx, watch.get(), timeline.links));
  if (timeline_out && ctx.rank() == 0) *timeline_out = std::move(timeline);
  return sweeps;
}

}  // namespace fabscope
