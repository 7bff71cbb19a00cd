// `fabscope sweep`: nccl-tests' measurement over any backend, under mpirun.
#include <fmt/format.h>

#include <poll.h>
#include <unistd.h>

#include <cstdio>
#include <mutex>
#include <thread>

#include "app/command.h"
#include "app/measuring_job.h"
#include "app/nccl_profile_run.h"
#include "app/run_context.h"
#include "coll/collective.h"
#include "comm/context.h"
#include "core/clock.h"
#include "core/dtype.h"
#include "core/method.h"
#include "core/stop_signal.h"
#include "core/watchdog.h"
#include "diag/expectations.h"
#include "diag/findings.h"
#include "diag/stall.h"
#include "soak/soak.h"
#include "soak/timeline.h"

namespace fabscope {

namespace {

// The report as it grows, on every rank (SweepOptions::mirror sends rank 0's points to
// all): the outputs told of each result as it is measured (rank 0's; none elsewhere), and
// the report so far (the first cycle's sweeps, the timeline at its last interval) kept
// under a lock, so that a long run's files are rewritten at intervals and the thread
// that acts on a signal, or an expiring watchdog, can write them while measuring goes on
// (rank 0, or the rank that stands in for it when it is cut off).
class LiveReport final : public SweepObserver {
 public:
  // `writes`: this rank writes the files at intervals (rank 0); the others keep the
  // report only to write it in rank 0's place.
  LiveReport(Reporter& out, const Report& base, bool writes) : out_(out), base_(base), writes_(writes) {
    if (base_.timeline) timeline_ = *base_.timeline;
  }
  void on_sweep_begin(const Sweep& s) override {
    out_.on_sweep_begin(s);
    if (cycle_ != 0) return;
    std::lock_guard<std::mutex> lock(mu_);
    sweeps_.push_back(s);
  }
  void on_point(const Sweep& s, const SweepPoint& p) override {
    out_.on_point(s, p);
    std::lock_guard<std::mutex> lock(mu_);
    if (!open_.is_open()) open_.open(cycle_);
    if (p.out_of_place) open_.add(s, p, false, *p.out_of_place);
    if (p.in_place) open_.add(s, p, true, *p.in_place);
    if (cycle_ == 0) sweeps_.back().points.push_back(p);
  }
  void on_sweep_end(const Sweep&) override {}
  void on_cycle_begin(int cycle) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      cycle_ = cycle;
      cycles_done_ = cycle;  // every rank agreed the cycles before it were complete
    }
    out_.on_cycle_begin(cycle);
  }
  void on_stall(const StallEvent& e) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!open_.is_open()) open_.open(cycle_);
    open_.add_stall(e);
    record_stall(timeline_, e);
  }
  void on_interval(const Timeline& t) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      timeline_ = t;
      open_ = TimelineBuilder();
      open_.skip_to(static_cast<int>(t.intervals.size()));
    }
    // A long run's files, at most every kCheckpointS: a kill leaves the last one.
    const double now = steady_now_s();
    if (writes_ && now - last_checkpoint_s_ >= kCheckpointS) {
      last_checkpoint_s_ = now;
      checkpoint("running");
    }
  }
  // The report so far, its findings and verdict decided, written by the file outputs:
  // the first cycle's sweeps, the closed intervals and the open one as it stands.
  // `ended_by`: the timeline's (running, signal SIGTERM, watchdog); `hang`: the
  // watchdog's message (run.hang). `to`: other outputs than the run's (a rank standing in
  // for a silent rank 0 opens the files itself).
  void checkpoint(const std::string& ended_by, const std::string& hang = "", Reporter* to = nullptr) {
    std::lock_guard<std::mutex> write_lock(write_mu_);
    Report r;
    {
      std::lock_guard<std::mutex> lock(mu_);
      r = base_;
      r.sweeps = sweeps_;
      r.timeline = timeline_;
      r.timeline->cycles_completed = std::max(r.timeline->cycles_completed, cycles_done_);
      if (open_.is_open()) r.timeline->intervals.push_back(open_.peek(cycle_ - open_first_cycle() + 1));
    }
    r.timeline->ended_by = ended_by;
    r.timeline->hang = hang;
    add_sweep_findings(r);
    r.context.end_time = utc_timestamp();
    decide_verdict(r);
    if (Status st = (to ? *to : out_).checkpoint(r); !st.ok()) print_error(st.message());
  }

 private:
  int open_first_cycle() const { return open_.first_cycle(); }
  static constexpr double kCheckpointS = 10;
  Reporter& out_;
  Report base_;
  bool writes_;
  std::mutex mu_;
  std::mutex write_mu_;
  int cycle_ = 0;
  int cycles_done_ = 0;
  std::vector<Sweep> sweeps_;
  Timeline timeline_;
  TimelineBuilder open_;  // the interval not closed yet, as the points arrive
  double last_checkpoint_s_ = 0;
};

