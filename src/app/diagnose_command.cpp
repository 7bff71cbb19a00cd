// `fabscope diagnose`: the instruments as phases of one job (topology, the collective
// with each rank's arrivals, the link matrix with suspects retested alone, counters
// around each, the collective and the links again for noise), then the analysis:
// findings, where the collective's excess time went (diag/attribution.h), the verdict
// and the hosts to drain. Each measuring phase gets a share of --budget; the number of
// iterations follows from a calibration pass over the sizes. One rank runs what it can
// (topology, the collective, counters); the verdict names what needs two (not_judged).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "algo/trace.h"
#include "app/command.h"
#include "app/nccl_profile_run.h"
#include "app/p2p_retest.h"
#include "app/run_context.h"
#include "app/topo_live.h"
#include "coll/call.h"
#include "coll/collective.h"
#include "comm/clock_sync.h"
#include "core/clock.h"
#include "core/dtype.h"
#include "core/sizes.h"
#include "core/stats.h"
#include "core/text.h"
#include "core/watchdog.h"
#include "diag/attribution.h"
#include "diag/fabric.h"
#include "diag/findings.h"
#include "diag/link_trace.h"
#include "diag/nccl_profile.h"
#include "diag/rules.h"
#include "p2p/p2p.h"
#include "report/json_io.h"
#include "report/model_json.h"
#include "sweep/sweep.h"
#include "topo/readers.h"

namespace fabscope {

namespace {

// The phases, in the order they run. Attribution, findings and the verdict always follow.
constexpr std::string_view kPhases[] = {"topology", "collective", "links", "counters", "noise"};
// The measuring phases' shares of the budget (of those asked for).
constexpr double kCollectiveWeight = 0.4, kLinksWeight = 0.35, kNoiseWeight = 0.25;
// The fewest timed iterations per size the collective phase's share must hold.
constexpr int kMinIters = 3;
constexpr int kMaxIters = 50;
constexpr double kMaxBudgetS = 86400;
// Of the budget, kept for starting up, the analysis and writing the outputs.
constexpr double kReserve = 0.1;
// The link schedule's rounds are sized for at least this many messages per flow, and
// this much per round besides (agreeing, starting the flows).
constexpr int kMinLinkIters = 16;
constexpr double kRoundOverheadS = 0.002;

std::string phase_names() {
  std::string s;
  for (std::string_view p : kPhases) s += (s.empty() ? "" : ", ") + std::string(p);
  return s;
}

class DiagnoseCommand final : public Command {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("collectives", collectives_, "Collectives under test (default allreduce): " + collective_names());
    app.add_option("-b,--minbytes", min_bytes_, "Smallest size (default 1M)");
    app.add_option("-e,--maxbytes", max_bytes_, "Largest size, the one attributed (default 16M)");
    app.add_option("-f,--stepfactor", step_factor_, "Multiplicative step between sizes (default 4)")
        ->check(non_negative_integer());
    app.add_option("-d,--datatype", dtypes_, fmt::format("{} (default float)", data_type_names()));
    app.add_option("-o,--op", ops_, fmt::format("{} (default sum)", reduce_op_names()));
    app.add_option("--phases", phases_, fmt::format("A comma list of {} (default all)", phase_names()));
    app.add_option("--budget", budget_s_, "Seconds the measuring phases may take together (default 60)");
    nccl_profile_option_ =
        app.add_flag("--nccl-profile,!--no-nccl-profile", nccl_profile_,
                     "nccl backend: load fabscope's NCCL profiler plugin, report each rank's network wait per peer "
                     "and NIC and attribute the collective's links by it (default on with --backend nccl)");
    app.add_option("--import-profile", import_profile_,
                   "Diagnose a job that ran with fabscope's NCCL profiler plugin, from the files it wrote "
                   "(FABSCOPE_PROFILE_DIR): nothing is measured");
    app.add_option("--nccl-log", nccl_logs_,
                   "With --import-profile: that job's NCCL_DEBUG=INFO log(s), files or directories, for the NIC "
                   "of each channel");
    app.add_option("--expect", expect_path_,
                   "Hold the collective and link figures to this expectations file (perf.below_expected; read by "
                   "rank 0)");
    app.add_option("--schedule", schedule_,
                   "Link matrix: auto (default: the first that fits the budget), all (every pair of ranks), rail "
                   "(every pair of hosts, rail by rail), sample (hosts under one leaf, then across, then suspects "
                   "with more partners)");
    app.add_option("--fabric", fabric_path_,
                   "Slurm's topology.conf (SwitchName=... Nodes=...): sample hosts under one leaf first, and name "
                   "a leaf's uplinks as one cause (p2p.congested_uplink)");
  }

