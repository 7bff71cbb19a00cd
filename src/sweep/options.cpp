// The options' checks before any data moves.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "coll/layout.h"
#include "core/sizes.h"
#include "sweep/sweep.h"

namespace fabscope {

Status validate(const SweepOptions& o, int nranks, uint64_t backend_max_count) {
  if (o.collectives.empty()) return Status::Invalid("no collective given; name at least one, e.g. allreduce");
  if (o.dtypes.empty()) return Status::Invalid("no data type given");
  if (o.ops.empty()) return Status::Invalid("no reduction operator given");
  if (o.iters < 1) return Status::Invalid(fmt::format("iterations -n {} is not allowed; use an integer >= 1", o.iters));
  if (o.warmup_iters < 0) {
    return Status::Invalid(fmt::format("warmup iterations -w {} is not allowed; use an integer >= 0", o.warmup_iters));
  }
  if (!(o.timeout_s >= 0) || std::isinf(o.timeout_s)) {  // NaN fails every comparison: refused too
    return Status::Invalid(
        fmt::format("--timeout {} is not allowed; use a finite number of seconds >= 0 (0 disables it)", o.timeout_s));
  }
  if (o.check_iters < 0) {
    return Status::Invalid(fmt::format("check passes -c {} is not allowed; use an integer >= 0", o.check_iters));
  }
  if (o.graph_launches < 0) {
    return Status::Invalid(fmt::format(
        "-G/--cudagraph {} is not allowed; use an integer >= 0 (graph launches; 0: no graph)", o.graph_launches));
  }
  if (o.blocking < 0 || o.blocking > 3) {
    return Status::Invalid(fmt::format(
        "-z/--blocking {} is not allowed; use 0 (asynchronous), 1 (wait and barrier after each iteration), 2 (wait "
        "after each iteration) or 3 (wait and barrier, barrier time not counted)",
        o.blocking));
  }
  if (o.graph_launches > 0 && o.blocking != 0) {
    return Status::Invalid(fmt::format(
        "-G {} cannot be combined with -z {}: a captured CUDA graph cannot wait between its iterations; drop one",
        o.graph_launches, o.blocking));
  }
  if (o.graph_launches > 0 && o.record_arrivals) {
    return Status::Invalid(fmt::format(
        "--arrivals cannot be combined with -G {}: a graph launch runs many iterations with no host time between "
        "them; drop one",
        o.graph_launches));
  }
  if (o.method == TimingMethod::kPerftest) {
    return Status::Invalid("--method perftest is for point-to-point runs (p2p); a sweep takes nccl-tests or osu");
  }
  if (o.method == TimingMethod::kOsu && o.blocking != 3) {
    return Status::Invalid(fmt::format(
        "--method osu times each call between barriers (-z 3); -z {} contradicts it: drop one", o.blocking));
  }
  if (o.method == TimingMethod::kOsu && o.graph_launches > 0) {
    return Status::Invalid(fmt::format(
        "--method osu times each call between barriers; -G {} replays them without: drop one", o.graph_launches));
  }
  if (o.run_cycles < 0) {
    return Status::Invalid(fmt::format(
        "-N/--run_cycles {} is not allowed; use 0 (cycles until --duration or a signal ends the run) or more",
        o.run_cycles));
  }
  if (!(o.duration_s >= 0) || std::isinf(o.duration_s)) {
    return Status::Invalid(
        fmt::format("--duration {} is not allowed; use a finite time >= 0 (0: no limit)", o.duration_s));
  }
  if (!(o.interval_s >= 0) || std::isinf(o.interval_s)) {
    return Status::Invalid(fmt::format(
        "--interval {} is not allowed; use a finite number of seconds >= 0 (0: one per cycle)", o.interval_s));
  }
  if (!(o.stall_min_excess_us >= 0) || std::isinf(o.stall_min_excess_us)) {
    return Status::Invalid(fmt::format("--stall-ms {} is not allowed; use a finite number of milliseconds >= 0",
                                       o.stall_min_excess_us * 1e-3));
  }
  FABSCOPE_RETURN_IF_ERROR(validate(o.sizes));
  bool rooted = std::any_of(o.collectives.begin(), o.collectives.end(), [](Collective c) { return info(c).rooted; });
  if (rooted && (o.root < 0 || o.root >= nranks)) {
    return Status::Invalid(fmt::format("root -r {} is not a rank of this job; allowed: 0 to {}", o.root, nranks - 1));
  }
  for (DataType t : o.dtypes) {
    const uint64_t es = element_size(t);
    auto check = [&](uint64_t bytes, const char* what) -> Status {
      if (bytes % es == 0) return Status::Ok();
      return Status::Invalid(
          fmt::format("{} {} bytes is not a multiple of the {}-byte element size of {}", what, bytes, es, name(t)));
    };
    FABSCOPE_RETURN_IF_ERROR(check(o.sizes.min_bytes, "minimum size -b"));
    FABSCOPE_RETURN_IF_ERROR(check(o.sizes.max_bytes, "maximum size -e"));
    if (o.sizes.step_factor <= 1) FABSCOPE_RETURN_IF_ERROR(check(o.sizes.step_bytes, "step -i"));
    for (Collective c : o.collectives) {
      ElementCounts e = element_counts(c, o.sizes.max_bytes / es, es, nranks);
      if (std::max(e.send, e.recv) > backend_max_count) {
        return Status::Invalid(
            fmt::format("maximum size -e {} gives {} elements of {} per call for {}, over this "
                        "backend's limit of {}",
                        o.sizes.max_bytes, std::max(e.send, e.recv), name(t), name(c), backend_max_count));
      }
    }
  }
  return Status::Ok();
}

}  // namespace fabscope
