// run.hang: the watchdog ended the run (no progress for --timeout): the report of every
// point measured before, written by rank 0 as its watchdog fired (or, rank 0 cut off, by
// the rank standing in for it), with the watchdog's own words: the rank, its host, the
// phase it was in, which ranks stopped answering as the heartbeat saw them, and what each
// rank that still answered waited on (peer, message, link).
#include <fmt/format.h>

#include "diag/rules.h"

namespace fabscope {

void check_run_hang(const SweepContext& c, FindingSink& sink) {
  if (!c.report.timeline || c.report.timeline->ended_by != "watchdog") return;
  const Timeline& t = *c.report.timeline;
  size_t points = 0;
  for (const Sweep& s : c.report.sweeps) points += s.points.size();
  sink.add(Severity::kError, "run", {},
           fmt::format("the run stopped making progress and the watchdog ended it after {} complete cycle{} ({} "
                       "point{} of the first in this report): {}",
                       t.cycles_completed, t.cycles_completed == 1 ? "" : "s", points, points == 1 ? "" : "s",
                       t.hang.empty() ? "no message" : t.hang),
           "the rank or host the message names is where to look: a dead or frozen process, a host cut off, a link "
           "down for longer than --timeout",
           {{"message", t.hang}, {"cycles_completed", t.cycles_completed}, {"points", points}});
}

}  // namespace fabscope
