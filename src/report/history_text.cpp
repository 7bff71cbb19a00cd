#include "report/history_text.h"

#include <fmt/format.h>

#include "core/sizes.h"

namespace fabscope {

namespace {

std::string percent_or_dash(const std::optional<double>& v) {
  return v ? fmt::format("{:.1f}%", 100.0 * *v) : std::string("-");
}

std::string figure(const std::optional<double>& v) {
  if (!v) return "-";
  return *v >= 1e6 ? fmt::format("{:.3g}", *v) : *v >= 1 ? fmt::format("{:.2f}", *v) : fmt::format("{:.3g}", *v);
}

std::string order_text(const std::string& order) {
  if (order == "start_time") return "by each report's start time";
  if (order == "file_time") return "by file modification time (the reports carry no start time)";
  return "in the order given (the reports carry no start time)";
}

}  // namespace

std::string change_point_text(const HistoryChange& c) {
  return fmt::format("run {} {:+.1f}% p={:.2g}", c.index + 1, 100.0 * c.step, c.p_value);
}

std::string render_history(const Report& report) {
  if (!report.history) return "";
  const HistorySection& h = *report.history;
  std::string out = fmt::format("# fabscope history: {} runs, ordered {}\n", h.runs.size(), order_text(h.order));
  for (size_t i = 0; i < h.runs.size(); ++i) {
    if (h.runs.size() > 24 && i == 10) {
      out += fmt::format("#  ... {} runs ...\n", h.runs.size() - 20);
      i = h.runs.size() - 10;
    }
    const HistoryRun& r = h.runs[i];
    out += fmt::format("#  run {:>4}  {}{}\n", i + 1, r.path, r.start_time.empty() ? "" : "  " + r.start_time);
  }
  out += fmt::format(
      "#  Change points: E-divisive means (Matteson & James 2014, exponent 1); a split is kept when Welch's t-test "
      "between its two segments gives p < {} and each holds {} runs or more{}. Noise and limit: since the last "
      "change.\n",
      h.max_p, h.min_segment, h.min_step > 0 ? fmt::format(" and the step is {:.1f}% or more", 100 * h.min_step) : "");
  size_t changed = 0, at_latest = 0;
  for (const HistoryRow& r : h.rows) {
    changed += !r.change_points.empty();
    if (h.latest_change && !r.change_points.empty() && r.change_points.back().index == *h.latest_change) ++at_latest;
  }
  if (h.latest_change) {
    out += fmt::format("#  Latest change: run {} ({}), in {} row{}\n", *h.latest_change + 1,
                       h.runs[*h.latest_change].path, at_latest, at_latest == 1 ? "" : "s");
  } else {
    out += "#  No row changed level.\n";
  }
  out += "#\n";
  std::string subject;
  for (const HistoryRow& r : h.rows) {
    if (r.subject != subject) {
      subject = r.subject;
      out += fmt::format("# {}\n#  {:>10}  {:<10}  {:>4}  {:>12}  {:>10}  {:>7}  {:>7}  {}\n", subject, "size",
                         "metric", "runs", "latest", "run-to-run", "within", "limit", "change points");
    }
    size_t present = 0;
    std::optional<double> latest;
    for (const std::optional<double>& v : r.values) {
      if (v) ++present, latest = v;
    }
    std::vector<std::string> cps;
    for (const HistoryChange& c : r.change_points) cps.push_back(change_point_text(c));
    out += fmt::format("   {:>10}  {:<10}  {:>4}  {:>12}  {:>10}  {:>7}  {:>7}  {}\n", format_size(r.size_bytes),
                       name(r.metric), present, figure(latest), percent_or_dash(r.between_run_sd),
                       percent_or_dash(r.within_run_sd), percent_or_dash(r.detection_limit),
                       cps.empty() ? "-" : fmt::format("{}", fmt::join(cps, "; ")));
  }
  out += fmt::format("#\n# {} rows over {} runs: {} with a change point\n", h.rows.size(), h.runs.size(), changed);
  return out;
}

}  // namespace fabscope
