#include "report/history.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>
#include <set>
#include <span>
#include <thread>
#include <unordered_map>

#include "core/change_points.h"
#include "core/sizes.h"
#include "core/student_t.h"
#include "report/compare_text.h"
#include "report/finding_codes.h"
#include "report/report_json.h"
#include "report/rules.h"

namespace fabscope {

namespace fs = std::filesystem;

// ---- loading a series ----

namespace {

struct Listed {
  std::string path;
  bool from_directory = false;
  fs::file_time_type mtime;
};

Result<std::vector<Listed>> list_reports(const std::vector<std::string>& paths, bool empty_directories) {
  std::vector<Listed> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      out.push_back({p, false, fs::last_write_time(p, ec)});
      continue;
    }
    std::vector<Listed> dir;
    for (const auto& e : fs::directory_iterator(p, ec)) {
      if (e.path().extension() != ".json" || !e.is_regular_file(ec)) continue;
      dir.push_back({e.path().string(), true, e.last_write_time(ec)});
    }
    if (ec) return Status::Invalid(fmt::format("'{}': cannot list the directory: {}", p, ec.message()));
    if (dir.empty() && !empty_directories) return Status::Invalid(fmt::format("'{}' holds no report (*.json)", p));
    std::stable_sort(dir.begin(), dir.end(), [](const Listed& a, const Listed& b) {
      return a.mtime != b.mtime ? a.mtime < b.mtime : a.path < b.path;
    });
    out.insert(out.end(), dir.begin(), dir.end());
  }
  return out;
}

}  // namespace

Result<RunSeries> load_run_series(const std::vector<std::string>& paths, bool empty_directories) {
  auto listed = list_reports(paths, empty_directories);
  if (!listed.ok()) return listed.status();
  // Parsing is most of the time (1,000 reports are hundreds of MiB): one worker per core,
  // each taking the next file; the first error in the listed order is the one reported.
  const size_t n = listed->size();
  std::vector<std::optional<Result<Report>>> loaded(n);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < n; i = next++) loaded[i].emplace(load_report((*listed)[i].path));
  };
  const size_t workers = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 16);
  std::vector<std::thread> threads;
  for (size_t w = 1; w < std::min(workers, n); ++w) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  RunSeries series;
  bool every_time = true, every_from_directory = true;
  for (size_t i = 0; i < n; ++i) {
    Result<Report>& report = *loaded[i];
    if (!report.ok()) return report.status();
    every_time = every_time && !report->context.start_time.empty();
    every_from_directory = every_from_directory && (*listed)[i].from_directory;
    series.runs.push_back({(*listed)[i].path, std::move(*report)});
  }
  if (every_time) {
    std::stable_sort(series.runs.begin(), series.runs.end(), [](const LoadedRun& a, const LoadedRun& b) {
      return a.report.context.start_time < b.report.context.start_time;  // ISO 8601 UTC sorts as text
    });
    series.order = "start_time";
  } else {
    series.order = every_from_directory ? "file_time" : "command_line";
  }
  return series;
}

Status check_runs_alike(const std::vector<LoadedRun>& runs, const LoadedRun& reference) {
  static const std::set<std::string> kMayDiffer = {"backend library", "hosts"};
  std::set<std::string> reference_rows;
  for (const RowObservation& o : observe_rows(reference.report)) reference_rows.insert(o.key);
  for (const LoadedRun& run : runs) {
    if (&run == &reference) continue;
    for (const SettingDifference& d : setting_differences(run.report, reference.report)) {
      if (kMayDiffer.count(d.setting)) continue;
      return Status::Invalid(
          fmt::format("'{}' and '{}' differ in {} ({} against {}): a history holds runs made alike; keep runs of other "
                      "settings in a history of their own",
                      run.path, reference.path, d.setting, d.baseline, d.current));
    }
    const std::vector<RowObservation> rows = observe_rows(run.report);
    if (std::none_of(rows.begin(), rows.end(), [&](const RowObservation& o) { return reference_rows.count(o.key); })) {
      return Status::Invalid(fmt::format(
          "'{}' measures none of the rows '{}' measures (other collectives, types, sizes or links): a history "
          "holds runs of one measurement",
          run.path, reference.path));
    }
  }
  return Status::Ok();
}

