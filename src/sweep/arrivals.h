// The arrival split of a timed loop (sweep --arrivals): from when every rank entered and
// left each iteration, on rank 0's clock, how long the ranks waited for late ones (the
// skew), how long the transfer took after the last one came (the fabric's part), and
// per rank how long it alone held the others back: when it entered last, the time from
// the next-latest entry to its own. Iterations whose last two entries are within twice
// the clock bound blame no one (the clocks cannot tell them apart). A rank whose process
// did not run inside an iteration (stopped, frozen, starved) held the others for the
// time it lost beyond what any other rank lost there: its stalled time, which no clock
// offset blurs (each rank measures its own).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "comm/clock_sync.h"
#include "comm/context.h"
#include "report/report.h"

namespace fabscope {

struct RankIterations {
  std::vector<double> enter_ns;  // per iteration, on rank 0's clock
  std::vector<double> exit_ns;
  std::vector<double> stalled_ns;  // per iteration: time its process did not run (StallMonitor); may be empty
};

// Ranks in rank order, each with the same number of iterations.
ArrivalSplit split_arrivals(std::span<const RankIterations> ranks, double clock_bound_ns);

// Every rank's clock offset to rank 0's, and when (on rank 0's clock) they were taken:
// taken before and after a sweep, they map its iterations' times to rank 0's clock.
struct ClockSnapshot {
  int64_t at_ns = 0;
  std::vector<ClockOffset> offsets;
  Status take(const RankContext& ctx);  // collective
};

// `times`: per rank, its iterations' entries, exits (on its own clock) and stalled time
// (rank-major).
ArrivalSplit arrival_split(const ClockMap& map, const std::vector<double>& times, int nranks);

}  // namespace fabscope
