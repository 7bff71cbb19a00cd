// Markdown (--markdown FILE): a summary fit for a pull-request or merge-request comment.
// The verdict first; for a comparison, the runs, what they differ in and the rows that
// moved, with every row folded below; for a measuring run, bus bandwidth per
// collective; then the findings. Written atomically at the end.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/atomic_file.h"
#include "core/sizes.h"
#include "core/stats.h"
#include "report/compare.h"
#include "report/compare_text.h"
#include "report/file_reporter.h"
#include "report/history_text.h"
#include "report/p2p_table.h"
#include "report/reporter.h"
#include "report/summary.h"

namespace fabscope {

namespace {

// Text fit for a table cell: pipes escaped, lines joined.
std::string cell(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') {
      out += "\\|";
    } else if (ch == '\n' || ch == '\r') {
      out += ' ';
    } else {
      out += ch;
    }
  }
  return out;
}

// How much a summary may hold: everything, or what fits a comment (the folded tables
// dropped, the longest lists cut).
struct Budget {
  bool details = true;
  size_t sizes = SIZE_MAX;  // rows per sweep table: the largest sizes
  size_t findings = 40;
};

std::string run_text(const ComparedRun& r) {
  std::string out = fmt::format("`{}`: {}", cell(r.path), cell(r.made_by));
  if (r.nranks > 0) out += fmt::format(", {} ranks", r.nranks);
  if (!r.hosts.empty()) out += fmt::format(" on {} host{}", r.hosts.size(), r.hosts.size() == 1 ? "" : "s");
  if (!r.backend.empty()) out += ", " + r.backend;
  return out;
}

std::string rows_table(const std::vector<const ComparisonRow*>& rows) {
  std::string out =
      "| What | Size | Metric | Baseline | Current | Change | Verdict | Test |\n"
      "|---|---:|---|---:|---:|---:|---|---|\n";
  for (const ComparisonRow* r : rows) {
    const std::string verdict =
        r->verdict == RowVerdict::kRegression ? "**regression**" : std::string(name(r->verdict));
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", cell(r->subject), format_size(r->size_bytes),
                       name(r->metric), format_figure(*r, r->baseline), format_figure(*r, r->current),
                       r->change ? format_change(*r) : "-", verdict, cell(format_test(*r)));
  }
  return out;
}

std::string comparison_markdown(const Comparison& c, const Budget& budget) {
  std::string out =
      !against_history(c)
          ? fmt::format("**Baseline** {}  \n**Current** {}\n\n", run_text(c.baseline), run_text(c.current))
      : c.history.empty() ? fmt::format("**History** no run yet  \n**Current** {}\n\n", run_text(c.current))
                          : fmt::format("**History** {} runs, `{}` .. `{}`; latest {}  \n**Current** {}\n\n",
                                        c.history.size(), cell(c.history.front().path), cell(c.history.back().path),
                                        run_text(c.baseline), run_text(c.current));
  if (!c.differences.empty()) {
    out += "The runs differ in:\n\n";
    for (const SettingDifference& d : c.differences) {
      out += fmt::format("- {}: `{}` → `{}`\n", cell(d.setting), cell(d.baseline), cell(d.current));
    }
    out += "\n";
  }
  if (!against_history(c)) {
    out += fmt::format(
        "{} rows compared: {} (threshold {:.1f}%, noise by Mann-Whitney U at alpha {} or each run's "
        "spread).\n\n",
        c.rows.size(), counts_text(c), 100.0 * c.threshold, c.alpha);
  } else {
    out += fmt::format(
        "{} rows compared: {} (threshold {:.1f}%; each row's prediction t-test against its spread across the "
        "history's runs, Benjamini-Hochberg false-discovery rate {}; rows in fewer than {} runs not judged).\n\n",
        c.rows.size(), counts_text(c), 100.0 * c.threshold, c.alpha, c.min_history);
  }
  std::vector<const ComparisonRow*> moved, all;
  for (const ComparisonRow& r : c.rows) {
    all.push_back(&r);
    if (r.verdict != RowVerdict::kUnchanged) moved.push_back(&r);
  }
  if (!moved.empty()) out += rows_table(moved) + "\n";
  if (!all.empty() && budget.details) {
    out += fmt::format("<details><summary>All {} rows</summary>\n\n{}\n</details>\n\n", all.size(), rows_table(all));
  }
  return out;
}

