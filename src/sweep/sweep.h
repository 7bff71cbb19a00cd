// `sweep`: times collectives over a range of sizes, as nccl-tests does, and checks
// every result on every rank. Measurement only: it returns report records and knows
// nothing of output formats. This directory measures the points of a plan
// (sweep/measure.h); running the plan, once or cycle after cycle with its timeline, is
// src/soak's (soak/soak.h: run_sweeps).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/backend.h"
#include "coll/collective.h"
#include "comm/context.h"
#include "core/dtype.h"
#include "core/method.h"
#include "core/sizes.h"
#include "report/report.h"

namespace fabscope {

struct SweepOptions {
  std::vector<Collective> collectives;
  std::vector<DataType> dtypes = {DataType::kFloat};
  std::vector<ReduceOp> ops = {ReduceOp::kSum};
  SizeRange sizes;
  int iters = 20;
  int warmup_iters = 1;
  int check_iters = 1;  // verification passes per size and placement; 0 = none
  int root = 0;
  RankReduction average = RankReduction::kMean;
  uint64_t seed = 0x5eed;
  // Seconds without a completed operation after which a rank ends the job; 0 = never.
  double timeout_s = 300;
  // -G: capture the timed iterations in one CUDA graph and launch it this many times
  // (0: enqueue each iteration); needs a backend that can capture (nccl).
  int graph_launches = 0;
  // -z, as nccl-tests: 0 enqueue back to back; 1 wait and barrier after each
  // iteration; 2 wait only; 3 wait and barrier, the barrier's time not counted.
  int blocking = 0;
  // --arrivals: on backends timed by the host clock (a backend with an iteration clock,
  // or -G, is refused), record when each rank enters and leaves every timed iteration, on clocks synchronised to rank
  // 0's around each sweep, and split each placement's time (PlacementResult::arrivals, sweep/arrivals.h).
  bool record_arrivals = false;
  // --method: nccl-tests (the default: moving buffer offsets, back to back unless -z) or
  // osu (a fixed buffer, -z 3, warm-up right before each point's timed loop).
  TimingMethod method = TimingMethod::kNcclTests;
  // Timed (warm-up) iterations per size from the method (osu_collective_loop) instead of
  // iters (warmup_iters): --method osu without -n (-w).
  bool iterations_by_method = false;
  bool warmup_by_method = false;
  // The run's length, timeline, link watch and mirroring (read by src/soak).
  // -N: how many times every point is measured in turn (0: until --duration, a signal or
  // the watchdog ends the run); --duration: cycles start until this many seconds have
  // passed (0: no limit). Every rank agrees on the cycle that is the last.
  int run_cycles = 1;
  double duration_s = 0;
  // The timeline's intervals: one closes at the first cycle end at least this long
  // after it opened (0: every cycle).
  double interval_s = 0;
  // sweep.stall: the least excess over a point's median that is a stall (diag/stall.h).
  double stall_min_excess_us = 100e3;
  // One rank per host watches its links' carrier and link-down counters (diag/link_watch.h).
  bool watch_links = true;
  double link_watch_period_s = 0.1;
  // Rank 0 sends each point (and each interval's host counters and links) to every rank,
  // and the observer is told of them on every rank, so that another rank can write the
  // report so far when rank 0 is cut off. The same on every rank (it adds a broadcast
  // after each point, outside the timed loops).
  bool mirror = false;
};

// Checks the options against the rank count and the backend's limits, before any
// data moves: sizes must be whole elements of every data type, the root a rank.
// (Whether the backend can capture -G is checked by plan_sweeps.)
Status validate(const SweepOptions& options, int nranks, uint64_t backend_max_count);

// A device marker (a CUDA event recorded on the stream) costs the timed loop this much
// per marker, host and device together: one per iteration was the 1.2-1.7 us by which
// one-rank allreduce trailed nccl-tests (H200, NCCL 2.28.9), and all of the nccl floor.
inline constexpr double kDeviceMarkerCostUs = 2.0;
// The share of an iteration the markers may cost at most.
inline constexpr double kDeviceMarkerShare = 0.005;
// Iterations between two device markers of a timed loop of `iterations` whose calls take
// about `iteration_us` each: 1 (every iteration its own sample) where an iteration is
// long enough that a marker costs at most kDeviceMarkerShare of it, more below that,
// and all of them (the loop's two ends only) for the shortest.
size_t device_marker_stride(double iteration_us, size_t iterations);

// A validated sweep with its buffers allocated. Planning fails alike on every rank
// (its checks are agreed over MPI before any data moves), so the caller can report
// the error once and return.
class SweepPlan;
Result<std::shared_ptr<SweepPlan>> plan_sweeps(const RankContext& ctx, Backend& backend, const SweepOptions& options);
// The memory per rank the plan was admitted with: both buffers at the largest size, and
// for host memory the backend's working memory and kRankBaseBytes.
uint64_t memory_estimate_bytes(const SweepPlan& plan);

}  // namespace fabscope
