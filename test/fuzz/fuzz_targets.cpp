#include "fuzz/fuzz_targets.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "coll/collective.h"
#include "core/atomic_file.h"
#include "core/dtype.h"
#include "core/env.h"
#include "core/hostlist.h"
#include "core/log.h"
#include "core/sizes.h"
#include "core/text.h"
#include "diag/expectations.h"
#include "diag/findings.h"
#include "diag/nccl_profile.h"
#include "fuzz/paste_shapes.h"
#include "p2p/schedule.h"
#include "report/compare.h"
#include "report/compare_text.h"
#include "report/import.h"
#include "report/json_io.h"
#include "report/report_json.h"
#include "report/reporter.h"
#include "report/text_reporter.h"
#include "topo/mapping.h"
#include "topo/readers.h"
#include "topo/topo_report.h"
#include "triage/triage.h"

namespace fabscope::fuzz {

namespace {

std::string_view as_text(const uint8_t* data, size_t size) { return {reinterpret_cast<const char*>(data), size}; }

// What a reader gave must go everywhere a report goes: every renderer, the JSON and
// back. A report written that cannot be read again is a bug too.
void render_everything(const Report& r) {
  (void)render_text(r);
  (void)render_junit(r);
  (void)render_markdown(r);
  (void)render_html(r);
  (void)render_prometheus(r);
  if (r.comparison) (void)render_comparison(r);
  const std::string text = to_json_text(r);
  auto back = report_from_json_text(text, "fuzz-roundtrip");
  if (!back.ok()) std::abort();  // the fuzzer's crash: written, but unreadable
}

int fuzz_report(const uint8_t* data, size_t size) {
  auto r = report_from_json_text(std::string(as_text(data, size)), "fuzz.json");
  if (!r.ok()) return 0;
  render_everything(*r);
  // The gate on it, against itself: every row matches, none regressed.
  Report cmp;
  cmp.context = r->context;
  cmp.comparison = compare_reports(*r, *r, CompareOptions{});
  cmp.findings = comparison_findings(*cmp.comparison);
  decide_verdict(cmp);
  render_everything(cmp);
  return 1;
}

int fuzz_nccl_tests(const uint8_t* data, size_t size) {
  // Named as nccl-tests names its binaries, for tables that do not name their collective.
  auto tables = parse_nccl_tests(as_text(data, size), "all_reduce_perf.log");
  if (!tables.ok()) return 0;
  auto report = import_nccl_tests({ImportSource{"all_reduce_perf.log", std::move(*tables)}}, ImportOptions{});
  if (!report.ok()) return 0;
  decide_verdict(*report);
  render_everything(*report);
  return 1;
}

const Report& sample_report() {
  static const Report r = [] {
    Report s;
    Sweep w;
    w.collective = "allreduce";
    w.dtype = "float";
    w.op = "sum";
    w.backend = "tcp";
    w.nranks = 4;
    for (uint64_t b = 8; b <= (64u << 20); b *= 8) {
      SweepPoint p;
      p.size_bytes = b;
      p.count = b / 4;
      PlacementResult pr;
      pr.time_us = 10 + static_cast<double>(b) / 1e4;
      pr.algbw_gbps = static_cast<double>(b) / pr.time_us / 1e3;
      pr.busbw_gbps = pr.algbw_gbps * 1.5;
      p.out_of_place = pr;
      p.in_place = pr;
      w.points.push_back(p);
    }
    s.sweeps.push_back(w);
    return s;
  }();
  return r;
}

int fuzz_expectations(const uint8_t* data, size_t size) {
  auto e = expectations_from_json_text(std::string(as_text(data, size)), "fuzz.json");
  if (!e.ok()) return 0;
  Report r = sample_report();
  add_expectation_findings(r, *e);
  decide_verdict(r);
  render_everything(r);
  return 1;
}

// A topology reader, then what `fabscope topo` does with what it read.
template <Status (*Parse)(std::string_view, std::string_view, topo::TopologySet&)>
int fuzz_topology(const uint8_t* data, size_t size) {
  topo::TopologySet set;
  if (!Parse(as_text(data, size), "fuzz", set).ok()) return 0;
  Report r;
  r.context.hosts = {"fuzz"};
  auto analyses = topo::analyze_topology(set, topo::AnalysisOptions{}, r.findings);
  if (!analyses.ok()) return 0;
  r.topology = topo::topology_section(set, *analyses);
  decide_verdict(r);
  render_everything(r);
  return 1;
}

int fuzz_nccl_env(const uint8_t* data, size_t size) {
  std::map<std::string, std::string> env;
  if (!topo::parse_nccl_env(as_text(data, size), "fuzz", env).ok()) return 0;
  topo::TopologySet set;
  topo::AnalysisOptions o;
  if (auto it = env.find("NCCL_IB_HCA"); it != env.end()) o.default_ib_hca = it->second;
  std::vector<Finding> findings;
  (void)topo::analyze_topology(set, o, findings);
  return 1;
}

// One file of a ticket, through triage: taken by content, its facts, every signature,
// the topology's analysis and every renderer.
int fuzz_triage(const uint8_t* data, size_t size) {
  triage::Facts facts;
  triage::gather("fuzz", as_text(data, size), facts);
  const bool recognised = !facts.files.front().kinds.empty();
  Report r;
  triage::judge(std::move(facts), r);
  decide_verdict(r);
  render_everything(r);
  return recognised ? 1 : 0;
}

// A profile of fabscope's NCCL profiler plugin, then what diagnose --import-profile does
// with it: the section, its findings, every renderer.
int fuzz_nccl_profile(const uint8_t* data, size_t size) {
  auto p = parse_rank_profile(as_text(data, size), "fuzz.json");
  if (!p.ok()) return 0;
  Report r;
  r.context.hosts = {"fuzz"};
  r.nccl_profile = build_profile_section({*p}, {});
  add_sweep_findings(r);
  decide_verdict(r);
  render_everything(r);
  return 1;
}

// The command line's values: each line of the input is given to every value parser.
int fuzz_cli_values(const uint8_t* data, size_t size) {
  int accepted = 0;
  std::vector<std::string> words;
  LineReader lines(as_text(data, size));
  std::string_view line;
  while (lines.next(line)) {
    words.emplace_back(line);
    accepted += parse_size(line, "-b").ok();
    accepted += parse_data_types(line).ok();
    accepted += parse_reduce_ops(line).ok();
    accepted += collective_from_name(line).ok();
    accepted += p2p_pattern_from_name(line).ok();
    accepted += p2p_mode_from_name(line).ok();
    accepted += parse_log_level(std::string(line)).ok();
    (void)is_secret_env_name(line);
    if (auto hosts = expand_hostlist(line); hosts.ok()) {
      ++accepted;
      if (hosts->size() <= 4096) (void)compress_hostlist(*hosts);
    }
  }
  accepted += collectives_from_names(words).ok();
  return accepted > 0 ? 1 : 0;
}

}  // namespace

std::span<const Target> targets() {
  static const std::vector<Target> kTargets = {
      {"report", fuzz_report, {"reports"}, true},
      {"nccl-tests", fuzz_nccl_tests, {"nccl-tests"}, false},
      {"expectations", fuzz_expectations, {"expectations"}, true},
      {"nvidia-smi-topo", fuzz_topology<topo::parse_nvidia_smi_topo>, {"nvidia-smi-topo"}, false},
      {"nccl-log", fuzz_topology<topo::parse_nccl_log>, {"nccl-logs"}, false},
      {"rdma-text", fuzz_topology<topo::parse_rdma_text>, {"rdma"}, false},
      {"nccl-xml", fuzz_topology<topo::parse_nccl_xml>, {"topo-xml"}, false},
      {"hwloc-xml", fuzz_topology<topo::parse_hwloc_xml>, {"hwloc-xml"}, false},
      {"nccl-env", fuzz_nccl_env, {"configs/oci-nccl-conf"}, false},
      {"cli-values", fuzz_cli_values, {"cli-values"}, false},
      {"nccl-profile", fuzz_nccl_profile, {"nccl-profile"}, true},
      {"triage",
       fuzz_triage,
       {"triage", "tickets", "nccl-logs", "ib-counters", "nccl-tests", "nvidia-smi-topo", "rdma", "topo-xml"},
       false,
       true},
  };
  return kTargets;
}

const Target* find_target(std::string_view name) {
  for (const Target& t : targets()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::vector<std::string> load_corpus(const Target& target, const std::string& fixtures_dir) {
  std::vector<std::pair<std::string, std::string>> files;
  for (std::string_view dir : target.corpus) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(fixtures_dir + "/" + std::string(dir), ec)) {
      if (!e.is_regular_file()) continue;
      auto text = read_file(e.path().string());
      if (text.ok()) files.emplace_back(e.path().filename().string(), std::move(*text));
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> out;
  for (auto& f : files) {
    if (target.paste_shapes) {
      for (const PasteShape& s : paste_shapes()) out.push_back(s.make(f.second));
    }
    out.push_back(std::move(f.second));
  }
  return out;
}

RunStats run_mutations(const Target& target, const std::vector<std::string>& corpus, uint64_t count, uint64_t seed) {
  RunStats stats;
  if (corpus.empty()) return stats;
  std::mt19937_64 rng(seed);
  for (uint64_t i = 0; i < count; ++i) {
    const std::string input = mutate(corpus[i % corpus.size()], target.json, rng);
    try {
      stats.accepted += target.run(reinterpret_cast<const uint8_t*>(input.data()), input.size()) > 0;
    } catch (const std::exception& e) {
      // Kept for replay: `fabscope_fuzz_run TARGET --replay FILE`.
      const std::string kept = fmt::format("{}/fuzz-{}-seed{}-input{}.bin",
                                           std::filesystem::temp_directory_path().string(), target.name, seed, i);
      (void)write_file_atomically(kept, input);
      throw std::runtime_error(
          fmt::format("{} on input {} of seed {} (kept in {}): {}", target.name, i, seed, kept, e.what()));
    }
    ++stats.inputs;
  }
  return stats;
}

}  // namespace fabscope::fuzz
