#include "report/summary.h"

#include <fmt/format.h>

namespace fabscope {

std::string render_summary(const Report& r) {
  std::string out;
  for (const Finding& f : r.findings) {
    out += fmt::format("# {} {} [{}]: {}\n#   hint: {}\n", name(f.severity), f.code, f.subject, f.message, f.hint);
  }
  out += fmt::format("# Verdict: {}{}\n", r.verdict.result,
                     r.findings.empty() ? " (no findings)" : fmt::format(" ({} findings)", r.findings.size()));
  if (!r.verdict.drain.empty()) {
    out += fmt::format("# Drain: {} ({} host{})\n", r.verdict.drain_hostlist, r.verdict.drain.size(),
                       r.verdict.drain.size() == 1 ? "" : "s");
  }
  return out;
}

}  // namespace fabscope
