#include <algorithm>
#include <set>

#include "core/hostlist.h"

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
  report.verdict.result = !report.verdict.failed_codes.empty() ? VerdictResult::kFail
                          : report.verdict.missing.empty()     ? VerdictResult::kPass
                                                               : VerdictResult::kInconclusive;
  std::set<std::string> drain;
  for (const Finding& f : report.findings) {
    if (f.severity == Severity::kError) drain.insert(f.hosts.begin(), f.hosts.end());
  }
  report.verdict.drain.assign(drain.begin(), drain.end());
  report.verdict.drain_hostlist = compress_hostlist(report.verdict.drain);
}

}  // namespace fabscope
