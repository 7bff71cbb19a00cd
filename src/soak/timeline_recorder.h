// A run's timeline as it grows, on the ranks that keep the report (rank 0, and every
// rank with --mirror): each point and stall joins the open interval; an interval closes
// at the first cycle end at least --interval after it opened, with every host's
// counters and links over it; past kMaxTimelineIntervals the intervals fold in pairs.
// One rank per host watches its links meanwhile.
#pragma once

#include <memory>
#include <vector>

#include "comm/context.h"
#include "diag/link_watch.h"
#include "diag/net_counters.h"
#include "report/report.h"
#include "soak/observer.h"
#include "soak/timeline.h"
#include "sweep/sweep.h"

namespace fabscope {

class TimelineRecorder {
 public:
  // `keeper`: this rank keeps the timeline; `mirror`: rank 0 sends each interval's host
  // counters and links to every rank. `observer` (may be null) is told of stalls and
  // closed intervals.
  TimelineRecorder(const RankContext& ctx, const SweepOptions& options, bool keeper, bool mirror,
                   SweepObserver* observer);
  ~TimelineRecorder();
  TimelineRecorder(const TimelineRecorder&) = delete;
  TimelineRecorder& operator=(const TimelineRecorder&) = delete;

  // A cycle begins: an interval opens where none is, and its counters start.
  void begin_cycle(int cycle);
  // A point of `sweep` measured in `cycle`, and the stalls found in it (keepers only).
  void add_point(const Sweep& sweep, const SweepPoint& point, std::vector<StallEvent> stalls, int cycle);
  // A cycle ended: the interval closes if its period is over by rank 0's clock (agreed)
  // or `run_over` (collective).
  Status end_cycle(int cycle, bool run_over);
  // The run ended: the link watch stops and the links are gathered one last time (collective).
  Status finish();

  Timeline& timeline() { return timeline_; }
  const Timeline& timeline() const { return timeline_; }
  // For the progress line: the open interval's latest figures, stalls and flaps so far.
  const TimelineBuilder::Latest& latest() const { return builder_.latest(); }
  size_t stalls_seen() const { return timeline_.stalls.size() + timeline_.stalls_dropped; }
  int flaps_seen() const { return flaps_seen_; }

 private:
  Status close_interval(int cycles);
  void fold_when_full();

  const RankContext& ctx_;
  const bool keeper_;
  const bool mirror_;
  SweepObserver* const observer_;
  std::unique_ptr<LinkWatch> watch_;
  Timeline timeline_;
  TimelineBuilder builder_;
  double interval_s_;  // rank 0's: doubled as intervals fold
  PhaseCounters counters_;
  int first_cycle_ = 0;  // the open interval's
  int flaps_seen_ = 0;
};

}  // namespace fabscope