// ---- a row's figure in one run ----

namespace {

struct RowFigure {
  double log_value = 0;
  std::optional<double> within_var;  // the variance of the log figure from the run's own iterations
};

bool latency_metric(const RowObservation& o, uint64_t crossover) {
  if (o.identity.section == CompareSection::kP2p) return o.identity.metric == CompareMetric::kLatUs;
  return o.identity.size_bytes < crossover;
}

std::optional<RowFigure> figure_of(const RowObservation& o, bool latency) {
  const double v = latency ? o.time_us : o.bandwidth;
  if (!(v > 0) || !std::isfinite(v)) return std::nullopt;
  RowFigure f{std::log(v), std::nullopt};
  std::vector<double> logs;
  for (double s : o.samples) {
    if (s > 0 && std::isfinite(s)) logs.push_back(std::log(s));
  }
  if (logs.size() >= 2) {
    const double n = static_cast<double>(logs.size());
    const double mean = std::accumulate(logs.begin(), logs.end(), 0.0) / n;
    double ss = 0;
    for (double l : logs) ss += (l - mean) * (l - mean);
    f.within_var = ss / (n - 1) / n;
  }
  return f;
}

void set_metric(ComparisonRow& row, bool latency) {
  if (row.section == CompareSection::kP2p) return;
  row.metric = latency ? CompareMetric::kTimeUs : CompareMetric::kBusbwGbps;
  row.higher_is_better = !latency;
}

using RowIndex = std::unordered_map<std::string, const RowObservation*>;

struct Observed {
  std::vector<std::vector<RowObservation>> rows;  // per run
  std::vector<RowIndex> index;                    // per run
};

Observed observe(const std::vector<const Report*>& reports) {
  Observed o;
  o.rows.reserve(reports.size());
  for (const Report* r : reports) o.rows.push_back(observe_rows(*r));
  for (const auto& rows : o.rows) {
    RowIndex& idx = o.index.emplace_back();
    idx.reserve(rows.size());
    for (const RowObservation& row : rows) idx.emplace(row.key, &row);
  }
  return o;
}

// The crossover a row is judged by: the option, else its sweep's n1/2 in the latest run
// that holds it.
uint64_t crossover_for(const std::string& key, const Observed& o, const RowObservation& fallback,
                       const std::optional<uint64_t>& given) {
  if (given) return *given;
  for (size_t i = o.index.size(); i-- > 0;) {
    auto it = o.index[i].find(key);
    if (it != o.index[i].end()) return it->second->crossover;
  }
  return fallback.crossover;
}

// The sums a row's figures over k runs come to: of the log figures, their squares, and the
// within-run variances (used only where every run has one). Leaving one run out is O(1)
// (add with sign -1), which the history's own leave-one-out tests need.
struct RunSums {
  double k = 0, sum = 0, squares = 0, within = 0;
  bool within_known = true;
  void add(const RowFigure& f, double sign = 1) {
    k += sign;
    sum += sign * f.log_value;
    squares += sign * f.log_value * f.log_value;
    if (f.within_var) {
      within += sign * *f.within_var;
    } else {
      within_known = false;
    }
  }
  double mean() const { return sum / k; }
  double variance() const { return k > 1 ? std::max(0.0, (squares - k * mean() * mean()) / (k - 1)) : 0.0; }
  std::optional<double> within_mean() const {
    return within_known && k > 0 ? std::optional<double>(within / k) : std::nullopt;
  }
};

RunSums sums_of(std::span<const RowFigure> figures) {
  RunSums r;
  for (const RowFigure& f : figures) r.add(f);
  return r;
}

// The noise of a set of runs' figures: their whole variance, the within-run part (where
// every run has one) and the between-run rest.
struct Noise {
  double total_var = 0;
  std::optional<double> within_var;
  double between_var = 0;
};
Noise noise_of(const RunSums& r) {
  Noise n{r.variance(), r.within_mean(), 0};
  n.between_var = std::max(0.0, n.total_var - n.within_var.value_or(0));
  return n;
}

void set_noise(ComparisonRow& row, const Noise& n) {
  row.between_run_sd = std::sqrt(n.between_var);
  if (n.within_var) {
    row.within_run_sd = std::sqrt(*n.within_var);
    const double whole = n.between_var + *n.within_var;
    row.between_share = whole > 0 ? n.between_var / whole : 0.0;
  }
}

std::string pct(double v) { return fmt::format("{:.1f}%", 100.0 * v); }

struct Prediction {
  double diff = 0;  // the figure's log minus the runs' mean
  double sd = 0;    // the prediction's standard deviation
  double p = 1;     // two-sided, k - 1 degrees of freedom
};

// `x` against the runs summed in `r` (history.h): the run-to-run variance never below the
// runs' own within-run variance, plus x's excess within-run variance.
Prediction predict(const RunSums& r, const RowFigure& x) {
  Prediction out;
  const std::optional<double> within = r.within_mean();
  const double spread = std::max(r.variance(), within.value_or(0));
  const double excess = x.within_var && within ? std::max(0.0, *x.within_var - *within) : 0.0;
  out.sd = std::sqrt(spread * (1 + 1.0 / r.k) + excess);
  out.diff = x.log_value - r.mean();
  out.p = out.sd > 0 ? student_t_two_sided_p(out.diff / out.sd, r.k - 1) : (out.diff == 0 ? 1.0 : 0.0);
  return out;
}

// A current row against its history: the prediction t-test (history.h). Each run of the
// history is also tested against the others (leave one out), into `null_p`: how often
// this history's own runs look as far off as the current one.
void judge_against_history(ComparisonRow& row, const std::vector<RowFigure>& history, const RowFigure& current,
                           int min_history, std::vector<double>& null_p) {
  const int k = static_cast<int>(history.size());
  row.history_runs = k;
  row.current = std::exp(current.log_value);
  const RunSums sums = sums_of(history);
  if (k > 0) row.baseline = std::exp(sums.mean());
  if (k < min_history) {
    row.verdict = RowVerdict::kNotJudged;
    row.test = RowTest::kNone;
    row.reason =
        fmt::format("{} run{} of the history hold this row; judging needs {}", k, k == 1 ? "" : "s", min_history);
    return;
  }
  set_noise(row, noise_of(sums));
  const Prediction t = predict(sums, current);
  for (const RowFigure& f : history) {
    RunSums others = sums;
    others.add(f, -1);
    null_p.push_back(predict(others, f).p);
  }
  row.change = std::expm1(t.diff);
  row.noise = t.sd;  // the prediction's standard deviation, in logs (relative)
  row.test = RowTest::kHistoryT;
  row.p_value = t.p;
  const bool worse = row.higher_is_better ? t.diff < 0 : t.diff > 0;
  row.reason = fmt::format(
      "{} by {} against the mean of {} runs; t-test against their spread of {} (run to run {}{}): "
      "p = {:.3g} on {} df",
      worse ? "worse" : "better", format_change(row), k, pct(t.sd), pct(*row.between_run_sd),
      row.within_run_sd ? ", within runs " + pct(*row.within_run_sd) : "", t.p, k - 1);
}

// The history's own tails: every judged row's runs each tested against the others. Where
// there are enough of them, a current p-value counts only as far as the history's own runs
// seldom reach it: p = max(p, (1 + #{null p <= p}) / (N + 1)).
struct EmpiricalNull {
  std::vector<double> sorted;
  bool used() const { return sorted.size() >= kMinTests; }
  double calibrate(double p) const {
    if (!used()) return p;
    const auto at_most = std::upper_bound(sorted.begin(), sorted.end(), p) - sorted.begin();
    return std::max(p, static_cast<double>(at_most + 1) / static_cast<double>(sorted.size() + 1));
  }
  // The largest t-test p that calibrates to at most `level` (0 where none does).
  double largest_p_within(double level) const {
    if (!used()) return level;
    const double reach = level * static_cast<double>(sorted.size() + 1) - 1;  // null p's allowed at or below
    if (reach < 0) return 0;
    const size_t c = static_cast<size_t>(reach);
    return c < sorted.size() ? std::min(level, std::nextafter(sorted[c], 0.0)) : level;
  }
  static constexpr size_t kMinTests = 100;
};

void calibrate(std::vector<ComparisonRow>& rows, const EmpiricalNull& null) {
  if (!null.used()) return;
  for (ComparisonRow& r : rows) {
    if (r.test != RowTest::kHistoryT || !r.p_value) continue;
    const double p = null.calibrate(*r.p_value);
    if (p > *r.p_value) {
      r.reason += fmt::format(
          "; the history's own runs, each against the others, came this far in {:.2g}% of {} "
          "tests: p = {:.3g}",
          100.0 * (p * static_cast<double>(null.sorted.size() + 1) - 1) / static_cast<double>(null.sorted.size()),
          null.sorted.size(), p);
    }
    r.p_value = p;
  }
}

// Benjamini-Hochberg at level q over the judged rows' p-values: the rows with the i
// smallest p-values are rejected for the largest i with p_(i) <= i q / m.
void benjamini_hochberg(std::vector<ComparisonRow>& rows, double q, double threshold, const EmpiricalNull& null) {
  std::vector<ComparisonRow*> tested;
  for (ComparisonRow& r : rows) {
    if (r.test == RowTest::kHistoryT && r.p_value) tested.push_back(&r);
  }
  std::stable_sort(tested.begin(), tested.end(),
                   [](const ComparisonRow* a, const ComparisonRow* b) { return *a->p_value < *b->p_value; });
  const size_t m = tested.size();
  size_t rejected = 0;
  for (size_t i = 0; i < m; ++i) {
    if (*tested[i]->p_value <= static_cast<double>(i + 1) * q / static_cast<double>(m)) rejected = i + 1;
  }
  for (size_t i = 0; i < m; ++i) {
    ComparisonRow& r = *tested[i];
    const double magnitude = std::fabs(*r.change);
    const bool worse = r.higher_is_better ? *r.change < 0 : *r.change > 0;
    const bool significant = i < rejected;
    if (magnitude < threshold) {
      r.verdict = RowVerdict::kUnchanged;
    } else if (significant) {
      r.verdict = worse ? RowVerdict::kRegression : RowVerdict::kImprovement;
    } else {
      r.verdict = RowVerdict::kWithinNoise;
    }
    r.reason +=
        fmt::format("; {} by Benjamini-Hochberg over {} rows at {}{}", significant ? "significant" : "not significant",
                    m, q, magnitude < threshold ? fmt::format(", and inside the {} threshold", pct(threshold)) : "");
    // The smallest change flagged when the rows move together (a slower fabric moves them
    // all): Benjamini-Hochberg then rejects every row whose p is at most q. Null where
    // the history is too short for any p to count.
    const double level = null.largest_p_within(q);
    r.detection_limit.reset();
    if (level > 0) {
      const double t_crit = student_t_quantile(1 - level / 2, r.history_runs - 1);
      r.detection_limit = std::max(threshold, std::expm1(t_crit * *r.noise));
    }
  }
}

}  // namespace

