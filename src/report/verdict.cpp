#include <algorithm>

#include "report/report.h"

namespace fabscope {

void decide_verdict(Report& report) {
  report.verdict.failed_codes.clear();
  for (const Finding& f : report.findings) {
    if (f.severity != Severity::kError) continue;
    if (std::find(report.verdict.failed_codes.begin(), report.verdict.failed_codes.end(), f.code) ==
        report.verdict.failed_codes.end()) {
      report.verdict.failed_codes.push_back(f.code);
    }
  }
  report.verdict.result = report.verdict.failed_codes.empty() ? "pass" : "fail";
}

}  // namespace fabscope
