#include "report/timeline_text.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/sizes.h"

namespace fabscope {

std::string render_timeline(const Report& r) {
  if (!r.timeline) return "";
  const Timeline& t = *r.timeline;
  size_t flapped = 0;
  for (const LinkRecord& l : t.links) flapped += l.flaps > 0 || (l.up_at_start && !l.up_at_end);
  if (t.intervals.size() <= 1 && t.cycles_completed <= 1 && flapped == 0) return "";
  const size_t stalls = t.stalls.size() + t.stalls_dropped;
  std::string out = fmt::format("# Timeline: {} cycle{} in {} interval{}, ended by {}; {} stall{}, {} link{} down\n",
                                t.cycles_completed, t.cycles_completed == 1 ? "" : "s", t.intervals.size(),
                                t.intervals.size() == 1 ? "" : "s", t.ended_by, stalls, stalls == 1 ? "" : "s", flapped,
                                flapped == 1 ? "" : "s");
  out += fmt::format("# {:>4}  {:<24}  {:>6}  {:<14}  {:>9}  {:<12}  {:>9}  {:>9}  {:>9}  {:>9}  {:>6}\n", "int",
                     "start (UTC)", "cycles", "collective", "size", "placement", "busbw", "median", "p99", "max",
                     "stalls");
  // Every interval of a short run; of a long one (more than kAllRows), the first and the
  // last, and those with a stall (the HTML report plots them all).
  constexpr size_t kAllRows = 24;
  size_t skipped = 0;
  for (const TimelineInterval& iv : t.intervals) {
    const bool edge = &iv == &t.intervals.front() || &iv == &t.intervals.back();
    const bool stalled =
        std::any_of(iv.points.begin(), iv.points.end(), [](const TimelinePoint& p) { return p.stalls > 0; });
    if (t.intervals.size() > kAllRows && !edge && !stalled) {
      ++skipped;
      continue;
    }
    if (skipped > 0) {
      out += fmt::format("  {:>4}  ({} interval{} without a stall)\n", "...", skipped, skipped == 1 ? "" : "s");
      skipped = 0;
    }
    for (const TimelinePoint& p : iv.points) {
      out += fmt::format("  {:>4}  {:<24}  {:>6}  {:<14}  {:>9}  {:<12}  {:>9.3f}  {:>9}  {:>9}  {:>9}  {:>6}\n",
                         iv.index, iv.start, iv.cycles, p.collective, format_size(p.size_bytes), name(p.placement),
                         p.busbw_gbps, format_duration_us(p.median_us), format_duration_us(p.p99_us),
                         format_duration_us(p.max_us), p.stalls);
    }
  }
  for (const LinkRecord& l : t.links) {
    if (l.flaps == 0 && !(l.up_at_start && !l.up_at_end)) continue;
    std::string edges;
    for (const LinkEdgeRecord& e : l.edges) {
      if (edges.size() > 200) {
        edges += " ...";
        break;
      }
      edges += fmt::format(" {} {}{}", e.up ? "up" : "down", e.time, e.inferred ? " (between reads)" : "");
    }
    out += fmt::format("# Link {} {}: {} flap{}, {:.1f} s down{}:{}\n", l.host, l.link, l.flaps,
                       l.flaps == 1 ? "" : "s", l.downtime_s, l.up_at_end ? "" : ", still down at the end", edges);
  }
  return out;
}

}  // namespace fabscope