Comparison compare_to_history(const std::vector<LoadedRun>& history, const LoadedRun& current,
                              const CompareOptions& o) {
  Comparison out;
  for (const LoadedRun& run : history) out.history.push_back(describe_run(run.report, run.path));
  if (!history.empty()) out.baseline = out.history.back();
  out.current = describe_run(current.report, current.path);
  out.threshold = o.threshold;
  out.alpha = o.alpha;
  out.crossover = o.crossover_bytes ? std::to_string(*o.crossover_bytes) : "auto";
  out.correction = "benjamini_hochberg";
  out.min_history = o.min_history;
  if (!history.empty()) out.differences = setting_differences(history.back().report, current.report);

  std::vector<const Report*> reports;
  for (const LoadedRun& run : history) reports.push_back(&run.report);
  const Observed past = observe(reports);
  const std::vector<RowObservation> now = observe_rows(current.report);
  std::set<std::string> seen;
  EmpiricalNull null;
  for (const RowObservation& obs : now) {
    seen.insert(obs.key);
    ComparisonRow row = obs.identity;
    const bool latency = latency_metric(obs, crossover_for(obs.key, past, obs, o.crossover_bytes));
    set_metric(row, latency);
    std::vector<RowFigure> figures;
    for (const RowIndex& idx : past.index) {
      auto it = idx.find(obs.key);
      if (it == idx.end()) continue;
      if (auto f = figure_of(*it->second, latency)) figures.push_back(*f);
    }
    const std::optional<RowFigure> cur = figure_of(obs, latency);
    row.current_samples = static_cast<int>(obs.samples.size());
    if (history.empty()) {
      row.verdict = RowVerdict::kNotJudged;
      row.reason = fmt::format("the history holds no run yet; judging needs {}", o.min_history);
    } else if (figures.empty()) {
      row.verdict = RowVerdict::kMissingInBaseline;
      row.reason = "measured in the current run only: no run of the history holds it";
    } else if (!cur) {
      row.verdict = RowVerdict::kNotJudged;
      row.history_runs = static_cast<int>(figures.size());
      row.reason = "the current run's figure is 0 or missing";
    } else {
      judge_against_history(row, figures, *cur, o.min_history, null.sorted);
    }
    out.rows.push_back(std::move(row));
  }
  // What the latest run of the history measured and the current run did not.
  for (const RowObservation& obs : past.rows.empty() ? std::vector<RowObservation>{} : past.rows.back()) {
    if (seen.count(obs.key)) continue;
    ComparisonRow row = obs.identity;
    const bool latency = latency_metric(obs, crossover_for(obs.key, past, obs, o.crossover_bytes));
    set_metric(row, latency);
    if (auto f = figure_of(obs, latency)) row.baseline = std::exp(f->log_value);
    row.verdict = RowVerdict::kMissingInCurrent;
    row.reason = "measured in the history's latest run, not in the current one";
    out.rows.push_back(std::move(row));
  }
  std::sort(null.sorted.begin(), null.sorted.end());
  calibrate(out.rows, null);
  benjamini_hochberg(out.rows, o.alpha, o.threshold, null);
  return out;
}

