#include "sweep/plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "backend/host_memory.h"
#include "coll/layout.h"

namespace fabscope {

uint64_t memory_estimate_bytes(const SweepPlan& plan) { return plan.memory_estimate_bytes; }

Result<std::shared_ptr<SweepPlan>> plan_sweeps(const RankContext& ctx, Backend& backend, const SweepOptions& o) {
  FABSCOPE_RETURN_IF_ERROR(validate(o, ctx.size(), backend.max_count()));
  if (o.graph_launches > 0 && !backend.can_capture()) {
    return Status::Invalid(
        fmt::format("-G {} needs a backend that runs on CUDA streams (nccl); backend '{}' cannot capture a CUDA graph",
                    o.graph_launches, backend.name()));
  }
  if (o.record_arrivals && backend.iteration_clock()) {
    return Status::Invalid(fmt::format(
        "--arrivals needs a backend whose calls complete on the host (mpi, tcp, verbs); backend '{}' only enqueues "
        "them, so the host cannot see when a rank entered or left one",
        backend.name()));
  }
  // One pair of buffers for the largest point of any sweep.
  size_t max_bytes = 0;
  for (Collective c : o.collectives) {
    for (DataType t : o.dtypes) {
      const size_t es = element_size(t);
      ElementCounts e = element_counts(c, o.sizes.max_bytes / es, es, ctx.size());
      max_bytes = std::max(max_bytes, std::max(e.send, e.recv) * es);
    }
  }
  // What a rank holds at most: the two buffers, and on the host also the backend's
  // working memory and the process itself. Checked before allocating; the report says it.
  uint64_t estimate = 2 * max_bytes;
  if (backend.memory().kind() == "host") estimate += backend.working_bytes(o.collectives, max_bytes) + kRankBaseBytes;
  {
    Status cap = backend.memory().check_capacity(estimate, ctx.local_size());
    if (!cap.ok()) cap = Status::Invalid(fmt::format("the sweep needs {}; lower the maximum size -e", cap.message()));
    FABSCOPE_RETURN_IF_ERROR(ctx.agree(cap));
  }
  auto plan = std::make_shared<SweepPlan>(ctx, backend, o);
  plan->memory_estimate_bytes = estimate;
  FABSCOPE_RETURN_IF_ERROR(ctx.agree(plan->buffers.allocate(max_bytes)));
  return plan;
}

std::vector<SweepKey> sweep_keys(const SweepOptions& o) {
  std::vector<SweepKey> keys;
  for (Collective c : o.collectives) {
    for (DataType t : o.dtypes) {
      if (!info(c).reduces) {
        keys.push_back({c, t, std::nullopt});
        continue;
      }
      for (ReduceOp op : o.ops) keys.push_back({c, t, op});
    }
  }
  return keys;
}

}  // namespace fabscope
