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
#include "app/measuring_job.h"
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
#include "soak/soak.h"
#include "topo/readers.h"

namespace fabscope {

namespace {

// The phases, in the order they run. Attribution, findings and the verdict always follow.
constexpr std::string_view kPhases[] = {"topology", "collective", "links", "counters", "noise"};
// The measuring phases' shares of the budget (of those asked for): kCollectiveWeight,
// kLinksWeight, kNoiseWeight (p2p/schedule.h, shared with the fabric simulator).
// The fewest timed iterations per size the collective phase's share must hold.
constexpr int kMinIters = 3;
constexpr int kMaxIters = 50;
constexpr double kMaxBudgetS = 86400;
// Of the budget, kept for starting up, the analysis and writing the outputs.
constexpr double kReserve = kDiagnoseReserve;

std::string phase_names() {
  std::string s;
  for (std::string_view p : kPhases) s += (s.empty() ? "" : ", ") + std::string(p);
  return s;
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
    app.add_option("--oversubscription", oversubscription_, kOversubscriptionHelp);
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
  std::string max_bytes_ = "16M";  // kDiagnoseLargestBytes (p2p/schedule.h), which the fabric simulator assumes
  uint64_t step_factor_ = 4;
  std::string dtypes_ = "float";
  std::string ops_ = "sum";
  std::string phases_ = "all";
  double budget_s_ = 60;
  std::string expect_path_;
  std::string schedule_ = "auto";
  std::string fabric_path_;
  double oversubscription_ = 1;
  bool nccl_profile_ = true;
  CLI::Option* nccl_profile_option_ = nullptr;
  std::string import_profile_;
  std::vector<std::string> nccl_logs_;

  CommandOutcome run_import(const CommonOptions& common);
  // A live diagnose, phase by phase (each returns a failure every rank met alike).
  CommandOutcome run_phases();
  Status prepare_profile();
  Status topology_phase();
  Status collective_phase();
  Result<int> calibrate();
  // The collective phase measures only the first `kept` sizes: the plan's largest size
  // (and the size attributed) becomes the last kept, and the report says what was left.
  void keep_smaller_sizes(const std::map<uint64_t, double>& size_s, size_t kept, double calibration_s,
                          double iteration_s, double collective_share);
  Status links_phase();
  Result<LinkPlan> plan_link_rounds(const std::vector<RankPlace>& places, uint64_t chunk,
                                    LinkPlanOptions& plan_options);
  Status noise_phase();
  void repeat_collective(double seconds);
  void repeat_links(double seconds);
  Status read_profile();
  std::optional<TcpIdleRestarts> tcp_idle_restarts() const;
  CommandOutcome finish();

  std::vector<std::string> phases_run_;
  SweepOptions sweep_;
  double start_s_ = 0;      // when the command started
  double measuring_s_ = 0;  // what the measuring phases share

  // What the phases hand on to each other.
  MeasuringJob* job_ = nullptr;
  const CommonOptions* common_ = nullptr;
  BackendOptions backend_options_;
  std::optional<Expectations> expectations_;  // rank 0's
  std::optional<FabricDescription> fabric_;   // every rank's
  std::string profile_unavailable_;           // why the default --nccl-profile could not be
  Report report_;
  std::optional<Phases> phase_log_;  // each phase's progress line, seconds and counter samples
  uint64_t largest_ = 0;             // the size attributed
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Transport> transport_;
  std::string library_;
  std::string memory_kind_ = "host";
  double busbw_estimate_ = 0;  // GB/s at the largest size: what the link matrix can expect
  P2pOptions links_;
  double links_s_ = 0;  // the link phase's seconds
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
  if (Status s = check_oversubscription(oversubscription_, fabric_path_); !s.ok()) return s;
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

// Each run's arrivals of a collective at its largest size (none where not recorded), in the
// order of CollectiveRepeats::time_us, by collective and size.
using RunArrivals = std::map<std::pair<std::string, uint64_t>, std::vector<std::optional<ArrivalSplit>>>;

// The noise phase's repeat of the collective `s` at its largest size, added to its
// figures (the collective phase's first) and their coefficient of variation; its arrivals
// to `arrivals`.
void add_collective_repeat(Report& report, const Sweep& s, RunArrivals& arrivals) {
  if (s.points.empty() || !s.points.back().out_of_place) return;
  auto& reps = report.diagnosis->collective_noise;
  const uint64_t size = s.points.back().size_bytes;
  auto& runs = arrivals[{s.collective, size}];
  auto it = std::find_if(reps.begin(), reps.end(), [&](const CollectiveRepeats& r) {
    return r.collective == s.collective && r.size_bytes == size;
  });
  if (it == reps.end()) {
    CollectiveRepeats r;
    r.collective = s.collective;
    r.size_bytes = size;
    for (const Sweep& first : report.sweeps) {  // the collective phase's figure comes first
      if (first.collective == s.collective && !first.points.empty() && first.points.back().out_of_place) {
        r.time_us.push_back(first.points.back().out_of_place->time_us);
        runs.push_back(first.points.back().out_of_place->arrivals);
        break;
      }
    }
    reps.push_back(std::move(r));
    it = reps.end() - 1;
  }
  it->time_us.push_back(s.points.back().out_of_place->time_us);
  runs.push_back(s.points.back().out_of_place->arrivals);
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
  if (s.ok()) {
    auto read = read_channel_nics(nccl_logs_);
    if (read.ok()) {
      channels = std::move(*read);
    } else {
      s = read.status();
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
  auto started = MeasuringJob::start(
      argc, argv,
      [&](const RankContext& ctx) {
        if (!parsed.ok()) return parsed;
        if (Status s = load_fabric(ctx, fabric_path_, oversubscription_, fabric_); !s.ok()) return s;
        return load_expectations_on_rank0(ctx, expect_path_, expectations_);
      },
      common);
  if (!started.ok()) return {started.status()};
  job_ = started->get();
  common_ = &common;
  backend_options_ = common.backend_options;
  const CommandOutcome outcome = run_phases();
  // The backend and transport hold MPI communicators: freed before the job ends MPI.
  transport_.reset();
  backend_.reset();
  return outcome;
}

// The phases in order; a failure every rank met alike was printed by rank 0 and ends
// the command here, one in the middle of measuring ended the job (MeasuringJob::measured).
CommandOutcome DiagnoseCommand::run_phases() {
  for (Status (DiagnoseCommand::*step)() :
       {&DiagnoseCommand::prepare_profile, &DiagnoseCommand::topology_phase, &DiagnoseCommand::collective_phase,
        &DiagnoseCommand::links_phase, &DiagnoseCommand::noise_phase, &DiagnoseCommand::read_profile}) {
    if (Status s = (this->*step)(); !s.ok()) return {s};
  }
  return finish();
}

// --nccl-profile: on by default with the nccl backend, where the diagnosis goes on
// without it if it cannot be had (and says why); asked for, its failure ends the command.
Status DiagnoseCommand::prepare_profile() {
  const RankContext& ctx = job_->ctx();
  const std::string_view backend = job_->backend_entry().name;
  const bool asked = nccl_profile_option_ != nullptr && nccl_profile_option_->count() > 0;
  if (!nccl_profile_ || (backend != "nccl" && !asked)) return Status::Ok();
  const Status s = prepare_nccl_profile(ctx, backend, backend_options_);
  if (s.ok() || asked || backend != "nccl") return job_->alike(s);
  if (ctx.rank() == 0) job_->log().warn("{}; diagnosing without NCCL's profile", s.message());
  profile_unavailable_ = s.message();
  return Status::Ok();
}

Status DiagnoseCommand::topology_phase() {
  report_.diagnosis = Diagnosis();
  report_.verdict.not_judged = drop_phases_between_ranks(job_->ctx().size(), phases_run_);  // one rank: no links
  report_.diagnosis->phases = phases_run_;
  report_.diagnosis->budget_s = budget_s_;
  phase_log_.emplace(job_->progress(), report_, wants("counters"),
                     phases_run_.size() - (wants("counters") ? 1 : 0));  // counters run around the others
  const std::vector<uint64_t> sizes = expand(sweep_.sizes);
  largest_ = sizes.empty() ? sweep_.sizes.max_bytes : sizes.back();  // the size attributed
  if (wants("topology")) {
    phase_log_->begin("topology", "every node's GPUs, NICs and paths");
    FABSCOPE_RETURN_IF_ERROR(gather_topology(job_->ctx(), topo::AnalysisOptions(), report_));
    phase_log_->end();
  }
  measuring_s_ = std::max(0.0, left());
  return Status::Ok();
}

// A pass over the sizes with one timed iteration: the iterations per size that fit the
// collective's share of the budget, agreed by every rank (rank 0's figure decides), or
// an error saying what budget would do. Also the bus bandwidth the link matrix can expect.
Result<int> DiagnoseCommand::calibrate() {
  SweepOptions calibration = sweep_;
  calibration.iters = 1;
  calibration.warmup_iters = 1;
  calibration.check_iters = 1;  // verification costs as much as the collective, or more
  auto cal_plan = plan_sweeps(job_->ctx(), *backend_, calibration);
  FABSCOPE_RETURN_IF_ERROR(job_->alike(cal_plan));
  phase_log_->begin("collective", "calibrating");
  const double t0 = steady_now_s();
  const std::vector<Sweep> cal = job_->measured(run_sweeps(**cal_plan, nullptr, &job_->progress(), nullptr));
  cal_plan->reset();
  // The calibration is a whole phase with one timed iteration: the real one costs that
  // again plus each further iteration (both placements of every size, as timed).
  const double calibration_s = steady_now_s() - t0;
  std::map<uint64_t, double> size_s;  // one timed iteration of every collective at each size
  for (const Sweep& s : cal) {
    for (const SweepPoint& p : s.points) {
      for (const auto* pl : {&p.out_of_place, &p.in_place}) {
        if (pl->has_value()) size_s[p.size_bytes] += (*pl)->time_us / 1e6;
      }
    }
    if (!s.points.empty() && s.points.back().out_of_place) {
      busbw_estimate_ = std::max(busbw_estimate_, s.points.back().out_of_place->busbw_gbps);
    }
  }
  double iteration_s = 0;
  for (const auto& [size, t] : size_s) iteration_s += t;
  iteration_s = std::max(iteration_s, 1e-6);
  const double collective_share = share(kCollectiveWeight);
  // The sizes up to the largest that fits: the calibration spent, then the phase's fixed
  // part (the calibration's share of those sizes) and at least kMinIters iterations. A
  // slow fabric keeps the smaller sizes rather than refusing to run (its slow link shows
  // at them too); only where not even the smallest fits is the budget refused. Where the
  // calibration alone took more than half the phase's share (every size at a slow link's
  // pace), the sizes kept get half the share, and the phase overruns by the difference.
  const double after_calibration = std::max(collective_share - calibration_s, collective_share / 2);
  int kept = 0;
  double kept_s = 0, room = 0;
  for (const auto& [size, t] : size_s) {
    const double with = kept_s + t;
    const double r = after_calibration - calibration_s * with / iteration_s;
    if (r < (kMinIters - 1) * with) break;
    ++kept, kept_s = with, room = r;
  }
  Result<int> iters = kept == 0 ? Result<int>(0) : std::min(kMaxIters, 1 + static_cast<int>(room / kept_s));
  if (kept == 0) {
    const double need = 2 * calibration_s + (kMinIters - 1) * iteration_s;
    iters = Status::Invalid(fmt::format(
        "--budget {:g} s is too small to measure: calibrating over the sizes ({} to {}) took {:.2f} s, and the "
        "collective phase gets {:.2f} s of the budget where it needs {:.2f} s for {} iterations; give --budget "
        "{:.0f} or more, or smaller sizes (-e)",
        budget_s_, format_size(sweep_.sizes.min_bytes), format_size(largest_), calibration_s, collective_share, need,
        kMinIters, std::ceil(budget_s_ * need / std::max(collective_share, 1e-9))));
  }
  const int agreed_kept = job_->measured(agree_number(job_->ctx(), kept));  // rank 0's figure decides
  if (agreed_kept > 0 && static_cast<size_t>(agreed_kept) < size_s.size()) {
    keep_smaller_sizes(size_s, static_cast<size_t>(agreed_kept), calibration_s, iteration_s, collective_share);
  }
  auto agreed = agree_number(job_->ctx(), iters);
  FABSCOPE_RETURN_IF_ERROR(job_->alike(agreed));
  return agreed;
}

void DiagnoseCommand::keep_smaller_sizes(const std::map<uint64_t, double>& size_s, size_t kept, double calibration_s,
                                         double iteration_s, double collective_share) {
  auto last = std::next(size_s.begin(), static_cast<std::ptrdiff_t>(kept - 1));
  const uint64_t dropped_from = std::next(last)->first;
  const uint64_t original = largest_;
  sweep_.sizes.max_bytes = last->first;
  largest_ = last->first;
  const double need = 2 * calibration_s + (kMinIters - 1) * iteration_s;
  const std::string what = fmt::format(
      "{}: --budget {:g} s holds the collective phase up to {} (calibrating {} to {} took {:.2f} s of "
      "its {:.2f} s); give --budget {:.0f} or more to measure {}",
      dropped_from == original ? fmt::format("size {}", format_size(original))
                               : fmt::format("sizes {} to {}", format_size(dropped_from), format_size(original)),
      budget_s_, format_size(largest_), format_size(sweep_.sizes.min_bytes), format_size(original), calibration_s,
      collective_share, std::ceil(budget_s_ * need / std::max(collective_share, 1e-9)),
      dropped_from == original ? "it" : "them");
  report_.verdict.not_judged.push_back(what);
  job_->progress().update("diagnose: collective: " + what);
}

// The collective: calibrated, then every size with each rank's arrivals, then a few
// calls traced message by message at the largest size.
Status DiagnoseCommand::collective_phase() {
  if (!wants("collective")) return Status::Ok();
  const RankContext& ctx = job_->ctx();
  auto created = job_->create_backend(backend_options_);
  if (!created.ok()) return created.status();
  backend_ = std::move(*created);
  library_ = backend_->library();
  memory_kind_ = std::string(backend_->memory().kind());
  auto iters = calibrate();
  if (!iters.ok()) return iters.status();
  SweepOptions o = sweep_;
  o.iters = *iters;
  o.warmup_iters = 1;
  o.check_iters = 1;
  o.record_arrivals = backend_->iteration_clock() == nullptr;  // host-timed backends
  auto plan = plan_sweeps(ctx, *backend_, o);
  FABSCOPE_RETURN_IF_ERROR(job_->alike(plan));
  job_->progress().update(fmt::format("diagnose: collective: {} iterations per size", o.iters));
  report_.sweeps = job_->measured(run_sweeps(**plan, nullptr, &job_->progress(), phase_log_->counters()));
  report_.sweep_settings = sweep_settings(o);
  sweep_ = o;
  job_->progress().update(fmt::format("diagnose: collective: tracing {} calls message by message", kTracedCalls));
  job_->measured(trace_calls(ctx, *backend_, o, largest_, common_->timeout_s, *report_.diagnosis));
  phase_log_->end();
  return Status::Ok();
}

// The link matrix's rounds: the schedule that fits three quarters of the links' share at
// the fewest iterations (a quarter is kept for suspects: more partners, then alone).
Result<LinkPlan> DiagnoseCommand::plan_link_rounds(const std::vector<RankPlace>& places, uint64_t chunk,
                                                   LinkPlanOptions& plan_options) {
  const RankContext& ctx = job_->ctx();
  const int fit = job_->measured(agree_number(ctx, link_rounds_that_fit(share(kLinksWeight), chunk, busbw_estimate_)));
  plan_options.schedule =
      schedule_ == "auto" ? pick_link_schedule(places, static_cast<size_t>(fit)) : *link_schedule_from_name(schedule_);
  plan_options.max_rounds = static_cast<size_t>(fit);
  if (schedule_ == "auto" && plan_options.schedule == LinkSchedule::kSample) {
    plan_options.max_rounds = std::min(plan_options.max_rounds, sample_rounds_within(places));
  }
  const std::map<std::string, std::string> leaf_of =
      fabric_ ? leaf_of_hosts(*fabric_) : std::map<std::string, std::string>();
  plan_options.leaf_of = fabric_ ? &leaf_of : nullptr;
  auto plan = plan_links(places, plan_options);
  plan_options.leaf_of = nullptr;  // leaf_of ends here
  FABSCOPE_RETURN_IF_ERROR(agree_or_report(ctx, plan.ok() ? Status::Ok() : plan.status()));
  return plan;
}

// The link matrix: every pair, both directions at once, at the collective's chunk size;
// suspects measured with more partners (sample schedule), then alone.
Status DiagnoseCommand::links_phase() {
  if (!wants("links")) return Status::Ok();
  const RankContext& ctx = job_->ctx();
  auto created = job_->create_transport(backend_options_);
  if (!created.ok()) return created.status();
  transport_ = std::move(*created);
  if (library_.empty()) library_ = transport_->library();
  if (Memory* m = transport_->memory()) memory_kind_ = std::string(m->kind());
  const uint64_t chunk = link_chunk_bytes(largest_, ctx.size());
  links_.pattern = P2pPattern::kPairs;
  links_.mode = P2pMode::kBidirectional;
  links_.sizes = {chunk};
  links_.window = 8;
  links_.warmup_iters = 4;
  links_.timeout_s = common_->timeout_s;
  std::vector<RankPlace> places;
  for (const RankInfo& ri : ctx.ranks()) places.push_back({ri.host, ri.local_rank});
  LinkPlanOptions plan_options;
  auto plan = plan_link_rounds(places, chunk, plan_options);
  if (!plan.ok()) return plan.status();
  links_.rounds = std::move(plan->rounds);
  const size_t nrounds = std::max<size_t>(links_.rounds.size(), 1);
  const double per_round_s = kScheduleShare * share(kLinksWeight) / static_cast<double>(nrounds);
  const double bw = busbw_estimate_ > 0 ? busbw_estimate_ : 1.0;
  // Rank 0's figures decide (the others' clocks and results differ), so every rank runs as many.
  links_.iters = job_->measured(
      agree_number(ctx, std::clamp(static_cast<int>(per_round_s * bw * 1e9 / static_cast<double>(chunk)), 16, 1000)));
  // A slow link's flow moves what it can in the round's time, not all its messages: the
  // round, and the retests and repeats after it, stay within the links' share.
  links_.round_time_s = per_round_s;
  report_.diagnosis->link_size_bytes = chunk;
  FABSCOPE_RETURN_IF_ERROR(job_->alike(validate(links_, ctx.size())));
  phase_log_->begin("links", fmt::format("{} rounds of pairs ({}), {} x {}", nrounds, name(plan_options.schedule),
                                         links_.iters, format_size(chunk)));
  Progress& progress = job_->progress();
  P2pSection section = job_->measured(run_p2p(ctx, *transport_, links_, &progress, phase_log_->counters()));
  LinkCoverage coverage;
  coverage.schedule = plan_options.schedule;
  coverage.rounds = static_cast<int>(links_.rounds.size());
  coverage.intra_leaf_rounds = static_cast<int>(plan->intra_leaf_rounds);
  const FabricDescription* fabric = fabric_ ? &*fabric_ : nullptr;
  std::vector<CounterSample> scratch;
  if (plan_options.schedule == LinkSchedule::kSample) {
    coverage.adaptive_rounds = job_->measured(
        measure_suspects(ctx, *transport_, links_, places, fabric, progress, phase_log_->counters(), section));
  }
  job_->measured(retest_alone(ctx, *transport_, links_, progress, phase_log_->counters() ? report_.counters : scratch,
                              section, fabric));
  section.coverage = coverage;
  section.backend = std::string(job_->backend_entry().name);
  report_.p2p = std::move(section);
  phase_log_->end();
  links_s_ = report_.diagnosis->timings.back().seconds;
  return Status::Ok();
}

// Noise: the collective at its largest size twice more, with `seconds` for both.
void DiagnoseCommand::repeat_collective(double seconds) {
  SweepOptions again = sweep_;
  again.sizes = {largest_, largest_, 1, 2};
  again.check_iters = 0;  // arrivals as in the collective phase: who held the others, run by run
  double per_iter_s = 0;  // both placements of every collective at the largest size
  for (const Sweep& s : report_.sweeps) {
    if (s.points.empty()) continue;
    for (const auto* pl : {&s.points.back().out_of_place, &s.points.back().in_place}) {
      if (pl->has_value()) per_iter_s += (*pl)->time_us / 1e6;
    }
  }
  // Rank 0's figure decides, so every rank runs as many.
  again.iters = job_->measured(agree_number(
      job_->ctx(),
      per_iter_s > 0 ? std::clamp(static_cast<int>(seconds / 2 / per_iter_s) - 1, 2, sweep_.iters) : sweep_.iters));
  RunArrivals arrivals;
  for (int repeat = 0; repeat < 2; ++repeat) {
    auto plan = job_->measured(plan_sweeps(job_->ctx(), *backend_, again));
    const std::vector<Sweep> sweeps =
        job_->measured(run_sweeps(*plan, nullptr, &job_->progress(), phase_log_->counters()));
    for (const Sweep& s : sweeps) add_collective_repeat(report_, s, arrivals);
  }
  for (CollectiveRepeats& rep : report_.diagnosis->collective_noise) {
    rep.held = runs_held(rep.time_us, arrivals[{rep.collective, rep.size_bytes}]);
  }
}

// Noise: the link matrix once more, with `seconds`; kept apart from the link matrix,
// whose findings judge its first measurement and the retests.
void DiagnoseCommand::repeat_links(double seconds) {
  P2pOptions repeat = links_;
  if (links_s_ > 0) repeat.iters = std::clamp(static_cast<int>(links_.iters * seconds / links_s_), 16, links_.iters);
  repeat.iters = job_->measured(agree_number(job_->ctx(), repeat.iters));
  // The agreed count's share of the round's time: every rank bounds the same rounds.
  repeat.round_time_s = links_.round_time_s * repeat.iters / std::max(links_.iters, 1);
  const P2pSection again =
      job_->measured(run_p2p(job_->ctx(), *transport_, repeat, &job_->progress(), phase_log_->counters()));
  report_.diagnosis->link_noise = link_variation(*report_.p2p, again.links);
}

// Noise: the collective at its largest size, and the link matrix, once more each.
Status DiagnoseCommand::noise_phase() {
  if (!wants("noise")) return Status::Ok();
  phase_log_->begin("noise", "the collective and the links again");
  // Half the share for the collective's two repeats, half for the links' one.
  const double half = 0.5 * std::min(share(kNoiseWeight), std::max(0.0, left()));
  if (backend_) repeat_collective(half);
  if (transport_ && report_.p2p) repeat_links(half);
  phase_log_->end();
  return Status::Ok();
}

// NCCL's profile: NCCL finalizes its communicators, and the plugin writes what it gathered.
Status DiagnoseCommand::read_profile() {
  const RankContext& ctx = job_->ctx();
  if (!profile_unavailable_.empty() && ctx.rank() == 0) {
    report_.nccl_profile = build_profile_section({}, {}, profile_unavailable_);
  }
  if (backend_options_.nccl_profile_dir.empty()) return Status::Ok();
  job_->progress().update("diagnose: reading NCCL's profile");
  transport_.reset();
  backend_.reset();
  job_->measured(collect_nccl_profile(ctx, backend_options_, library_, report_));
  return Status::Ok();
}

// Over TCP, the idle restarts of the collective's engine and the link matrix's together.
std::optional<TcpIdleRestarts> DiagnoseCommand::tcp_idle_restarts() const {
  std::optional<TcpIdleRestarts> sum;
  for (std::optional<TcpIdleRestarts> part : {backend_ ? backend_->tcp_idle_restarts() : std::nullopt,
                                              transport_ ? transport_->tcp_idle_restarts() : std::nullopt}) {
    if (!part) continue;
    if (!sum) sum = TcpIdleRestarts();
    *sum += *part;
  }
  return sum;
}

// The run context, the analysis (findings, attribution, verdict), then the outputs.
CommandOutcome DiagnoseCommand::finish() {
  job_->progress().clear();
  report_.context = job_->run_context(backend_ ? backend_->name() : std::string_view(job_->backend_entry().name),
                                      library_, memory_kind_, *common_);
  report_.fabric = fabric_;
  job_->record_tcp_idle_restarts(report_, tcp_idle_restarts());
  analyze_diagnosis(report_);
  return job_->finish(report_, expectations_);
}

}  // namespace

std::unique_ptr<Command> make_diagnose_command() { return std::make_unique<DiagnoseCommand>(); }

}  // namespace fabscope
