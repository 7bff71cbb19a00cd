#include "report/reporter.h"

#include "report/json_reporter.h"
#include "report/text_reporter.h"

namespace fabscope {

namespace {

constexpr OutputFormat kFormats[] = {
    {"json", "--json", "Write the JSON report here (atomically, by rank 0)", make_json_reporter},
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
