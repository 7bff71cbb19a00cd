// `fabscope compare BASELINE... CURRENT`: the CI regression gate. Reports (fabscope's,
// or nccl-tests output turned into one by `fabscope import`) judged row by row: against
// one baseline (report/compare.h), or against a history of runs, several baselines or a
// directory or --history DIR (report/history.h); exit 1 on a regression, 2 on bad input.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "app/command.h"
#include "app/run_context.h"
#include "core/sizes.h"
#include "diag/expectations.h"
#include "report/compare.h"
#include "report/history.h"
#include "report/report_json.h"

namespace fabscope {

namespace {

// "5%", "5" or "2.5%": a percentage above 0 and at most 1000.
Result<double> parse_threshold(const std::string& text) {
  const std::optional<double> v = parse_percent(text);
  if (!v || *v <= 0 || *v > 10) {
    return Status::Invalid(fmt::format(
        "--threshold '{}' is not allowed: give a percentage above 0 and at most 1000, such as 5% or 2.5", text));
  }
  return *v;
}

class CompareCommand final : public Command {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("reports", paths_,
                   "BASELINE... CURRENT: the last report is judged; one baseline report (fabscope --json, or fabscope "
                   "import), or several, or a directory of them: a history of runs")
        ->required();
    app.add_option("--history", history_dir_,
                   "A directory of earlier runs' reports: judge CURRENT (the one report given) against their spread");
    min_history_option_ =
        app.add_option("--min-history", min_history_,
                       "Runs of the history a row needs before it is judged; fewer: not judged (default 5)");
    app.add_option("--threshold", threshold_,
                   "A change smaller than this is unchanged; larger and beyond the runs' noise is a regression "
                   "(default 5%)");
    app.add_option("--alpha", alpha_, "Significance level of the rank test on per-iteration samples (default 0.05)");
    app.add_option("--crossover", crossover_,
                   "Sizes below it are judged on time, the others on bus bandwidth: a size, or auto for each "
                   "baseline sweep's n1/2, the smallest size reaching half its peak bandwidth (default auto)");
    app.add_flag("--strict", strict_,
                 "Refuse to compare runs that differ in backend, ranks, hosts, library or timing settings");
    app.add_option("--expect", expect_path_,
                   "Also hold the current report to the figures of this expectations file (perf.below_expected)");
  }

  CommandOutcome run(const CommonOptions& common, int*, char***) override {
    if (Status st = split_paths(); !st.ok()) return fail(st);
    CompareOptions o;
    o.baseline_path = baseline_paths_.front();
    o.current_path = current_path_;
    o.strict = strict_;
    if (min_history_option_->count() > 0 && !history_mode()) {
      return fail(Status::Invalid(fmt::format(
          "--min-history {} is for a history of runs: give several baseline reports, a directory of them or "
          "--history DIR",
          min_history_)));
    }
    if (min_history_ < 2) {
      return fail(Status::Invalid(
          fmt::format("--min-history {} is not allowed: give 2 runs or more (a spread needs two)", min_history_)));
    }
    o.min_history = min_history_;
    auto threshold = parse_threshold(threshold_);
    if (!threshold.ok()) return fail(threshold.status());
    o.threshold = *threshold;
    if (!(alpha_ > 0 && alpha_ <= 0.5)) {
      return fail(Status::Invalid(
          fmt::format("--alpha {} is not allowed: give a significance level above 0 and at most 0.5", alpha_)));
    }
    o.alpha = alpha_;
    if (crossover_ != "auto") {
      auto size = parse_size(crossover_, "--crossover");
      if (!size.ok()) return fail(Status::Invalid(size.status().message() + "; or give auto"));
      o.crossover_bytes = *size;
    }
    std::optional<Expectations> expectations;
    if (Status s = load_expectations_if_given(expect_path_, expectations); !s.ok()) return fail(s);
    auto out = make_reporters(common.output_files(), stdout);
    if (Status s = out->preflight(); !s.ok()) return fail(s);
    auto current = load_report(current_path_);
    if (!current.ok()) return fail(current.status());

    Report report;
    report.context = make_local_run_context(common.command_line);
    if (history_mode()) {
      auto history = load_history();
      if (!history.ok()) return fail(history.status());
      const LoadedRun now{current_path_, *current};
      if (Status st = check_runs_alike(*history, now); !st.ok()) return fail(st);
      report.comparison = compare_to_history(*history, now, o);
      note_unjudged(report);
    } else {
      auto baseline = load_report(baseline_paths_.front());
      if (!baseline.ok()) return fail(baseline.status());
      report.comparison = compare_reports(*baseline, *current, o);
    }
    if (strict_ && !report.comparison->differences.empty()) {
      std::vector<std::string> parts;
      for (const SettingDifference& d : report.comparison->differences) {
        parts.push_back(fmt::format("{}: {} -> {}", d.setting, d.baseline, d.current));
      }
      return fail(
          Status::Invalid(fmt::format("--strict: '{}' and '{}' differ in {}; compare runs made alike, or "
                                      "drop --strict to compare them with the differences stated",
                                      report.comparison->baseline.path, current_path_, fmt::join(parts, "; "))));
    }
    report.findings = comparison_findings(*report.comparison);
    if (expectations) add_expectation_findings_of(*current, *expectations, report.findings);
    return finish_report(*out, report);
  }

