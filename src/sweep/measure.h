// Measuring a plan's points: what a run (src/soak) asks of src/sweep. A point is one
// size of one (collective, data type, operator) sweep, measured out of place and then
// in place, each placement warmed up as the timing method says, timed, reduced over
// ranks and checked. What to measure when, and what becomes of it (cycles, the
// timeline, mirroring, stopping), is the run's.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "core/watchdog.h"
#include "report/report.h"
#include "sweep/plan.h"

namespace fabscope {

// A measured point and the stalls found in it (rank 0's; none on the others).
struct MeasuredPoint {
  SweepPoint point;
  std::vector<StallEvent> stalls;
};

// Every call is collective: all ranks make the same calls in the same order. A sweep
// is measured as begin_sweep, measure_point for each of its sizes, end_sweep.
class PlanMeasurer {
 public:
  // `watchdog` is told of every call that completes and of what is being measured.
  PlanMeasurer(SweepPlan& plan, Watchdog& watchdog);
  ~PlanMeasurer();
  PlanMeasurer(const PlanMeasurer&) = delete;
  PlanMeasurer& operator=(const PlanMeasurer&) = delete;

  // The run's floor, once per run before any sweep: the first sweep's first point, its
  // timed loop around calls that do nothing. Marks the points measured after it.
  Status measure_floor();
  // A sweep's record before its points: names, backend, clocks, floor.
  Sweep record(const SweepKey& key) const;
  // Begins measuring a sweep: with --arrivals, the clocks against rank 0's; with
  // `warm_up` (the first time the sweep is measured) nccl-tests' warm-up of every size.
  Status begin_sweep(const SweepKey& key, bool warm_up);
  // The point of `size` bytes of the sweep begun (it becomes the sweep's next point).
  Result<MeasuredPoint> measure_point(uint64_t size);
  // Ends the sweep begun: with --arrivals, the clocks again, and on rank 0 each point's
  // arrival split written into `sweep`'s points (measured in order since begin_sweep).
  Status end_sweep(Sweep& sweep);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace fabscope
