// perf.dip: within one sweep, a size whose bandwidth falls well below both neighbours'
// (the table users post in nccl-tests threads: one size at a third of the sizes around
// it). Judged on bandwidth recomputed from the printed time (more digits than the
// printed bandwidth), and only where both neighbours carry real bandwidth: at sizes
// whose bandwidth is a rounding error of the peak, a one-off slow iteration is latency
// noise, not a dip.
#include <fmt/format.h>

#include <algorithm>

#include "core/sizes.h"
#include "diag/rules.h"

namespace fabscope {

void check_perf_dip(const SweepContext& c, FindingSink& sink) {
  for (const Sweep& s : c.report.sweeps) {
    for (Placement placement : kPlacements) {
      // (size, bytes per microsecond, printed busbw) of the placement's points, by size.
      struct Point {
        uint64_t size;
        double rate;
        double busbw;
      };
      std::vector<Point> pts;
      for (const SweepPoint& p : s.points) {
        const std::optional<PlacementResult>& r = p.at(placement);
        if (r && r->time_us > 0 && p.size_bytes > 0) {
          pts.push_back({p.size_bytes, static_cast<double>(p.size_bytes) / r->time_us, r->busbw_gbps});
        }
      }
      std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.size < b.size; });
      double peak_rate = 0;
      for (const Point& p : pts) peak_rate = std::max(peak_rate, p.rate);
      for (size_t i = 1; i + 1 < pts.size(); ++i) {
        const double neighbour = std::min(pts[i - 1].rate, pts[i + 1].rate);
        if (neighbour < kDipFloor * peak_rate) continue;  // latency-bound neighbours
        const double ratio = pts[i].rate / neighbour;
        if (ratio >= kDipRatio) continue;
        const std::string subject =
            fmt::format("{} {}{} {} ({})", s.collective, s.dtype, s.op ? " " + *s.op : "", label(placement), s.backend);
        sink.add(Severity::kWarning, subject, {},
                 fmt::format("{} at {}: bandwidth {:.0f}% of the lower of its neighbours ({} and {}): a dip, not a "
                             "curve",
                             subject, format_size(pts[i].size), 100.0 * ratio, format_size(pts[i - 1].size),
                             format_size(pts[i + 1].size)),
                 "run that size again with more iterations (-n) to see whether the dip repeats; a dip that repeats "
                 "is a protocol or algorithm switch (NCCL_DEBUG=INFO names the one used) or a chunking boundary",
                 {{"size_bytes", pts[i].size},
                  {"busbw_gbps", pts[i].busbw},
                  {"below_busbw_gbps", pts[i - 1].busbw},
                  {"above_busbw_gbps", pts[i + 1].busbw},
                  {"ratio", ratio},
                  {"collective", s.collective},
                  {"placement", name(placement)}});
      }
    }
  }
}

}  // namespace fabscope