// ---- change points over a series ----

namespace {

HistoryRow history_row(const RowObservation& obs, bool latency) {
  ComparisonRow id = obs.identity;
  set_metric(id, latency);
  HistoryRow h;
  static_cast<RowIdentity&>(h) = id;
  return h;
}

// The noise of the level since the last change, and the smallest step a new segment of
// min_segment runs would show against it at max_p (Welch's test, equal spreads).
void history_noise(HistoryRow& h, std::span<const RowFigure> level, const HistoryOptions& o) {
  if (level.size() < 2) return;
  const Noise n = noise_of(sums_of(level));
  h.between_run_sd = std::sqrt(n.between_var);
  if (n.within_var) h.within_run_sd = std::sqrt(*n.within_var);
  const double l = static_cast<double>(level.size()), s = static_cast<double>(o.min_segment);
  const double t_crit = student_t_quantile(1 - o.max_p / 2, l + s - 2);
  h.detection_limit = std::max(o.min_step, std::expm1(t_crit * std::sqrt(n.total_var * (1 / l + 1 / s))));
}

}  // namespace

HistorySection build_history(const RunSeries& series, const HistoryOptions& o) {
  HistorySection out;
  out.order = series.order;
  out.max_p = o.max_p;
  out.min_segment = o.min_segment;
  out.min_step = o.min_step;
  out.crossover = o.crossover_bytes ? std::to_string(*o.crossover_bytes) : "auto";
  std::vector<const Report*> reports;
  for (const LoadedRun& run : series.runs) {
    reports.push_back(&run.report);
    out.runs.push_back({run.path, describe_run(run.report, run.path).made_by, run.report.context.start_time});
  }
  const Observed obs = observe(reports);
  // Every row in the order it first appears.
  std::vector<const RowObservation*> order;
  std::set<std::string> listed;
  for (const auto& rows : obs.rows) {
    for (const RowObservation& r : rows) {
      if (listed.insert(r.key).second) order.push_back(&r);
    }
  }
  const ChangePointOptions cpo{o.max_p, static_cast<size_t>(o.min_segment), o.min_step};
  for (const RowObservation* first : order) {
    const bool latency = latency_metric(*first, crossover_for(first->key, obs, *first, o.crossover_bytes));
    HistoryRow h = history_row(*first, latency);
    std::vector<double> present;
    std::vector<size_t> run_of;
    std::vector<RowFigure> figures;
    for (size_t i = 0; i < obs.index.size(); ++i) {
      auto it = obs.index[i].find(first->key);
      std::optional<RowFigure> f;
      if (it != obs.index[i].end()) f = figure_of(*it->second, latency);
      h.values.push_back(f ? std::optional<double>(std::exp(f->log_value)) : std::nullopt);
      if (!f) continue;
      present.push_back(std::exp(f->log_value));
      run_of.push_back(i);
      figures.push_back(*f);
    }
    size_t level_begin = 0;
    for (const ChangePoint& cp : e_divisive_means(present, cpo)) {
      HistoryChange c;
      c.index = run_of[cp.index];
      c.path = series.runs[c.index].path;
      c.before = cp.before;
      c.after = cp.after;
      c.step = cp.before != 0 ? cp.after / cp.before - 1 : 0;
      c.p_value = cp.p_value;
      c.worse = h.higher_is_better ? c.step < 0 : c.step > 0;
      h.change_points.push_back(c);
      level_begin = cp.index;
      if (!out.latest_change || c.index > *out.latest_change) out.latest_change = c.index;
    }
    history_noise(h, std::span<const RowFigure>(figures).subspan(level_begin), o);
    out.rows.push_back(std::move(h));
  }
  return out;
}

