// `fabscope triage PATH...`: answers from a ticket's files (triage/triage.h).
#include "app/command.h"
#include "app/run_context.h"
#include "triage/triage.h"

namespace fabscope {

namespace {

class TriageCommand final : public Command {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("paths", paths_, "The ticket's files or directories (read recursively), e.g. job-1234/")->required();
  }

  CommandOutcome run(const CommonOptions& common, int*, char***) override {
    auto out = make_reporters(common.output_files(), stdout);
    Report report;
    report.context = make_local_run_context(common.command_line);
    report.context.backend = "none";
    report.context.memory = "none";
    Status s = out->preflight();
    if (s.ok()) s = triage::triage_paths(paths_, report);
    if (!s.ok()) {
      print_error(s.message());
      return {s};
    }
    return finish_report(*out, report);
  }

 private:
  std::vector<std::string> paths_;
};

}  // namespace

std::unique_ptr<Command> make_triage_command() { return std::make_unique<TriageCommand>(); }

}  // namespace fabscope
