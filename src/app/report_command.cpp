// `fabscope report FILE`: a saved report rendered again, from the JSON alone.
#include "app/command.h"
#include "app/run_context.h"
#include "report/report_json.h"

namespace fabscope {

namespace {

class ReportCommand final : public Command {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("file", path_, "A report written by fabscope --json")->required();
  }
  CommandOutcome run(const CommonOptions& common, int*, char***) override {
    auto report = load_report(path_);
    if (!report.ok()) {
      print_error(report.status().message());
      return {report.status()};
    }
    auto out = make_reporters(common.output_files(), stdout);
    if (Status s = out->preflight(); !s.ok()) {
      print_error(s.message());
      return {s};
    }
    Status s = out->finish(*report);
    if (!s.ok()) print_error(s.message());
    return {s};
  }

 private:
  std::string path_;
};

}  // namespace

std::unique_ptr<Command> make_report_command() { return std::make_unique<ReportCommand>(); }

}  // namespace fabscope
