#include "report/triage_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/summary.h"

namespace fabscope {

std::string render_triage(const Report& r) {
  if (!r.triage) return "";
  const TriageSection& t = *r.triage;
  std::string out = "# Triage\n";
  if (!r.findings.empty() && r.findings.front().severity != Severity::kInfo) {
    const Finding& a = r.findings.front();
    out += fmt::format("# Most likely: {} [{}]: {}\n", a.code, a.subject, a.message);
    out += render_quoted_lines(a, 5);
    out += fmt::format("# Do: {}\n", a.hint);
  } else if (r.verdict.missing.empty()) {
    out += "# Nothing wrong found in these files\n";
  } else {
    out += "# Nothing wrong found, but the files cannot show that all is well\n";
  }
  for (const std::string& m : r.verdict.missing) out += fmt::format("# Missing: {}\n", m);
  out += fmt::format("# Files ({}):\n", t.files.size());
  for (const TriageFile& f : t.files) {
    out += fmt::format("#   {}: {}{}\n", f.path,
                       f.kinds.empty() ? std::string("-") : fmt::format("{}", fmt::join(f.kinds, ", ")),
                       f.note.empty() ? "" : " (" + f.note + ")");
    if (f.lines_not_read > 0 && !f.kinds.empty()) {
      out += fmt::format("#     {} line{} not read, e.g. {}\n", f.lines_not_read, f.lines_not_read == 1 ? "" : "s",
                         fmt::join(f.not_read_examples, "; "));
    }
  }
  return out;
}

}  // namespace fabscope
