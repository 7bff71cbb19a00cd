// `fabscope p2p`: perftest's measurements across many links at once, under mpirun.
#include <fmt/format.h>

#include <cstdio>
#include <set>
#include <tuple>

#include "app/command.h"
#include "app/measuring_job.h"
#include "app/p2p_retest.h"
#include "app/run_context.h"
#include "core/method.h"
#include "core/sizes.h"
#include "diag/fabric.h"
#include "diag/findings.h"
#include "diag/rules.h"
#include "p2p/p2p.h"
#include "report/model_json.h"

namespace fabscope {

namespace {

class P2pCommand final : public Command {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("--pattern", pattern_,
                   "ring (every rank to the next, at once) or pairs (round-robin rounds covering every pair)");
    app.add_option("--pair", pair_, "One pair of ranks, e.g. 0,5");
    app.add_option("--mode", mode_, "bw (unidirectional), bibw (bidirectional) or lat (ping-pong)");
    app.add_option("-s,--size", size_, "Message size (default 64K for bandwidth, 2 for latency)");
    app.add_flag("-a,--all", all_sizes_, "Every power of two from 2 bytes to 8 MiB");
    app.add_option("-n,--iters", iters_, "Messages per link and size (default 1000; --method osu: OSU's, by size)");
    app.add_option("-w,--warmup_iters", warmup_iters_,
                   "Warm-up messages per link and size (default 50; --method osu: OSU's, by size)");
    app.add_option("--method", method_,
                   "How to time: perftest (default: a stamp per message; latency quoted as the median, t_typical) or "
                   "osu (latency quoted as the ping-pong loop's mean, as osu_latency; OSU's message counts: latency "
                   "10000 and 100 warm-up, above 8 KiB 1000 and 10; bandwidth 100 windows of 64, above 8 KiB 20)");
    app.add_option("--window", window_, "Messages in flight per flow in bandwidth modes (default 64)");
    app.add_option("--repeats", repeats_, "Measure each round this many times in a row (default 1)");
    app.add_flag("--retest", retest_,
                 "Measure each slow link again alone, to tell a slow link (slow alone too) from congestion (slow only "
                 "beside other flows)");
    app.add_option("--expect", expect_path_,
                   "Hold the links to the bars of this expectations file (perf.below_expected; read by rank 0)");
    app.add_option("--schedule", schedule_,
                   "Pairs at scale (with --mode bibw): all (every pair of ranks), rail (every pair of hosts, rail by "
                   "rail) or sample (--rounds rounds: hosts under one leaf, then across, then suspects)");
    app.add_option("--rounds", rounds_, "--schedule sample: rounds before the suspects' (default 16, at least 3)");
    app.add_option("--fabric", fabric_path_,
                   "Slurm's topology.conf: sample within leaves first, name a leaf's uplinks as one cause");
    app.add_option("--oversubscription", oversubscription_, kOversubscriptionHelp);
  }

  CommandOutcome run(const CommonOptions& common, int* argc, char*** argv) override;

 private:
  Result<P2pOptions> build_options(double timeout_s) const;

