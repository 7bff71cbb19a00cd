// What every measuring command shares: the report's run context, and how errors
// are printed under a launcher.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <functional>
#include <memory>
#include <optional>

#include "app/command.h"
#include "backend/registry.h"
#include "comm/context.h"
#include "core/log.h"
#include "core/progress.h"
#include "diag/expectations.h"
#include "diag/nccl_profile.h"
#include "report/report.h"
#include "report/reporter.h"

namespace fabscope {

// Errors go to stderr as "fabscope: error: ...".
void print_error(const std::string& message);
// True when a launcher (mpirun, srun) started this process.
bool launched_by_mpi();
// For a bad command line under a launcher: rank 0 prints `message`, then every rank
// waits for it, so no rank's early exit gets rank 0 killed before it could say why.
void report_usage_error(const std::string& message, int* argc, char*** argv);

// A measuring command's start: MPI up, the command's own checks, the backend name and
// its options, and the outputs agreed usable by every rank (rank 0 alone writes: it has the reporters
// for stdout and the files asked for; the others have none). On failure rank 0 has
// printed why.
struct JobStart {
  std::unique_ptr<RankContext> ctx;
  const BackendEntry* backend = nullptr;
  Logger log;
  std::unique_ptr<Reporters> out;
};
Result<JobStart> start_job(int* argc, char*** argv, const std::function<Status(const RankContext&)>& check_options,
                           const std::string& backend, const CommonOptions& common);
// --expect FILE: read into `out` when a path was given; none given is Ok.
Status load_expectations_if_given(const std::string& path, std::optional<Expectations>& out);
// The same for a measuring command: rank 0 reads it (the others leave `out` empty).
Status load_expectations_on_rank0(const RankContext& ctx, const std::string& path, std::optional<Expectations>& out);
// --fabric FILE (Slurm's topology.conf): read by rank 0, its text sent to every rank,
// which parses it (every rank plans the same link rounds from it), with
// --oversubscription. Nothing when empty.
Status load_fabric(const RankContext& ctx, const std::string& path, double oversubscription,
                   std::optional<FabricDescription>& out);
// The channels' NICs from NCCL_DEBUG=INFO logs: files or directories (`--nccl-log`).
Result<std::vector<ChannelNic>> read_channel_nics(const std::vector<std::string>& paths);
// --oversubscription R: at least 1 and finite, with --fabric (what it describes).
Status check_oversubscription(double ratio, const std::string& fabric_path);
// The option, as p2p and diagnose add it.
inline constexpr const char* kOversubscriptionHelp =
    "With --fabric: each leaf's host-facing capacity over its uplinks' (2 for 2:1, default 1): links across "
    "leaves are judged against the share of the uplinks each gets in its round, so a fabric that performs as "
    "described raises nothing";
// A failure in the middle of measuring: the other ranks may be waiting inside a
// collective, so the whole job ends here, with the failure's exit code.
[[noreturn]] void end_job_on_failure(const JobStart& job, Progress& progress, const Status& status);
// The end of a run: the verdict the findings decide, then every output finished
// (JobStart::out: rank 0's, the others have none); a failure to write one is printed.
CommandOutcome finish_report(Reporter& out, Report& report);
// finish_report for a job under a launcher, collective: every rank returns rank 0's
// outcome (verdict or failure), so every rank's exit code is the job's.
CommandOutcome finish_job(const JobStart& job, Report& report);
// Agrees `local` across ranks; when any failed, rank 0 prints the failure, returned on every rank.
Status agree_or_report(const RankContext& ctx, const Status& local);

// Options that only one backend takes, checked against the backend the job uses, and
// --nccl-debug-dir's directory on this rank's host. Every rank calls it (and agrees).
Status check_backend_options(const BackendEntry& backend, const BackendOptions& options);
// The report's record of the nccl backend's options: --nccl-debug-dir (each rank's file,
// as that rank named it) and --share-gpus.
void record_nccl_options(RunContext& context, const RankContext& ctx, const BackendOptions& options);

RunContext make_run_context(const RankContext& ctx, std::string_view backend, const std::string& library,
                            std::string_view memory, const std::vector<std::string>& command_line);

// The run context of a command that runs as one process without MPI (topo offline, or
// live on one node): this process as rank 0 of 1; backend and memory "none".
RunContext make_local_run_context(const std::vector<std::string>& command_line);

}  // namespace fabscope