// Rank 0's thread that writes the report so far as soon as a first SIGINT/SIGTERM
// arrives (the launcher may kill the job a second later), while the measuring thread
// goes on to the next point, where every rank stops.
class SignalWriter {
 public:
  explicit SignalWriter(LiveReport& live) : live_(live) {
    if (pipe(wake_) != 0) return;
    thread_ = std::thread([this] { run(); });
  }
  ~SignalWriter() {
    if (thread_.joinable()) {
      const char c = 0;
      (void)!write(wake_[1], &c, 1);
      thread_.join();
    }
    if (wake_[0] >= 0) close(wake_[0]);
    if (wake_[1] >= 0) close(wake_[1]);
  }

 private:
  void run() {
    pollfd fds[2] = {{stop_signal_fd(), POLLIN, 0}, {wake_[0], POLLIN, 0}};
    while (poll(fds, 2, -1) < 0) {
    }
    if (fds[1].revents) return;
    const int sig = stop_signal();
    live_.checkpoint(fmt::format("signal {}", stop_signal_name(sig)));
  }
  LiveReport& live_;
  int wake_[2] = {-1, -1};
  std::thread thread_;
};

class SweepCommand final : public Command {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("collectives", collectives_, "Collectives: " + collective_names());
    app.add_option("-b,--minbytes", min_bytes_, "Smallest size, e.g. 8, 64K, 1M (default 32M)");
    app.add_option("-e,--maxbytes", max_bytes_, "Largest size (default 32M)");
    app.add_option("-i,--stepbytes", step_bytes_, "Additive step when -f is 1 (default 1M)");
    app.add_option("-f,--stepfactor", step_factor_, "Multiplicative step (default 1: use -i)")
        ->check(non_negative_integer());
    app.add_option("-n,--iters", iters_, "Timed iterations per size (default 20; --method osu: OSU's, by size)");
    app.add_option("-w,--warmup_iters", warmup_iters_,
                   "Warm-up iterations per size (default 1; --method osu: OSU's, by size)");
    app.add_option("-c,--check", check_iters_, "Verification passes per size; 0 = none (default 1)");
    app.add_option("-d,--datatype", dtypes_,
                   fmt::format("{}, a comma list, or all (default float)", data_type_names()));
    app.add_option("-o,--op", ops_, fmt::format("{}, a comma list, or all (default sum)", reduce_op_names()));
    app.add_option("-r,--root", root_, "Root rank of broadcast, reduce, gather, scatter (default 0)");
    app.add_option("-a,--average", average_,
                   "Time reported across ranks: 0 rank 0, 1 mean, 2 min, 3 max (default 1, as nccl-tests)");
    app.add_option("-G,--cudagraph", graph_launches_,
                   "Capture the iterations in a CUDA graph and launch it N times (nccl; default 0: no graph)");
    app.add_option("-z,--blocking", blocking_,
                   "0 asynchronous, 1 wait and barrier after each iteration, 2 wait, 3 wait and barrier with the "
                   "barrier not timed (as nccl-tests; default 0; --method osu: 3)");
    app.add_option("--method", method_,
                   "How to time: nccl-tests (default: back-to-back calls over moving buffer offsets, loop time / "
                   "iterations) or osu (as OSU Micro-Benchmarks: each call between barriers on a fixed buffer, -z 3, "
                   "OSU's iterations: 1000 and 100 warm-up, above 8 KiB 100 and 10)");
    app.add_option("--seed", seed_, "Seed of the verification data")->check(non_negative_integer());
    app.add_option("--expect", expect_path_,
                   "Hold the results to the figures of this expectations file (perf.below_expected; read by rank 0)");
    app.add_flag("--nccl-profile", nccl_profile_,
                 "nccl backend: load fabscope's NCCL profiler plugin and report, per collective and size, how long "
                 "each rank waited on the network per peer and NIC (nccl_profile)");
    app.add_option("-N,--run_cycles", run_cycles_,
                   "Measure every point this many times in turn, as nccl-tests (default 1; 0: until --duration or a "
                   "signal ends the run)");
    app.add_option("--duration", duration_,
                   "Start cycles until this much time has passed: seconds, or 30m, 2h, 1d (the run ends at a cycle's "
                   "end; without -N, cycles repeat)");
    app.add_option(
        "-S,--report_timestamps", timestamps_,
        "1: end each table row with the time it was measured (UTC, ISO 8601), as nccl-tests' -S (default 0)");
    app.add_option("--interval", interval_,
                   "Timeline interval: one closes at the first cycle end this long after it opened (seconds or 30m; "
                   "default: every cycle, or --duration / 240, or 60 s when -N 0 has no --duration)");
    app.add_option("--stall-ms", stall_ms_,
                   fmt::format("An iteration this much over its point's median, and {:g}x it, is a stall "
                               "(sweep.stall; default {:g})",
                               kStallFactor, kStallMinExcessMs));
    app.add_option("--max-stalls", max_stalls_,
                   "Fail the run with more stalls than this (default: stalls are warnings)");
    app.add_option("--max-downtime", max_downtime_,
                   "Fail the run when a link was down longer than this in all, seconds (default 0: any flap fails)");
    app.add_flag("--no-link-watch", no_link_watch_,
                 "Do not watch the links' carrier and link-down counters during the run (link.flap)");
    app.add_flag("--arrivals", arrivals_,
                 "Also time when each rank enters and leaves every iteration, on clocks synchronised to rank 0's "
                 "(backends timed by the host clock): who the others waited for (rank.straggler)");
  }

  CommandOutcome run(const CommonOptions& common, int* argc, char*** argv) override;

 private:
  Result<SweepOptions> build_options(double timeout_s) const;

  std::vector<std::string> collectives_;
  std::string min_bytes_ = "32M";
  std::string max_bytes_ = "32M";
  std::string step_bytes_ = "1M";
  uint64_t step_factor_ = 1;
  std::optional<int> iters_;         // -n; default 20 (osu: by size)
  std::optional<int> warmup_iters_;  // -w; default 1 (osu: by size)
  std::string method_ = "nccl-tests";
  int check_iters_ = 1;
  std::string dtypes_ = "float";
  std::string ops_ = "sum";
  int root_ = 0;
  int average_ = 1;
  uint64_t seed_ = 0x5eed;
  int graph_launches_ = 0;       // -G
  std::optional<int> blocking_;  // -z; default 0 (osu: 3)
  bool arrivals_ = false;        // --arrivals
  bool nccl_profile_ = false;    // --nccl-profile
  std::string expect_path_;
  int run_cycles_ = 1;
  std::string duration_;
  int timestamps_ = 0;
  std::string interval_;
  double stall_ms_ = kStallMinExcessMs;
  std::optional<int> max_stalls_;
  double max_downtime_ = 0;
  bool no_link_watch_ = false;

  Report starting_report(const MeasuringJob& job, Backend& b, const SweepOptions& o, const CommonOptions& common) const;
  static void write_report_when_the_watchdog_fires(LiveReport& live, const RankContext& ctx, OutputFiles files);
};

