// The report model's history section (report/report.h holds the whole report).
// `fabscope history`: a series of runs of one measurement, and per row the runs where
// its level changed (report/history.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/comparison_section.h"

namespace fabscope {

// One run of the series.
struct HistoryRun {
  std::string path;
  std::string made_by;
  std::string start_time;  // "" where the report carries none (imported)
};

// A change of a row's level: from run `index` on (its report's path named too).
struct HistoryChange {
  size_t index = 0;
  std::string path;
  double before = 0;  // the mean of the row's figure over the segment before
  double after = 0;   // and from this run to the next change
  double step = 0;    // after / before - 1
  double p_value = 1;
  bool worse = false;  // against the row's metric (a lower bandwidth, a longer time)
};

struct HistoryRow : RowIdentity {
  std::vector<std::optional<double>> values;  // one per run of the series; null where the run lacks the row
  std::vector<HistoryChange> change_points;   // oldest first
  // The noise of the level since the last change: the spread of a run's figure from run
  // to run beyond its own iteration noise, and inside the runs (relative standard
  // deviations, of the logarithm); null where it cannot be told.
  std::optional<double> between_run_sd;
  std::optional<double> within_run_sd;
  // The smallest step this row's series can show (the method's p against the spread).
  std::optional<double> detection_limit;
};

struct HistorySection {
  // How the runs were ordered: start_time (every report carries one), command_line (the
  // order given), file_time (a directory's reports without start times: by modification time).
  std::string order = "start_time";
  std::string method = "e_divisive_means";
  double max_p = 0.001;
  int min_segment = 3;
  double min_step = 0;
  std::string crossover = "auto";
  std::vector<HistoryRun> runs;
  std::vector<HistoryRow> rows;
  std::optional<size_t> latest_change;  // the latest run where any row changed
};

}  // namespace fabscope