// ---- findings ----

namespace {

void check_steps(const HistorySection& h, FindingSink& sink, bool worse) {
  // One finding per subject: its rows whose latest change went this way.
  std::vector<std::string> subjects;
  std::map<std::string, std::vector<const HistoryRow*>> by_subject;
  for (const HistoryRow& r : h.rows) {
    if (r.change_points.empty() || r.change_points.back().worse != worse) continue;
    if (!by_subject.count(r.subject)) subjects.push_back(r.subject);
    by_subject[r.subject].push_back(&r);
  }
  for (const std::string& subject : subjects) {
    std::vector<std::string> parts;
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const HistoryRow* r : by_subject[subject]) {
      const HistoryChange& c = r->change_points.back();
      parts.push_back(
          fmt::format("{} {:+.1f}% from run {} ({})", format_size(r->size_bytes), 100 * c.step, c.index + 1, c.path));
      rows.push_back({{"size_bytes", r->size_bytes},
                      {"metric", name(r->metric)},
                      {"run_index", c.index},
                      {"path", c.path},
                      {"before", c.before},
                      {"after", c.after},
                      {"step", c.step},
                      {"p_value", c.p_value}});
    }
    sink.add(worse ? Severity::kWarning : Severity::kInfo, subject, {},
             fmt::format("{}: {} at {}", subject, worse ? "stepped worse" : "stepped better", fmt::join(parts, ", ")),
             worse ? "find what changed at that run (software, firmware, placement, a host or link); `fabscope "
                     "compare` of the runs either side and `fabscope diagnose` say more"
                   : "if it holds, the history's later runs are the new normal",
             {{"rows", rows}});
  }
}

void check_step_worse(const HistorySection& h, FindingSink& sink) { check_steps(h, sink, true); }
void check_step_better(const HistorySection& h, FindingSink& sink) { check_steps(h, sink, false); }

constexpr Rule<HistorySection> kHistoryRules[] = {
    {code::kHistoryStepWorse, "a row whose latest change point made it worse", check_step_worse},
    {code::kHistoryStepBetter, "a row whose latest change point made it better", check_step_better},
};

}  // namespace

std::span<const Rule<HistorySection>> history_rules() { return kHistoryRules; }

std::vector<Finding> history_findings(const HistorySection& history) {
  std::vector<Finding> out;
  run_rules(history_rules(), history, out);
  return out;
}

}  // namespace fabscope