// The report as the run starts: its context, settings and the timeline it is set to run.
Report SweepCommand::starting_report(const MeasuringJob& job, Backend& b, const SweepOptions& o,
                                     const CommonOptions& common) const {
  Report report;
  report.context = job.run_context(b.name(), b.library(), b.memory().kind(), common);
  report.sweep_settings = sweep_settings(o);
  report.sweep_settings->report_timestamps = timestamps_ == 1;
  Timeline timeline;
  timeline.run_cycles = o.run_cycles;
  if (o.duration_s > 0) timeline.duration_s = o.duration_s;
  timeline.interval_s = o.interval_s;
  timeline.max_downtime_s = max_downtime_;
  timeline.max_stalls = max_stalls_;
  timeline.links_watched = o.watch_links;
  report.timeline = timeline;
  return report;
}

// A watchdog that expires on rank 0 writes the report so far with a run.hang finding; on
// the other ranks it waits a moment, so rank 0 can write before the launcher ends the
// job. When rank 0 is the one silent, the rank that stands in for it
// (RankContext::writes_for_silent_rank0) writes the report from its copy of the points,
// to the same paths on its own host.
void SweepCommand::write_report_when_the_watchdog_fires(LiveReport& live, const RankContext& ctx, OutputFiles files) {
  const RankContext* context = &ctx;
  Watchdog::set_expire_hook([&live, context, files = std::move(files)](const std::string& message) {
    const std::string text = message.substr(0, message.find_last_not_of('\n') + 1);
    if (context->rank() == 0) {
      live.checkpoint("watchdog", text);
      return;
    }
    if (!context->rank0_silent()) {
      // Rank 0 writes the report as its own watchdog fires: give it that time.
      std::this_thread::sleep_for(std::chrono::seconds(3));
      return;
    }
    if (!context->writes_for_silent_rank0()) return;
    auto standby = make_reporters(files, nullptr);
    std::fprintf(stderr, "[r%d %s] rank 0 does not answer: writing the report so far in its place\n", context->rank(),
                 context->host().c_str());
    live.checkpoint("watchdog",
                    fmt::format("written by rank {} ({}) in rank 0's place, rank 0 ({}) not answering: {}",
                                context->rank(), context->host(), context->ranks()[0].host, text),
                    standby.get());
  });
}

