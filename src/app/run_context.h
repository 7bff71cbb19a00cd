// What every measuring command shares: the report's run context, and how errors
// are printed under a launcher.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <functional>
#include <memory>
#include <optional>

#include "backend/registry.h"
#include "comm/context.h"
#include "core/log.h"
#include "report/report.h"

namespace fabscope {

// A measuring command's start: MPI up, the command's own checks, the backend name and
// the report path agreed usable by every rank. On failure rank 0 has printed why.
struct JobStart {
  std::unique_ptr<RankContext> ctx;
  const BackendEntry* backend = nullptr;
  Logger log;
};
Result<JobStart> start_job(int* argc, char*** argv, const std::function<Status(const RankContext&)>& check_options,
                           const std::string& backend, const std::optional<std::string>& json_path, LogLevel level);
// Agrees `local` across ranks; when any failed, rank 0 prints the failure, returned on every rank.
Status agree_or_report(const RankContext& ctx, const Status& local);

// Options that only one backend takes, checked against the backend the job uses, and
// --nccl-debug-dir's directory on this rank's host. Every rank calls it (and agrees).
Status check_backend_options(const BackendEntry& backend, const BackendOptions& options);
// The report's record of --nccl-debug-dir: each rank's file, as that rank named it.
std::optional<NcclDebugLog> nccl_debug_log(const RankContext& ctx, const BackendOptions& options);

RunContext make_run_context(const RankContext& ctx, std::string_view backend, const std::string& library,
                            std::string_view memory, const std::vector<std::string>& command_line);

// The run context of a command that runs as one process without MPI (topo offline, or
// live on one node): this process as rank 0 of 1; backend and memory "none".
RunContext make_local_run_context(const std::vector<std::string>& command_line);

}  // namespace fabscope