  CommandOutcome run(const CommonOptions& common, int* argc, char*** argv) override;

 private:
  Status parse(double timeout_s);
  bool wants(std::string_view phase) const {
    return std::find(phases_run_.begin(), phases_run_.end(), phase) != phases_run_.end();
  }
  // A phase's share of what the measuring phases have: the budget less what passed before
  // them (start-up, topology) and a reserve for the analysis and the output.
  double share(double weight) const {
    double total = 0;
    if (wants("collective")) total += kCollectiveWeight;
    if (wants("links")) total += kLinksWeight;
    if (wants("noise")) total += kNoiseWeight;
    return total > 0 ? measuring_s_ * weight / total : 0;
  }
  // Seconds left of the budget, less the reserve.
  double left() const { return budget_s_ * (1 - kReserve) - (steady_now_s() - start_s_); }

  std::vector<std::string> collectives_ = {"allreduce"};
  std::string min_bytes_ = "1M";
  std::string max_bytes_ = "16M";
  uint64_t step_factor_ = 4;
  std::string dtypes_ = "float";
  std::string ops_ = "sum";
  std::string phases_ = "all";
  double budget_s_ = 60;
  std::string expect_path_;
  std::string schedule_ = "auto";
  std::string fabric_path_;
  bool nccl_profile_ = true;
  CLI::Option* nccl_profile_option_ = nullptr;
  std::string import_profile_;
  std::vector<std::string> nccl_logs_;

  CommandOutcome run_import(const CommonOptions& common);
  std::vector<std::string> phases_run_;
  SweepOptions sweep_;
  double start_s_ = 0;      // when the command started
  double measuring_s_ = 0;  // what the measuring phases share
};

Status DiagnoseCommand::parse(double timeout_s) {
  phases_run_.clear();
  std::vector<std::string> asked;
  for (std::string_view p : split(phases_, ',')) asked.emplace_back(p);
  for (const std::string& p : asked) {
    if (p == "all") continue;
    if (std::find(std::begin(kPhases), std::end(kPhases), p) == std::end(kPhases)) {
      return Status::Invalid(fmt::format("--phases: unknown phase '{}'; allowed: {}, or all", p, phase_names()));
    }
  }
  for (std::string_view p : kPhases) {
    if (std::find(asked.begin(), asked.end(), "all") != asked.end() ||
        std::find(asked.begin(), asked.end(), p) != asked.end()) {
      phases_run_.emplace_back(p);
    }
  }
  if (wants("noise") && !wants("collective") && !wants("links")) {
    return Status::Invalid("--phases: noise repeats the collective and the link matrix; add collective or links");
  }
  if (!(budget_s_ > 0) || budget_s_ > kMaxBudgetS) {
    return Status::Invalid(fmt::format(
        "--budget {:g}: give the seconds the phases may take, more than 0 and at most {:g}", budget_s_, kMaxBudgetS));
  }
  if (schedule_ != "auto") {
    if (auto s = link_schedule_from_name(schedule_); !s.ok())
      return Status::Invalid("--schedule: " + s.status().message());
  }
  if (collectives_.empty()) return Status::Invalid("name at least one collective; allowed: " + collective_names());
  sweep_ = SweepOptions();
  auto collectives = collectives_from_names(collectives_);
  if (!collectives.ok()) return collectives.status();
  sweep_.collectives = std::move(*collectives);
  auto b = parse_size(min_bytes_, "-b/--minbytes");
  if (!b.ok()) return b.status();
  auto e = parse_size(max_bytes_, "-e/--maxbytes");
  if (!e.ok()) return e.status();
  if (step_factor_ < 2) {
    return Status::Invalid(
        fmt::format("-f/--stepfactor {}: diagnose steps sizes by a factor of 2 or more", step_factor_));
  }
  sweep_.sizes = {*b, *e, 1, step_factor_};
  if (Status s = validate(sweep_.sizes); !s.ok()) return s;
  auto types = parse_data_types(dtypes_);
  if (!types.ok()) return types.status();
  sweep_.dtypes = *types;
  auto ops = parse_reduce_ops(ops_);
  if (!ops.ok()) return ops.status();
  sweep_.ops = *ops;
  sweep_.timeout_s = timeout_s;
  return Status::Ok();
}

// Phase bookkeeping: the progress line, each phase's seconds, and the counter samples
// it took (named after it).
class Phases {
 public:
  Phases(Progress& progress, Report& report, bool counters, size_t total)
      : progress_(progress), report_(report), counters_(counters), total_(total) {}
  std::vector<CounterSample>* counters() { return counters_ ? &report_.counters : nullptr; }
  void begin(const std::string& name, const std::string& what) {
    name_ = name;
    start_ = steady_now_s();
    first_sample_ = report_.counters.size();
    progress_.update(fmt::format("diagnose: phase {}/{} {}: {}", ++index_, total_, name, what));
  }
  void end() {
    for (size_t i = first_sample_; i < report_.counters.size(); ++i) {
      report_.counters[i].phase = name_ + ": " + report_.counters[i].phase;
    }
    report_.diagnosis->timings.push_back({name_, steady_now_s() - start_});
  }

