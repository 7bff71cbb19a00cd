// The topology phase on live nodes (topo and diagnose): this process's CPU binding, the
// GPU a local rank drives, and under a launcher every node's topology put together on
// rank 0.
#pragma once

#include "comm/context.h"
#include "core/status.h"
#include "report/report.h"
#include "topo/mapping.h"

namespace fabscope {

topo::CpuSet own_binding();
// The GPU a rank with this local rank drives, by the rule the nccl backend uses: the
// local_rank-th visible GPU (CUDA_VISIBLE_DEVICES when it lists indices); -1 for none.
int gpu_for_local_rank(const topo::HostTopology& h, int local_rank);

// Every node under a launcher: each node's first rank reads its node through hwloc and
// sysfs (with every local rank's CPU binding) and analyses it with `options` (NCCL_IB_HCA
// from that node's environment unless `options` names one); rank 0 gets
// report.topology and the findings, topo.host_differs included. Every rank calls it; a
// failure is agreed, printed by rank 0 and returned on every rank.
Status gather_topology(const RankContext& ctx, const topo::AnalysisOptions& options, Report& report);

}  // namespace fabscope