  std::optional<std::string> pattern_;  // default ring
  std::string expect_path_;
  std::optional<std::string> pair_;  // "A,B": one pair (implies pattern pair)
  std::string mode_ = "bw";
  std::optional<std::string> size_;  // -s; default 64K for bandwidth, 2 for latency (perftest's)
  bool all_sizes_ = false;           // -a: 2 bytes to 8 MiB, powers of two (perftest's)
  std::optional<int> iters_;         // -n; default 1000
  std::optional<int> warmup_iters_;  // -w; default 50
  std::string method_ = "perftest";
  int window_ = 64;
  int repeats_ = 1;
  bool retest_ = false;
  std::optional<std::string> schedule_;
  std::optional<int> rounds_;
  std::string fabric_path_;
  double oversubscription_ = 1;
};

Result<P2pOptions> P2pCommand::build_options(double timeout_s) const {
  P2pOptions o;
  auto mode = p2p_mode_from_name(mode_);
  if (!mode.ok()) return mode.status();
  o.mode = *mode;
  if (pair_ && pattern_ && *pattern_ != "pair") {
    return Status::Invalid(fmt::format(
        "give either --pattern {} or --pair {}, not both: --pair measures that one pair alone", *pattern_, *pair_));
  }
  if (pair_) {
    int a = -1, b = -1;
    char tail = 0;
    if (std::sscanf(pair_->c_str(), "%d,%d%c", &a, &b, &tail) != 2) {
      return Status::Invalid(fmt::format("--pair '{}' is not two ranks like 0,5", *pair_));
    }
    o.pattern = P2pPattern::kPair;
    o.pair = {a, b};
  } else {
    auto pattern = p2p_pattern_from_name(pattern_.value_or("ring"));
    if (!pattern.ok()) return pattern.status();
    if (*pattern == P2pPattern::kPair) return Status::Invalid("--pattern pair needs --pair A,B");
    o.pattern = *pattern;
  }
  const bool latency = o.mode == P2pMode::kLatency;
  if (all_sizes_ && size_) return Status::Invalid("give either -s SIZE or -a, not both");
  if (all_sizes_) {
    o.sizes.clear();
    for (uint64_t s = 2; s <= (8u << 20); s *= 2) o.sizes.push_back(s);
  } else {
    auto size = parse_size(size_.value_or(latency ? "2" : "64K"), "-s/--size");
    if (!size.ok()) return size.status();
    if (*size == 0) return Status::Invalid(fmt::format("-s {}: a message must hold at least 1 byte", *size_));
    o.sizes = {*size};
  }
  auto method = method_from_name(method_, "perftest, osu");
  if (!method.ok()) return method.status();
  o.method = *method;
  const bool osu = o.method == TimingMethod::kOsu;
  o.iters = iters_.value_or(1000);
  o.warmup_iters = warmup_iters_.value_or(50);
  o.iterations_by_method = osu && !iters_;
  o.warmup_by_method = osu && !warmup_iters_;
  o.window = window_;
  o.repeats = repeats_;
  o.timeout_s = timeout_s;
  if (schedule_) {
    auto sched = link_schedule_from_name(*schedule_);
    if (!sched.ok()) return Status::Invalid("--schedule: " + sched.status().message());
    if (pair_ || (pattern_ && *pattern_ != "pairs")) {
      return Status::Invalid(
          fmt::format("--schedule {} chooses the pairs itself: give no --pattern or --pair", *schedule_));
    }
    if (o.mode != P2pMode::kBidirectional) {
      return Status::Invalid(
          fmt::format("--schedule {} measures each pair in both directions at once: give --mode "
                      "bibw (not {})",
                      *schedule_, mode_));
    }
    o.pattern = P2pPattern::kPairs;
  }
  if (rounds_ && (!schedule_ || *schedule_ != "sample")) {
    return Status::Invalid(fmt::format("--rounds {} goes with --schedule sample", *rounds_));
  }
  if (rounds_ && *rounds_ < static_cast<int>(kMinSampleRounds)) {
    return Status::Invalid(
        fmt::format("--rounds {}: a sample needs at least {} rounds (a host judged against {} "
                    "partners)",
                    *rounds_, kMinSampleRounds, kMinSampleRounds));
  }
  if (!fabric_path_.empty() && !schedule_) {
    return Status::Invalid(fmt::format("--fabric {} goes with --schedule (rail or sample)", fabric_path_));
  }
  if (Status s = check_oversubscription(oversubscription_, fabric_path_); !s.ok()) return s;
  return o;
}

CommandOutcome P2pCommand::run(const CommonOptions& common, int* argc, char*** argv) {
  auto options = build_options(common.timeout_s);
  std::optional<Expectations> expectations;  // rank 0's
  std::optional<FabricDescription> fabric;   // every rank's
  std::vector<RankPlace> places;
  LinkCoverage coverage;
  auto started = MeasuringJob::start(
      argc, argv,
      [&](const RankContext& c) {
        Status s = options.ok() ? Status::Ok() : options.status();
        if (s.ok()) s = load_fabric(c, fabric_path_, oversubscription_, fabric);
        if (s.ok() && schedule_) {
          // Every rank plans the same rounds from the same ranks, fabric and seed.
          for (const RankInfo& ri : c.ranks()) places.push_back({ri.host, ri.local_rank});
          LinkPlanOptions plan_options;
          plan_options.schedule = *link_schedule_from_name(*schedule_);
          plan_options.max_rounds = static_cast<size_t>(rounds_.value_or(16));
          const auto leaf_of = fabric ? leaf_of_hosts(*fabric) : std::map<std::string, std::string>();
          plan_options.leaf_of = fabric ? &leaf_of : nullptr;
          auto plan = plan_links(places, plan_options);
          if (!plan.ok()) return Status::Invalid(fmt::format("--schedule {}: {}", *schedule_, plan.status().message()));
          coverage.schedule = plan_options.schedule;
          coverage.rounds = static_cast<int>(plan->rounds.size());
          coverage.intra_leaf_rounds = static_cast<int>(plan->intra_leaf_rounds);
          options->rounds = std::move(plan->rounds);
        }
        if (s.ok()) s = validate(*options, c.size());
        return s.ok() ? load_expectations_on_rank0(c, expect_path_, expectations) : s;
      },
      common);
  if (!started.ok()) return {started.status()};
  MeasuringJob& job = **started;
  const RankContext& ctx = job.ctx();
  auto transport = job.create_transport(common.backend_options);
  if (!transport.ok()) return {transport.status()};
  auto estimate = check_p2p_memory(ctx, **transport, *options);
  if (Status s = job.alike(estimate); !s.ok()) return {s};

  Report report;
  Memory* memory = (*transport)->memory();
  report.context =
      job.run_context(job.backend_entry().name, (*transport)->library(), memory ? memory->kind() : "host", common);
  report.context.memory_estimate_bytes = *estimate;
  job.out().on_start(report);
  Progress& progress = job.progress();
  P2pSection section = job.measured(run_p2p(ctx, **transport, *options, &progress, &report.counters));
  const FabricDescription* fabric_ptr = fabric ? &*fabric : nullptr;
  if (schedule_ && *schedule_ == "sample") {
    coverage.adaptive_rounds = job.measured(
        measure_suspects(ctx, **transport, *options, places, fabric_ptr, progress, &report.counters, section));
  }
  if (retest_) job.measured(retest_alone(ctx, **transport, *options, progress, report.counters, section, fabric_ptr));
  job.record_tcp_idle_restarts(report, (*transport)->tcp_idle_restarts());
  section.backend = std::string(job.backend_entry().name);
  if (schedule_) section.coverage = coverage;
  report.p2p = std::move(section);
  report.fabric = fabric;
  add_p2p_findings(report);
  add_counter_findings(report);
  judge_link_coverage(report);
  return job.finish(report, expectations);
}

}  // namespace

std::unique_ptr<Command> make_p2p_command() { return std::make_unique<P2pCommand>(); }

}  // namespace fabscope
