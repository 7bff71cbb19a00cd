// The report model's comparison section (report/report.h holds the whole report).
// `fabscope compare`: the two runs, the settings they differ in, and each row's verdict.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/named_enum.h"
#include "report/sweep_section.h"
#include "report/verdict.h"

namespace fabscope {

// What a comparison row compares: a sweep's point, a link, an attribution's share.
enum class CompareSection { kSweep, kP2p, kAttribution };
template <>
struct EnumNames<CompareSection> {
  static constexpr std::pair<CompareSection, std::string_view> kNames[] = {
      {CompareSection::kSweep, "sweep"}, {CompareSection::kP2p, "p2p"}, {CompareSection::kAttribution, "attribution"}};
};
// The figure a row compares.
enum class CompareMetric { kTimeUs, kBusbwGbps, kBwGbps, kLatUs, kShare };
template <>
struct EnumNames<CompareMetric> {
  static constexpr std::pair<CompareMetric, std::string_view> kNames[] = {{CompareMetric::kTimeUs, "time_us"},
                                                                          {CompareMetric::kBusbwGbps, "busbw_gbps"},
                                                                          {CompareMetric::kBwGbps, "bw_gbps"},
                                                                          {CompareMetric::kLatUs, "lat_us"},
                                                                          {CompareMetric::kShare, "share"}};
};
// A row's verdict.
// not_judged: a history compare whose history holds this row in too few runs.
enum class RowVerdict {
  kRegression,
  kImprovement,
  kWithinNoise,
  kUnchanged,
  kMissingInCurrent,
  kMissingInBaseline,
  kNotJudged
};
template <>
struct EnumNames<RowVerdict> {
  static constexpr std::pair<RowVerdict, std::string_view> kNames[] = {
      {RowVerdict::kRegression, "regression"},
      {RowVerdict::kImprovement, "improvement"},
      {RowVerdict::kWithinNoise, "within_noise"},
      {RowVerdict::kUnchanged, "unchanged"},
      {RowVerdict::kMissingInCurrent, "missing_in_current"},
      {RowVerdict::kMissingInBaseline, "missing_in_baseline"},
      {RowVerdict::kNotJudged, "not_judged"}};
};
// What decided a row: mann_whitney_u (per-iteration samples of both runs), spread (each
// run's iteration statistics), threshold (no spread in one run: the threshold alone),
// history_t (a history of runs: the prediction t-test of report/compare.h), none (in one
// run only, or not judged).
enum class RowTest { kMannWhitneyU, kSpread, kThreshold, kHistoryT, kNone };
template <>
struct EnumNames<RowTest> {
  static constexpr std::pair<RowTest, std::string_view> kNames[] = {{RowTest::kMannWhitneyU, "mann_whitney_u"},
                                                                    {RowTest::kSpread, "spread"},
                                                                    {RowTest::kThreshold, "threshold"},
                                                                    {RowTest::kHistoryT, "history_t"},
                                                                    {RowTest::kNone, "none"}};
};

// `fabscope compare`: a baseline report and a current one, judged row by row
// (report/compare.h).
struct ComparedRun {
  std::string path;
  std::string made_by;  // "fabscope 0.4.0 (git 1a2b3c4)" or "nccl-tests 2.17.1, imported by fabscope ..."
  std::string backend;
  std::string backend_library;
  int nranks = 0;  // 0: unknown
  std::vector<std::string> hosts;
  std::string start_time;                        // "" unknown
  VerdictResult verdict = VerdictResult::kPass;  // the run's own verdict
};
// A setting the two runs differ in (ranks, hosts, backend, library, -z, -G, ...).
struct SettingDifference {
  std::string setting;
  std::string baseline;
  std::string current;
};
// What a row measures, the same in a comparison and in a history (history_section.h).
struct RowIdentity {
  CompareSection section = CompareSection::kSweep;
  std::string subject;                 // "allreduce float sum out-of-place", "link h0 -> h1 (rank 0 -> 1)", ...
  std::string collective;              // sweep and attribution rows; "" for p2p
  std::optional<Placement> placement;  // sweep rows only
  uint64_t size_bytes = 0;
  CompareMetric metric = CompareMetric::kTimeUs;
  bool higher_is_better = false;
};
struct ComparisonRow : RowIdentity {
  std::optional<double> baseline;  // null where the row is in one run only
  std::optional<double> current;
  // Relative change (current - baseline) / baseline; for `share`, the difference in
  // points of the measured time. Positive is more of the metric.
  std::optional<double> change;
  RowVerdict verdict = RowVerdict::kUnchanged;
  RowTest test = RowTest::kNone;  // what decided the verdict
  std::optional<double> p_value;  // mann_whitney_u
  std::optional<double> noise;    // spread: the relative change the runs' spread allows
  int baseline_samples = 0;
  int current_samples = 0;
  std::string reason;  // one line: why this verdict
  // A history compare only (test history_t); the spreads are of a run's figure, as a
  // relative standard deviation (of its logarithm).
  int history_runs = 0;                   // runs of the history that hold this row
  std::optional<double> between_run_sd;   // from run to run, beyond the runs' own iteration noise
  std::optional<double> within_run_sd;    // from the iterations inside a run (null: no samples)
  std::optional<double> between_share;    // between-run variance over the whole
  std::optional<double> detection_limit;  // the smallest change this row's history can flag
};
struct Comparison {
  ComparedRun baseline;  // a history compare: its latest run
  ComparedRun current;
  // A history compare (several baselines or --history): every run of the history, oldest
  // first; empty for a one-baseline compare.
  std::vector<ComparedRun> history;
  std::string correction = "holm";  // the many rows' correction: holm, or benjamini_hochberg (history)
  int min_history = 0;              // runs a row needs in the history to be judged; 0 for one baseline
  double threshold = 0.05;          // relative change below which nothing moved
  double alpha = 0.05;              // the rank test's significance level
  std::string crossover;            // "auto" (each sweep's half-bandwidth size) or a size in bytes
  bool strict = false;
  std::vector<SettingDifference> differences;
  std::vector<ComparisonRow> rows;
};

// Whether a comparison judged the current run against a history (possibly empty) rather
// than one baseline.
inline bool against_history(const Comparison& c) { return c.min_history > 0; }

}  // namespace fabscope