// A history: the runs, the latest change, and the rows that changed level with their
// change points; every row folded below when the budget allows.
std::string history_markdown(const HistorySection& h, const Budget& budget) {
  std::string out = fmt::format("**Series** {} runs, `{}` .. `{}` (ordered by {})\n\n", h.runs.size(),
                                cell(h.runs.front().path), cell(h.runs.back().path), h.order);
  out += h.latest_change ? fmt::format("Latest change: run {} (`{}`).\n\n", *h.latest_change + 1,
                                       cell(h.runs[*h.latest_change].path))
                         : std::string("No row changed level.\n\n");
  auto table = [](const std::vector<const HistoryRow*>& rows) {
    std::string t =
        "| What | Size | Metric | Latest | Run to run | Detection limit | Change points |\n"
        "|---|---:|---|---:|---:|---:|---|\n";
    for (const HistoryRow* r : rows) {
      std::optional<double> latest;
      for (const auto& v : r->values) {
        if (v) latest = v;
      }
      std::vector<std::string> cps;
      for (const HistoryChange& c : r->change_points) {
        cps.push_back(fmt::format("{}{}", c.worse ? "**worse** " : "", change_point_text(c)));
      }
      t += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", cell(r->subject), format_size(r->size_bytes),
                       name(r->metric), latest ? fmt::format("{:.2f}", *latest) : "-",
                       r->between_run_sd ? fmt::format("{:.1f}%", 100 * *r->between_run_sd) : "-",
                       r->detection_limit ? fmt::format("{:.1f}%", 100 * *r->detection_limit) : "-",
                       cps.empty() ? "-" : fmt::format("{}", fmt::join(cps, "; ")));
    }
    return t;
  };
  std::vector<const HistoryRow*> changed, all;
  for (const HistoryRow& r : h.rows) {
    all.push_back(&r);
    if (!r.change_points.empty()) changed.push_back(&r);
  }
  out += fmt::format(
      "{} rows, {} with a change point (E-divisive means, Welch's t-test p < {}, {} runs a side or "
      "more).\n\n",
      h.rows.size(), changed.size(), h.max_p, h.min_segment);
  if (!changed.empty()) out += table(changed) + "\n";
  if (budget.details) {
    out += fmt::format("<details><summary>All {} rows</summary>\n\n{}\n</details>\n\n", all.size(), table(all));
  }
  return out;
}

std::string sweeps_markdown(const Report& r, const Budget& budget) {
  std::string out;
  for (const Sweep& s : r.sweeps) {
    out += fmt::format("**{} {}{}** ({}{}, {} method{})\n\n", s.collective, s.dtype, s.op ? " " + *s.op : "", s.backend,
                       s.nranks > 0 ? fmt::format(", {} ranks", s.nranks) : "", name(s.method),
                       s.floor_us ? fmt::format("; floor {:.3f} us per iteration, ~ marks a time within {:g}x of it",
                                                *s.floor_us, kNearFloorFactor)
                                  : "");
    out +=
        "| Size | Time (us) | Bus bandwidth (GB/s) | In-place bus bandwidth (GB/s) | Wrong |\n"
        "|---:|---:|---:|---:|---:|\n";
    const size_t skip = s.points.size() > budget.sizes ? s.points.size() - budget.sizes : 0;
    if (skip) out += fmt::format("| {} smaller sizes not shown | | | | |\n", skip);
    for (size_t k = skip; k < s.points.size(); ++k) {
      const SweepPoint& p = s.points[k];
      const auto& o = p.out_of_place;
      const auto& i = p.in_place;
      int64_t wrong = 0;
      bool checked = false;
      for (const auto* pl : {&o, &i}) {
        if (*pl && (*pl)->wrong) {
          checked = true;
          wrong += *(*pl)->wrong;
        }
      }
      out += fmt::format("| {} | {} | {} | {} | {} |\n", format_size(p.size_bytes),
                         o ? fmt::format("{:.2f}{}", o->time_us, o->near_floor ? " ~" : "") : "-",
                         o ? fmt::format("{:.2f}", o->busbw_gbps) : "-", i ? fmt::format("{:.2f}", i->busbw_gbps) : "-",
                         checked ? std::to_string(wrong) : "-");
    }
    out += "\n";
  }
  return out;
}

