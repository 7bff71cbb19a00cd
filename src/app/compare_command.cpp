// `fabscope compare BASELINE CURRENT`: the CI regression gate. Two reports (fabscope's,
// or nccl-tests output turned into one by `fabscope import`) judged row by row
// (report/compare.h); exit 1 on a regression, 2 on bad input.
#include <fmt/format.h>

#include <cmath>

#include "app/command.h"
#include "app/run_context.h"
#include "core/sizes.h"
#include "diag/expectations.h"
#include "report/compare.h"
#include "report/report_json.h"

namespace fabscope {

namespace {

// "5%", "5" or "2.5%": a percentage above 0 and at most 1000.
Result<double> parse_threshold(const std::string& text) {
  std::string t = text;
  if (!t.empty() && t.back() == '%') t.pop_back();
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (t.empty() || used != t.size() || !std::isfinite(v) || v <= 0 || v > 1000) {
    return Status::Invalid(fmt::format(
        "--threshold '{}' is not allowed: give a percentage above 0 and at most 1000, such as 5% or 2.5", text));
  }
  return v / 100.0;
}

class CompareCommand final : public Command {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("baseline", baseline_path_, "The baseline report (fabscope --json, or fabscope import)")->required();
    app.add_option("current", current_path_, "The report to judge against it")->required();
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
    CompareOptions o;
    o.baseline_path = baseline_path_;
    o.current_path = current_path_;
    o.strict = strict_;
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
    auto baseline = load_report(baseline_path_);
    if (!baseline.ok()) return fail(baseline.status());
    auto current = load_report(current_path_);
    if (!current.ok()) return fail(current.status());

    Report report;
    report.context = make_local_run_context(common.command_line);
    report.comparison = compare_reports(*baseline, *current, o);
    if (strict_ && !report.comparison->differences.empty()) {
      std::vector<std::string> parts;
      for (const SettingDifference& d : report.comparison->differences) {
        parts.push_back(fmt::format("{}: {} -> {}", d.setting, d.baseline, d.current));
      }
      return fail(
          Status::Invalid(fmt::format("--strict: '{}' and '{}' differ in {}; compare runs made alike, or "
                                      "drop --strict to compare them with the differences stated",
                                      baseline_path_, current_path_, fmt::join(parts, "; "))));
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

  std::string baseline_path_;
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
