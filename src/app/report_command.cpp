// `fabscope report FILE... [--format F] [-o OUT]`: saved reports rendered again, from the
// JSON alone: text (the default: what the run printed), markdown, html, prometheus, or
// any file format of output_formats(). With several files, text and markdown render each
// in turn; html draws every earlier report's curves beside the last one's (as `compare
// BASELINE CURRENT` orders them); the other formats take one report.
#include <fmt/format.h>

#include "app/command.h"
#include "app/run_context.h"
#include "core/atomic_file.h"
#include "report/report_json.h"
#include "report/text_reporter.h"

namespace fabscope {

namespace {

std::string format_names() {
  std::string out = "text";
  for (const OutputFormat& f : output_formats()) out += fmt::format(", {}", f.name);
  return out;
}

class ReportCommand final : public Command {
 public:
  void add_options(CLI::App& app) override {
    app.add_option("files", paths_,
                   "Reports written by fabscope --json (with --format html, the earlier ones are drawn as baselines "
                   "beside the last)")
        ->required();
    app.add_option("--format", format_, "How to render: " + format_names() + " (default text)");
    app.add_option("-o,--output", output_, "Write the rendering here, atomically, instead of to stdout");
  }
  CommandOutcome run(const CommonOptions& common, int*, char***) override {
    auto fail = [](Status s) {
      print_error(s.message());
      return CommandOutcome{s};
    };
    bool known = format_ == "text";
    for (const OutputFormat& f : output_formats()) known = known || f.name == format_;
    if (!known) return fail(Status::Invalid(fmt::format("--format {}: unknown; give {}", format_, format_names())));
    const bool several = format_ == "text" || format_ == "markdown" || format_ == "html";
    if (!several && paths_.size() > 1) {
      return fail(Status::Invalid(
          fmt::format("--format {} renders one report; {} were given ({} ...)", format_, paths_.size(), paths_[0])));
    }
    if (output_) {
      if (Status s = check_writable(*output_); !s.ok()) return fail(s);
    }
    std::vector<Report> reports;
    for (const std::string& path : paths_) {
      auto report = load_report(path);
      if (!report.ok()) return fail(report.status());
      reports.push_back(std::move(*report));
    }
    // The files asked for with --json, --html, ... render the last report.
    auto out = make_reporters(common.output_files(), nullptr);
    if (Status s = out->preflight(); !s.ok()) return fail(s);
    std::string text;
    if (format_ == "html") {
      std::vector<LabelledReport> beside;
      for (size_t i = 0; i + 1 < reports.size(); ++i) beside.push_back({paths_[i], &reports[i]});
      text = render_html(reports.back(), beside);
    } else if (format_ == "text" || format_ == "markdown") {
      for (size_t i = 0; i < reports.size(); ++i) {
        if (reports.size() > 1)
          text += format_ == "text" ? fmt::format("{}# {}\n", i ? "\n" : "", paths_[i])
                                    : fmt::format("{}## {}\n\n", i ? "\n" : "", paths_[i]);
        text += format_ == "text" ? render_text(reports[i]) : render_markdown(reports[i]);
      }
    } else if (format_ == "prometheus") {
      text = render_prometheus(reports.back());
    } else {
      // json, junit: the format's own reporter writes the file (to a temporary for stdout).
      const OutputFormat* f = nullptr;
      for (const OutputFormat& x : output_formats()) {
        if (x.name == format_) f = &x;
      }
      if (!output_) {
        return fail(
            Status::Invalid(fmt::format("--format {} writes a file: give -o FILE (or --{} FILE)", format_, format_)));
      }
      auto r = f->make(*output_);
      if (Status s = r->finish(reports.back()); !s.ok()) return fail(s);
    }
    if (!text.empty()) {
      if (output_) {
        if (Status s = write_file_atomically(*output_, text); !s.ok()) return fail(s);
      } else {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
      }
    }
    Status s = out->finish(reports.back());
    if (!s.ok()) print_error(s.message());
    return {s};
  }

 private:
  std::vector<std::string> paths_;
  std::string format_ = "text";
  std::optional<std::string> output_;
};

}  // namespace

std::unique_ptr<Command> make_report_command() { return std::make_unique<ReportCommand>(); }

}  // namespace fabscope
