// perf.plateau: where a sweep's bus bandwidth stops growing before its largest sizes (a
// note: larger sizes cost time and add no bandwidth), and whether it falls off after
// its peak. Judged on the out-of-place figures (in-place where there are none), on
// sweeps of at least four sizes whose bandwidth reaches a plateau with two or more sizes after it.
#include <fmt/format.h>

#include <algorithm>

#include "core/sizes.h"
#include "diag/rules.h"

namespace fabscope {

void check_perf_plateau(const SweepContext& c, FindingSink& sink) {
  for (const Sweep& s : c.report.sweeps) {
    std::vector<std::pair<uint64_t, double>> pts;  // size, busbw
    for (const SweepPoint& p : s.points) {
      const auto& r = p.out_of_place ? p.out_of_place : p.in_place;
      if (r) pts.emplace_back(p.size_bytes, r->busbw_gbps);
    }
    std::sort(pts.begin(), pts.end());
    if (pts.size() < 4) continue;
    size_t peak = 0;
    for (size_t i = 0; i < pts.size(); ++i) {
      if (pts[i].second > pts[peak].second) peak = i;
    }
    const double top = pts[peak].second;
    if (top <= 0) continue;
    // The first size from which every larger size up to the peak stays within the band.
    size_t start = peak;
    while (start > 0 && pts[start - 1].second >= (1 - kPlateauBand) * top) --start;
    const size_t after = pts.size() - 1 - start;
    if (after < 2) continue;
    const double last = pts.back().second;
    const bool falls = last < (1 - 2 * kPlateauBand) * top;
    const std::string subject = fmt::format("{} {}{} ({})", s.collective, s.dtype, s.op ? " " + *s.op : "", s.backend);
    sink.add(Severity::kInfo, subject, {},
             fmt::format(
                 "{}: bus bandwidth stops growing at {} ({:.2f} GB/s, within {:.0f}% of the {:.2f} GB/s peak "
                 "at {}); the {} larger size{} add no bandwidth{}",
                 subject, format_size(pts[start].first), pts[start].second, 100 * kPlateauBand, top,
                 format_size(pts[peak].first), after, after == 1 ? "" : "s",
                 falls ? fmt::format(", and it falls to {:.2f} GB/s at {}", last, format_size(pts.back().first)) : ""),
             falls ? "bandwidth that falls at the largest sizes points at memory pressure or a changed algorithm "
                     "there: look at NCCL_DEBUG=INFO for those sizes"
                   : "sizes from the plateau up measure the same bandwidth: -e at the plateau saves time",
             {{"plateau_bytes", pts[start].first},
              {"plateau_busbw_gbps", pts[start].second},
              {"peak_bytes", pts[peak].first},
              {"peak_busbw_gbps", top},
              {"largest_busbw_gbps", last},
              {"falls", falls}});
  }
}

}  // namespace fabscope
