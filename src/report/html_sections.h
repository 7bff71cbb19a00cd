// The sections of the HTML report (report/html_reporter.cpp puts them in a page), each
// from the report model alone: "" where the report has no data for it.
#pragma once

#include <span>
#include <string>

#include "report/reporter.h"

namespace fabscope::html {

// Bus bandwidth against size, one plot per collective (the baselines beside).
std::string bandwidth_section(const Report& r, std::span<const LabelledReport> beside);
// Per-iteration spread (min, median, p99) and per-rank times as strips.
std::string spread_section(const Report& r);
// The link matrix as a heatmap, with every link in a table.
std::string links_section(const Report& r);
// Per host: GPU x NIC path classes, NCCL's NIC per GPU, ports down or slower.
std::string topology_section(const Report& r);
// Foreign bytes and congestion counters per host and phase; diagnose's noise phase.
std::string counters_section(const Report& r);
// sweep -N / --duration: bus bandwidth and the slowest iteration per interval, the
// stalls, the links that went down. Empty for a run of one cycle with no event.
std::string timeline_section(const Report& r);
// `fabscope watch`: each plotted link's network wait per step over the job's time.
std::string watch_section(const Report& r);
// NCCL's profiler plugin: per collective and size, each link's wait per state.
std::string nccl_profile_section(const Report& r);
// `compare`: the runs, their differences and the rows that moved.
std::string comparison_section(const Report& r);
// `fabscope history`: every row's series plotted with its levels and change points.
std::string history_section(const Report& r);

// A table cell's text, escaped.
std::string td(const std::string& text, const char* css_class = nullptr);

}  // namespace fabscope::html
