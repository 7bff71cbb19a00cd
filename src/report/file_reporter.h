// The reporter of a file format whose whole text is rendered from the finished report
// (JUnit, Markdown, HTML, Prometheus): its path checked before the run moves data, the
// text written atomically at the end (report/reporter.h).
#pragma once

#include <memory>
#include <string>

#include "core/atomic_file.h"
#include "report/reporter.h"

namespace fabscope {

class RenderedFileReporter final : public Reporter {
 public:
  using Render = std::string (*)(const Report&);
  RenderedFileReporter(std::string path, Render render) : path_(std::move(path)), render_(render) {}
  Status preflight() const override { return check_writable(path_); }
  Status finish(const Report& report) override { return write_file_atomically(path_, render_(report)); }
  Status checkpoint(const Report& report) override { return finish(report); }

 private:
  std::string path_;
  Render render_;
};

}  // namespace fabscope
