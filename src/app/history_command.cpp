// `fabscope history REPORT...|DIR`: a series of runs of one measurement, and per row the
// runs where its level changed (report/history.h: E-divisive means, each split tested by
// Welch's t-test), the size of each step, its p-value, and which change is the latest.
// Exit 0 (a step is a finding, not a failed gate: `compare --history` is the gate), 2 on
// bad input with nothing written.
#include <fmt/format.h>

#include <cmath>

#include "app/command.h"
#include "app/run_context.h"
#include "core/sizes.h"
#include "report/history.h"
#include "report/report_json.h"

namespace fabscope {

namespace {

class HistoryCommand final : public Command {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("reports", paths_,
                   "The runs: reports (fabscope --json, or fabscope import) or directories of them, ordered by each "
                   "report's start time (without one: as given, a directory's by file time)")
        ->required();
    app.add_option("--max-p", max_p_,
                   "A change point is kept when Welch's t-test between its two segments gives p below this "
                   "(default 0.001)");
    app.add_option("--min-segment", min_segment_, "Runs each side of a change point holds at least (default 3)");
    app.add_option("--min-step", min_step_,
                   "Keep only steps at least this large, relative: a percentage such as 5% (default 0: any step the "
                   "test allows)");
    app.add_option("--crossover", crossover_,
                   "Sizes below it are followed on time, the others on bus bandwidth: a size, or auto for each "
                   "sweep's n1/2 in the latest run (default auto)");
  }

  CommandOutcome run(const CommonOptions& common, int*, char***) override {
    auto options = parse_options();
    if (!options.ok()) return fail(options.status());
    auto out = make_reporters(common.output_files(), stdout);
    if (Status s = out->preflight(); !s.ok()) return fail(s);
    auto series = load_run_series(paths_);
    if (!series.ok()) return fail(series.status());
    if (series->runs.size() < 2) {
      return fail(Status::Invalid(
          fmt::format("'{}' is one run: a history needs two runs or more ({} or more to find a change point)",
                      series->runs.empty() ? paths_.front() : series->runs.front().path, 2 * options->min_segment)));
    }
    if (Status st = check_runs_alike(series->runs, series->runs.back()); !st.ok()) return fail(st);
    Report report;
    report.context = make_local_run_context(common.command_line);
    report.history = build_history(*series, *options);
    if (report.history->rows.empty()) {
      return fail(
          Status::Invalid(fmt::format("the runs ({}) hold no sweep or p2p rows to follow", fmt::join(paths_, ", "))));
    }
    if (series->runs.size() < static_cast<size_t>(2 * options->min_segment)) {
      report.verdict.not_judged.push_back(
          fmt::format("change points: {} runs, fewer than the {} two segments of "
                      "--min-segment {} need",
                      series->runs.size(), 2 * options->min_segment, options->min_segment));
    }
    report.findings = history_findings(*report.history);
    return finish_report(*out, report);
  }

 private:
  Result<HistoryOptions> parse_options() const {
    HistoryOptions o;
    if (!(max_p_ > 0 && max_p_ <= 0.5)) {
      return Status::Invalid(
          fmt::format("--max-p {} is not allowed: give a significance level above 0 and at most 0.5", max_p_));
    }
    o.max_p = max_p_;
    if (min_segment_ < 2 || min_segment_ > 1000) {
      return Status::Invalid(fmt::format(
          "--min-segment {} is not allowed: give 2 to 1000 runs (a segment's spread needs two)", min_segment_));
    }
    o.min_segment = min_segment_;
    const std::optional<double> step = parse_percent(min_step_);
    if (!step || *step < 0 || *step >= 1) {
      return Status::Invalid(fmt::format(
          "--min-step '{}' is not allowed: give a percentage from 0 to below 100, such as 5% or 2.5", min_step_));
    }
    o.min_step = *step;
    if (crossover_ != "auto") {
      auto size = parse_size(crossover_, "--crossover");
      if (!size.ok()) return Status::Invalid(size.status().message() + "; or give auto");
      o.crossover_bytes = *size;
    }
    return o;
  }
  static CommandOutcome fail(const Status& s) {
    print_error(s.message());
    return {s};
  }

  std::vector<std::string> paths_;
  double max_p_ = 0.001;
  int min_segment_ = 3;
  std::string min_step_ = "0";
  std::string crossover_ = "auto";
};

}  // namespace

std::unique_ptr<Command> make_history_command() { return std::make_unique<HistoryCommand>(); }

}  // namespace fabscope
