// rank.straggler (sweep --arrivals): a rank that alone held the others back for at least
// kStragglerShare of a placement's time, entering last by more than twice the clock
// bound, or losing time inside the iterations that the others did not (its process did
// not run: stopped, frozen, starved): the others waited for it, not for the fabric. One finding per rank, with the
// placement where its share was largest; the links are not to blame for that share.
#include <fmt/format.h>

#include <map>

#include "core/sizes.h"
#include "diag/rules.h"

namespace fabscope {

void check_rank_straggler(const SweepContext& c, FindingSink& sink) {
  struct Worst {
    int placements = 0;
    double share = 0;
    nlohmann::ordered_json evidence;
    std::string where;
  };
  std::map<int, Worst> by_rank;
  int with_arrivals = 0;
  for (const Sweep& s : c.report.sweeps) {
    for (const SweepPoint& p : s.points) {
      for (Placement placement : kPlacements) {
        const std::optional<PlacementResult>& pl = p.at(placement);
        if (!pl || !pl->arrivals) continue;
        ++with_arrivals;
        const ArrivalSplit& a = *pl->arrivals;
        for (const RankArrival& r : a.ranks) {
          const double share = r.held_share + r.stalled_share;
          if (share < kStragglerShare) continue;
          Worst& w = by_rank[r.rank];
          ++w.placements;
          if (share <= w.share) continue;
          w.share = share;
          w.where =
              fmt::format("{} {}{}{} {} ({})", s.collective, s.dtype, s.op ? " " : "", s.op.value_or(""),
                          format_size(p.size_bytes), placement == Placement::kOutOfPlace ? "out of place" : "in place");
          w.evidence = {{"collective", s.collective},
                        {"dtype", s.dtype},
                        {"size_bytes", p.size_bytes},
                        {"placement", name(placement)},
                        {"held_share", r.held_share},
                        {"held_us", r.held_us},
                        {"stalled_share", r.stalled_share},
                        {"stalled_us", r.stalled_us},
                        {"last_count", r.last_count},
                        {"iterations", a.iterations},
                        {"span_us", a.span_us},
                        {"skew_us", a.skew_us},
                        {"transfer_us", a.transfer_us},
                        {"clock_bound_us", a.clock_bound_us}};
        }
      }
    }
  }
  for (auto& [rank, w] : by_rank) {
    const std::string host = c.host_of(rank);
    w.evidence["rank"] = rank;
    w.evidence["placements_flagged"] = w.placements;
    w.evidence["placements_timed"] = with_arrivals;
    sink.add(Severity::kWarning, fmt::format("rank {} on {}", rank, host), {host},
             fmt::format("rank {} on {} held the other ranks back for {:.0f}% of {}: it entered last in {} of {} "
                         "iterations, {:.1f} us after the next-latest rank on average, and its process did not run "
                         "for {:.1f} us per iteration beyond the others ({} placements like this)",
                         rank, host, 100 * w.share, w.where, w.evidence["last_count"].get<int>(),
                         w.evidence["iterations"].get<int>(), w.evidence["held_us"].get<double>(),
                         w.evidence["stalled_us"].get<double>(), w.placements),
             "a straggler, not the fabric: look for what delays this rank (CPU contention or binding, another "
             "process, OS jitter, its GPU); the wait it causes is not any link's",
             w.evidence);
  }
}

}  // namespace fabscope
