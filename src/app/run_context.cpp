#include "app/run_context.h"

#include "topo/readers.h"

#include <cmath>

#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include <fmt/format.h>
#include "app/command.h"
#include "backend/host_memory.h"
#include "backend/nccl/nccl_plan.h"
#include "backend/tcp/tcp_transport.h"

#include "core/atomic_file.h"
#include "core/clock.h"
#include "core/env.h"
#include "diag/fabric.h"
#include "fabscope/version.h"

extern char** environ;

namespace fabscope {

Status agree_or_report(const RankContext& ctx, const Status& local) {
  Status s = ctx.agree(local);
  if (!s.ok() && ctx.rank() == 0) print_error(s.message());  // while MPI is up, before any rank exits
  return s;
}

Result<JobStart> start_job(int* argc, char*** argv, const std::function<Status(const RankContext&)>& check_options,
                           const std::string& backend, const CommonOptions& common) {
  auto created = RankContext::create(argc, argv);
  if (!created.ok()) {
    print_error(created.status().message());
    return created.status();
  }
  JobStart job;
  job.ctx = std::move(*created);
  const RankContext& ctx = *job.ctx;
  job.log = Logger(common.log_level, fmt::format("[r{} {}]", ctx.rank(), ctx.host()));
  job.out = ctx.rank() == 0 ? make_reporters(common.output_files(), stdout) : make_reporters({}, nullptr);
  // Checks that need no data moved: identical on every rank, except the outputs, which
  // rank 0 alone writes. All ranks agree before going on, so none hangs.
  Status local = check_options(ctx);
  if (local.ok()) {
    auto selected = select_backend(backend);
    if (selected.ok()) {
      job.backend = *selected;
    } else {
      local = selected.status();
    }
  }
  if (local.ok()) local = job.out->preflight();
  FABSCOPE_RETURN_IF_ERROR(agree_or_report(ctx, local));
  // The backend's own options, and --nccl-debug-dir's directory on each rank's host.
  FABSCOPE_RETURN_IF_ERROR(agree_or_report(ctx, check_backend_options(*job.backend, common.backend_options)));
  // The heartbeat, so that a watchdog that fires names the rank that stopped answering.
  // On the address the tcp backend would use; without one the job runs, and a hang
  // message says less.
  if (common.timeout_s > 0) {
    TcpOptions where;
    where.interface = common.backend_options.tcp_interface;
    where.address = common.backend_options.tcp_address;
    auto address = choose_tcp_address(where, ctx.all_on_one_node());
    // No address: the tcp backend, if it is the job's, says why itself.
    Status s = ctx.agree(address.ok() ? Status::Ok() : address.status());
    if (s.ok()) {
      s = job.ctx->start_heartbeat(*address, std::min(1.0, common.timeout_s / 4));
      if (!s.ok() && ctx.rank() == 0) {
        job.log.warn("no heartbeat between ranks ({}): a hang will end the job without naming the rank", s.message());
      }
    } else {
      job.log.info("no heartbeat between ranks: {}", s.message());
    }
  }
  return job;
}

void end_job_on_failure(const JobStart& job, Progress& progress, const Status& status) {
  progress.clear();
  job.log.error("{}", status.message());
  job.ctx->abort(exit_code_for(status));
}

Status load_expectations_on_rank0(const RankContext& ctx, const std::string& path, std::optional<Expectations>& out) {
  return ctx.rank() == 0 ? load_expectations_if_given(path, out) : Status::Ok();
}

Result<std::vector<ChannelNic>> read_channel_nics(const std::vector<std::string>& paths) {
  std::vector<ChannelNic> channels;
  for (const std::string& path : paths) {
    auto texts = topo::read_nccl_log_paths(path);
    if (!texts.ok()) return texts.status();
    for (const auto& [file, text] : *texts) {
      auto c = topo::nccl_log_channels(text, file);
      if (!c.ok()) return c.status();
      channels.insert(channels.end(), c->begin(), c->end());
    }
  }
  return channels;
}

Status check_oversubscription(double ratio, const std::string& fabric_path) {
  if (!std::isfinite(ratio) || ratio < 1) {
    return Status::Invalid(fmt::format(
        "--oversubscription {}: a leaf's host-facing capacity over its uplinks', at least 1 (2 for 2:1)", ratio));
  }
  if (ratio != 1 && fabric_path.empty()) {
    return Status::Invalid(
        fmt::format("--oversubscription {} describes the leaves of --fabric; give --fabric too", ratio));
  }
  return Status::Ok();
}

Status load_fabric(const RankContext& ctx, const std::string& path, double oversubscription,
                   std::optional<FabricDescription>& out) {
  if (path.empty()) return Status::Ok();
  std::string mine;
  if (ctx.rank() == 0) {
    auto text = read_file(path);
    mine = text.ok() ? "text\n" + *text : "error\n" + std::string(text.status().message());
  }
  auto shared = ctx.broadcast(mine, 0);
  if (!shared.ok()) return shared.status();
  const size_t eol = shared->find('\n');
  const std::string_view kind = std::string_view(*shared).substr(0, eol);
  const std::string_view body =
      eol == std::string::npos ? std::string_view() : std::string_view(*shared).substr(eol + 1);
  if (kind != "text") return Status::Invalid(fmt::format("--fabric {}: {}", path, body));
  auto fabric = parse_slurm_topology(body, path);
  if (!fabric.ok()) return Status::Invalid(fmt::format("--fabric: {}", fabric.status().message()));
  out = std::move(*fabric);
  out->oversubscription = oversubscription;
  return Status::Ok();
}

Status load_expectations_if_given(const std::string& path, std::optional<Expectations>& out) {
  if (path.empty()) return Status::Ok();
  auto e = load_expectations(path);
  if (!e.ok()) return e.status();
  out = std::move(*e);
  return Status::Ok();
}

CommandOutcome finish_report(Reporter& out, Report& report) {
  CommandOutcome outcome;
  report.context.end_time = utc_timestamp();
  decide_verdict(report);
  outcome.verdict_failed = report.verdict.result == VerdictResult::kFail;
  outcome.verdict_inconclusive = report.verdict.result == VerdictResult::kInconclusive;
  outcome.status = out.finish(report);
  if (!outcome.status.ok()) print_error(outcome.status.message());
  return outcome;
}

CommandOutcome finish_job(const JobStart& job, Report& report) {
  // Every rank's peak resident set, for the report (and the memory estimate's test).
  const RankContext& c = *job.ctx;
  const double my_peak = static_cast<double>(peak_rss_bytes().value_or(0));
  auto peaks = c.gather(std::span<const double>(&my_peak, 1));
  if (peaks.ok() && c.rank() == 0) {
    for (RankEntry& r : report.context.ranks) {
      const size_t i = static_cast<size_t>(r.rank);
      if (i < peaks->size() && (*peaks)[i] > 0) r.peak_rss_bytes = static_cast<uint64_t>((*peaks)[i]);
    }
  }
  CommandOutcome outcome = finish_report(*job.out, report);
  // Rank 0 decided (the others' reports are partial): every rank exits as it does, so a
  // launcher that reports any one rank's exit code reports the verdict.
  const RankContext& ctx = *job.ctx;
  std::string mine;
  if (ctx.rank() == 0) {
    mine = outcome.status.ok() ? (outcome.verdict_failed ? "fail" : "pass")
                               : fmt::format("error {}", exit_code_for(outcome.status));
  }
  auto agreed = ctx.broadcast(mine, 0);
  if (!agreed.ok()) return {agreed.status()};
  if (ctx.rank() != 0) {
    if (agreed->rfind("error ", 0) == 0) {
      const int code = std::atoi(agreed->c_str() + 6);
      outcome.status = code == kExitUsage ? Status::Invalid("rank 0 could not finish the report")
                                          : Status::Runtime("rank 0 could not finish the report");
    } else {
      outcome.verdict_failed = *agreed == "fail";
    }
  }
  return outcome;
}

Status check_backend_options(const BackendEntry& backend, const BackendOptions& options) {
  // Each backend's own options: given with another backend, they would be ignored.
  static const std::map<std::string, std::string_view> kOwner = {{"--tcp-if", "tcp"},
                                                                 {"--tcp-addr", "tcp"},
                                                                 {"--tcp-cc", "tcp"},
                                                                 {"--verbs-device", "verbs"},
                                                                 {"--verbs-port", "verbs"},
                                                                 {"--qps", "verbs"},
                                                                 {"--verbs-gid-index", "verbs"},
                                                                 {"--nccl-debug-dir", "nccl"},
                                                                 {"--share-gpus", "nccl"}};
  for (const std::string& name : options.given) {
    auto it = kOwner.find(name);
    if (it != kOwner.end() && it->second != backend.name) {
      return Status::Invalid(
          fmt::format("{} is an option of the {} backend; this job uses backend '{}'", name, it->second, backend.name));
    }
  }
  if (options.given.count("--tcp-if") && options.given.count("--tcp-addr")) {
    return Status::Invalid(fmt::format(
        "give either --tcp-if {} or --tcp-addr {}, not both: each chooses the address the tcp backend listens on",
        options.tcp_interface, options.tcp_address));
  }
  if (options.given.count("--qps") && options.verbs_qps < 1) {
    return Status::Invalid(
        fmt::format("--qps {} is not allowed; use 1 or more queue pairs per peer", options.verbs_qps));
  }
  if (options.nccl_debug_dir.empty()) return Status::Ok();
  return check_nccl_debug_dir(options.nccl_debug_dir);
}

void record_nccl_options(RunContext& context, const RankContext& ctx, const BackendOptions& options) {
  context.gpus_shared = options.share_gpus;
  if (options.nccl_debug_dir.empty()) return;
  NcclDebugLog log;
  log.dir = options.nccl_debug_dir;
  log.subsys = std::string(kNcclDebugSubsys);
  for (const RankInfo& r : ctx.ranks()) log.files.push_back(nccl_debug_file(options.nccl_debug_dir, r.host, r.rank));
  context.nccl_debug = std::move(log);
}

RunContext make_run_context(const RankContext& ctx, std::string_view backend, const std::string& library,
                            std::string_view memory, const std::vector<std::string>& command_line) {
  RunContext c;
  c.tool.version = build::kVersion;
  c.tool.git_id = build::kGitId;
  c.command_line = command_line;
  c.start_time = utc_timestamp();
  c.backend = std::string(backend);
  c.backend_library = library;
  c.memory = std::string(memory);
  auto opt = [](const char* v) { return *v ? std::optional<std::string>(v) : std::nullopt; };
  c.build = {{"cuda", opt(build::kCudaVersion)},
             {"nccl", opt(build::kNcclVersion)},
             {"libibverbs", opt(build::kVerbsVersion)}};
  c.nranks = ctx.size();
  std::set<std::string> seen;
  for (const RankInfo& r : ctx.ranks()) {
    c.ranks.push_back({r.rank, r.host, r.pid, r.local_rank});
    if (seen.insert(r.host).second) c.hosts.push_back(r.host);
  }
  c.environment = reported_environment(environ);
  return c;
}

namespace {
std::string local_hostname() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return host;
}
}  // namespace