// Per size: how many links, the median and the worst link; then the links findings name.
std::string p2p_markdown(const Report& r) {
  if (!r.p2p || r.p2p->links.empty()) return "";
  const P2pSection& p = *r.p2p;
  const bool lat = p.mode == P2pMode::kLatency;
  const char* unit = lat ? "us" : "GB/s";
  std::map<uint64_t, std::vector<const P2pLink*>> by_size;
  for (const P2pLink& l : p.links) by_size[l.size_bytes].push_back(&l);
  std::string out = fmt::format(
      "**p2p** pattern {}, mode {} ({})\n\n| Size | Links | Median ({}) | {} link | Its figure ({}) |\n"
      "|---:|---:|---:|---|---:|\n",
      p.pattern, p.mode, p.backend, unit, lat ? "Slowest" : "Lowest", unit);
  for (const auto& [size, links] : by_size) {
    std::vector<double> values;
    for (const P2pLink* l : links) values.push_back(link_value(*l, lat));
    const P2pLink* worst = *std::min_element(links.begin(), links.end(), [&](const P2pLink* a, const P2pLink* b) {
      return lat ? link_value(*a, lat) > link_value(*b, lat) : link_value(*a, lat) < link_value(*b, lat);
    });
    out += fmt::format("| {} | {} | {:.3f} | {} -> {} ({} -> {}) | {:.3f} |\n", format_size(size), links.size(),
                       median(values), worst->src_rank, worst->dst_rank, cell(worst->src_host), cell(worst->dst_host),
                       link_value(*worst, lat));
  }
  if (p.coverage) {  // "# Links: schedule ..." as a sentence under the table
    std::string line = render_coverage(p);
    for (size_t at = 0; (at = line.find("# ", at)) != std::string::npos;) line.erase(at, 2);
    out += "\n" + cell(line.substr(0, line.find('\n'))) + "\n";
  }
  return out + "\n";
}

// NCCL's profiler plugin: per collective at its largest size, the sending link that
// waited longest on the network against the median link.
std::string nccl_profile_markdown(const Report& r) {
  if (!r.nccl_profile) return "";
  const NcclProfileSection& s = *r.nccl_profile;
  if (s.status != ProfileStatus::kCollected) {
    return fmt::format("**NCCL network wait**: {} ({})\n\n", name(s.status), cell(s.detail));
  }
  std::map<std::pair<std::string, std::string>, const ProfilePoint*> largest;
  for (const ProfilePoint& p : s.points) {
    const ProfilePoint*& l = largest[{p.comm, p.collective}];
    if (l == nullptr || p.size_bytes > l->size_bytes) l = &p;
  }
  std::string out =
      "**NCCL network wait** (profiler plugin, wall-clock us per call)\n\n| Collective | Size | Median link (us) | "
      "Longest link | "
      "NIC | Its wait (us) |\n|---|---:|---:|---|---|---:|\n";
  for (const auto& [key, p] : largest) {
    std::vector<double> waits;
    const ProfileLink* worst = nullptr;
    for (const ProfileLink& l : p->links) {
      if (l.direction != LinkDirection::kSend || l.calls() <= 0) continue;
      waits.push_back(l.network_us_per_call());
      if (worst == nullptr || l.network_us_per_call() > worst->network_us_per_call()) worst = &l;
    }
    if (worst == nullptr) continue;
    out += fmt::format("| {} | {} | {:.1f} | {} -> {} | {} | {:.1f} |\n", p->collective, format_size(p->size_bytes),
                       median(waits), worst->rank, worst->peer, worst->nic.empty() ? "?" : cell(worst->nic),
                       worst->network_us_per_call());
  }
  return out + "\n";
}

// fabscope watch: the send links that turned slow or waited most, with their figures.
std::string watch_markdown(const Report& r) {
  if (!r.watch || r.watch->links.empty()) return "";
  const WatchSection& w = *r.watch;
  std::string out = fmt::format(
      "**Links over time** ({} snapshots, {} intervals judged; network wait per step, NCCL's SendWait)\n\n| Link | "
      "Hosts | NIC | Slow from | Median (us) | Last (us) | Last rate (GB/s) |\n|---|---|---|---:|---:|---:|---:|\n",
      w.snapshots, w.intervals);
  int rows = 0;
  for (const WatchLink& l : w.links) {
    if (l.direction != "send" || ++rows > 8) continue;
    out += fmt::format("| {} -> {} | {} -> {} | {} | {} | {:.0f} | {:.0f} | {:.3f} |\n", l.rank, l.peer, cell(l.host),
                       cell(l.peer_host), l.nic.empty() ? "?" : cell(l.nic),
                       l.slow_from ? std::to_string(*l.slow_from) : "", l.median_wait_us_per_step,
                       l.last_wait_us_per_step, l.last_bytes_per_s / 1e9);
  }
  return out + "\n";
}

