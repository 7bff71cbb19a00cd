// The JSON report (report/report_json.h) as an output: its directory checked before the
// run starts, the file written atomically when the run is finished.
#include "core/atomic_file.h"
#include "report/report_json.h"
#include "report/reporter.h"

namespace fabscope {

namespace {

class JsonReporter final : public Reporter {
 public:
  explicit JsonReporter(std::string path) : path_(std::move(path)) {}
  Status preflight() const override { return check_writable(path_); }
  Status finish(const Report& report) override { return save_report(report, path_); }
  Status checkpoint(const Report& report) override { return save_report(report, path_); }

 private:
  std::string path_;
};

}  // namespace

std::unique_ptr<Reporter> make_json_reporter(const std::string& path) { return std::make_unique<JsonReporter>(path); }

}  // namespace fabscope
