// `fabscope compare`: a current report judged against a baseline, row by row.
//
// Rows are matched by what they measure: sweeps by collective, dtype, op, root, backend,
// ranks, size and placement; p2p links by mode, size, ranks and hosts; diagnose's
// attribution by collective, size and cause. A setting the runs differ in (backend,
// ranks, hosts, library, -z, -G, ...) is stated, and taken out of the match so the rows
// still pair up (or the comparison is refused with --strict). A row in one run only is
// listed as missing, never dropped.
//
// A row regressed when its figure moved the wrong way by more than the threshold AND
// beyond what the runs' own noise allows, decided by the first test that applies:
//   mann_whitney_u  both runs carry per-iteration samples (enough to reach alpha); the
//                   rows tested are one family, decided by Holm's step-down method;
//   spread          both carry a spread (iteration statistics, or samples): the change
//                   must exceed the larger run's range of iterations, relative;
//   threshold       one has no spread (an nccl-tests table): the threshold alone.
// Beyond the threshold but inside the noise is "within_noise": neither pass nor fail.
// Sizes below the crossover are latency-bound and judged on time_us, the others on
// busbw_gbps; the crossover is each baseline sweep's n1/2 (the smallest size reaching
// half its largest algorithm bandwidth) unless a size is given.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "report/report.h"
#include "report/rules.h"

namespace fabscope {

struct CompareOptions {
  double threshold = 0.05;
  double alpha = 0.05;
  std::optional<uint64_t> crossover_bytes;  // nullopt: each sweep's n1/2
  bool strict = false;
  std::string baseline_path;
  std::string current_path;
  int min_history = 5;  // a history compare: runs a row needs in the history to be judged
};

Comparison compare_reports(const Report& baseline, const Report& current, const CompareOptions& options);

// A run as a comparison names it: path, tool, backend, ranks, hosts, start, verdict.
ComparedRun describe_run(const Report& report, const std::string& path);

// The settings two runs differ in (ranks, hosts, backend, library, -n, -z, -G, p2p mode...).
std::vector<SettingDifference> setting_differences(const Report& baseline, const Report& current);

// One row of a report as a history matches it across runs: every setting is part of its
// key. Sweep rows carry both figures (the caller picks time or bus bandwidth by the
// crossover); p2p rows carry the link's figure in time_us (latency) or bandwidth.
struct RowObservation {
  std::string key;
  ComparisonRow identity;  // section, subject, collective, placement, size (and metric for p2p)
  double time_us = 0;
  double bandwidth = 0;
  std::vector<double> samples;  // per-iteration times (sweep) or per-repeat figures (p2p)
  uint64_t crossover = 0;       // sweep rows: their sweep's n1/2
};
std::vector<RowObservation> observe_rows(const Report& report);

// The compare.* rules: compare.regression (error) and compare.improvement (info), one
// finding per sweep placement, link set or attribution cause that moved, naming the
// sizes; compare.missing (warning) for what one run lacks; compare.settings_differ
// (warning). comparison_findings runs them.
std::span<const Rule<Comparison>> compare_rules();
std::vector<Finding> comparison_findings(const Comparison& comparison);

// Hockney's n1/2 of a sweep: the smallest size whose algorithm bandwidth reaches half of
// the sweep's largest (out-of-place, else in-place); 0 for a sweep without bandwidth.
uint64_t half_bandwidth_size(const Sweep& sweep);

// "+21.3%" / "-4.0%" / "+12.0 pts" for a row's change.
std::string format_change(const ComparisonRow& row);

}  // namespace fabscope