std::string attribution_markdown(const Report& r) {
  if (r.attribution.empty()) return "";
  std::string out =
      "#### Where the time went\n\n| Collective | Size | Measured (us) | Ideal (us) | Cause | Share of the excess |\n"
      "|---|---:|---:|---:|---|---:|\n";
  for (const Attribution& a : r.attribution) {
    for (const AttributionEntry& e : a.entries) {
      out += fmt::format("| {} | {} | {:.1f} | {:.1f} | {}: {} | {:.1f}% |\n", a.collective, format_size(a.size_bytes),
                         a.measured_us, a.ideal_us, name(e.kind), cell(e.subject), 100 * e.share);
    }
  }
  return out + "\n";
}

std::string render_markdown(const Report& r, const Budget& budget) {
  const bool fail = r.verdict.result == VerdictResult::kFail;
  const bool inconclusive = r.verdict.result == VerdictResult::kInconclusive;
  std::string out = fmt::format("### fabscope {}: {}\n\n", command_name(r),
                                fail           ? "**FAIL**"
                                : inconclusive ? "**INCONCLUSIVE**"
                                               : "**pass**");
  if (fail && !r.verdict.failed_codes.empty()) {
    out += fmt::format("Failed on {}.", fmt::join(r.verdict.failed_codes, ", "));
    if (!r.verdict.drain.empty()) out += fmt::format(" Hosts to drain: `{}`.", r.verdict.drain_hostlist);
    out += "\n\n";
  }
  if (!r.verdict.missing.empty()) {
    out += "What the inputs lack for a verdict:\n\n";
    for (const std::string& m : r.verdict.missing) out += fmt::format("- {}\n", m);
    out += "\n";
  }
  if (!r.verdict.not_judged.empty()) {
    out += "Not judged:\n\n";
    for (const std::string& m : r.verdict.not_judged) out += fmt::format("- {}\n", m);
    out += "\n";
  }
  if (r.comparison) {
    out += comparison_markdown(*r.comparison, budget);
  } else if (r.history) {
    out += history_markdown(*r.history, budget);
  } else {
    out += sweeps_markdown(r, budget);
  }
  out += p2p_markdown(r);
  out += nccl_profile_markdown(r);
  out += watch_markdown(r);
  out += attribution_markdown(r);
  if (!r.findings.empty()) {
    // Errors first, then warnings, then the rest, each in the report's order.
    std::vector<const Finding*> order;
    for (const Severity sev : {Severity::kError, Severity::kWarning, Severity::kInfo}) {
      for (const Finding& f : r.findings) {
        if (f.severity == sev) order.push_back(&f);
      }
    }
    out += "#### Findings\n\n";
    for (size_t i = 0; i < order.size() && i < budget.findings; ++i) {
      const Finding& f = *order[i];
      out += fmt::format("- **{}** `{}` {}: {}\n", name(f.severity), f.code, cell(f.subject), cell(f.message));
    }
    if (order.size() > budget.findings) {
      out += fmt::format("- ... and {} more findings (all are in the JSON and HTML reports)\n",
                         order.size() - budget.findings);
    }
    out += "\n";
  }
  return out;
}

}  // namespace

std::string render_markdown(const Report& r) {
  std::string out = render_markdown(r, Budget{});
  if (out.size() <= kMarkdownCommentLimit) return out;
  out = render_markdown(r, Budget{false, 8, 15});
  if (out.size() <= kMarkdownCommentLimit) return out;
  // Still too long (a huge comparison): cut at a line, and say so.
  const std::string note = "\n\n*Cut to fit a comment: every row and finding is in the JSON and HTML reports.*\n";
  const size_t at = out.rfind('\n', kMarkdownCommentLimit - note.size());
  return out.substr(0, at == std::string::npos ? 0 : at) + note;
}

std::unique_ptr<Reporter> make_markdown_reporter(const std::string& path) {
  return std::make_unique<RenderedFileReporter>(path, [](const Report& r) { return render_markdown(r); });
}

}  // namespace fabscope
