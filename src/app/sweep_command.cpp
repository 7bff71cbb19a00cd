// `fabscope sweep`: nccl-tests' measurement over any backend, under mpirun.
#include <fmt/format.h>

#include <cstdio>

#include "app/command.h"
#include "app/nccl_profile_run.h"
#include "app/run_context.h"
#include "coll/collective.h"
#include "comm/context.h"
#include "core/clock.h"
#include "core/dtype.h"
#include "core/method.h"
#include "diag/expectations.h"
#include "diag/findings.h"
#include "sweep/sweep.h"

namespace fabscope {

namespace {

// Tells the outputs about each result as it is measured.
class ReportingObserver final : public SweepObserver {
 public:
  explicit ReportingObserver(Reporter& out) : out_(out) {}
  void on_sweep_begin(const Sweep& s) override { out_.on_sweep_begin(s); }
  void on_point(const Sweep& s, const SweepPoint& p) override { out_.on_point(s, p); }
  void on_sweep_end(const Sweep&) override {}

 private:
  Reporter& out_;
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
};

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
  return o;
}

CommandOutcome SweepCommand::run(const CommonOptions& common, int* argc, char*** argv) {
  auto options = build_options(common.timeout_s);
  std::optional<Expectations> expectations;  // rank 0's
  auto job = start_job(
      argc, argv,
      [&](const RankContext& ctx) {
        if (!options.ok()) return options.status();
        return load_expectations_on_rank0(ctx, expect_path_, expectations);
      },
      common.backend, common);
  if (!job.ok()) return {job.status()};
  const RankContext& ctx = *job->ctx;
  const Logger& log = job->log;
  BackendOptions backend_options = common.backend_options;
  if (nccl_profile_) {
    const Status s = prepare_nccl_profile(ctx, job->backend->name, backend_options);
    if (!s.ok()) {
      if (ctx.rank() == 0) print_error(s.message());
      return {s};
    }
  }
  auto backend = job->backend->create(ctx, backend_options, log);
  if (Status s = agree_or_report(ctx, backend.ok() ? Status::Ok() : backend.status()); !s.ok()) return {s};
  Backend& b = **backend;
  auto plan = plan_sweeps(ctx, b, *options);
  if (!plan.ok()) {
    if (ctx.rank() == 0) print_error(plan.status().message());  // planning fails alike on every rank
    return {plan.status()};
  }
  log.info("backend {} ({}), {} ranks on {} hosts", b.name(), b.library(), ctx.size(), ctx.ranks().size());

  Report report;
  report.context = make_run_context(ctx, b.name(), b.library(), b.memory().kind(), common.command_line);
  report.context.nccl_debug = nccl_debug_log(ctx, common.backend_options);
  const SweepOptions& o = *options;
  report.sweep_settings = SweepSettings{o.sizes.min_bytes,
                                        o.sizes.max_bytes,
                                        o.sizes.step_bytes,
                                        o.sizes.step_factor,
                                        o.iters,
                                        o.warmup_iters,
                                        o.check_iters,
                                        std::string(name(o.average)),
                                        o.seed,
                                        o.graph_launches,
                                        o.blocking};

  Reporter& out = *job->out;
  out.on_start(report);
  ReportingObserver observer(out);
  Progress progress(ctx.rank() == 0 && Progress::wanted());
  auto sweeps = run_sweeps(**plan, &observer, &progress, &report.counters);
  if (!sweeps.ok()) end_job_on_failure(*job, progress, sweeps.status());
  report.sweeps = std::move(*sweeps);
  report.context.memory_estimate_bytes = memory_estimate_bytes(**plan);
  if (nccl_profile_) {
    // NCCL finalizes the communicator, and the plugin writes what it gathered.
    const std::string library = b.library();
    plan->reset();
    backend->reset();
    if (Status st = collect_nccl_profile(ctx, backend_options, library, report); !st.ok()) {
      end_job_on_failure(*job, progress, st);
    }
  }
  add_sweep_findings(report);
  if (expectations) add_expectation_findings(report, *expectations);
  return finish_job(*job, report);
}

}  // namespace

std::unique_ptr<Command> make_sweep_command() { return std::make_unique<SweepCommand>(); }

}  // namespace fabscope
