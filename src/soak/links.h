// The link watch's part in a run: one rank per host watches its links' carrier and
// link-down counters (diag/link_watch.h), and rank 0 gathers what every host saw.
#pragma once

#include <memory>
#include <vector>

#include "comm/context.h"
#include "diag/link_watch.h"
#include "report/report.h"
#include "sweep/sweep.h"

namespace fabscope {

// The run's link watch: on the first rank of each host with SweepOptions::watch_links,
// off the timed path; none elsewhere.
std::unique_ptr<LinkWatch> start_link_watch(const RankContext& ctx, const SweepOptions& options);

// The hosts' links as every host's link watch saw them, gathered to rank 0 into `out`
// (collective; `watch` may be null).
Status gather_links(const RankContext& ctx, const LinkWatch* watch, std::vector<LinkRecord>& out);

}  // namespace fabscope