 private:
  static CommandOutcome fail(const Status& s) {
    print_error(s.message());
    return {s};
  }
  // The expectation findings of `measured`, added to `findings`.
  static void add_expectation_findings_of(const Report& measured, const Expectations& e,
                                          std::vector<Finding>& findings) {
    Report copy;
    copy.context = measured.context;
    copy.sweeps = measured.sweeps;
    copy.p2p = measured.p2p;
    add_expectation_findings(copy, e);
    findings.insert(findings.end(), copy.findings.begin(), copy.findings.end());
  }

  // The last path is the current run; the others (or --history) its baselines.
  Status split_paths() {
    if (!history_dir_.empty()) {
      if (paths_.size() != 1) {
        return Status::Invalid(fmt::format("--history '{}' takes one report to judge, the current run; {} were given",
                                           history_dir_, paths_.size()));
      }
      baseline_paths_ = {history_dir_};
    } else {
      if (paths_.size() < 2) {
        return Status::Invalid(
            fmt::format("compare needs a baseline and a current report (or --history DIR and the "
                        "current report); only '{}' was given",
                        paths_.front()));
      }
      baseline_paths_.assign(paths_.begin(), paths_.end() - 1);
    }
    current_path_ = paths_.back();
    return Status::Ok();
  }
  bool history_mode() const {
    std::error_code ec;
    return baseline_paths_.size() > 1 || !history_dir_.empty() ||
           std::filesystem::is_directory(baseline_paths_.front(), ec);
  }
  // The history's runs, oldest first, without the current report itself (a CI job may
  // have copied it into the history directory already).
  Result<std::vector<LoadedRun>> load_history() const {
    // A directory may be empty (a CI job's first night): every row is then not judged.
    auto series = load_run_series(baseline_paths_, /*empty_directories=*/true);
    if (!series.ok()) return series.status();
    std::vector<LoadedRun> runs;
    std::error_code ec;
    for (LoadedRun& run : series->runs) {
      if (!std::filesystem::equivalent(run.path, current_path_, ec)) runs.push_back(std::move(run));
    }
    return runs;
  }
  // A history too short to judge any row makes the verdict inconclusive, never a pass.
  void note_unjudged(Report& report) const {
    const Comparison& c = *report.comparison;
    size_t unjudged = 0, judged = 0;
    for (const ComparisonRow& r : c.rows) {
      unjudged += r.verdict == RowVerdict::kNotJudged;
      judged += r.test == RowTest::kHistoryT;
    }
    if (unjudged == 0) return;
    const std::string what =
        fmt::format("{} row{} held by fewer than {} runs of the history ({} run{} given)", unjudged,
                    unjudged == 1 ? "" : "s", c.min_history, c.history.size(), c.history.size() == 1 ? "" : "s");
    (judged == 0 ? report.verdict.missing : report.verdict.not_judged).push_back(what);
  }

  std::vector<std::string> paths_;
  std::vector<std::string> baseline_paths_;
  std::string history_dir_;
  int min_history_ = 5;
  CLI::Option* min_history_option_ = nullptr;
  std::string current_path_;
  std::string threshold_ = "5%";
  double alpha_ = 0.05;
  std::string crossover_ = "auto";
  bool strict_ = false;
  std::string expect_path_;
};

}  // namespace

std::unique_ptr<Command> make_compare_command() { return std::make_unique<CompareCommand>(); }

}  // namespace fabscope
