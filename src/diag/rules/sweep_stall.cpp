// sweep.stall: a timed iteration far outside its point's robust spread (diag/stall.h),
// with when it started, how long it took, the ranks the others waited for, the links
// that were down at that moment, and (over fabscope's own engine) what the ranks said
// they waited on: the peer, the message and the link. The point's nccl-tests figure stays as
// measured; the stall is the finding. A warning, unless the run has more than
// --max-stalls: then each is an error.
#include <fmt/format.h>

#include <algorithm>

#include "core/sizes.h"
#include "diag/rules.h"

namespace fabscope {

namespace {

// A link down while the iteration ran (a down interval that overlaps it, within the
// watch's period).
struct Overlap {
  const LinkRecord* link;
  double down_s;
};

}  // namespace

void check_sweep_stall(const SweepContext& c, FindingSink& sink) {
  if (!c.report.timeline) return;
  const Timeline& t = *c.report.timeline;
  const size_t total = t.stalls.size() + t.stalls_dropped;
  if (total == 0) return;
  const bool over = t.max_stalls && total > static_cast<size_t>(*t.max_stalls);
  double end_s = 0;
  for (const StallEvent& s : t.stalls) end_s = std::max(end_s, s.start_unix_s + s.duration_us * 1e-6);
  constexpr double kSlackS = 0.25;  // the link watch's period and more
  constexpr size_t kWaitsQuoted = 4;
  for (const StallEvent& s : t.stalls) {
    const double from = s.start_unix_s, to = s.start_unix_s + s.duration_us * 1e-6;
    std::vector<Overlap> down;
    for (const LinkRecord& l : t.links) {
      for (const LinkDownInterval& d : link_down_intervals(l, std::max(end_s, to))) {
        if (d.from_unix_s <= to + kSlackS && d.to_unix_s >= from - kSlackS) {
          down.push_back({&l, d.to_unix_s - d.from_unix_s});
        }
      }
    }
    std::vector<std::string> hosts;
    std::string late;
    if (!s.late_ranks.empty()) {
      std::vector<std::string> names;
      for (int r : s.late_ranks) {
        const std::string h = c.host_of(r);
        names.push_back(fmt::format("{} ({})", r, h));
        if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
      }
      late = fmt::format("; the others waited for rank{} {}", names.size() == 1 ? "" : "s", fmt::join(names, ", "));
    } else {
      late = "; every rank waited alike (no rank entered late: the time was spent in the transfer)";
    }
    std::string links;
    nlohmann::ordered_json down_json = nlohmann::ordered_json::array();
    for (const Overlap& o : down) {
      links += fmt::format("{} {} {} was down {:.1f} s", links.empty() ? " while" : ",", o.link->host, o.link->link,
                           o.down_s);
      down_json.push_back({{"host", o.link->host}, {"link", o.link->link}, {"down_s", o.down_s}});
      if (std::find(hosts.begin(), hosts.end(), o.link->host) == hosts.end()) hosts.push_back(o.link->host);
    }
    // The waits on a rank of a host implicated (a link down, a late rank) first: the
    // end of the chain of waits.
    std::vector<std::string> ordered = s.waits;
    auto on_implicated = [&](const std::string& w) {
      return std::any_of(hosts.begin(), hosts.end(), [&](const std::string& h) {
        const size_t at = w.find(" (" + h + "), open ");
        return at != std::string::npos;
      });
    };
    std::stable_partition(ordered.begin(), ordered.end(), on_implicated);
    std::string waits;
    for (size_t i = 0; i < ordered.size(); ++i) {
      if (i == kWaitsQuoted) {
        waits += fmt::format(" and {} more", ordered.size() - i);
        break;
      }
      waits += (i == 0 ? "; " : ", ") + ordered[i];
    }
    const std::string where =
        fmt::format("{} {}{}{} {} {}", s.collective, s.dtype, s.op ? " " : "", s.op.value_or(""),
                    format_size(s.size_bytes), s.placement == Placement::kInPlace ? "in place" : "out of place");
    sink.add(over ? Severity::kError : Severity::kWarning,
             fmt::format("{}, cycle {} iteration {}", where, s.cycle, s.iteration), hosts,
             fmt::format(
                 "{} iteration {} (cycle {}) stalled {} at {}{}: {:.0f}x its point's median of {}{}{}{}", where,
                 s.iteration, s.cycle, format_duration_us(s.duration_us), s.time, links,
                 s.median_us > 0 ? s.duration_us / s.median_us : 0.0, format_duration_us(s.median_us), late, waits,
                 over ? fmt::format("; {} stalls in the run, over the {} allowed (--max-stalls)", total, *t.max_stalls)
                      : ""),
             down.empty() ? "a stall no link event explains: look at the late ranks' hosts (CPU, memory, the "
                            "process's binding) or, when every rank waited alike, at the switches' logs for that "
                            "moment (congestion, a reroute, PFC storms)"
                          : "the link's flap explains the stall (link.flap): a collective waits for a link to come "
                            "back, or for the library's timeout",
             {{"collective", s.collective},
              {"dtype", s.dtype},
              {"op", s.op ? nlohmann::ordered_json(*s.op) : nlohmann::ordered_json(nullptr)},
              {"size_bytes", s.size_bytes},
              {"placement", name(s.placement)},
              {"cycle", s.cycle},
              {"iteration", s.iteration},
              {"time", s.time},
              {"duration_us", s.duration_us},
              {"median_us", s.median_us},
              {"threshold_us", s.threshold_us},
              {"late_ranks", s.late_ranks},
              {"waits", s.waits},
              {"links_down", down_json},
              {"stalls_in_run", total},
              {"max_stalls", t.max_stalls ? nlohmann::ordered_json(*t.max_stalls) : nlohmann::ordered_json(nullptr)}});
  }
}

}  // namespace fabscope
