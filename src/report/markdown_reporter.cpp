// Markdown (--markdown FILE): a summary fit for a pull-request or merge-request comment.
// The verdict first; for a comparison, the runs, what they differ in and the rows that
// moved, with every row folded below; for a measuring run, bus bandwidth per
// collective; then the findings. Written atomically at the end.
#include <fmt/format.h>

#include "core/atomic_file.h"
#include "core/sizes.h"
#include "report/compare.h"
#include "report/compare_text.h"
#include "report/reporter.h"

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

std::string command_name(const Report& r) {
  if (r.comparison) return "compare";
  if (r.context.imported) return "import";
  if (r.diagnosis) return "diagnose";
  if (r.p2p) return "p2p";
  if (r.topology && r.sweeps.empty()) return "topo";
  return "sweep";
}

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
    const std::string verdict = r->verdict == "regression" ? "**regression**" : r->verdict;
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", cell(r->subject), format_size(r->size_bytes),
                       r->metric, format_figure(*r, r->baseline), format_figure(*r, r->current),
                       r->change ? format_change(*r) : "-", verdict, cell(format_test(*r)));
  }
  return out;
}

std::string comparison_markdown(const Comparison& c) {
  std::string out = fmt::format("**Baseline** {}  \n**Current** {}\n\n", run_text(c.baseline), run_text(c.current));
  if (!c.differences.empty()) {
    out += "The runs differ in:\n\n";
    for (const SettingDifference& d : c.differences) {
      out += fmt::format("- {}: `{}` → `{}`\n", cell(d.setting), cell(d.baseline), cell(d.current));
    }
    out += "\n";
  }
  out += fmt::format(
      "{} rows compared: {} (threshold {:.1f}%, noise by Mann-Whitney U at alpha {} or each run's "
      "spread).\n\n",
      c.rows.size(), counts_text(c), 100.0 * c.threshold, c.alpha);
  std::vector<const ComparisonRow*> moved, all;
  for (const ComparisonRow& r : c.rows) {
    all.push_back(&r);
    if (r.verdict != "unchanged") moved.push_back(&r);
  }
  if (!moved.empty()) out += rows_table(moved) + "\n";
  if (!all.empty()) {
    out += fmt::format("<details><summary>All {} rows</summary>\n\n{}\n</details>\n\n", all.size(), rows_table(all));
  }
  return out;
}

std::string sweeps_markdown(const Report& r) {
  std::string out;
  for (const Sweep& s : r.sweeps) {
    out += fmt::format("**{} {}{}** ({}{})\n\n", s.collective, s.dtype, s.op ? " " + *s.op : "", s.backend,
                       s.nranks > 0 ? fmt::format(", {} ranks", s.nranks) : "");
    out +=
        "| Size | Time (us) | Bus bandwidth (GB/s) | In-place bus bandwidth (GB/s) | Wrong |\n"
        "|---:|---:|---:|---:|---:|\n";
    for (const SweepPoint& p : s.points) {
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
                         o ? fmt::format("{:.2f}", o->time_us) : "-", o ? fmt::format("{:.2f}", o->busbw_gbps) : "-",
                         i ? fmt::format("{:.2f}", i->busbw_gbps) : "-", checked ? std::to_string(wrong) : "-");
    }
    out += "\n";
  }
  return out;
}

}  // namespace

std::string render_markdown(const Report& r) {
  const bool fail = r.verdict.result == "fail";
  const bool inconclusive = r.verdict.result == "inconclusive";
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
  if (r.comparison) {
    out += comparison_markdown(*r.comparison);
  } else {
    out += sweeps_markdown(r);
  }
  if (!r.findings.empty()) {
    out += "#### Findings\n\n";
    for (const Finding& f : r.findings) {
      out += fmt::format("- **{}** `{}` {}: {}\n", name(f.severity), f.code, cell(f.subject), cell(f.message));
    }
    out += "\n";
  }
  return out;
}

namespace {

class MarkdownReporter final : public Reporter {
 public:
  explicit MarkdownReporter(std::string path) : path_(std::move(path)) {}
  Status preflight() const override { return check_writable(path_); }
  Status finish(const Report& report) override { return write_file_atomically(path_, render_markdown(report)); }

 private:
  std::string path_;
};

}  // namespace

std::unique_ptr<Reporter> make_markdown_reporter(const std::string& path) {
  return std::make_unique<MarkdownReporter>(path);
}

}  // namespace fabscope