RunContext make_local_run_context(const std::vector<std::string>& command_line) {
  RunContext c;
  c.tool.version = build::kVersion;
  c.tool.git_id = build::kGitId;
  c.command_line = command_line;
  c.start_time = utc_timestamp();
  c.backend = "none";
  c.memory = "none";
  auto opt = [](const char* v) { return *v ? std::optional<std::string>(v) : std::nullopt; };
  c.build = {{"cuda", opt(build::kCudaVersion)},
             {"nccl", opt(build::kNcclVersion)},
             {"libibverbs", opt(build::kVerbsVersion)}};
  c.nranks = 1;
  std::string host = local_hostname();
  c.hosts = {host};
  c.ranks = {{0, host, static_cast<int>(getpid()), 0}};
  c.environment = reported_environment(environ);
  return c;
}

void print_error(const std::string& message) {
  std::fprintf(stderr, "fabscope: error: %s\n", message.c_str());
  std::fflush(stderr);
}

bool launched_by_mpi() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "SLURM_PROCID"}) {
    if (std::getenv(var) != nullptr) return true;
  }
  return false;
}

void report_usage_error(const std::string& message, int* argc, char*** argv) {
  if (!launched_by_mpi()) {
    print_error(message);
    return;
  }
  auto ctx = RankContext::create(argc, argv);
  if (!ctx.ok() || (*ctx)->rank() == 0) print_error(message);
  if (ctx.ok()) (void)(*ctx)->barrier();
}

}  // namespace fabscope