 private:
  Progress& progress_;
  Report& report_;
  bool counters_;
  size_t total_;
  size_t index_ = 0;
  std::string name_;
  double start_ = 0;
  size_t first_sample_ = 0;
};

// Rank 0 decides from its own measurement and every rank gets the same number, or the
// same error.
Result<int> agree_number(const RankContext& ctx, const Result<int>& mine) {
  auto shared = ctx.broadcast(ctx.rank() != 0 ? ""
                              : mine.ok()     ? fmt::format("ok {}", *mine)
                                              : mine.status().message(),
                              0);
  if (!shared.ok()) return shared.status();
  int n = 0;
  if (std::sscanf(shared->c_str(), "ok %d", &n) == 1 && shared->rfind("ok ", 0) == 0) return n;
  return Status::Invalid(*shared);
}

// The fewest ranks the phases between ranks need: the link matrix measures pairs of
// ranks, the noise phase repeats it, and the attribution weighs the collective against it.
constexpr int kMinRanksBetween = 2;

// On fewer than kMinRanksBetween ranks the phases between ranks (links, noise) leave
// `phases`; the topology, the collective and the counters run as on more. Returns what
// that leaves unjudged, and why, one sentence each: the verdict's not_judged.
std::vector<std::string> drop_phases_between_ranks(int nranks, std::vector<std::string>& phases) {
  std::vector<std::string> not_judged;
  if (nranks >= kMinRanksBetween) return not_judged;
  const std::string why = fmt::format("needs {} or more ranks; this job has {}", kMinRanksBetween, nranks);
  constexpr std::pair<std::string_view, std::string_view> kBetweenRanks[] = {
      {"links", "the link matrix (every pair of ranks, both ways)"},
      {"noise", "the noise between ranks (the collective and the link matrix again)"}};
  for (const auto& [phase, what] : kBetweenRanks) {
    auto it = std::find(phases.begin(), phases.end(), phase);
    if (it == phases.end()) continue;
    phases.erase(it);
    not_judged.push_back(fmt::format("{}: {} {}", phase, what, why));
  }
  if (std::find(phases.begin(), phases.end(), "collective") != phases.end()) {
    not_judged.push_back(
        fmt::format("attribution: where the collective's time went is weighed against the link matrix, which {}", why));
  }
  return not_judged;
}

// The noise phase's repeat of the collective `s` at its largest size, added to its
// figures (the collective phase's first) and their coefficient of variation.
void add_collective_repeat(Report& report, const Sweep& s) {
  if (s.points.empty() || !s.points.back().out_of_place) return;
  auto& reps = report.diagnosis->collective_noise;
  auto it = std::find_if(reps.begin(), reps.end(), [&](const CollectiveRepeats& r) {
    return r.collective == s.collective && r.size_bytes == s.points.back().size_bytes;
  });
  if (it == reps.end()) {
    CollectiveRepeats r;
    r.collective = s.collective;
    r.size_bytes = s.points.back().size_bytes;
    for (const Sweep& first : report.sweeps) {  // the collective phase's figure comes first
      if (first.collective == s.collective && !first.points.empty() && first.points.back().out_of_place) {
        r.time_us.push_back(first.points.back().out_of_place->time_us);
        break;
      }
    }
    reps.push_back(std::move(r));
    it = reps.end() - 1;
  }
  it->time_us.push_back(s.points.back().out_of_place->time_us);
  const Summary sum = summarize(it->time_us);
  it->cv = sum.stddev && sum.mean > 0 ? *sum.stddev / sum.mean : 0;
}

// The engine's trace (tcp, verbs): a few calls of each collective at `size`, message by
// message, each rank's on its own clock, put on rank 0's there (diag/link_trace.h).
// Backends without a trace are left alone.
constexpr int kTracedCalls = 3;
Status trace_calls(const RankContext& ctx, Backend& b, const SweepOptions& o, uint64_t size, double timeout_s,
                   Diagnosis& d) {
  if (!b.set_trace(nullptr)) return Status::Ok();
  Watchdog watchdog(timeout_s, fmt::format("[r{} {}]", ctx.rank(), ctx.host()), stderr, ctx.peer_view());
  const DataType t = o.dtypes.front();
  const size_t es = element_size(t);
  for (Collective c : o.collectives) {
    watchdog.set_phase(fmt::format("tracing {} at {}", name(c), format_size(size)));
    const ElementCounts counts = element_counts(c, size / es, es, ctx.size());
    auto send = b.memory().allocate(std::max<size_t>(counts.send * es, es));
    if (!send.ok()) return send.status();
    auto recv = b.memory().allocate(std::max<size_t>(counts.recv * es, es));
    if (!recv.ok()) {
      b.memory().release(*send);
      return recv.status();
    }
    CollCall call;
    call.coll = c;
    call.dtype = t;
    if (info(c).reduces) call.op = o.ops.front();
    call.root = o.root;
    call.send = *send;
    call.recv = *recv;
    call.count = counts.param;
    Trace trace;
    auto traced = [&]() -> Status {
      FABSCOPE_RETURN_IF_ERROR(b.run(call));  // untraced: connections and buffers warm
      FABSCOPE_RETURN_IF_ERROR(b.wait());
      FABSCOPE_RETURN_IF_ERROR(ctx.barrier());
      const int64_t before_at = steady_now_ns();
      auto before = measure_clock_offsets(ctx);
      if (!before.ok()) return before.status();
      b.set_trace(&trace);
      for (int k = 0; k < kTracedCalls; ++k) {
        FABSCOPE_RETURN_IF_ERROR(b.run(call));
        FABSCOPE_RETURN_IF_ERROR(b.wait());
        watchdog.beat();
      }
      b.set_trace(nullptr);
      const int64_t after_at = steady_now_ns();
      auto after = measure_clock_offsets(ctx);
      if (!after.ok()) return after.status();
      // Each rank's messages: sends' posting times per destination, receives' posting and
      // completion per source.
      Json mine = {{"send", Json::object()}, {"recv", Json::object()}};
      for (const StepRecord& r : trace.records) {
        const std::string peer = std::to_string(r.peer);
        if (r.is_send) {
          mine["send"][peer].push_back(r.posted_ns);
        } else {
          mine["recv"][peer].push_back(Json::array({r.posted_ns, r.completed_ns}));
        }
      }
      auto all = ctx.gather_text(dump_json(mine));
      if (!all.ok()) return all.status();
      if (ctx.rank() != 0) return Status::Ok();
      std::vector<RankMessages> ranks(all->size());
      try {
        for (size_t r = 0; r < all->size(); ++r) {
          const Json j = Json::parse((*all)[r]);
          for (const auto& [peer, times] : j.at("send").items()) {
            for (const Json& v : times) ranks[r].send_posted[std::stoi(peer)].push_back(v.get<int64_t>());
          }
          for (const auto& [peer, pairs] : j.at("recv").items()) {
            for (const Json& v : pairs) {
              ranks[r].recv[std::stoi(peer)].emplace_back(v.at(0).get<int64_t>(), v.at(1).get<int64_t>());
            }
          }
        }
      } catch (const std::exception& e) {  // not what the ranks sent: a fabscope defect
        return Status::Runtime(fmt::format("the traced messages could not be read back: {}", e.what()));
      }
      const ClockMap map(before_at, std::move(*before), after_at, std::move(*after));
      for (LinkBusy& l : link_busy_times(ranks, map, kTracedCalls, std::string(name(c)))) {
        d.link_busy.push_back(std::move(l));
      }
      return Status::Ok();
    };
    const Status st = traced();
    b.set_trace(nullptr);
    b.memory().release(*send);
    b.memory().release(*recv);
    FABSCOPE_RETURN_IF_ERROR(st);
  }
  d.traced_calls = kTracedCalls;
  return Status::Ok();
}

// --import-profile: the plugin's files of a job fabscope did not run, and its NCCL log,
// judged offline; nothing measured, no MPI job.
CommandOutcome DiagnoseCommand::run_import(const CommonOptions& common) {
  auto out = make_reporters(common.output_files(), stdout);
  Report report;
  report.context = make_local_run_context(common.command_line);
  report.context.backend = "nccl";
  report.context.memory = "none";
  Status s = out->preflight();
  std::vector<RankProfile> profiles;
  std::vector<ChannelNic> channels;
  if (s.ok()) {
    auto read = read_rank_profiles(import_profile_);
    if (read.ok()) {
      profiles = std::move(*read);
    } else {
      s = read.status();
    }
  }
  for (const std::string& path : nccl_logs_) {
    if (!s.ok()) break;
    auto texts = topo::read_nccl_log_paths(path);
    if (!texts.ok()) {
      s = texts.status();
      break;
    }
    for (const auto& [file, text] : *texts) {
      auto c = topo::nccl_log_channels(text, file);
      if (!c.ok()) {
        s = c.status();
        break;
      }
      channels.insert(channels.end(), c->begin(), c->end());
    }
  }
  if (!s.ok()) {
    print_error(s.message());
    return {s};
  }
  report.nccl_profile = build_profile_section(profiles, channels);
  // The ranks of the (first) communicator, for the findings' hosts: the job's, not this process's.
  report.context.ranks.clear();
  report.context.hosts.clear();
  for (const ProfileSource& r : report.nccl_profile->ranks) {
    if (r.comm != report.nccl_profile->ranks.front().comm) continue;
    report.context.ranks.push_back({r.rank, r.host, r.pid, 0});
    if (std::find(report.context.hosts.begin(), report.context.hosts.end(), r.host) == report.context.hosts.end()) {
      report.context.hosts.push_back(r.host);
    }
  }
  std::sort(report.context.ranks.begin(), report.context.ranks.end(),
            [](const RankEntry& a, const RankEntry& b) { return a.rank < b.rank; });
  report.context.nranks = static_cast<int>(report.context.ranks.size());
  add_sweep_findings(report);
  return finish_report(*out, report);
}

CommandOutcome DiagnoseCommand::run(const CommonOptions& common, int* argc, char*** argv) {
  start_s_ = steady_now_s();
  if (!import_profile_.empty()) return run_import(common);
  if (!nccl_logs_.empty()) {
    const Status bad = Status::Invalid(fmt::format(
        "--nccl-log {} goes with --import-profile DIR; a live diagnose reads NCCL's log itself (--nccl-debug-dir)",
        nccl_logs_.front()));
    print_error(bad.message());
    return {bad};
  }
  const Status parsed = parse(common.timeout_s);
  std::optional<Expectations> expectations;  // rank 0's
  std::optional<FabricDescription> fabric;   // every rank's
  auto job = start_job(
      argc, argv,
      [&](const RankContext& ctx) {
        if (!parsed.ok()) return parsed;
        if (Status s = load_fabric(ctx, fabric_path_, fabric); !s.ok()) return s;
        return load_expectations_on_rank0(ctx, expect_path_, expectations);
      },
      common.backend, common);
  if (!job.ok()) return {job.status()};
  const RankContext& ctx = *job->ctx;
  const Logger& log = job->log;
  const BackendEntry* entry = job->backend;
  BackendOptions backend_options = common.backend_options;
  std::string profile_unavailable;  // why the default --nccl-profile could not be
  const bool profile_asked = nccl_profile_option_ != nullptr && nccl_profile_option_->count() > 0;
  if (nccl_profile_ && (entry->name == "nccl" || profile_asked)) {
    const Status s = prepare_nccl_profile(ctx, entry->name, backend_options);
    if (!s.ok() && !profile_asked && entry->name == "nccl") {
      // On by default, not asked for: the diagnosis goes on without it, and says why.
      if (ctx.rank() == 0) log.warn("{}; diagnosing without NCCL's profile", s.message());
      profile_unavailable = s.message();
    } else if (!s.ok()) {
      if (ctx.rank() == 0) print_error(s.message());
      return {s};
    }
  }

  Report report;
  report.diagnosis = Diagnosis();
  report.verdict.not_judged = drop_phases_between_ranks(ctx.size(), phases_run_);  // one rank: no links
  report.diagnosis->phases = phases_run_;
  report.diagnosis->budget_s = budget_s_;
  Progress progress(ctx.rank() == 0 && Progress::wanted());
  Phases phases(progress, report, wants("counters"),
                phases_run_.size() - (wants("counters") ? 1 : 0));  // counters run around the others

  if (wants("topology")) {
    phases.begin("topology", "every node's GPUs, NICs and paths");
    if (Status s = gather_topology(ctx, topo::AnalysisOptions(), report); !s.ok()) return {s};
    phases.end();
  }

  measuring_s_ = std::max(0.0, left());
  // The collective: a calibration pass decides the iterations that fit the budget.
  std::unique_ptr<Backend> backend;
  std::string library;
  std::string memory_kind = "host";
  double busbw_estimate = 0;  // GB/s at the largest size: what the link matrix can expect
  const std::vector<uint64_t> sizes = expand(sweep_.sizes);
  const uint64_t largest = sizes.empty() ? sweep_.sizes.max_bytes : sizes.back();  // the size attributed
  if (wants("collective")) {
    auto created = entry->create(ctx, backend_options, log);
    if (Status s = agree_or_report(ctx, created.ok() ? Status::Ok() : created.status()); !s.ok()) return {s};
    backend = std::move(*created);
    library = backend->library();
    memory_kind = std::string(backend->memory().kind());
    SweepOptions calibration = sweep_;
    calibration.iters = 1;
    calibration.warmup_iters = 1;
    calibration.check_iters = 1;  // verification costs as much as the collective, or more
    auto cal_plan = plan_sweeps(ctx, *backend, calibration);
    if (!cal_plan.ok()) {
      if (ctx.rank() == 0) print_error(cal_plan.status().message());
      return {cal_plan.status()};
    }
    phases.begin("collective", "calibrating");
    const double t0 = steady_now_s();
    auto cal = run_sweeps(**cal_plan, nullptr, &progress, nullptr);
    if (!cal.ok()) end_job_on_failure(*job, progress, cal.status());
    cal_plan->reset();
    // The calibration is a whole phase with one timed iteration: the real one costs that
    // again plus each further iteration (both placements of every size, as timed).
    const double calibration_s = steady_now_s() - t0;
    double iteration_s = 0;
    for (const Sweep& s : *cal) {
      for (const SweepPoint& p : s.points) {
        for (const auto* pl : {&p.out_of_place, &p.in_place}) {
          if (pl->has_value()) iteration_s += (*pl)->time_us / 1e6;
        }
      }
      if (!s.points.empty() && s.points.back().out_of_place) {
        busbw_estimate = std::max(busbw_estimate, s.points.back().out_of_place->busbw_gbps);
      }
    }
    iteration_s = std::max(iteration_s, 1e-6);
    const double collective_share = share(kCollectiveWeight);
    const double room = collective_share - 2 * calibration_s;  // the calibration, then the phase's fixed part
    Result<int> iters = std::min(kMaxIters, 1 + static_cast<int>(room / iteration_s));
    if (room < (kMinIters - 1) * iteration_s) {
      const double need = 2 * calibration_s + (kMinIters - 1) * iteration_s;
      iters = Status::Invalid(fmt::format(
          "--budget {:g} s is too small to measure: calibrating over the sizes ({} to {}) took {:.2f} s, and the "
          "collective phase gets {:.2f} s of the budget where it needs {:.2f} s for {} iterations; give --budget "
          "{:.0f} or more, or smaller sizes (-e)",
          budget_s_, format_size(sweep_.sizes.min_bytes), format_size(largest), calibration_s, collective_share, need,
          kMinIters, std::ceil(budget_s_ * need / std::max(collective_share, 1e-9))));
    }
    auto agreed = agree_number(ctx, iters);
    if (!agreed.ok()) {
      if (ctx.rank() == 0) print_error(agreed.status().message());
      return {agreed.status()};
    }
    SweepOptions o = sweep_;
    o.iters = *agreed;
    o.warmup_iters = 1;
    o.check_iters = 1;
    o.record_arrivals = backend->iteration_clock() == nullptr;  // host-timed backends
    auto plan = plan_sweeps(ctx, *backend, o);
    if (!plan.ok()) {
      if (ctx.rank() == 0) print_error(plan.status().message());
      return {plan.status()};
    }
    progress.update(fmt::format("diagnose: collective: {} iterations per size", o.iters));
    auto sweeps = run_sweeps(**plan, nullptr, &progress, phases.counters());
    if (!sweeps.ok()) end_job_on_failure(*job, progress, sweeps.status());
    report.sweeps = std::move(*sweeps);
    report.sweep_settings = SweepSettings{o.sizes.min_bytes,
                                          o.sizes.max_bytes,
                                          o.sizes.step_bytes,
                                          o.sizes.step_factor,
                                          o.iters,
                                          o.warmup_iters,
                                          o.check_iters,
                                          std::string(name(o.average)),
                                          o.seed,
                                          0,
                                          0};
    sweep_ = o;
    progress.update(fmt::format("diagnose: collective: tracing {} calls message by message", kTracedCalls));
    if (Status st = trace_calls(ctx, *backend, o, largest, common.timeout_s, *report.diagnosis); !st.ok()) {
      end_job_on_failure(*job, progress, st);
    }
    phases.end();
  }

  // The link matrix: every pair, both directions at once, at the collective's chunk size.
  std::unique_ptr<Transport> transport;
  P2pOptions links;
  double links_s = 0;  // the link phase's seconds
  if (wants("links")) {
    auto created = entry->create_transport(ctx, backend_options, log);
    if (Status s = agree_or_report(ctx, created.ok() ? Status::Ok() : created.status()); !s.ok()) return {s};
    transport = std::move(*created);
    if (library.empty()) library = transport->library();
    if (Memory* m = transport->memory()) memory_kind = std::string(m->kind());
    uint64_t chunk = std::bit_floor(std::max<uint64_t>(largest / std::max(1, ctx.size()), 1));
    chunk = std::clamp<uint64_t>(chunk, 64 << 10, 4 << 20);
    links.pattern = P2pPattern::kPairs;
    links.mode = P2pMode::kBidirectional;
    links.sizes = {chunk};
    links.window = 8;
    links.warmup_iters = 4;
    links.timeout_s = common.timeout_s;
    const double bw = busbw_estimate > 0 ? busbw_estimate : 1.0;
    // The schedule: the rounds that fit three quarters of the share at the fewest
    // iterations (a quarter is kept for suspects: more partners, then alone).
    std::vector<RankPlace> places;
    for (const RankInfo& ri : ctx.ranks()) places.push_back({ri.host, ri.local_rank});
    const double min_round_s = kMinLinkIters * static_cast<double>(chunk) / (bw * 1e9) + kRoundOverheadS;
    auto fit = agree_number(ctx, static_cast<int>(std::clamp(0.75 * share(kLinksWeight) / min_round_s, 1.0, 1e6)));
    if (!fit.ok()) end_job_on_failure(*job, progress, fit.status());
    LinkPlanOptions plan_options;
    plan_options.schedule = schedule_ == "auto" ? pick_link_schedule(places, static_cast<size_t>(*fit))
                                                : *link_schedule_from_name(schedule_);
    plan_options.max_rounds = static_cast<size_t>(*fit);
    const std::map<std::string, std::string> leaf_of =
        fabric ? leaf_of_hosts(*fabric) : std::map<std::string, std::string>();
    plan_options.leaf_of = fabric ? &leaf_of : nullptr;
    auto plan = plan_links(places, plan_options);
    if (Status s = agree_or_report(ctx, plan.ok() ? Status::Ok() : plan.status()); !s.ok()) return {s};
    links.rounds = std::move(plan->rounds);
    const size_t nrounds = std::max<size_t>(links.rounds.size(), 1);
    const double per_round_s = 0.75 * share(kLinksWeight) / static_cast<double>(nrounds);
    // Rank 0's figures decide (the others' clocks and results differ), so every rank runs as many.
    auto iters =
        agree_number(ctx, std::clamp(static_cast<int>(per_round_s * bw * 1e9 / static_cast<double>(chunk)), 16, 1000));
    if (!iters.ok()) end_job_on_failure(*job, progress, iters.status());
    links.iters = *iters;
    report.diagnosis->link_size_bytes = chunk;
    if (Status s = validate(links, ctx.size()); !s.ok()) {
      if (ctx.rank() == 0) print_error(s.message());
      return {s};
    }
    phases.begin("links", fmt::format("{} rounds of pairs ({}), {} x {}", nrounds, name(plan_options.schedule),
                                      links.iters, format_size(chunk)));
    auto section = run_p2p(ctx, *transport, links, &progress, phases.counters());
    if (!section.ok()) end_job_on_failure(*job, progress, section.status());
    LinkCoverage coverage;
    coverage.schedule = std::string(name(plan_options.schedule));
    coverage.rounds = static_cast<int>(links.rounds.size());
    coverage.intra_leaf_rounds = static_cast<int>(plan->intra_leaf_rounds);
    const FabricDescription* fabric_ptr = fabric ? &*fabric : nullptr;
    std::vector<CounterSample> scratch;
    if (plan_options.schedule == LinkSchedule::kSample) {
      auto added = measure_suspects(ctx, *transport, links, places, fabric_ptr, progress, phases.counters(), *section);
      if (!added.ok()) end_job_on_failure(*job, progress, added.status());
      coverage.adaptive_rounds = *added;
    }
    if (Status s = retest_alone(ctx, *transport, links, progress, phases.counters() ? report.counters : scratch,
                                *section, fabric_ptr);
        !s.ok()) {
      end_job_on_failure(*job, progress, s);
    }
    section->coverage = coverage;
    section->backend = std::string(entry->name);
    report.p2p = std::move(*section);
    phases.end();
    links_s = report.diagnosis->timings.back().seconds;
  }

  // Noise: the collective at its largest size, and the link matrix, once more each.
  if (wants("noise")) {
    phases.begin("noise", "the collective and the links again");
    // Half the share for the collective's two repeats, half for the links' one.
    const double half = 0.5 * std::min(share(kNoiseWeight), std::max(0.0, left()));
    if (backend) {
      SweepOptions again = sweep_;
      again.sizes = {largest, largest, 1, 2};
      again.record_arrivals = false;
      again.check_iters = 0;
      double per_iter_s = 0;  // both placements of every collective at the largest size
      for (const Sweep& s : report.sweeps) {
        if (s.points.empty()) continue;
        for (const auto* pl : {&s.points.back().out_of_place, &s.points.back().in_place}) {
          if (pl->has_value()) per_iter_s += (*pl)->time_us / 1e6;
        }
      }
      // Rank 0's figure decides, so every rank runs as many.
      auto iters =
          agree_number(ctx, per_iter_s > 0 ? std::clamp(static_cast<int>(half / 2 / per_iter_s) - 1, 2, sweep_.iters)
                                           : sweep_.iters);
      if (!iters.ok()) end_job_on_failure(*job, progress, iters.status());
      again.iters = *iters;
      for (int repeat = 0; repeat < 2; ++repeat) {
        auto plan = plan_sweeps(ctx, *backend, again);
        if (!plan.ok()) end_job_on_failure(*job, progress, plan.status());
        auto sweeps = run_sweeps(**plan, nullptr, &progress, phases.counters());
        if (!sweeps.ok()) end_job_on_failure(*job, progress, sweeps.status());
        for (const Sweep& s : *sweeps) add_collective_repeat(report, s);
      }
    }
    if (transport && report.p2p) {
      P2pOptions repeat = links;
      if (links_s > 0) {
        repeat.iters = std::clamp(static_cast<int>(links.iters * half / links_s), 16, links.iters);
      }
      auto agreed = agree_number(ctx, repeat.iters);
      if (!agreed.ok()) end_job_on_failure(*job, progress, agreed.status());
      repeat.iters = *agreed;
      auto again = run_p2p(ctx, *transport, repeat, &progress, phases.counters());
      if (!again.ok()) end_job_on_failure(*job, progress, again.status());
      // Kept apart from the link matrix, whose findings judge its first measurement and the retests.
      report.diagnosis->link_noise = link_variation(*report.p2p, again->links);
    }
    phases.end();
  }
  if (!profile_unavailable.empty() && ctx.rank() == 0) {
    report.nccl_profile = build_profile_section({}, {}, profile_unavailable);
  }
  if (!backend_options.nccl_profile_dir.empty()) {
    // NCCL finalizes its communicators, and the plugin writes what it gathered.
    progress.update("diagnose: reading NCCL's profile");
    transport.reset();
    backend.reset();
    if (Status st = collect_nccl_profile(ctx, backend_options, library, report); !st.ok()) {
      end_job_on_failure(*job, progress, st);
    }
  }
  progress.clear();

  report.context = make_run_context(ctx, backend ? backend->name() : std::string_view(entry->name), library,
                                    memory_kind, common.command_line);
  record_nccl_options(report.context, ctx, common.backend_options);
  report.fabric = fabric;
  analyze_diagnosis(report);
  if (expectations) add_expectation_findings(report, *expectations);
  return finish_job(*job, report);
}

}  // namespace

std::unique_ptr<Command> make_diagnose_command() { return std::make_unique<DiagnoseCommand>(); }

}  // namespace fabscope
