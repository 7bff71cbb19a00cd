// `fabscope topo`: the topology phase. Offline it reads the files an operator has;
// live it reads this node through hwloc and sysfs, and under mpirun every node: each
// node's first rank reads and analyses its node (with every local rank's CPU binding),
// and rank 0 puts the nodes together and compares them.
#include <fmt/format.h>

#include <sched.h>
#include <unistd.h>
#include <cmath>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "app/command.h"
#include "app/run_context.h"
#include "app/topo_live.h"
#include "comm/context.h"
#include "core/text.h"
#include "report/model_json.h"
#include "topo/mapping.h"
#include "topo/readers.h"
#include "topo/topo_report.h"

namespace fabscope {

namespace {

class TopoCommand final : public Command {
 public:
  TopoCommand() : files_(topo::topology_readers().size()) {}

  void add_options(CLI::App& app) override {
    const auto readers = topo::topology_readers();
    for (size_t i = 0; i < readers.size(); ++i) {
      app.add_option(std::string(readers[i].option), files_[i], std::string(readers[i].help));
    }
    app.add_option("--nccl-env", nccl_env_, "A shell env file whose NCCL_IB_HCA applies (repeatable)");
    app.add_option("--nccl-ib-hca", nccl_ib_hca_,
                   "Judge every host by this NCCL_IB_HCA (default: each host's own from its log, an env file, or the "
                   "environment)");
    app.add_option("--host", host_, "Offline: all files describe this one host");
    app.add_option("--expect-rate", expect_rate_gbits_,
                   "Expected port rate in Gb/s; active ports below it are degraded (default: compare with peers)");
  }

  CommandOutcome run(const CommonOptions& common, int* argc, char*** argv) override;

 private:
  bool offline() const {
    return !nccl_env_.empty() || std::any_of(files_.begin(), files_.end(), [](const auto& f) { return !f.empty(); });
  }
  Status validate() const;
  Status read_inputs(topo::TopologySet& set, std::map<std::string, std::string>& env, std::string& env_origin) const;
  topo::AnalysisOptions analysis_options(const std::map<std::string, std::string>& env,
                                         const std::string& env_origin) const;
  CommandOutcome run_local(const CommonOptions& common) const;
  CommandOutcome run_mpi(const CommonOptions& common, int* argc, char*** argv) const;

  std::vector<std::vector<std::string>> files_;  // per entry of topo::topology_readers()
  std::vector<std::string> nccl_env_;            // env files whose NCCL_IB_HCA applies
  std::optional<std::string> nccl_ib_hca_;
  std::optional<std::string> host_;  // offline: every file describes this one host
  double expect_rate_gbits_ = 0;
};

Status TopoCommand::validate() const {
  if (!(expect_rate_gbits_ >= 0) || std::isinf(expect_rate_gbits_)) {
    return Status::Invalid(fmt::format(
        "--expect-rate {:g}: a rate in Gb/s must be 0 (none) or a finite positive number", expect_rate_gbits_));
  }
  if (host_ && host_->empty()) return Status::Invalid("--host: give a host name");
  if (host_ && !offline()) return Status::Invalid("--host names the host files describe; give at least one file");
  return Status::Ok();
}

// Reads every file into `set`, reader by reader; with --host, each file's hosts merge
// into that one.
Status TopoCommand::read_inputs(topo::TopologySet& set, std::map<std::string, std::string>& env,
                                std::string& env_origin) const {
  const auto readers = topo::topology_readers();
  for (size_t i = 0; i < readers.size(); ++i) {
    for (const std::string& file : files_[i]) {
      topo::TopologySet one;
      FABSCOPE_RETURN_IF_ERROR(topo::read_topology_input(readers[i], file, one));
      for (topo::HostTopology& h : one.hosts) topo::merge_host(set.host(host_ ? *host_ : h.host), h);
    }
  }
  for (const std::string& file : nccl_env_) {
    std::map<std::string, std::string> vars;
    FABSCOPE_RETURN_IF_ERROR(topo::read_nccl_env(file, vars));
    for (auto& [k, v] : vars) {
      if (k == "NCCL_IB_HCA") env_origin = file;
      env[k] = v;
    }
  }
  return Status::Ok();
}

topo::AnalysisOptions TopoCommand::analysis_options(const std::map<std::string, std::string>& env,
                                                    const std::string& env_origin) const {
  topo::AnalysisOptions o;
  o.ib_hca = nccl_ib_hca_;
  if (auto it = env.find("NCCL_IB_HCA"); it != env.end()) {
    o.default_ib_hca = it->second;
    o.default_ib_hca_origin = env_origin;
  }
  o.expect_rate_gbits = expect_rate_gbits_;
  return o;
}

CommandOutcome TopoCommand::run(const CommonOptions& common, int* argc, char*** argv) {
  if (Status s = validate(); !s.ok()) {
    report_usage_error(s.message(), argc, argv);
    return {s};
  }
  if (launched_by_mpi()) {
    if (offline()) {
      Status s = Status::Invalid(
          "topo reads files in one process: run it without mpirun, or give no file to examine every node live");
      report_usage_error(s.message(), argc, argv);
      return {s};
    }
    return run_mpi(common, argc, argv);
  }
  return run_local(common);
}

// One process, no MPI: the files, or this node.
CommandOutcome TopoCommand::run_local(const CommonOptions& common) const {
  auto out = make_reporters(common.output_files(), stdout);
  Report report;
  report.context = make_local_run_context(common.command_line);
  topo::TopologySet set;
  std::map<std::string, std::string> env;
  std::string env_origin;
  Status s = out->preflight();
  if (s.ok() && offline()) s = read_inputs(set, env, env_origin);
  if (s.ok() && !offline()) {
    const std::string host = report.context.hosts.front();
    s = topo::read_hwloc_live(host, set);
    if (s.ok()) {
      topo::HostTopology& h = set.host(host);
      h.ranks.push_back({0, 0, gpu_for_local_rank(h, 0), own_binding()});
      if (const char* v = std::getenv("NCCL_IB_HCA")) {
        env["NCCL_IB_HCA"] = v;
        env_origin = "environment";
      }
    }
  }
  auto analyses = s.ok() ? topo::analyze_topology(set, analysis_options(env, env_origin), report.findings)
                         : Result<std::vector<topo::HostAnalysis>>(s);
  if (!analyses.ok()) {
    print_error(analyses.status().message());
    return {analyses.status()};
  }
  report.topology = topo::topology_section(set, *analyses);
  // Files may describe part of a host: what a judgement would need and they lack makes
  // the verdict inconclusive, not pass. (A live host is read whole.)
  if (offline()) report.verdict.missing = topo::missing_inputs(set, *analyses);
  return finish_report(*out, report);
}

// Under a launcher: every node, compared.
CommandOutcome TopoCommand::run_mpi(const CommonOptions& common, int* argc, char*** argv) const {
  auto job = start_job(
      argc, argv, [&](const RankContext&) { return Status::Ok(); }, "mpi", common);
  if (!job.ok()) return {job.status()};
  const RankContext& ctx = *job->ctx;
  Report report;
  std::map<std::string, std::string> no_env;
  if (Status s = gather_topology(ctx, analysis_options(no_env, ""), report); !s.ok()) return {s};
  if (ctx.rank() != 0) return {};
  report.context = make_run_context(ctx, "mpi", "", "host", common.command_line);
  report.context.backend = "none";
  report.context.memory = "none";
  return finish_report(*job->out, report);
}

}  // namespace

std::unique_ptr<Command> make_topo_command() { return std::make_unique<TopoCommand>(); }

}  // namespace fabscope
