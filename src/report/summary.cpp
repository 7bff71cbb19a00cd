#include "report/summary.h"

#include <fmt/format.h>

#include <algorithm>

namespace fabscope {

std::string render_quoted_lines(const Finding& f, size_t most) {
  std::string out;
  const auto it = f.evidence.find("lines");
  if (it == f.evidence.end() || !it->is_array()) return out;
  size_t shown = 0;
  for (const auto& q : *it) {
    if (shown++ == most) break;
    if (!q.is_object()) continue;
    out += fmt::format("#     {}:{}: {}\n", q.value("file", std::string("?")), q.value("line", 0),
                       q.value("text", std::string()));
  }
  const size_t total = f.evidence.value("lines_total", it->size());
  if (total > std::min(most, it->size())) out += fmt::format("#     ... {} lines in all\n", total);
  return out;
}

std::string render_summary(const Report& r) {
  std::string out;
  for (const Finding& f : r.findings) {
    out += fmt::format("# {} {} [{}]: {}\n", name(f.severity), f.code, f.subject, f.message);
    out += render_quoted_lines(f, 2);
    out += fmt::format("#   hint: {}\n", f.hint);
  }
  out += fmt::format("# Verdict: {}{}\n", name(r.verdict.result),
                     r.findings.empty() ? " (no findings)" : fmt::format(" ({} findings)", r.findings.size()));
  for (const std::string& m : r.verdict.missing) out += fmt::format("#   missing: {}\n", m);
  for (const std::string& m : r.verdict.not_judged) out += fmt::format("#   not judged: {}\n", m);
  if (!r.verdict.drain.empty()) {
    out += fmt::format("# Drain: {} ({} host{})\n", r.verdict.drain_hostlist, r.verdict.drain.size(),
                       r.verdict.drain.size() == 1 ? "" : "s");
  }
  return out;
}

std::string command_name(const Report& r) {
  if (r.comparison) return "compare";
  if (r.history) return "history";
  if (r.context.imported) return "import";
  if (r.triage) return "triage";
  // watch's report is its findings alone: its command line names it.
  const auto& argv = r.context.command_line;
  if (argv.size() > 1 && argv[1] == "watch") return "watch";
  if (r.diagnosis) return "diagnose";
  if (r.nccl_profile && r.sweeps.empty()) return "diagnose";  // --import-profile
  if (r.p2p) return "p2p";
  if (r.topology && r.sweeps.empty()) return "topo";
  return "sweep";
}

}  // namespace fabscope
