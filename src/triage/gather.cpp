// Triage, part one: each file taken by its content, and the facts the signatures read.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/text.h"
#include "topo/mapping.h"
#include "topo/readers.h"
#include "topo/topo_report.h"
#include "triage/triage.h"

namespace fabscope::triage {

namespace {

bool contains(std::string_view text, std::string_view what) { return text.find(what) != std::string_view::npos; }

// NUL bytes, or mostly bytes that are neither printable ASCII, whitespace nor UTF-8.
bool looks_binary(std::string_view text) {
  const std::string_view head = text.substr(0, 8192);
  if (contains(head, std::string_view("\0", 1))) return true;
  size_t odd = 0;
  for (unsigned char c : head) {
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != 0x1b) ++odd;
  }
  return !head.empty() && odd * 10 > head.size();
}

// "[ 1234.567890] ..." (dmesg), "Mon DD HH:MM:SS host kernel: ..." (journalctl -k).
bool is_kernel_line(std::string_view line) {
  const std::string_view t = trim(line);
  if (t.size() > 3 && t[0] == '[') {
    const size_t close = t.find(']');
    if (close != std::string_view::npos && close > 1) {
      const std::string_view stamp = trim(t.substr(1, close - 1));
      const size_t dot = stamp.find('.');
      return dot != std::string_view::npos && dot > 0 &&
             std::all_of(stamp.begin(), stamp.begin() + static_cast<ptrdiff_t>(dot),
                         [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    }
  }
  return contains(line, " kernel: ");
}

bool parse_u64(std::string_view s, uint64_t& out) {
  s = trim(s);
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// A counter line: "name: value", "Name:.......value", or the table "name dev port value(+delta)".
bool counter_line(std::string_view line, std::string& device, std::string& name, uint64_t& value) {
  const std::string_view t = trim(line);
  if (t.empty() || t[0] == '#') return false;
  const size_t colon = t.find(':');
  if (colon != std::string_view::npos && colon > 0) {
    const std::string_view key = trim(t.substr(0, colon));
    if (!std::all_of(key.begin(), key.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; })) {
      return false;
    }
    std::string_view rest = t.substr(colon + 1);
    while (!rest.empty() && (rest.front() == '.' || is_space(rest.front()))) rest.remove_prefix(1);
    if (!parse_u64(rest, value)) return false;
    name = std::string(key);
    return true;
  }
  const auto words = split_ws(t);
  if (words.size() == 4) {
    std::string_view v = words[3];
    if (size_t paren = v.find('('); paren != std::string_view::npos) v = v.substr(0, paren);
    uint64_t port = 0;
    if (!parse_u64(words[2], port) || !parse_u64(v, value)) return false;
    name = std::string(words[0]);
    device = std::string(words[1]);
    return true;
  }
  return false;
}

// A counter's name, as NIC and port counters are named: packets, bytes, errors, drops...
// (not ibv_devinfo's "phys_port_cnt: 1").
bool counter_like(std::string_view name) {
  std::string n;
  for (char c : name) n.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  for (std::string_view k : {"packets", "bytes", "xmit", "rcv", "err", "discard", "drop", "pause", "cnp", "ecn", "wait",
                             "data", "pkts", "symbol", "link"}) {
    if (n.find(k) != std::string::npos) return true;
  }
  return false;
}

// The NCCL lines the signatures read (the others are counted, not kept: a log of 100 MB
// is mostly channel and ring lines).
bool kept_nccl_line(const topo::NcclLogLine& l) {
  const std::string_view m = l.msg;
  return l.level == "WARN" || m.starts_with("NCCL version") || m.starts_with("NET/") || contains(m, " via NET/") ||
         contains(m, "set by environment to") || contains(m, "nranks ") || m.starts_with("NCCL_IB_HCA set to") ||
         contains(m, "Using network") || contains(m, "GPU Direct RDMA");
}

}  // namespace

std::vector<std::string> recognise(std::string_view text) {
  std::vector<std::string> kinds;
  if (looks_binary(text)) return kinds;
  const std::string_view head = text.substr(0, 4096);
  const std::string_view start = trim(head);
  if (start.starts_with("<")) {
    if (contains(head, "<topology")) kinds.emplace_back("hwloc-xml");
    if (contains(head, "<system") || contains(head, "<graphs")) kinds.emplace_back("nccl-xml");
    return kinds;
  }
  bool nccl = false, kernel = false, tests = false, smi = false, rdma = false, counters = false;
  int counter_lines = 0;
  LineReader lines(text);
  std::string_view line;
  topo::NcclLogLine split;
  while (lines.next(line)) {
    if (!nccl && topo::split_nccl_line(line, split)) nccl = true;
    if (!kernel && is_kernel_line(line)) kernel = true;
    if (!tests && (contains(line, "# Avg bus bandwidth") || contains(line, "# nccl-tests version") ||
                   (contains(line, "size") && contains(line, "count") && contains(line, "busbw")))) {
      tests = true;
    }
    if (!smi && contains(line, "GPU0") &&
        (contains(line, "CPU Affinity") || contains(line, "NIC0") || contains(line, "mlx5_0") ||
         contains(line, "GPU1"))) {
      smi = true;
    }
    if (!rdma && ((contains(line, " ==> ") && contains(line, "port ")) || line.starts_with("hca_id:") ||
                  contains(line, "/sys/class/infiniband") || (line.starts_with("DEV") && contains(line, "GID")))) {
      rdma = true;
    }
    if (!counters && (contains(line, "NIC statistics:") || contains(line, "hw counters:") ||
                      contains(line, "# Port counters") || contains(line, "# Port extended counters"))) {
      counters = true;
    }
    std::string d, n;
    uint64_t v = 0;
    if (!counters && counter_line(line, d, n, v) && counter_like(n) && ++counter_lines >= 5) counters = true;
  }
  if (nccl) kinds.emplace_back("nccl-log");
  if (tests) kinds.emplace_back("nccl-tests");
  if (smi) kinds.emplace_back("nvidia-smi-topo");
  if (rdma) kinds.emplace_back("rdma-info");
  if (counters) kinds.emplace_back("counters");
  if (kernel) kinds.emplace_back("kernel-log");
  return kinds;
}

void gather(const std::string& path, std::string_view text, Facts& facts) {
  TriageFile file;
  file.path = path;
  file.bytes = text.size();
  if (looks_binary(text)) {
    file.note = "not text (binary): skipped";
    facts.files.push_back(std::move(file));
    return;
  }
  file.kinds = recognise(text);
  std::vector<std::string> notes, refused;
  auto has = [&](std::string_view k) { return std::find(file.kinds.begin(), file.kinds.end(), k) != file.kinds.end(); };
  // Topology: the readers topo offers.
  auto read_topology = [&](std::string_view kind,
                           Status (*parse)(std::string_view, std::string_view, topo::TopologySet&)) {
    if (!has(kind)) return;
    topo::TopologySet one;
    Status s = parse(text, path, one);
    if (!s.ok()) {  // not that kind after all, or damaged: said in the file's note
      refused.push_back(fmt::format("taken for {} but refused: {}", kind, s.message()));
      file.kinds.erase(std::find(file.kinds.begin(), file.kinds.end(), kind));
      return;
    }
    for (topo::HostTopology& h : one.hosts) topo::merge_host(facts.topology.host(h.host), h);
  };
  read_topology("hwloc-xml", topo::parse_hwloc_xml);
  read_topology("nccl-xml", topo::parse_nccl_xml);
  read_topology("nvidia-smi-topo", topo::parse_nvidia_smi_topo);
  read_topology("rdma-info", topo::parse_rdma_text);
  read_topology("nccl-log", topo::parse_nccl_log);
  if (has("nccl-tests")) {
    auto tables = parse_nccl_tests(text, path);
    if (tables.ok()) {
      for (NcclTestsTable& t : *tables) facts.tables.emplace_back(path, std::move(t));
    } else {
      refused.push_back(fmt::format("taken for nccl-tests but refused: {}", tables.status().message()));
      file.kinds.erase(std::find(file.kinds.begin(), file.kinds.end(), "nccl-tests"));
    }
  }
  // A refusal matters where nothing else was made of the file (a truncated table, a
  // damaged XML); beside a kind that read, it was a wrong guess.
  if (file.kinds.empty()) notes = refused;
  // Line by line: NCCL lines, kernel lines, counters.
  const bool counters = has("counters");
  const bool kernel = has("kernel-log");
  const bool nccl = has("nccl-log");
  std::string device;  // counters: the device a heading names ("# show_counters mlx5_0")
  LineReader lines(text);
  std::string_view line;
  while (lines.next(line)) {
    if (nccl) {
      topo::NcclLogLine l;
      if (topo::split_nccl_line(line, l)) {
        if (kept_nccl_line(l)) {
          facts.nccl.push_back({{path, lines.number(), std::string(trim(line))},
                                std::string(l.host),
                                std::string(l.pid),
                                l.dev,
                                std::string(l.level),
                                std::string(trim(l.msg))});
        }
        continue;
      }
    }
    if (kernel && is_kernel_line(line)) {
      facts.kernel.push_back({path, lines.number(), std::string(trim(line))});
      continue;
    }
    if (counters) {
      const std::string_view t = trim(line);
      for (std::string_view key : {"show_counters ", "perfquery ", "ethtool -S ", "Port counters: Lid "}) {
        if (size_t at = t.find(key); at != std::string_view::npos) {
          const auto words = split_ws(t.substr(at + key.size()));
          if (!words.empty()) device = std::string(words[0]);
        }
      }
      CounterFact c;
      if (counter_line(line, c.device, c.name, c.value)) {
        if (c.device.empty()) c.device = device;
        c.where = {path, lines.number(), std::string(t)};
        facts.counters.push_back(std::move(c));
      }
    }
  }
  file.lines = lines.number();
  if (file.kinds.empty() && notes.empty()) notes.emplace_back("not recognised: no format fabscope reads");
  for (size_t i = 0; i < notes.size(); ++i) file.note += (i ? "; " : "") + notes[i];
  facts.files.push_back(std::move(file));
}

Result<std::vector<std::string>> list_files(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    const auto st = fs::status(p, ec);
    if (ec || !fs::exists(st)) {
      return Status::Invalid(fmt::format("'{}': no such file or directory; give the ticket's files or directories", p));
    }
    if (fs::is_directory(st)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        std::error_code e2;
        if (it->is_regular_file(e2) && !it->is_symlink(e2)) found.push_back(it->path().string());
      }
      if (ec) return Status::Invalid(fmt::format("'{}': cannot list the directory: {}", p, ec.message()));
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
    } else {
      out.push_back(p);
    }
  }
  return out;
}

