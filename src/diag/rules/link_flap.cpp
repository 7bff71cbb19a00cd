// link.flap: a link (interface or RDMA port) that went down during the run, as its
// host's link watch saw it: the host, the link, how often and for how long in all. What
// kills a long job is a port down longer than the library's timeout, so the cumulative
// downtime is the figure held to --max-downtime (0, the default: any flap fails).
#include <fmt/format.h>

#include "diag/rules.h"

namespace fabscope {

std::vector<LinkDownInterval> link_down_intervals(const LinkRecord& link, double end_unix_s) {
  std::vector<LinkDownInterval> out;
  bool down = false;
  double down_since = 0;
  for (const LinkEdgeRecord& e : link.edges) {
    if (e.inferred) {
      if (!e.up) out.push_back({e.unix_s, e.unix_s, true});
      continue;
    }
    if (!e.up && !down) {
      down = true;
      down_since = e.unix_s;
    }
    if (e.up && down) {
      out.push_back({down_since, e.unix_s, false});
      down = false;
    }
  }
  if (down) out.push_back({down_since, std::max(end_unix_s, down_since), false});
  return out;
}

void check_link_flap(const SweepContext& c, FindingSink& sink) {
  if (!c.report.timeline) return;
  const Timeline& t = *c.report.timeline;
  for (const LinkRecord& l : t.links) {
    const bool stayed_down = l.up_at_start && !l.up_at_end;
    if (l.flaps == 0 && !stayed_down) continue;
    const bool over = t.max_downtime_s <= 0 || l.downtime_s > t.max_downtime_s;
    nlohmann::ordered_json edges = nlohmann::ordered_json::array();
    for (const LinkEdgeRecord& e : l.edges) {
      if (edges.size() >= 20) break;
      edges.push_back({{"time", e.time}, {"up", e.up}, {"inferred", e.inferred}});
    }
    const std::string what = l.rdma ? "RDMA port" : "interface";
    sink.add(
        over ? Severity::kError : Severity::kWarning, fmt::format("{} {}", l.host, l.link), {l.host},
        fmt::format(
            "{} {} on {} went down {} time{} during the run, {:.1f} s down in all{}{}", what, l.link, l.host, l.flaps,
            l.flaps == 1 ? "" : "s", l.downtime_s, stayed_down ? "; it was still down at the end" : "",
            over ? (t.max_downtime_s > 0 ? fmt::format(", over the {:.1f} s allowed (--max-downtime)", t.max_downtime_s)
                                         : std::string())
                 : fmt::format(", within the {:.1f} s allowed (--max-downtime)", t.max_downtime_s)),
        "look at the cable, transceiver and switch port of this link (its switch's log has the port's down "
        "events); a port that flaps again under load is to be replaced before the node takes jobs",
        {{"host", l.host},
         {"link", l.link},
         {"rdma", l.rdma},
         {"flaps", l.flaps},
         {"downtime_s", l.downtime_s},
         {"max_downtime_s", t.max_downtime_s},
         {"up_at_end", l.up_at_end},
         {"counter_deltas", l.counter_deltas},
         {"edges", edges}});
  }
}

}  // namespace fabscope
