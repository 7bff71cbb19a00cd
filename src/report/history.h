// A history of runs: `fabscope compare BASELINE... CURRENT` (or --history DIR) judges the
// current run against the spread of each row across the baseline runs, and
// `fabscope history REPORT...|DIR` finds where each row's level changed.
//
// The model (README.md, "Regression history"). Each run's figure of a row (its bus
// bandwidth, or its time below the crossover size) is taken in logarithms, so a change
// is relative and a spread a relative standard deviation. Over the k runs of the history
// that hold the row: mean m and sample variance s^2 of their figures. A run's figure
// varies from run to run (between-run variance, what a second identical run would show)
// and with the iterations inside it (within-run variance: the variance of the mean of
// its per-iteration log times, w). The current run's figure c is judged by the
// prediction t-test
//     t = (c - m) / sqrt(max(s^2, mean w) (1 + 1/k) + max(0, w_c - mean w)),  k - 1 df
// (s^2 already holds the history's own within-run noise; a current run noisier than its
// history adds the excess). It assumes the history's runs are alike and independent
// with a roughly normal log figure. Real histories have heavier tails, so every run of the
// history is also tested against the others (leave one out); with 100 such tests or more
// a current p counts only as far as they seldom reach it: max(p, (1 + #{null p <= p}) /
// (N + 1)), an empirical null. The rows' p-values are one family, corrected by
// Benjamini-Hochberg's false-discovery rate at alpha. A row is a regression or an
// improvement when its test rejects and it moved by at least the threshold; moved by
// more than the threshold without that, it is within_noise. A row held by fewer than
// min_history runs of the history is not judged. Each row states its detection limit:
// the smallest change flagged when the rows move together (every calibrated p <= alpha),
// never below the threshold.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "report/compare.h"
#include "report/report.h"

namespace fabscope {

struct LoadedRun {
  std::string path;
  Report report;
};

struct RunSeries {
  std::vector<LoadedRun> runs;
  std::string order;  // start_time, command_line or file_time (HistorySection::order)
};

// Every argument a report file or a directory of them (its *.json, not recursive).
// Ordered by start time when every report carries one; otherwise in the order given, a
// directory's reports by modification time ("file_time" when all came from directories).
// An unreadable or malformed report is an error naming it; so is a directory without
// reports, unless `empty_directories` (a CI job's history before its first night).
Result<RunSeries> load_run_series(const std::vector<std::string>& paths, bool empty_directories = false);

// Refuses runs that are not alike: another backend, rank count, measured by another
// tool, other iterations or timing settings, another p2p mode (the library, the tool's
// version and the hosts may differ: what changed between nights is what a history is
// for), and runs with no row in common with `reference`. The message names both files.
Status check_runs_alike(const std::vector<LoadedRun>& runs, const LoadedRun& reference);

// CompareOptions::min_history runs of the history are needed to judge a row; an empty
// history judges none.
Comparison compare_to_history(const std::vector<LoadedRun>& history, const LoadedRun& current,
                              const CompareOptions& options);

struct HistoryOptions {
  double max_p = 0.001;
  int min_segment = 3;
  double min_step = 0;
  std::optional<uint64_t> crossover_bytes;
};

HistorySection build_history(const RunSeries& series, const HistoryOptions& options);

// The history.* rules: history.step_worse (warning) for a row whose latest change made it
// worse, history.step_better (info) for one made better; one finding per subject.
std::span<const Rule<HistorySection>> history_rules();
std::vector<Finding> history_findings(const HistorySection& history);

}  // namespace fabscope
