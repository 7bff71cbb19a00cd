// The text fabscope prints: the topology section, the nccl-tests table (streamed row by
// row while a sweep runs), the p2p table, then the findings and the verdict. Given only
// a finished report, it prints the same text, so `fabscope report` reproduces what the
// run printed.
#pragma once

#include <cstdio>
#include <string>

#include "report/reporter.h"
#include "report/table.h"

namespace fabscope {

class TextReporter final : public Reporter {
 public:
  explicit TextReporter(std::FILE* out) : out_(out) {}
  void on_start(const Report& report) override;
  void on_sweep_begin(const Sweep& sweep) override;
  void on_point(const Sweep& sweep, const SweepPoint& point) override;
  void on_cycle_begin(int cycle) override;
  Status finish(const Report& report) override;

 private:
  void emit(const std::string& text);
  void end_group();
  std::FILE* out_;
  bool streamed_ = false;  // the sweep table went out as it was measured
  std::string group_;      // the collective whose table is open
  TableFooter footer_;
  bool timestamps_ = false;  // -S
  int run_cycles_ = 1;
};

// The whole text of a finished report, as TextReporter prints it.
std::string render_text(const Report& report);

}  // namespace fabscope