Result<SweepOptions> SweepCommand::build_options(double timeout_s) const {
  SweepOptions o;
  if (collectives_.empty()) {
    return Status::Invalid(fmt::format("name at least one collective to sweep; allowed: {}", collective_names()));
  }
  auto collectives = collectives_from_names(collectives_);
  if (!collectives.ok()) return collectives.status();
  o.collectives = std::move(*collectives);
  auto b = parse_size(min_bytes_, "-b/--minbytes");
  if (!b.ok()) return b.status();
  auto e = parse_size(max_bytes_, "-e/--maxbytes");
  if (!e.ok()) return e.status();
  auto i = parse_size(step_bytes_, "-i/--stepbytes");
  if (!i.ok()) return i.status();
  o.sizes = {*b, *e, *i, step_factor_};
  auto types = parse_data_types(dtypes_);
  if (!types.ok()) return types.status();
  o.dtypes = *types;
  auto ops = parse_reduce_ops(ops_);
  if (!ops.ok()) return ops.status();
  o.ops = *ops;
  auto method = method_from_name(method_, "nccl-tests, osu");
  if (!method.ok()) return method.status();
  o.method = *method;
  const bool osu = o.method == TimingMethod::kOsu;
  // OSU's counts by size where -n or -w is not given; iters and warmup_iters then say
  // the small sizes' (the preamble prints them).
  o.iterations_by_method = osu && !iters_;
  o.warmup_by_method = osu && !warmup_iters_;
  o.iters = iters_.value_or(osu ? osu_collective_loop(0).iters : 20);
  o.warmup_iters = warmup_iters_.value_or(osu ? osu_collective_loop(0).warmup : 1);
  o.check_iters = check_iters_;
  o.root = root_;
  if (average_ < 0 || average_ > 3) {
    return Status::Invalid(fmt::format(
        "-a/--average {} is not allowed; use 0 (rank 0), 1 (mean over ranks), 2 (min) or 3 (max)", average_));
  }
  o.average = static_cast<RankReduction>(average_);
  o.seed = seed_;
  o.timeout_s = timeout_s;
  o.graph_launches = graph_launches_;
  o.blocking = blocking_.value_or(osu ? 3 : 0);
  o.record_arrivals = arrivals_;
  if (!duration_.empty()) {
    auto d = parse_duration_s(duration_, "--duration");
    if (!d.ok()) return d.status();
    o.duration_s = *d;
  }
  // With a duration, cycles repeat until it is over unless -N says how many.
  o.run_cycles = run_cycles_ == 1 && o.duration_s > 0 ? 0 : run_cycles_;
  if (timestamps_ != 0 && timestamps_ != 1) {
    return Status::Invalid(fmt::format("-S/--report_timestamps {} is not allowed; use 0 or 1", timestamps_));
  }
  if (!interval_.empty()) {
    auto iv = parse_duration_s(interval_, "--interval");
    if (!iv.ok()) return iv.status();
    o.interval_s = *iv;
  } else if (o.duration_s > 0) {
    o.interval_s = o.duration_s / 240;
  } else if (o.run_cycles == 0) {
    o.interval_s = 60;
  }
  if (!(stall_ms_ >= 0) || std::isinf(stall_ms_)) {
    return Status::Invalid(
        fmt::format("--stall-ms {} is not allowed; use a finite number of milliseconds >= 0", stall_ms_));
  }
  o.stall_min_excess_us = stall_ms_ * 1e3;
  if (max_stalls_ && *max_stalls_ < 0) {
    return Status::Invalid(fmt::format("--max-stalls {} is not allowed; use 0 or more", *max_stalls_));
  }
  if (!(max_downtime_ >= 0) || std::isinf(max_downtime_)) {
    return Status::Invalid(fmt::format(
        "--max-downtime {} is not allowed; use a finite number of seconds >= 0 (0: any flap fails)", max_downtime_));
  }
  o.watch_links = !no_link_watch_;
  o.mirror = true;  // a cut-off rank 0's report is written by another rank
  return o;
}