Status triage_paths(const std::vector<std::string>& paths, Report& report) {
  auto files = list_files(paths);
  if (!files.ok()) return files.status();
  Facts facts;
  for (const std::string& f : *files) {
    auto text = read_file(f);
    if (!text.ok()) {
      TriageFile skipped;
      skipped.path = f;
      skipped.note = text.status().message();
      facts.files.push_back(std::move(skipped));
      continue;
    }
    gather(f, *text, facts);
  }
  judge(std::move(facts), report);
  return Status::Ok();
}

void judge(Facts facts, Report& report) {
  std::vector<std::string> missing;
  if (std::none_of(facts.files.begin(), facts.files.end(), [](const TriageFile& f) { return !f.kinds.empty(); })) {
    missing.emplace_back("no file in a format fabscope reads: nothing to judge by");
  }
  report.findings = run_signatures(facts, missing);
  // The topology the files describe, analysed as `fabscope topo` would.
  if (!facts.topology.hosts.empty()) {
    auto analyses = topo::analyze_topology(facts.topology, topo::AnalysisOptions{}, report.findings);
    if (analyses.ok()) report.topology = topo::topology_section(facts.topology, *analyses);
  }
  // The answer first: errors, then warnings, each in the table's order.
  std::stable_sort(report.findings.begin(), report.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
  TriageSection section;
  section.files = std::move(facts.files);
  if (!report.findings.empty()) {
    section.answer_code = report.findings.front().code;
    section.answer_subject = report.findings.front().subject;
  }
  report.triage = std::move(section);
  report.verdict.missing = std::move(missing);
}

}  // namespace fabscope::triage
