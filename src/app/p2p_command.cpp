// `fabscope p2p`: perftest's measurements across many links at once, under mpirun.
#include <fmt/format.h>

#include <cstdio>
#include <set>
#include <tuple>

#include "app/command.h"
#include "app/p2p_retest.h"
#include "app/run_context.h"
#include "core/sizes.h"
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
    app.add_option("-n,--iters", iters_, "Messages per link and size (default 1000)");
    app.add_option("-w,--warmup_iters", warmup_iters_, "Warm-up messages per link and size (default 50)");
    app.add_option("--window", window_, "Messages in flight per flow in bandwidth modes (default 64)");
    app.add_option("--repeats", repeats_, "Measure each round this many times in a row (default 1)");
    app.add_flag("--retest", retest_,
                 "Measure each slow link again alone, to tell a slow link (slow alone too) from congestion (slow only "
                 "beside other flows)");
    app.add_option("--expect", expect_path_,
                   "Hold the links to the bars of this expectations file (perf.below_expected; read by rank 0)");
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
  int warmup_iters_ = 50;
  int window_ = 64;
  int repeats_ = 1;
  bool retest_ = false;
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
  o.iters = iters_.value_or(1000);
  o.warmup_iters = warmup_iters_;
  o.window = window_;
  o.repeats = repeats_;
  o.timeout_s = timeout_s;
  return o;
}

CommandOutcome P2pCommand::run(const CommonOptions& common, int* argc, char*** argv) {
  auto options = build_options(common.timeout_s);
  std::optional<Expectations> expectations;  // rank 0's
  auto job = start_job(
      argc, argv,
      [&](const RankContext& c) {
        Status s = options.ok() ? validate(*options, c.size()) : options.status();
        return s.ok() ? load_expectations_on_rank0(c, expect_path_, expectations) : s;
      },
      common.backend, common);
  if (!job.ok()) return {job.status()};
  const RankContext& ctx = *job->ctx;
  const Logger& log = job->log;
  const BackendEntry* entry = job->backend;
  auto transport = entry->create_transport(ctx, common.backend_options, log);
  if (Status s = agree_or_report(ctx, transport.ok() ? Status::Ok() : transport.status()); !s.ok()) return {s};
  auto estimate = check_p2p_memory(ctx, **transport, *options);
  if (!estimate.ok()) {
    if (ctx.rank() == 0) print_error(estimate.status().message());
    return {estimate.status()};
  }

  Report report;
  Memory* memory = (*transport)->memory();
  report.context = make_run_context(ctx, entry->name, (*transport)->library(), memory ? memory->kind() : "host",
                                    common.command_line);
  report.context.nccl_debug = nccl_debug_log(ctx, common.backend_options);
  report.context.memory_estimate_bytes = *estimate;
  job->out->on_start(report);
  Progress progress(ctx.rank() == 0 && Progress::wanted());
  auto section = run_p2p(ctx, **transport, *options, &progress, &report.counters);
  if (!section.ok()) end_job_on_failure(*job, progress, section.status());
  if (retest_) {
    if (Status s = retest_alone(ctx, **transport, *options, progress, report.counters, *section); !s.ok()) {
      end_job_on_failure(*job, progress, s);
    }
  }
  section->backend = std::string(entry->name);
  report.p2p = std::move(*section);
  add_p2p_findings(report);
  add_counter_findings(report);
  if (expectations) add_expectation_findings(report, *expectations);
  return finish_job(*job, report);
}

}  // namespace

std::unique_ptr<Command> make_p2p_command() { return std::make_unique<P2pCommand>(); }

}  // namespace fabscope
