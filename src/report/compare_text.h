// The text of a comparison (`fabscope compare`): both runs and what they differ in, then
// one line per compared row (size, metric, baseline, current, change, verdict and the
// test that decided it) under a heading per collective placement or link set, then
// the counts. Markdown and JUnit have their own reporters (report/*_reporter.cpp).
#pragma once

#include <map>
#include <string>

#include "report/report.h"

namespace fabscope {

// "" for a report without a comparison.
std::string render_comparison(const Report& report);

// Rows per verdict: regression, improvement, within_noise, unchanged, missing.
std::map<std::string, int> verdict_counts(const Comparison& comparison);
// "2 regressions, 1 improvement, 3 within noise, 30 unchanged, 0 missing"
std::string counts_text(const Comparison& comparison);
// "1.2e+03" style figure of a row's metric, as its unit suits: "512.3", "12.40", "31.2%".
std::string format_figure(const ComparisonRow& row, const std::optional<double>& value);
// "mann-whitney p=0.0012", "spread 12.0%", "threshold", "-".
std::string format_test(const ComparisonRow& row);

}  // namespace fabscope
