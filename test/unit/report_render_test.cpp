// The renderers people look at (HTML, Markdown, Prometheus) on the fixture reports and
// on large made-up ones: what each view must hold, that the page asks for nothing
// outside itself, that text from a report cannot become markup, and the size bounds
// (a 512-rank link matrix; a 64-rank summary under GitHub's comment limit). The page in
// a real browser: test/cli/html_browser_test.py.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "report/report_json.h"
#include "report/reporter.h"
#include "report/xml_escape.h"

namespace fabscope {
namespace {

Report fixture(const std::string& name) {
  auto r = load_report(std::string(FABSCOPE_FIXTURES) + "/reports/" + name);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : Report{};
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

const char* kFixtures[] = {"sweep-mpi-np3.json",    "p2p-tcp-np3.json", "topo-offline.json",
                           "diagnose-tcp-np3.json", "compare.json",     "import-nccl-tests.json"};

TEST(HtmlRenderer, EveryFixtureIsOnePageThatAsksForNothingOutside) {
  for (const char* name : kFixtures) {
    SCOPED_TRACE(name);
    const Report r = fixture(name);
    const std::string html = render_html(r);
    EXPECT_TRUE(html.starts_with("<!DOCTYPE html>"));
    EXPECT_NE(html.find("Content-Security-Policy\" content=\"default-src 'none'"), std::string::npos);
    EXPECT_NE(html.find("data-verdict=\"" + std::string(fabscope::name(r.verdict.result)) + "\""), std::string::npos);
    EXPECT_EQ(count(html, "id=\"verdict\""), 1u);
    // Nothing fetched: no src/href to anything but the page's own anchors, no CSS url().
    EXPECT_EQ(count(html, " src="), 0u);
    EXPECT_EQ(count(html, "<link"), 0u);
    EXPECT_EQ(count(html, "url("), 0u);
    EXPECT_EQ(count(html, "@import"), 0u);
    EXPECT_EQ(count(html, "href=\"#"), count(html, "href="));
    EXPECT_EQ(count(html, "https://"), 0u);
    EXPECT_EQ(count(html, "http://"), count(html, "http://www.w3.org/2000/svg"));
    // The context is always there; each sweep has its plots.
    EXPECT_NE(html.find("id=\"context\""), std::string::npos);
    EXPECT_NE(html.find(r.context.tool.version), std::string::npos);
    EXPECT_EQ(count(html, "class=\"plot busbw\""), r.comparison ? 3u : r.sweeps.size());
    EXPECT_EQ(count(html, "class=\"plot spread\""), r.sweeps.size());
    EXPECT_EQ(count(html, "id=\"link-heatmap\""), r.p2p ? 1u : 0u);
    EXPECT_EQ(count(html, "id=\"topology\""), r.topology ? 1u : 0u);
    // Every finding in the full table, the top five first.
    EXPECT_EQ(count(html, "<td class=\"sev-"), r.findings.size() + std::min<size_t>(r.findings.size(), 5));
  }
}

TEST(HtmlRenderer, LinkMatrixHasEveryCellAndOutlinesTheFlaggedLinksAtItsSize) {
  const Report r = fixture("p2p-tcp-np3.json");
  const std::string html = render_html(r);
  const int n = r.context.nranks;
  EXPECT_NE(html.find(fmt::format("data-n=\"{}\"", n)), std::string::npos);
  EXPECT_EQ(count(html, "<rect class=\"cell "), static_cast<size_t>(n * n));
  // Ring: n links measured, the rest (diagonal included) drawn empty.
  EXPECT_EQ(count(html, "<rect class=\"cell empty\""), static_cast<size_t>(n * n - n));
  // The findings are about smaller sizes than the matrix' 8 MiB: listed, not outlined.
  EXPECT_EQ(count(html, "class=\"outline\""), 0u);
  EXPECT_EQ(count(html, "<li>p2p.slow_link at "), 3u);
  EXPECT_NE(html.find("Every link (3)"), std::string::npos);

  // A link named slow at the matrix' size is outlined.
  Report slow = r;
  Finding f;
  f.code = "p2p.slow_link";
  f.severity = Severity::kError;
  f.subject = "link 2 -> 0";
  f.evidence = {{"size_bytes", 8u << 20}, {"src_rank", 2}, {"dst_rank", 0}};
  slow.findings.push_back(f);
  EXPECT_EQ(count(render_html(slow), "class=\"outline\""), 1u);
}

TEST(HtmlRenderer, ReportTextCannotBecomeMarkup) {
  Report r = fixture("sweep-mpi-np3.json");
  r.context.hosts = {"<script>alert(1)</script>"};
  r.context.environment["NCCL_X"] = "\"><img src=x onerror=alert(2)>";
  Finding f;
  f.code = "x.y";
  f.subject = "</td></table><b>";
  f.message = "a & b";
  r.findings.push_back(f);
  const std::string html = render_html(r);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("</td></table><b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("a &amp; b"), std::string::npos);

  // Bytes that are not UTF-8 (a live run's host name, say) do not make the page invalid.
  r.context.hosts = {"node\xFF"};
  EXPECT_NE(render_html(r).find("node\xEF\xBF\xBD"), std::string::npos);
  EXPECT_EQ(render_html(r).find("node\xFF"), std::string::npos);
  r.context.backend_library = "lib\xC0";
  EXPECT_NE(render_prometheus(r).find("backend_library=\"lib\xEF\xBF\xBD\""), std::string::npos);
}

TEST(XmlEscape, WritesTheFiveMarkupCharactersAsEntities) {
  EXPECT_EQ(xml_escape("&"), "&amp;");
  EXPECT_EQ(xml_escape("<"), "&lt;");
  EXPECT_EQ(xml_escape(">"), "&gt;");
  EXPECT_EQ(xml_escape("\""), "&quot;");
  EXPECT_EQ(xml_escape("'"), "&#39;");  // not &apos;, which HTML 4 does not know
  EXPECT_EQ(xml_escape("<a href=\"x\">Tom's & Jerry's</a>"),
            "&lt;a href=&quot;x&quot;&gt;Tom&#39;s &amp; Jerry&#39;s&lt;/a&gt;");
}

TEST(XmlEscape, PassesPlainTextAndUtf8Through) {
  EXPECT_EQ(xml_escape(""), "");
  EXPECT_EQ(xml_escape("allreduce 1 MiB: 12.5 GB/s"), "allreduce 1 MiB: 12.5 GB/s");
  EXPECT_EQ(xml_escape("\u00e9t\u00e9 \u2192 \u6e2c\u5b9a \U0001F680"), "\u00e9t\u00e9 \u2192 \u6e2c\u5b9a \U0001F680");
  EXPECT_EQ(xml_escape("a\tb\nc\r"), "a\tb\nc\r");
}

TEST(XmlEscape, ReplacesBadBytesAndDropsWhatXmlDoesNotAllow) {
  EXPECT_EQ(xml_escape("node\xFF"), "node\xEF\xBF\xBD");
  EXPECT_EQ(xml_escape(std::string_view("a\x01"
                                        "b\x1B"
                                        "[0mc\0d",
                                        10)),
            "ab[0mcd");
}

TEST(JunitRenderer, ApostrophesAreWrittenAsNumericReferences) {
  Report r = fixture("diagnose-tcp-np3.json");
  Finding f;
  f.code = "x.y";
  f.severity = Severity::kError;
  f.subject = "rank 'zero'";
  f.message = "the fabric's <slowest> link & \"more\"";
  r.findings.push_back(f);
  const std::string xml = render_junit(r);
  EXPECT_EQ(xml.find("&apos;"), std::string::npos);
  EXPECT_NE(xml.find("the fabric&#39;s &lt;slowest&gt; link &amp; &quot;more&quot;"), std::string::npos);
}

TEST(HtmlRenderer, BaselinesAreDrawnBesideTheRun) {
  const Report current = fixture("sweep-mpi-np3.json");
  Report baseline = current;
  for (Sweep& s : baseline.sweeps) {
    for (SweepPoint& p : s.points) {
      if (p.out_of_place) p.out_of_place->busbw_gbps *= 1.5;
    }
  }
  const LabelledReport beside[] = {{"base.json", &baseline}};
  const std::string html = render_html(current, beside);
  EXPECT_EQ(count(html, "<g class=\"series s2 dash\">"), current.sweeps.size());
  EXPECT_NE(html.find(">base.json out-of-place</text>"), std::string::npos);
  EXPECT_NE(html.find(">this run out-of-place</text>"), std::string::npos);

  // A comparison carries both runs: time rows become bus bandwidth as nccl-tests computes it.
  const std::string cmp = render_html(fixture("compare.json"));
  EXPECT_EQ(count(cmp, ">baseline out-of-place</text>"), 3u);
  EXPECT_EQ(count(cmp, ">current in-place</text>"), 3u);
}

// A 512-rank pairs run: every ordered pair measured once, a few links slow.
Report big_matrix(int n) {
  Report r;
  r.context.tool = {"fabscope", "0.1.0", "abc"};
  r.context.nranks = n;
  for (int i = 0; i < n; ++i) r.context.ranks.push_back({i, fmt::format("node{:03d}", i / 8), 100 + i, i % 8});
  P2pSection p;
  p.pattern = P2pPattern::kPairs;
  p.mode = P2pMode::kBandwidth;
  p.backend = "verbs";
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      P2pLink l;
      l.src_rank = i;
      l.dst_rank = j;
      l.src_host = r.context.ranks[i].host;
      l.dst_host = r.context.ranks[j].host;
      l.size_bytes = 8 << 20;
      l.bw_gbps = (i * 7 + j) % 97 == 0 ? 12.0 : 24.0 + ((i + j) % 5) * 0.1;
      p.links.push_back(l);
    }
  }
  r.p2p = p;
  return r;
}

TEST(HtmlRenderer, A512RankMatrixStaysSmall) {
  const Report r = big_matrix(512);
  const std::string html = render_html(r);
  EXPECT_NE(html.find("data-cells=\"262144\""), std::string::npos);
  EXPECT_EQ(count(html, "<rect class=\"cell "), 0u);  // runs of one colour, not a rect per cell
  EXPECT_NE(html.find("<path class=\"run b0\""), std::string::npos);
  EXPECT_NE(html.find("<path class=\"run b4\""), std::string::npos);  // the half-speed links
  EXPECT_NE(html.find("The 200 slowest of 261632 links"), std::string::npos);
  // The bound the README states (1.3 MiB measured: the hover values are most of it).
  EXPECT_LT(html.size(), 2u << 20) << html.size();
  std::printf("512-rank link matrix page: %zu bytes\n", html.size());
}

TEST(MarkdownRenderer, A64RankDiagnosisFitsAGitHubComment) {
  Report r = big_matrix(64);
  r.diagnosis = Diagnosis{};
  for (const char* coll : {"allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce", "sendrecv"}) {
    Sweep s;
    s.collective = coll;
    s.dtype = "float";
    s.backend = "verbs";
    s.nranks = 64;
    for (uint64_t size = 8; size <= (1ull << 30); size *= 2) {
      PlacementResult p;
      p.time_us = 10;
      p.busbw_gbps = 1;
      p.wrong = 0;
      s.points.push_back({size, size / 4, p, p, ""});
    }
    r.sweeps.push_back(s);
  }
  for (int i = 0; i < 300; ++i) {
    Finding f;
    f.code = "p2p.slow_link";
    f.severity = i % 3 ? Severity::kWarning : Severity::kError;
    f.subject = fmt::format("link {} -> {} (node{:03d} -> node{:03d})", i % 64, (i + 1) % 64, i / 8, i / 8 + 1);
    f.message = std::string(200, 'm');
    r.findings.push_back(f);
  }
  Attribution a;
  a.collective = "allreduce";
  a.size_bytes = 1 << 30;
  a.entries = {{AttributionKind::kLink, "link 3 -> 4", {}, {}, 0.6, 10},
               {AttributionKind::kUnexplained, "no one link", {}, {}, 0.4, 6}};
  r.attribution.push_back(a);
  decide_verdict(r);
  const std::string md = render_markdown(r);
  EXPECT_LE(md.size(), kMarkdownCommentLimit);
  EXPECT_NE(md.find("**FAIL**"), std::string::npos);
  EXPECT_NE(md.find("#### Where the time went"), std::string::npos);
  EXPECT_NE(md.find("| allreduce | 1 GiB |"), std::string::npos);
  EXPECT_NE(md.find("**p2p** pattern pairs"), std::string::npos);
  EXPECT_NE(md.find("more findings"), std::string::npos);
  // Errors come first.
  EXPECT_LT(md.find("- **error**"), md.find("- **warning**"));
  std::printf("64-rank Markdown summary: %zu bytes\n", md.size());

  // A comparison too large for any budget is cut at a line and says so.
  Report cmp = fixture("compare.json");
  ComparisonRow moved = cmp.comparison->rows.front();
  moved.verdict = RowVerdict::kRegression;
  while (cmp.comparison->rows.size() < 4000) cmp.comparison->rows.push_back(moved);
  const std::string cut = render_markdown(cmp);
  EXPECT_LE(cut.size(), kMarkdownCommentLimit);
  EXPECT_NE(cut.find("Cut to fit a comment"), std::string::npos);
}

// The exposition format's lines: "# HELP name text", "# TYPE name gauge", samples.
TEST(PrometheusRenderer, NamesUnitsAndSeriesFollowTheFormat) {
  const std::regex sample(R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? (\S+)$)");
  for (const char* name : kFixtures) {
    SCOPED_TRACE(name);
    const Report r = fixture(name);
    const std::string text = render_prometheus(r);
    std::set<std::string> typed, series;
    std::string line;
    for (size_t at = 0, end; at < text.size(); at = end + 1) {
      end = text.find('\n', at);
      ASSERT_NE(end, std::string::npos) << "last line unterminated";
      line = text.substr(at, end - at);
      if (line.starts_with("# TYPE ")) {
        const std::string metric = line.substr(7, line.find(' ', 7) - 7);
        EXPECT_TRUE(line.ends_with(" gauge")) << line;
        EXPECT_TRUE(typed.insert(metric).second) << "TYPE twice: " << metric;
        EXPECT_TRUE(metric.starts_with("fabscope_")) << metric;
        EXPECT_FALSE(metric.ends_with("_total")) << metric;
        EXPECT_EQ(metric.find("gbps"), std::string::npos) << metric;  // base units
        continue;
      }
      if (line.starts_with("# HELP ")) continue;
      std::smatch m;
      ASSERT_TRUE(std::regex_match(line, m, sample)) << line;
      EXPECT_TRUE(typed.count(m[1])) << "sample before its TYPE: " << line;
      EXPECT_TRUE(series.insert(line.substr(0, line.rfind(' '))).second) << "series twice: " << line;
      std::stod(m[5]);
    }
    EXPECT_NE(text.find("fabscope_verdict{result=\"" + std::string(fabscope::name(r.verdict.result)) + "\"} 1\n"),
              std::string::npos);
    EXPECT_EQ(r.sweeps.empty(), text.find("fabscope_busbw_bytes_per_second{") == std::string::npos);
    EXPECT_EQ(r.p2p.has_value(), text.find("fabscope_link_bandwidth_bytes_per_second{") != std::string::npos);
  }
}

TEST(PrometheusRenderer, FiguresAreInBaseUnitsAndLabelsEscaped) {
  Report r = fixture("sweep-mpi-np3.json");
  const std::string text = render_prometheus(r);
  // 2026-11-24T11:21:16.424Z
  EXPECT_NE(text.find("fabscope_run_start_timestamp_seconds 1795519276.424\n"), std::string::npos) << text;
  const Sweep& s = r.sweeps.front();
  const PlacementResult& largest = *s.points.back().out_of_place;
  EXPECT_NE(text.find(fmt::format("fabscope_busbw_bytes_per_second{{collective=\"{}\",dtype=\"{}\",op=\"{}\",root=\"\","
                                  "placement=\"out_of_place\",backend=\"{}\"}} {}\n",
                                  s.collective, s.dtype, s.op.value_or(""), s.backend, largest.busbw_gbps * 1e9)),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("fabscope_findings{severity=\"warning\"} 2\n"), std::string::npos);
  // Per host: its slowest rank's median time, and the bus bandwidth over it with the run's factor.
  double slowest_us = 0;
  for (const RankTiming& t : largest.per_rank) slowest_us = std::max(slowest_us, t.median_us);
  const std::string labels = fmt::format(
      "{{collective=\"{}\",dtype=\"{}\",op=\"{}\",root=\"\",placement=\"out_of_place\","
      "backend=\"{}\",host=\"vm\"}}",
      s.collective, s.dtype, s.op.value_or(""), s.backend);
  EXPECT_NE(text.find(fmt::format("fabscope_host_time_seconds{} {}\n", labels, slowest_us / 1e6)), std::string::npos);
  const double host_busbw =
      static_cast<double>(s.points.back().size_bytes) / (slowest_us / 1e6) * (largest.busbw_gbps / largest.algbw_gbps);
  EXPECT_NE(text.find(fmt::format("fabscope_host_busbw_bytes_per_second{} {}\n", labels, host_busbw)),
            std::string::npos)
      << text;
  r.context.backend_library = "Open \"MPI\"\\4\nx";
  EXPECT_NE(render_prometheus(r).find("backend_library=\"Open \\\"MPI\\\"\\\\4\\nx\""), std::string::npos);
}

}  // namespace
}  // namespace fabscope
