// SweepOptions::mirror: rank 0 sends each point (and each interval's host counters and
// links) to every rank, so that another rank can write the report so far when rank 0 is
// cut off. Collective; a broadcast after each point, outside the timed loops.
#pragma once

#include <vector>

#include "comm/context.h"
#include "report/report.h"

namespace fabscope {

// Rank 0's `point` and the stalls found in it; the other ranks' own are replaced.
Status mirror_point(const RankContext& ctx, SweepPoint& point, std::vector<StallEvent>& stalls);

// The interval's host counters and the links, gathered on rank 0; the other ranks' own
// are replaced.
Status mirror_interval(const RankContext& ctx, std::vector<CounterSample>& hosts, std::vector<LinkRecord>& links);

}  // namespace fabscope
