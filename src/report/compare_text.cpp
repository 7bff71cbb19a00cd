#include "report/compare_text.h"

#include <fmt/format.h>

#include <charconv>

#include "core/sizes.h"
#include "report/compare.h"

namespace fabscope {

std::map<std::string, int> verdict_counts(const Comparison& c) {
  std::map<std::string, int> n = {{"regression", 0}, {"improvement", 0}, {"within_noise", 0},
                                  {"unchanged", 0},  {"missing", 0},     {"not_judged", 0}};
  for (const ComparisonRow& r : c.rows) {
    const bool missing = r.verdict == RowVerdict::kMissingInCurrent || r.verdict == RowVerdict::kMissingInBaseline;
    ++n[missing ? "missing" : std::string(name(r.verdict))];
  }
  return n;
}

std::string counts_text(const Comparison& c) {
  auto n = verdict_counts(c);
  auto plural = [](int k, const char* one, const char* many) { return fmt::format("{} {}", k, k == 1 ? one : many); };
  return fmt::format("{}, {}, {} within noise, {} unchanged, {} missing{}",
                     plural(n["regression"], "regression", "regressions"),
                     plural(n["improvement"], "improvement", "improvements"), n["within_noise"], n["unchanged"],
                     n["missing"], !against_history(c) ? "" : fmt::format(", {} not judged", n["not_judged"]));
}

std::string format_figure(const ComparisonRow& row, const std::optional<double>& v) {
  if (!v) return "-";
  if (row.metric == CompareMetric::kShare) return fmt::format("{:.1f}%", 100.0 * *v);
  if (*v >= 1e6) return fmt::format("{:.3g}", *v);
  return fmt::format("{:.2f}", *v);
}

std::string format_test(const ComparisonRow& row) {
  if (row.test == RowTest::kMannWhitneyU && row.p_value) {
    return fmt::format("mann-whitney p={:.2g} ({}v{})", *row.p_value, row.baseline_samples, row.current_samples);
  }
  if (row.test == RowTest::kSpread && row.noise) return fmt::format("spread {:.1f}%", 100.0 * *row.noise);
  if (row.test == RowTest::kHistoryT && row.p_value) {
    std::string out = fmt::format("t p={:.2g} ({} runs", *row.p_value, row.history_runs);
    if (row.between_run_sd) out += fmt::format("; run-to-run {:.1f}%", 100.0 * *row.between_run_sd);
    if (row.within_run_sd) out += fmt::format(", within {:.1f}%", 100.0 * *row.within_run_sd);
    if (row.detection_limit) out += fmt::format("; limit {:.1f}%", 100.0 * *row.detection_limit);
    return out + ")";
  }
  if (row.test == RowTest::kNone) return "-";
  return std::string(name(row.test));
}

namespace {

// The crossover as the comparison recorded it: "auto", or a size in bytes (anything else,
// from a hand-edited report, is shown as it is).
std::string crossover_text(const std::string& crossover) {
  if (crossover == "auto") return "each sweep's n1/2 (half its peak bandwidth)";
  uint64_t bytes = 0;
  const auto [end, err] = std::from_chars(crossover.data(), crossover.data() + crossover.size(), bytes);
  if (err == std::errc() && end == crossover.data() + crossover.size()) return format_size(bytes);
  return "'" + crossover + "'";
}

std::string run_line(const char* label, const ComparedRun& r) {
  std::string ranks = r.nranks > 0 ? fmt::format("{} ranks", r.nranks) : "ranks unknown";
  std::string hosts =
      r.hosts.empty() ? "" : fmt::format(" on {} host{}", r.hosts.size(), r.hosts.size() == 1 ? "" : "s");
  return fmt::format("#  {:<9} {}: {}; {}{}{}; {}{}; verdict {}\n", label, r.path, r.made_by, ranks, hosts,
                     r.backend.empty() ? "" : ", " + r.backend,
                     r.backend_library.empty() ? "library unknown" : r.backend_library,
                     r.start_time.empty() ? "" : ", " + r.start_time, name(r.verdict));
}

std::string_view verdict_label(RowVerdict v) {
  switch (v) {
    case RowVerdict::kRegression:
      return "REGRESSION";
    case RowVerdict::kWithinNoise:
      return "within noise";
    case RowVerdict::kMissingInCurrent:
      return "MISSING now";
    case RowVerdict::kMissingInBaseline:
      return "new";
    case RowVerdict::kNotJudged:
      return "not judged";
    case RowVerdict::kImprovement:
    case RowVerdict::kUnchanged:
      break;
  }
  return name(v);
}

}  // namespace

std::string render_comparison(const Report& report) {
  if (!report.comparison) return "";
  const Comparison& c = *report.comparison;
  std::string out = "# fabscope compare\n";
  if (!against_history(c)) {
    out += run_line("baseline", c.baseline);
  } else if (c.history.empty()) {
    out += "#  history   no run yet\n";
  } else {
    out += fmt::format("#  history   {} runs: {} (oldest) .. {} (latest)\n", c.history.size(), c.history.front().path,
                       c.history.back().path);
    out += run_line("latest", c.baseline);
  }
  out += run_line("current", c.current);
  for (const SettingDifference& d : c.differences) {
    out += fmt::format("#  differs:  {}: {} -> {}\n", d.setting, d.baseline, d.current);
  }
  if (!against_history(c)) {
    out += fmt::format(
        "#  A row regressed when it moved the wrong way by more than {:.1f}% and beyond the runs' noise (Mann-Whitney "
        "U at alpha {} on per-iteration samples, Holm-adjusted over the rows tested; else each run's spread). Sizes "
        "below {} are judged on time_us, the others on busbw_gbps.\n#\n",
        100.0 * c.threshold, c.alpha, crossover_text(c.crossover));
  } else {
    out += fmt::format(
        "#  A row regressed when it moved the wrong way by at least {:.1f}% and its history's prediction t-test "
        "rejects (log figures, the spread across the history's runs, Benjamini-Hochberg false-discovery rate {} over "
        "the rows). Rows in fewer than {} runs of the history are not judged. Baseline: the history's geometric "
        "mean. Sizes below {} are judged on time_us, the others on busbw_gbps.\n#\n",
        100.0 * c.threshold, c.alpha, c.min_history, crossover_text(c.crossover));
  }
  std::string subject;
  for (const ComparisonRow& r : c.rows) {
    if (r.subject != subject) {
      subject = r.subject;
      out += fmt::format("# {}\n#  {:>10}  {:<10}  {:>12}  {:>12}  {:>9}  {:<12}  {}\n", subject, "size", "metric",
                         !against_history(c) ? "baseline" : "history", "current", "change", "verdict", "test");
    }
    out += fmt::format("   {:>10}  {:<10}  {:>12}  {:>12}  {:>9}  {:<12}  {}\n", format_size(r.size_bytes),
                       name(r.metric), format_figure(r, r.baseline), format_figure(r, r.current),
                       r.change ? format_change(r) : "-", verdict_label(r.verdict), format_test(r));
  }
  out += fmt::format("#\n# Compared {} rows: {}\n", c.rows.size(), counts_text(c));
  return out;
}

}  // namespace fabscope
