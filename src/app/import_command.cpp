// `fabscope import nccl-tests|osu FILE...`: nccl-tests' printed tables or -J JSON
// (report/import.h), or OSU Micro-Benchmarks' printed tables (report/import_osu.h), as a
// fabscope report, so that baselines that exist only as their output can be compared and
// held to expectations.
#include <fmt/format.h>

#include "app/command.h"
#include "app/run_context.h"
#include "coll/collective.h"
#include "core/atomic_file.h"
#include "diag/expectations.h"
#include "diag/findings.h"
#include "report/import.h"
#include "report/import_osu.h"

namespace fabscope {

namespace {

class ImportCommand final : public Command {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("format", format_,
                   "What the files are: nccl-tests (its text output or its -J JSON) or osu (OSU Micro-Benchmarks' "
                   "printed tables: collectives, osu_latency, osu_bw, osu_bibw)")
        ->required();
    app.add_option("files", files_, "The files, e.g. all_reduce_perf.log")->required();
    app.add_option("--nranks", nranks_,
                   "osu: the job's rank count, which OSU does not print (gives allgather's, alltoall's, gather's and "
                   "scatter's sizes as nccl-tests counts them, and bus bandwidths)");
    app.add_option("--collective", collective_,
                   "The collective of tables whose file does not name it (no '# Collective test starting' line): " +
                       collective_names());
    app.add_option("--expect", expect_path_,
                   "Hold the imported figures to this expectations file (perf.below_expected)");
  }

  CommandOutcome run(const CommonOptions& common, int*, char***) override {
    if (format_ != "nccl-tests" && format_ != "osu") {
      return fail(
          Status::Invalid(fmt::format("import format '{}' is not known; fabscope imports: nccl-tests, osu", format_)));
    }
    if (nranks_ && (format_ != "osu" || *nranks_ < 1)) {
      return fail(Status::Invalid(format_ != "osu"
                                      ? "--nranks is for import osu: nccl-tests' files say their ranks"
                                      : fmt::format("--nranks {} is not allowed; use an integer >= 1", *nranks_)));
    }
    if (format_ == "osu" && !collective_.empty()) {
      return fail(Status::Invalid("--collective is for import nccl-tests: OSU's tables name their benchmark"));
    }
    if (!collective_.empty()) {
      if (auto c = collective_from_name(collective_); !c.ok())
        return fail(Status::Invalid("--collective: " + c.status().message()));
    }
    std::optional<Expectations> expectations;
    if (Status s = load_expectations_if_given(expect_path_, expectations); !s.ok()) return fail(s);
    auto out = make_reporters(common.output_files(), stdout);
    if (Status s = out->preflight(); !s.ok()) return fail(s);
    auto report = format_ == "osu" ? import_osu_files() : import_nccl_tests_files();
    if (!report.ok()) return fail(report.status());
    // fabscope made this report; when and where the measured run ran the files do not say.
    const RunContext here = make_local_run_context(common.command_line);
    report->context.tool = here.tool;
    report->context.command_line = here.command_line;
    report->context.build = here.build;
    add_sweep_findings(*report);
    if (expectations) add_expectation_findings(*report, *expectations);
    decide_verdict(*report);
    CommandOutcome outcome;
    outcome.verdict_failed = report->verdict.result != VerdictResult::kPass;
    outcome.status = out->finish(*report);
    if (!outcome.status.ok()) print_error(outcome.status.message());
    return outcome;
  }

 private:
  static CommandOutcome fail(const Status& s) {
    print_error(s.message());
    return {s};
  }
  Result<Report> import_nccl_tests_files() const {
    std::vector<ImportSource> sources;
    for (const std::string& path : files_) {
      auto text = read_file(path);
      if (!text.ok()) return text.status();
      auto tables = parse_nccl_tests(*text, path);
      if (!tables.ok()) return tables.status();
      sources.push_back({path, std::move(*tables)});
    }
    return import_nccl_tests(sources, {collective_});
  }
  Result<Report> import_osu_files() const {
    std::vector<OsuSource> sources;
    for (const std::string& path : files_) {
      auto text = read_file(path);
      if (!text.ok()) return text.status();
      auto tables = parse_osu(*text, path);
      if (!tables.ok()) return tables.status();
      sources.push_back({path, std::move(*tables)});
    }
    return import_osu(sources, {nranks_.value_or(0)});
  }

  std::string format_;
  std::optional<int> nranks_;
  std::vector<std::string> files_;
  std::string collective_;
  std::string expect_path_;
};

}  // namespace

std::unique_ptr<Command> make_import_command() { return std::make_unique<ImportCommand>(); }

}  // namespace fabscope