CommandOutcome SweepCommand::run(const CommonOptions& common, int* argc, char*** argv) {
  auto options = build_options(common.timeout_s);
  std::optional<Expectations> expectations;  // rank 0's
  auto started = MeasuringJob::start(
      argc, argv,
      [&](const RankContext& ctx) {
        if (!options.ok()) return options.status();
        return load_expectations_on_rank0(ctx, expect_path_, expectations);
      },
      common);
  if (!started.ok()) return {started.status()};
  MeasuringJob& job = **started;
  const RankContext& ctx = job.ctx();
  BackendOptions backend_options = common.backend_options;
  if (nccl_profile_) {
    if (Status s = job.alike(prepare_nccl_profile(ctx, job.backend_entry().name, backend_options)); !s.ok()) return {s};
  }
  auto backend = job.create_backend(backend_options);
  if (!backend.ok()) return {backend.status()};
  Backend& b = **backend;
  auto plan = plan_sweeps(ctx, b, *options);
  if (Status s = job.alike(plan); !s.ok()) return {s};  // planning fails alike on every rank
  job.log().info("backend {} ({}), {} ranks on {} hosts", b.name(), b.library(), ctx.size(), ctx.ranks().size());

  Report report = starting_report(job, b, *options, common);
  Timeline timeline = *report.timeline;  // what the run is set to do; run_sweeps fills in what it did
  job.out().on_start(report);
  report.context.memory_estimate_bytes = memory_estimate_bytes(**plan);
  LiveReport live(job.out(), report, ctx.rank() == 0);
  // A first SIGINT/SIGTERM ends the run at the next point, its report written; on rank
  // 0 the report so far is written at once too. So does a watchdog that expires.
  install_stop_signals();
  std::optional<SignalWriter> signal_writer;
  if (ctx.rank() == 0) signal_writer.emplace(live);
  write_report_when_the_watchdog_fires(live, ctx, common.output_files());
  auto sweeps = run_sweeps(**plan, &live, &job.progress(), &report.counters, &timeline);
  Watchdog::set_expire_hook({});
  signal_writer.reset();
  report.sweeps = job.measured(std::move(sweeps));
  job.record_tcp_idle_restarts(report, b.tcp_idle_restarts());
  if (ctx.rank() == 0) {
    timeline.max_downtime_s = max_downtime_;
    timeline.max_stalls = max_stalls_;
    report.timeline = std::move(timeline);
  }
  if (nccl_profile_) {
    // NCCL finalizes the communicator, and the plugin writes what it gathered.
    const std::string library = b.library();
    plan->reset();
    backend->reset();
    job.measured(collect_nccl_profile(ctx, backend_options, library, report));
  }
  add_sweep_findings(report);
  return job.finish(report, expectations);
}

}  // namespace

std::unique_ptr<Command> make_sweep_command() { return std::make_unique<SweepCommand>(); }

}  // namespace fabscope
