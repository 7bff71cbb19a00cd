#include "report/reporter.h"

#include "report/text_reporter.h"

namespace fabscope {

// The file formats' reporters, each in its own file (report/<format>_reporter.cpp).
std::unique_ptr<Reporter> make_json_reporter(const std::string& path);
std::unique_ptr<Reporter> make_junit_reporter(const std::string& path);
std::unique_ptr<Reporter> make_markdown_reporter(const std::string& path);
std::unique_ptr<Reporter> make_html_reporter(const std::string& path);
std::unique_ptr<Reporter> make_prometheus_reporter(const std::string& path);

namespace {

// A new file format: its reporter in report/<format>_reporter.cpp, one declaration
// above and one row here; every command that writes files then takes its option.
constexpr OutputFormat kFormats[] = {
    {"json", "--json", "Write the JSON report here (atomically, by rank 0)", make_json_reporter},
    {"junit", "--junit",
     "Write JUnit XML here: a test case per compared row and per finding, an error a failure (CI test reports)",
     make_junit_reporter},
    {"markdown", "--markdown", "Write a Markdown summary here (a pull-request comment): verdict, what moved, findings",
     make_markdown_reporter},
    {"html", "--html",
     "Write a self-contained HTML page here: verdict, attribution, plots, link heatmap, topology (opens offline)",
     make_html_reporter},
    {"prometheus", "--prometheus",
     "Write Prometheus text exposition here (node_exporter's textfile collector: name it *.prom)",
     make_prometheus_reporter},
};

}  // namespace

std::span<const OutputFormat> output_formats() { return kFormats; }

Status Reporters::preflight() const {
  for (const auto& r : reporters_) FABSCOPE_RETURN_IF_ERROR(r->preflight());
  return Status::Ok();
}
void Reporters::on_start(const Report& report) {
  for (const auto& r : reporters_) r->on_start(report);
}
void Reporters::on_sweep_begin(const Sweep& sweep) {
  for (const auto& r : reporters_) r->on_sweep_begin(sweep);
}
void Reporters::on_point(const Sweep& sweep, const SweepPoint& point) {
  for (const auto& r : reporters_) r->on_point(sweep, point);
}
void Reporters::on_cycle_begin(int cycle) {
  for (const auto& r : reporters_) r->on_cycle_begin(cycle);
}
Status Reporters::checkpoint(const Report& report) {
  Status first = Status::Ok();
  for (const auto& r : reporters_) {
    Status s = r->checkpoint(report);
    if (first.ok() && !s.ok()) first = s;
  }
  return first;
}
Status Reporters::finish(const Report& report) {
  Status first = Status::Ok();
  for (const auto& r : reporters_) {
    Status s = r->finish(report);
    if (first.ok() && !s.ok()) first = s;
  }
  return first;
}

std::unique_ptr<Reporters> make_reporters(const OutputFiles& files, std::FILE* text) {
  auto out = std::make_unique<Reporters>();
  if (text) out->add(std::make_unique<TextReporter>(text));
  for (const OutputFormat& f : output_formats()) {
    if (auto it = files.find(std::string(f.name)); it != files.end()) out->add(f.make(it->second));
  }
  return out;
}

}  // namespace fabscope
