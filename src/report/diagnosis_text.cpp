#include "report/diagnosis_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/sizes.h"
#include "report/p2p_table.h"

namespace fabscope {

namespace {

// The part of the runs' spread that the ranks named hold (attribution's ranks_held_us).
std::string ranks_held(const nlohmann::ordered_json& ev) {
  if (!ev.contains("ranks_held_us")) return "";
  return fmt::format(", beyond the {} by which the ranks named held the others longer than in the best run",
                     format_duration_us(ev["ranks_held_us"].get<double>()));
}

// One cause, in words: "link 2 -> 3 (node2 -> node3): 0.120 GB/s, 9.0x below the median, slow alone too".
std::string cause_text(const AttributionEntry& e) {
  const auto& ev = e.evidence;
  std::string what = e.subject;
  if (e.kind == AttributionKind::kNoise && e.hosts.empty() && ev.contains("cv")) {
    return fmt::format("run-to-run variance: the collective's time varied {:.0f}% between its runs{}",
                       100 * ev["cv"].get<double>(), ranks_held(ev));
  }
  if (e.kind == AttributionKind::kLink || e.kind == AttributionKind::kHost || e.kind == AttributionKind::kNoise) {
    if (ev.contains("bw_gbps")) {
      what += fmt::format(": {}{:.3f} GB/s, {:.1f}x below the median link",
                          e.kind == AttributionKind::kLink ? "" : ev.value("link", std::string("its link")) + " at ",
                          ev["bw_gbps"].get<double>(), ev.value("times_below_median", 1.0));
      if (ev.contains("alone_gbps")) {
        const double alone = ev["alone_gbps"].get<double>();
        what += alone < 0.5 * ev.value("median_gbps", 0.0) ? ", slow when tested alone too"
                                                           : fmt::format(", {:.3f} GB/s alone", alone);
      }
    }
    if (ev.contains("busy_us")) {
      what += fmt::format(", busy {} per call in the collective against {} for the median link",
                          format_duration_us(ev["busy_us"].get<double>()),
                          format_duration_us(ev.value("median_busy_us", 0.0)));
    }
    if (ev.contains("foreign_bytes")) {
      uint64_t bytes = 0;
      for (const auto& [h, b] : ev["foreign_bytes"].items()) bytes += b.get<uint64_t>();
      what += fmt::format(", {:.1f} MB on {} interfaces that fabscope did not send", static_cast<double>(bytes) / 1e6,
                          ev["foreign_bytes"].size() > 1 ? "their" : "its");
    }
    if (ev.contains("link_cv")) what += fmt::format(", link variation {:.0f}%", 100 * ev["link_cv"].get<double>());
    if (ev.contains("cv")) what += fmt::format(", run-to-run variation {:.0f}%", 100 * ev["cv"].get<double>());
    what += ranks_held(ev);
  } else if (e.kind == AttributionKind::kRank) {
    what += fmt::format(": the others waited for it, {:.0f}% of each iteration (it entered last in {} of {}",
                        100 * ev.value("held_share", 0.0), ev.value("last_count", 0), ev.value("iterations", 0));
    if (const double stalled = ev.value("stalled_share", 0.0); stalled > 0) {
      what += fmt::format("; its process did not run for {:.0f}%: stopped, frozen or starved of CPU", 100 * stalled);
    }
    what += ")";
    if (ev.contains("held_us_per_run")) {
      std::vector<std::string> runs;
      for (const auto& us : ev["held_us_per_run"]) runs.push_back(format_duration_us(us.get<double>()));
      what += fmt::format("; it held them {} per call in the runs, {} in the median run", fmt::join(runs, ", "),
                          format_duration_us(ev.value("held_us", 0.0)));
    }
  }
  return what;
}

// The link matrix's failing findings that no attribution holds (a slow link off the
// collective's path: it costs this collective nothing, but it is broken), so the answer's
// first lines name every fault found, not only the collective's excess. A finding whose
// hosts an attributed cause already covers (the other direction of a blamed link) is not
// repeated.
std::string unattributed_faults(const Report& r) {
  std::set<std::string> covered;
  for (const Attribution& a : r.attribution) {
    for (const AttributionEntry& e : a.entries) covered.insert(e.hosts.begin(), e.hosts.end());
  }
  std::string out;
  for (const Finding& f : r.findings) {
    if (f.severity != Severity::kError || !f.code.starts_with("p2p.") || f.hosts.empty()) continue;
    if (std::all_of(f.hosts.begin(), f.hosts.end(), [&](const std::string& h) { return covered.count(h) > 0; })) {
      continue;
    }
    out += fmt::format(
        "#   also found: {} ({}; {})\n", f.subject.empty() ? f.code : f.subject, f.code,
        r.attribution.empty() ? "no collective was attributed" : "off the collective's path: none of its time");
  }
  return out;
}

}  // namespace

std::string render_answer(const Report& r) {
  if (!r.diagnosis) return "";
  std::string out = "# Diagnosis\n";
  if (r.attribution.empty()) {
    for (const Sweep& s : r.sweeps) {
      if (s.points.empty() || !s.points.back().out_of_place) continue;
      const PlacementResult& p = *s.points.back().out_of_place;
      out += fmt::format(
          "#   {} {}: {} per call, bus bandwidth {:.3f} GB/s; the link matrix was not measured{}, so "
          "there is no link rate to compare with\n",
          s.collective, format_size(s.points.back().size_bytes), format_duration_us(p.time_us), p.busbw_gbps,
          r.context.nranks == 1 ? " (one rank has no links)" : "");
    }
  }
  for (const Attribution& a : r.attribution) {
    const std::string head = fmt::format("{} {}", a.collective, format_size(a.size_bytes));
    if (a.excess_us <= 0) {
      out += fmt::format("#   {} ran at the link rate ({} against {} at {:.3f} GB/s, the median link): no time lost\n",
                         head, format_duration_us(a.measured_us), format_duration_us(a.ideal_us), a.link_rate_gbps);
      continue;
    }
    out += fmt::format(
        "#   {} ran {:.1f}x slower than the link rate allows ({} against {} at {:.3f} GB/s, the median "
        "link; {})\n",
        head, a.ideal_us > 0 ? a.measured_us / a.ideal_us : 0.0, format_duration_us(a.measured_us),
        format_duration_us(a.ideal_us), a.link_rate_gbps, a.model);
    for (const AttributionEntry& e : a.entries) {
      if (e.kind == AttributionKind::kUnexplained) {
        out += fmt::format("#   {:.0f}% of the excess is not explained by any one link, host or rank\n", 100 * e.share);
      } else {
        out += fmt::format("#   {:.0f}% of the excess is {}{}\n", 100 * e.share,
                           e.kind == AttributionKind::kNoise && !e.hosts.empty() ? "noise on " : "", cause_text(e));
      }
    }
  }
  out += unattributed_faults(r);
  if (!r.verdict.drain.empty()) {
    out += fmt::format("#   drain: {}\n", r.verdict.drain_hostlist);
  }
  return out;
}

std::string render_attribution(const Report& r) {
  if (!r.diagnosis) return "";
  std::string out;
  if (!r.attribution.empty()) {
    out += "#\n# Attribution of the excess (time beyond the ideal at the median link rate)\n";
    out += fmt::format("# {:<14} {:>10} {:>12} {:>12} {:>12}  {:<12} {:>6}  {}\n", "collective", "size", "measured",
                       "ideal", "excess", "kind", "share", "subject");
    for (const Attribution& a : r.attribution) {
      if (a.entries.empty()) {
        out += fmt::format("  {:<14} {:>10} {:>12} {:>12} {:>12}  {:<12} {:>6}  {}\n", a.collective,
                           format_size(a.size_bytes), format_duration_us(a.measured_us), format_duration_us(a.ideal_us),
                           format_duration_us(0), "-", "-", "at the link rate");
      }
      for (const AttributionEntry& e : a.entries) {
        out += fmt::format("  {:<14} {:>10} {:>12} {:>12} {:>12}  {:<12} {:>5.0f}%  {}\n", a.collective,
                           format_size(a.size_bytes), format_duration_us(a.measured_us), format_duration_us(a.ideal_us),
                           format_duration_us(e.excess_us), name(e.kind), 100 * e.share, e.subject);
      }
    }
  }
  const Diagnosis& d = *r.diagnosis;
  if (!d.collective_noise.empty()) {
    out += "#\n# Noise: the collective again\n";
    for (const CollectiveRepeats& c : d.collective_noise) {
      std::string times;
      for (double t : c.time_us) times += (times.empty() ? "" : ", ") + format_duration_us(t);
      out += fmt::format("#   {} {}: {} (variation {:.1f}%)\n", c.collective, format_size(c.size_bytes), times,
                         100 * c.cv);
    }
  }
  if (r.p2p && r.p2p->coverage) out += "#\n" + render_coverage(*r.p2p);
  std::string phases;
  double total = 0;
  for (const PhaseTiming& t : d.timings) {
    phases += fmt::format("{}{} {:.1f} s", phases.empty() ? "" : ", ", t.name, t.seconds);
    total += t.seconds;
  }
  out += fmt::format("#\n# Phases: {} (total {:.1f} s of a {:.0f} s budget)\n", phases, total, d.budget_s);
  return out;
}

}  // namespace fabscope
