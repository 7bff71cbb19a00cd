// --nccl-profile over the nccl backend: NCCL loads fabscope's profiler plugin
// (src/nccl_profiler), which writes each rank's step-state sums into a directory of that
// rank's own when the communicator is destroyed; then every rank reads its file and its
// NCCL log's channel lines, and rank 0 puts the ranks' parts together into the report's
// nccl_profile section (diag/nccl_profile.h).
#pragma once

#include <string>
#include <string_view>

#include "backend/registry.h"
#include "comm/context.h"
#include "core/status.h"
#include "report/report.h"

namespace fabscope {

// The plugin: $FABSCOPE_NCCL_PROFILER, else libnccl-profiler-fabscope.so beside the
// fabscope binary, else in ../lib from it. Not found: an error naming where it looked.
Result<std::string> find_nccl_profiler_plugin();

// Before the backend is created, on every rank: the job's backend must be nccl, the
// plugin found, this rank's directory made, `options` told both. All ranks agree (one
// rank's error is every rank's).
Status prepare_nccl_profile(const RankContext& ctx, std::string_view backend, BackendOptions& options);

// After the backend is destroyed (NCCL has finalized its communicator): each rank's
// profile and channel NICs read, its directory removed; rank 0 sets report.nccl_profile.
// `library` (the backend's) says which NCCL did not load the plugin, when none did.
Status collect_nccl_profile(const RankContext& ctx, const BackendOptions& options, const std::string& library,
                            Report& report);

}  // namespace fabscope
