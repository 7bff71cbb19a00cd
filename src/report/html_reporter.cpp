// HTML (--html FILE, `fabscope report --format html`): one self-contained page that opens
// offline from a mail attachment or a CI artifact. Styles, charts (inline SVG drawn by
// report/svg.h) and a small hover script are all inside; a Content-Security-Policy
// forbids the page any request. The answer comes first (verdict, drain list, top
// findings, attribution), then the evidence (report/html_sections.h), then the run's
// context. Written atomically at the end.
#include <fmt/format.h>

#include <algorithm>

#include "core/atomic_file.h"
#include "core/sizes.h"
#include "report/file_reporter.h"
#include "report/html_sections.h"
#include "report/reporter.h"
#include "report/summary.h"
#include "report/svg.h"
#include "report/xml_escape.h"

namespace fabscope {

namespace {

using html::td;

constexpr const char* kStyle = R"(
:root{--fg:#1d2330;--muted:#5b6475;--line:#d5d9e0;--bg:#fff;--panel:#f6f7f9}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);
background:var(--bg);margin:0 auto;padding:16px 24px 48px;max-width:1400px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:15px;margin:16px 0 6px}.note{color:var(--muted);margin:4px 0 8px}
nav a{margin-right:12px;color:#2456a6;text-decoration:none}
.verdict{display:inline-block;font-weight:700;padding:2px 12px;border-radius:4px;color:#fff;margin-right:8px}
.verdict.pass{background:#1a7f37}.verdict.fail{background:#c62828}.verdict.inconclusive{background:#9a6700}
table{border-collapse:collapse;margin:6px 0 12px}th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;
vertical-align:top}thead th{background:var(--panel)}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.bad,li.bad,.sev-error{color:#c62828;font-weight:600}td.good{color:#1a7f37}td.warn,.sev-warning{color:#9a6700}
.sev-info{color:var(--muted)}code{background:var(--panel);padding:0 4px;border-radius:3px}
.plots{display:flex;flex-wrap:wrap;gap:12px}figure{margin:0}svg{background:#fff;font-size:11px}
svg .title{font-weight:600;font-size:12px}svg .grid{stroke:#eceef2}svg .frame{fill:none;stroke:#9aa3b2}
svg .tick{fill:var(--muted)}svg .axis{fill:var(--fg)}
.series polyline{fill:none;stroke-width:2}.series circle{stroke:#fff;stroke-width:1}
.s0 polyline,.s0 line{stroke:#2456a6}.s0 circle{fill:#2456a6}.s1 polyline,.s1 line{stroke:#d9730d}.s1 circle{fill:#d9730d}
.s2 polyline,.s2 line{stroke:#6b4fbb}.s2 circle{fill:#6b4fbb}.s3 polyline,.s3 line{stroke:#2a9d8f}.s3 circle{fill:#2a9d8f}
.s4 polyline,.s4 line{stroke:#8c564b}.s4 circle{fill:#8c564b}.s5 polyline,.s5 line{stroke:#7f7f7f}.s5 circle{fill:#7f7f7f}
.dash polyline,.legend.dash line{stroke-dasharray:6 4}.legend line{stroke-width:2}
.band rect{fill:#b9c9e6}.band line{stroke:#1d2330;stroke-width:1.5}
.dot{fill:#2456a6;fill-opacity:.7}.dot.hot{fill:#c62828;fill-opacity:1}
.b0{fill:#1a9850;background:#1a9850}.b1{fill:#91cf60;background:#91cf60}.b2{fill:#d9ef8b;background:#d9ef8b}
.b3{fill:#fee08b;background:#fee08b}.b4{fill:#fc8d59;background:#fc8d59}.b5{fill:#d73027;background:#d73027}
.empty{fill:#eef0f3;background:#eef0f3}.cell{stroke:#fff;stroke-width:.5}.outline{fill:none;stroke:#000;stroke-width:2}
.legend-bins span{margin-right:12px;white-space:nowrap}.legend-bins i{display:inline-block;width:12px;height:12px;
margin-right:4px;vertical-align:-2px;border:1px solid #ccc}
.k-link{fill:#c62828}.k-host{fill:#d9730d}.k-rank{fill:#6b4fbb}.k-nic{fill:#2a9d8f}.k-noise{fill:#e6b800}
.k-unexplained{fill:#b8bec9}.shares .frame{fill:none;stroke:#9aa3b2}
table.paths td{text-align:center;font-weight:600;min-width:44px}.path-NV{background:#1a9850;color:#fff}
.path-PIX{background:#1a9850;color:#fff}.path-PXB{background:#91cf60}.path-PHB{background:#fee08b}
.path-NODE{background:#fc8d59}.path-SYS{background:#d73027;color:#fff}.path-none{background:#eef0f3}
td.chosen{outline:3px solid #1d2330;outline-offset:-3px}td.used{outline:3px dashed #c62828;outline-offset:-3px}
#tip{position:fixed;pointer-events:none;background:#1d2330;color:#fff;padding:4px 8px;border-radius:4px;
font-size:12px;display:none;z-index:10;max-width:480px}
details{margin:6px 0}summary{cursor:pointer;color:#2456a6}pre{white-space:pre-wrap;margin:0}
)";

// Hover values: any element with data-tip; in a large link matrix, the cell under the
// pointer from the matrix's data-values.
constexpr const char* kScript = R"(
(function(){
var tip=document.getElementById('tip');
function show(e,text){tip.textContent=text;tip.style.display='block';
tip.style.left=Math.min(e.clientX+14,window.innerWidth-tip.offsetWidth-8)+'px';tip.style.top=(e.clientY+14)+'px';}
document.addEventListener('mousemove',function(e){
var t=e.target.closest?e.target.closest('[data-tip]'):null;
if(t){show(e,t.getAttribute('data-tip'));return;}
var m=e.target.closest?e.target.closest('svg.heatmap[data-values]'):null;
if(m){var r=m.getBoundingClientRect(),n=+m.dataset.n,c=+m.dataset.cellPx,o=+m.dataset.origin;
var j=Math.floor((e.clientX-r.left-o)/c),i=Math.floor((e.clientY-r.top-o)/c);
if(i>=0&&j>=0&&i<n&&j<n){if(!m._v)m._v=m.dataset.values.split(',');var v=m._v[i*n+j];
show(e,i+' -> '+j+': '+(v===''?'not measured':v+' '+m.dataset.unit));return;}}
tip.style.display='none';});
})();
)";

std::string verdict_text(VerdictResult result) {
  return result == VerdictResult::kFail ? "FAIL" : result == VerdictResult::kInconclusive ? "INCONCLUSIVE" : "PASS";
}

int severity_rank(Severity s) { return s == Severity::kError ? 0 : s == Severity::kWarning ? 1 : 2; }

std::string join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string findings_table(const std::vector<const Finding*>& findings, bool with_evidence) {
  std::string out =
      "<table class=\"data findings\"><thead><tr><th>severity</th><th>code</th><th>subject</th>"
      "<th>what</th></tr></thead><tbody>";
  for (const Finding* f : findings) {
    std::string what = "<td>" + xml_escape(f->message);
    if (!f->hint.empty()) what += "<br><span class=\"note\">" + xml_escape(f->hint) + "</span>";
    if (with_evidence && !f->evidence.empty()) {
      what += "<details><summary>evidence</summary><pre>" +
              xml_escape(f->evidence.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)) +
              "</pre></details>";
    }
    out += fmt::format("<tr><td class=\"sev-{}\">{}</td><td><code>{}</code></td>{}{}</td></tr>", name(f->severity),
                       name(f->severity), xml_escape(f->code), td(f->subject), what);
  }
  return out + "</tbody></table>";
}

std::string attribution_bars(const Report& r) {
  std::string out;
  for (const Attribution& a : r.attribution) {
    std::vector<svg::Share> shares;
    for (const AttributionEntry& e : a.entries) {
      shares.push_back({fmt::format("{}: {}", name(e.kind), e.subject), e.share, fmt::format("k-{}", name(e.kind)),
                        fmt::format("{} {}: {:.1f}% of the excess, {:.1f} us", name(e.kind), e.subject, 100 * e.share,
                                    e.excess_us)});
    }
    out += "<figure>" + svg::share_bar(fmt::format("{} at {}", a.collective, format_size(a.size_bytes)), shares) +
           "<figcaption class=\"note\">" +
           xml_escape(fmt::format("{:.1f} us measured against {:.1f} us ideal ({}, at the median link's {:.3g} GB/s): "
                                  "{:.1f} us excess, found by {}",
                                  a.measured_us, a.ideal_us, a.model, a.link_rate_gbps, a.excess_us, name(a.method))) +
           "</figcaption></figure>";
  }
  return out;
}

std::string answer_section(const Report& r) {
  const Verdict& v = r.verdict;
  std::string out = "<section id=\"answer\"><h2>Answer</h2>";
  if (v.result == VerdictResult::kFail && !v.failed_codes.empty()) {
    out += "<p>Failed on " + xml_escape(join(v.failed_codes)) + ".</p>";
  }
  if (!v.drain.empty()) {
    out += "<p><b>Hosts to drain</b>: <code>" + xml_escape(v.drain_hostlist) + "</code> (" + xml_escape(join(v.drain)) +
           ")</p>";
  }
  if (!v.missing.empty()) {
    out += "<p>What the inputs lack for a verdict:</p><ul>";
    for (const std::string& m : v.missing) out += "<li>" + xml_escape(m) + "</li>";
    out += "</ul>";
  }
  if (!v.not_judged.empty()) {
    out += "<p>Not judged:</p><ul>";
    for (const std::string& m : v.not_judged) out += "<li>" + xml_escape(m) + "</li>";
    out += "</ul>";
  }
  if (r.triage && !r.triage->answer_code.empty()) {
    out += "<p>Most likely cause: <code>" + xml_escape(r.triage->answer_code) + "</code> " +
           xml_escape(r.triage->answer_subject) + "</p>";
  }
  std::vector<const Finding*> top;
  for (const Finding& f : r.findings) top.push_back(&f);
  std::stable_sort(top.begin(), top.end(), [](const Finding* a, const Finding* b) {
    return severity_rank(a->severity) < severity_rank(b->severity);
  });
  if (top.size() > 5) top.resize(5);
  if (!top.empty()) {
    out += fmt::format("<h3>Top findings ({} of {})</h3>", top.size(), r.findings.size()) + findings_table(top, false);
  } else if (v.missing.empty()) {
    out += "<p>No findings: nothing fabscope checks for was wrong.</p>";
  }
  if (!r.attribution.empty()) {
    out +=
        "<h3>Where the time went</h3><p class=\"note\">Each collective's time beyond what the median link allows, "
        "split among the links, hosts and ranks that explain it; the rest is unexplained.</p>" +
        attribution_bars(r);
  }
  return out + "</section>";
}

std::string findings_section(const Report& r) {
  if (r.findings.empty()) return "";
  std::vector<const Finding*> all;
  for (const Finding& f : r.findings) all.push_back(&f);
  return fmt::format("<section id=\"findings\"><h2>Findings ({})</h2>", all.size()) + findings_table(all, true) +
         "</section>";
}

std::string triage_section(const Report& r) {
  if (!r.triage || r.triage->files.empty()) return "";
  std::string out =
      "<section id=\"triage\"><h2>Files read</h2><table class=\"data\"><thead><tr><th>file</th>"
      "<th>taken as</th><th>lines</th><th>not read</th><th>note</th></tr></thead><tbody>";
  for (const TriageFile& f : r.triage->files) {
    const std::string not_read =
        f.lines_not_read < 0 ? "-"
                             : std::to_string(f.lines_not_read) +
                                   (f.not_read_examples.empty() ? "" : " (" + join(f.not_read_examples, "; ") + ")");
    out += "<tr>" + td(f.path) + td(f.kinds.empty() ? "not recognised" : join(f.kinds)) +
           td(std::to_string(f.lines), "num") + td(not_read) + td(f.note) + "</tr>";
  }
  return out + "</tbody></table></section>";
}

std::string context_section(const Report& r) {
  const RunContext& c = r.context;
  auto row = [](const char* k, const std::string& v) { return fmt::format("<tr><th>{}</th>{}</tr>", k, td(v)); };
  std::string out = "<section id=\"context\"><h2>Context</h2><table class=\"data\"><tbody>";
  out += row("tool", fmt::format("{} {} (git {})", c.tool.name, c.tool.version, c.tool.git_id));
  if (!c.command_line.empty()) out += row("command line", join(c.command_line, " "));
  if (!c.start_time.empty()) out += row("time", c.start_time + (c.end_time.empty() ? "" : " to " + c.end_time));
  if (!c.backend.empty())
    out += row("backend", c.backend + (c.backend_library.empty() ? "" : ": " + c.backend_library));
  if (c.nranks > 0) out += row("ranks", std::to_string(c.nranks));
  if (!c.hosts.empty()) out += row(c.hosts.size() == 1 ? "host" : "hosts", join(c.hosts));
  if (c.imported) out += row("imported", c.imported->tool + " output: " + join(c.imported->files));
  if (c.nccl_debug) out += row("NCCL debug log", c.nccl_debug->dir);
  out += "</tbody></table>";
  if (!c.environment.empty()) {
    out += fmt::format("<details><summary>Environment ({} variables kept)</summary><table class=\"data\"><tbody>",
                       c.environment.size());
    for (const auto& [k, v] : c.environment) out += "<tr>" + td(k) + td(v) + "</tr>";
    out += "</tbody></table></details>";
  }
  return out + "</section>";
}

}  // namespace

std::string render_html(const Report& r, std::span<const LabelledReport> beside) {
  const std::string command = command_name(r);
  const VerdictResult verdict = r.verdict.result;
  const std::string result(name(verdict));
  std::string sections[] = {answer_section(r),
                            html::comparison_section(r),
                            html::history_section(r),
                            html::bandwidth_section(r, beside),
                            html::spread_section(r),
                            html::timeline_section(r),
                            html::watch_section(r),
                            html::links_section(r),
                            html::nccl_profile_section(r),
                            html::topology_section(r),
                            html::counters_section(r),
                            triage_section(r),
                            findings_section(r),
                            context_section(r)};
  std::string nav;
  const std::pair<const char*, const char*> titles[] = {
      {"answer", "Answer"},           {"comparison", "Comparison"}, {"history", "History"},
      {"bandwidth", "Bus bandwidth"}, {"spread", "Spread"},         {"timeline", "Timeline"},
      {"watch", "Links over time"},   {"links", "Link matrix"},     {"nccl-profile", "NCCL wait"},
      {"topology", "Topology"},       {"counters", "Counters"},     {"triage", "Files"},
      {"findings", "Findings"},       {"context", "Context"}};
  for (size_t i = 0; i < std::size(titles); ++i) {
    if (!sections[i].empty()) nav += fmt::format("<a href=\"#{}\">{}</a>", titles[i].first, titles[i].second);
  }
  std::string summary;
  if (r.context.nranks > 0) summary += fmt::format("{} rank{}", r.context.nranks, r.context.nranks == 1 ? "" : "s");
  if (!r.context.hosts.empty()) {
    summary += fmt::format(" on {} host{}", r.context.hosts.size(), r.context.hosts.size() == 1 ? "" : "s");
  }
  if (!r.context.backend.empty()) summary += ", " + r.context.backend;
  if (!r.context.start_time.empty()) summary += ", " + r.context.start_time;
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "script-src 'unsafe-inline'; img-src data:\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<meta name=\"generator\" content=\"fabscope {}\"><title>fabscope {}: {}</title><style>{}</style></head>\n"
      "<body><header><h1>fabscope {}</h1><div id=\"verdict\" class=\"verdict {}\" data-verdict=\"{}\">{}</div>"
      "<span class=\"note\">{}</span><nav>{}</nav></header>\n",
      xml_escape(r.context.tool.version), xml_escape(command), xml_escape(verdict_text(verdict)), kStyle,
      xml_escape(command), xml_escape(result), xml_escape(result), xml_escape(verdict_text(verdict)),
      xml_escape(summary), nav);
  for (const std::string& s : sections) {
    if (!s.empty()) out += s + "\n";
  }
  out += fmt::format("<div id=\"tip\" role=\"tooltip\"></div><script>{}</script></body></html>\n", kScript);
  return out;
}

std::unique_ptr<Reporter> make_html_reporter(const std::string& path) {
  return std::make_unique<RenderedFileReporter>(path, [](const Report& r) { return render_html(r); });
}

}  // namespace fabscope
