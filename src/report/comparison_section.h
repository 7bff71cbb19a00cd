// The report model's comparison section (report/report.h holds the whole report).
// `fabscope compare`: the two runs, the settings they differ in, and each row's verdict.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabscope {

// `fabscope compare`: a baseline report and a current one, judged row by row
// (report/compare.h).
struct ComparedRun {
  std::string path;
  std::string made_by;  // "fabscope 0.4.0 (git 1a2b3c4)" or "nccl-tests 2.17.1, imported by fabscope ..."
  std::string backend;
  std::string backend_library;
  int nranks = 0;  // 0: unknown
  std::vector<std::string> hosts;
  std::string start_time;  // "" unknown
  std::string verdict;     // the run's own verdict
};
// A setting the two runs differ in (ranks, hosts, backend, library, -z, -G, ...).
struct SettingDifference {
  std::string setting;
  std::string baseline;
  std::string current;
};
struct ComparisonRow {
  std::string section;     // sweep, p2p, attribution
  std::string subject;     // "allreduce float sum out-of-place", "link h0 -> h1 (rank 0 -> 1)", ...
  std::string collective;  // sweep and attribution rows; "" for p2p
  std::string placement;   // sweep rows: out_of_place, in_place
  uint64_t size_bytes = 0;
  std::string metric;  // time_us, busbw_gbps, bw_gbps, lat_us, share
  bool higher_is_better = false;
  std::optional<double> baseline;  // null where the row is in one run only
  std::optional<double> current;
  // Relative change (current - baseline) / baseline; for `share`, the difference in
  // points of the measured time. Positive is more of the metric.
  std::optional<double> change;
  // regression, improvement, within_noise, unchanged, missing_in_current, missing_in_baseline
  std::string verdict;
  // What decided it: mann_whitney_u (per-iteration samples of both runs), spread (each
  // run's iteration statistics), threshold (no spread in one run: the threshold alone),
  // none (in one run only).
  std::string test;
  std::optional<double> p_value;  // mann_whitney_u
  std::optional<double> noise;    // spread: the relative change the runs' spread allows
  int baseline_samples = 0;
  int current_samples = 0;
  std::string reason;  // one line: why this verdict
};
struct Comparison {
  ComparedRun baseline;
  ComparedRun current;
  double threshold = 0.05;  // relative change below which nothing moved
  double alpha = 0.05;      // the rank test's significance level
  std::string crossover;    // "auto" (each sweep's half-bandwidth size) or a size in bytes
  bool strict = false;
  std::vector<SettingDifference> differences;
  std::vector<ComparisonRow> rows;
};

}  // namespace fabscope
