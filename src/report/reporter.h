// How results leave fabscope: every output format implements Reporter, and the
// commands only talk to a Reporter (as google/benchmark's console, JSON and CSV
// reporters share one interface). Measuring commands tell it about results as they
// arrive, so a format can stream (the nccl-tests table prints each row when it is
// measured), then hand it the finished report; `fabscope report` hands it a saved
// report and nothing else. Renderers read only the report.
//
// The text on stdout is always on (report/text_reporter.h); file formats are the
// entries of output_formats(), each with its command-line option. A new format is one
// entry there plus its reporter in its own file.
#pragma once

#include <cstdio>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "report/report.h"

namespace fabscope {

class Reporter {
 public:
  virtual ~Reporter() = default;
  // Before a run moves any data (on the rank that writes): can the output be written?
  virtual Status preflight() const { return Status::Ok(); }
  // The run's context and settings are known (sweep prints its preamble here).
  virtual void on_start(const Report& /*report*/) {}
  // A sweep of one (collective, dtype, op) begins; one size of it was measured.
  virtual void on_sweep_begin(const Sweep& /*sweep*/) {}
  virtual void on_point(const Sweep& /*sweep*/, const SweepPoint& /*point*/) {}
  // A run cycle begins (sweep -N): 0 first.
  virtual void on_cycle_begin(int /*cycle*/) {}
  // The finished report, findings and verdict included: write what is left.
  virtual Status finish(const Report& report) = 0;
  // The report so far of a run still going (a long run's interval, a signal): the file
  // formats write their files as finish would (atomically); stdout prints nothing.
  virtual Status checkpoint(const Report& /*report*/) { return Status::Ok(); }
};

// A file format and the option that asks for it ("--json FILE").
struct OutputFormat {
  std::string_view name;    // "json"
  std::string_view option;  // "--json"
  std::string_view help;
  std::unique_ptr<Reporter> (*make)(const std::string& path);
};
std::span<const OutputFormat> output_formats();

// The files a command line asked for: format name -> path.
using OutputFiles = std::map<std::string, std::string>;

// Several reporters as one: each call goes to every reporter in order; preflight and
// finish return the first failure (finish still gives every reporter its turn).
class Reporters final : public Reporter {
 public:
  void add(std::unique_ptr<Reporter> r) { reporters_.push_back(std::move(r)); }
  Status preflight() const override;
  void on_start(const Report& report) override;
  void on_sweep_begin(const Sweep& sweep) override;
  void on_point(const Sweep& sweep, const SweepPoint& point) override;
  void on_cycle_begin(int cycle) override;
  Status finish(const Report& report) override;
  Status checkpoint(const Report& report) override;

 private:
  std::vector<std::unique_ptr<Reporter>> reporters_;
};

// A report drawn beside the one rendered (`fabscope report A.json B.json --format html`:
// A's curves beside B's), with the label its series carry.
struct LabelledReport {
  std::string label;
  const Report* report = nullptr;
};

// The file formats' text, for a report (their reporters write these).
std::string render_junit(const Report& report);
// GitHub's limit on a comment's length, in characters; a summary is cut to fit.
inline constexpr size_t kMarkdownCommentLimit = 65536;
std::string render_markdown(const Report& report);
std::string render_html(const Report& report, std::span<const LabelledReport> beside = {});
std::string render_prometheus(const Report& report);

// The text on `text` (stdout; nullptr for none) and a reporter for each file asked for.
std::unique_ptr<Reporters> make_reporters(const OutputFiles& files, std::FILE* text);

}  // namespace fabscope
