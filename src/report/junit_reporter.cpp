// JUnit XML (--junit FILE), the format Jenkins, GitLab and GitHub test reporters read
// natively: one test case per compared row (a regression fails with its reason; a row
// in one run only is skipped) and one per finding (an error finding fails), so a CI
// pipeline shows what moved next to its other tests. Written atomically at the end.
#include <fmt/format.h>

#include "core/atomic_file.h"
#include "core/sizes.h"
#include "report/compare.h"
#include "report/compare_text.h"
#include "report/file_reporter.h"
#include "report/finding_codes.h"
#include "report/reporter.h"
#include "report/xml_escape.h"

namespace fabscope {

namespace {

struct Case {
  std::string classname;
  std::string name;
  enum { kPass, kFail, kSkip } outcome = kPass;
  std::string message;  // failure or skip message
  std::string type;     // failure type: the finding code
  std::string text;     // details (failure body, or system-out for a pass)
};

struct Suite {
  std::string name;
  std::vector<Case> cases;
};

std::string render_suite(const Suite& s, const std::string& timestamp) {
  int failures = 0, skipped = 0;
  for (const Case& c : s.cases) {
    failures += c.outcome == Case::kFail;
    skipped += c.outcome == Case::kSkip;
  }
  std::string out =
      fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"0\"{}>\n",
                  xml_escape(s.name), s.cases.size(), failures, skipped,
                  timestamp.empty() ? "" : fmt::format(" timestamp=\"{}\"", xml_escape(timestamp)));
  for (const Case& c : s.cases) {
    out += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"0\">\n", xml_escape(c.classname),
                       xml_escape(c.name));
    if (c.outcome == Case::kFail) {
      out += fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n", xml_escape(c.message),
                         xml_escape(c.type), xml_escape(c.text));
    } else if (c.outcome == Case::kSkip) {
      out += fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(c.message));
    } else if (!c.text.empty()) {
      out += fmt::format("      <system-out>{}</system-out>\n", xml_escape(c.text));
    }
    out += "    </testcase>\n";
  }
  out += "  </testsuite>\n";
  return out;
}

// "allreduce float sum out-of-place (tcp, 4 ranks)" -> "fabscope.compare.allreduce.float.sum.out-of-place"
std::string classname_of(CompareSection section, const std::string& subject) {
  std::string out =
      "fabscope." +
      (section == CompareSection::kSweep ? std::string("compare") : "compare." + std::string(name(section))) + ".";
  bool dot = false;
  for (char ch : subject) {
    if (ch == '(') break;
    if (ch == ' ' || ch == ':') {
      dot = true;
      continue;
    }
    if (dot && out.back() != '.') out += '.';
    dot = false;
    out += ch;
  }
  while (out.back() == '.') out.pop_back();
  return out;
}

}  // namespace

std::string render_junit(const Report& r) {
  std::vector<Suite> suites;
  if (r.comparison) {
    const Comparison& c = *r.comparison;
    for (const ComparisonRow& row : c.rows) {
      if (suites.empty() || suites.back().name != "compare: " + row.subject) {
        suites.push_back({"compare: " + row.subject, {}});
      }
      Case k;
      k.classname = classname_of(row.section, row.subject);
      k.name = fmt::format("{} {}", format_size(row.size_bytes), name(row.metric));
      const std::string figures =
          fmt::format("baseline {}, current {}{}; {}", format_figure(row, row.baseline),
                      format_figure(row, row.current), row.change ? " (" + format_change(row) + ")" : "", row.reason);
      if (row.verdict == RowVerdict::kRegression) {
        k.outcome = Case::kFail;
        k.type = code::kCompareRegression;
        k.message = fmt::format("{} at {}: {}", row.subject, format_size(row.size_bytes), figures);
        k.text = fmt::format("test: {}\n{}", format_test(row), figures);
      } else if (row.verdict == RowVerdict::kMissingInCurrent || row.verdict == RowVerdict::kMissingInBaseline ||
                 row.verdict == RowVerdict::kNotJudged) {
        k.outcome = Case::kSkip;
        k.message = row.reason;
      } else {
        k.text = fmt::format("{}: {}", name(row.verdict), figures);
      }
      suites.back().cases.push_back(std::move(k));
    }
  }
  Suite findings{"fabscope findings", {}};
  for (const Finding& f : r.findings) {
    if (r.comparison && (f.code == code::kCompareRegression || f.code == code::kCompareImprovement ||
                         f.code == code::kCompareMissing)) {
      continue;  // the rows above are these findings' test cases
    }
    Case k;
    k.classname = "fabscope.findings." + f.code;
    k.name = f.subject.empty() ? f.code : f.subject;
    const std::string text = fmt::format("{}: {}\nhint: {}", name(f.severity), f.message, f.hint);
    if (f.severity == Severity::kError) {
      k.outcome = Case::kFail;
      k.type = f.code;
      k.message = f.message;
      k.text = text;
    } else {
      k.text = text;
    }
    findings.cases.push_back(std::move(k));
  }
  Case verdict;
  verdict.classname = "fabscope.verdict";
  verdict.name = "verdict";
  if (r.verdict.result == VerdictResult::kFail) {
    verdict.outcome = Case::kFail;
    verdict.type = "verdict";
    verdict.message = fmt::format("verdict fail: {}", fmt::join(r.verdict.failed_codes, ", "));
    verdict.text = verdict.message;
  } else if (r.verdict.result == VerdictResult::kInconclusive) {  // neither pass nor fail: what is missing
    verdict.outcome = Case::kSkip;
    verdict.message = fmt::format("verdict inconclusive: {}", fmt::join(r.verdict.missing, "; "));
  } else {
    verdict.text = "verdict pass";
  }
  findings.cases.push_back(std::move(verdict));
  suites.push_back(std::move(findings));

  int tests = 0, failures = 0, skipped = 0;
  std::string body;
  for (const Suite& s : suites) {
    for (const Case& c : s.cases) {
      ++tests;
      failures += c.outcome == Case::kFail;
      skipped += c.outcome == Case::kSkip;
    }
    body += render_suite(s, r.context.end_time);
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"fabscope\" tests=\"{}\" failures=\"{}\" "
      "errors=\"0\" skipped=\"{}\" time=\"0\">\n{}</testsuites>\n",
      tests, failures, skipped, body);
}

std::unique_ptr<Reporter> make_junit_reporter(const std::string& path) {
  return std::make_unique<RenderedFileReporter>(path, render_junit);
}

}  // namespace fabscope
