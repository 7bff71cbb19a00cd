// run.interrupted: the run was ended by a signal (SIGINT, SIGTERM as a launcher forwards
// it) before its cycles or duration were done: its figures are those of the points
// measured, which the report says, so a partial run is not read as a whole one.
#include <fmt/format.h>

#include "diag/rules.h"

namespace fabscope {

void check_run_interrupted(const SweepContext& c, FindingSink& sink) {
  if (!c.report.timeline || c.report.timeline->ended_by.rfind("signal", 0) != 0) return;
  const Timeline& t = *c.report.timeline;
  size_t points = 0;
  for (const Sweep& s : c.report.sweeps) points += s.points.size();
  sink.add(Severity::kWarning, "run", {},
           fmt::format("the run was ended by {} after {} complete cycle{}{}; the first cycle's table holds {} "
                       "point{}",
                       t.ended_by.substr(7), t.cycles_completed, t.cycles_completed == 1 ? "" : "s",
                       t.run_cycles > 0 ? fmt::format(" of {}", t.run_cycles) : std::string(), points,
                       points == 1 ? "" : "s"),
           "a partial run: compare it with care, or run it again to the end",
           {{"ended_by", t.ended_by}, {"cycles_completed", t.cycles_completed}, {"run_cycles", t.run_cycles}});
}

}  // namespace fabscope
