// Running a sweep plan (sweep/sweep.h): every point in turn, once or cycle after cycle
// (-N, --duration) with the run's timeline, its link watch, mirroring for a stand-in
// rank 0, the watchdog and the agreed stop on a signal. Measuring each point is
// src/sweep's (sweep/measure.h).
#pragma once

#include <vector>

#include "backend/backend.h"
#include "comm/context.h"
#include "core/progress.h"
#include "report/report.h"
#include "soak/observer.h"
#include "sweep/sweep.h"

namespace fabscope {

// Runs every (collective, dtype, op) sweep of the plan, cycle after cycle (-N,
// --duration); returns the first cycle's. Results are complete on rank 0; other ranks
// get the same sweeps with their own per-rank fields left empty. `timeline` (rank 0)
// gets every cycle interval by interval, the stalls and the links' events. A first
// SIGINT/SIGTERM (core/stop_signal.h) ends the run after the point being measured,
// every rank agreeing; the sweeps then hold the points measured. A
// failure here may be on one rank only, with others waiting inside a collective: the
// caller must end the job. With a timeout, a rank that sees no progress for that long
// prints where it stopped and ends the process (exit code 4), which ends the job.
// With `counters`, interface counters are sampled around each (collective, dtype, op)
// sweep; fabscope's own bytes are not counted there (MPI's algorithms are opaque).
Result<std::vector<Sweep>> run_sweeps(SweepPlan& plan, SweepObserver* observer, Progress* progress,
                                      std::vector<CounterSample>* counters = nullptr, Timeline* timeline = nullptr);

// Both steps, for callers that treat every failure alike (tests, benchmarks).
Result<std::vector<Sweep>> run_sweeps(const RankContext& ctx, Backend& backend, const SweepOptions& options,
                                      SweepObserver* observer, Progress* progress);

}  // namespace fabscope
