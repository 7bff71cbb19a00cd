// The fabric simulator's scorecard: per fabric size, link schedule and fault kind, how
// often diagnose's findings name the injected fault (recall), how many of the findings
// that name a cause are right (precision), and whether the attribution's top entry names
// it, over many seeds; then the analysis' time and memory at the largest size.
//
//   fabscope_bench_fabric_sim [--ranks 64,512,4096] [--seeds 20] [--big-seeds 4]
//       [--fabric rail|fat] [--schedules rail,sample,auto] [--rounds 24] [--budget 60]
//       [--oversubscription 1] [--template NCCL_TOPO.xml] [--no-fabric] [--show SEED]
//
// `auto` is diagnose's own plan for --budget S (issue 39): the rounds the links' share of S
// fits at the simulated all-reduce's bus bandwidth, the schedule pick_link_schedule takes
// for them, each round charged its modelled time, and suspects' rounds and retests only
// while the share lasts; the row says what the plan came to. rail and sample run the
// schedule named (sample: --rounds rounds), suspects' rounds free.
#include <fmt/format.h>

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/stats.h"
#include "core/text.h"
#include "diag/attribution.h"
#include "diag/findings.h"
#include "sim/fabric_sim.h"
#include "topo/readers.h"

using namespace fabscope;
using namespace fabscope::sim;

// Heap accounting for the analysis' memory: every operator new counted, the peak above a
// baseline taken when the analysis starts.
namespace {
std::atomic<int64_t> g_live{0}, g_peak{0};
void note(int64_t delta) {
  const int64_t now = g_live.fetch_add(delta, std::memory_order_relaxed) + delta;
  int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}
}  // namespace

void* operator new(size_t n) {
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  note(static_cast<int64_t>(malloc_usable_size(p)));
  return p;
}
void operator delete(void* p) noexcept {
  if (p) note(-static_cast<int64_t>(malloc_usable_size(p)));
  std::free(p);
}
void operator delete(void* p, size_t) noexcept { operator delete(p); }

namespace {

struct Tally {
  int trials = 0, faults = 0, found = 0, findings = 0, right = 0, tops = 0, top_right = 0;
  std::map<std::string, int> false_codes;
};

}  // namespace

// The bench's settings (the command line's) and what each run of the simulator takes from them.
struct Config {
  std::vector<int> scales = {64, 512, 4096};
  // nullopt: auto, diagnose's plan for the budget
  std::vector<std::optional<LinkSchedule>> schedules = {LinkSchedule::kRail, LinkSchedule::kSample};
  int seeds = 20, big_seeds = 4, rounds = 24, show = -1;
  double oversub = 1, budget = 60;
  bool fat = false, describe = true;
  std::string template_path;
  std::optional<topo::HostTopology> tmpl;  // --template, read

  FabricSpec spec_for(int ranks) const {
    FabricSpec spec;
    spec.kind = fat ? FabricKind::kFatTree : FabricKind::kRailOptimized;
    spec.nodes = ranks / spec.gpus_per_node;
    spec.nodes_per_leaf = std::min(32, std::max(2, spec.nodes / 4));
    spec.oversubscription = oversub;
    return spec;
  }

  SimOptions options(const std::optional<LinkSchedule>& sched) const {
    SimOptions o;
    o.schedule = sched.value_or(LinkSchedule::kSample);
    o.budget_s = sched ? 0 : budget;
    o.max_rounds = static_cast<size_t>(rounds);
    o.describe_fabric = describe;
    o.host_template = tmpl ? &*tmpl : nullptr;
    return o;
  }
};

// One row of the scorecard: every seed of one fault kind (or none) at one size and
// schedule, and auto's plan. 2 where a fabric or a simulation cannot be made.
int scorecard_row(const Config& c, int ranks, const FabricSpec& spec, const std::optional<LinkSchedule>& sched,
                  const std::vector<FaultKind>& faults) {
  Tally t;
  std::map<std::string, int> plans;  // auto: what the plan came to, per seed
  const int n = ranks >= 4096 ? c.big_seeds : c.seeds;
  for (int seed = 1; seed <= n; ++seed) {
    if (c.show >= 0 && seed != c.show) continue;
    auto fabric = make_fabric(spec, faults, static_cast<uint64_t>(seed));
    if (!fabric.ok()) {
      fmt::print(stderr, "{}\n", fabric.status().message());
      return 2;
    }
    const SimOptions o = c.options(sched);
    SimPlanned planned;
    auto report = simulate(*fabric, o, static_cast<uint64_t>(seed), &planned);
    if (!sched) {
      ++plans[fmt::format("{} {} rounds (fit {}) +{} suspects' ({} cut), {} retests ({} cut), {:.1f} of {:.1f} s",
                          name(planned.schedule), planned.rounds, planned.fit_rounds, planned.adaptive_rounds,
                          planned.adaptive_cut, planned.retests, planned.retests_cut, planned.links_used_s,
                          planned.links_share_s)];
    }
    if (!report.ok()) {
      fmt::print(stderr, "{}\n", report.status().message());
      return 2;
    }
    analyze(*report);
    const Score s = score(*fabric, *report);
    ++t.trials;
    t.faults += s.faults;
    t.found += s.faults_found;
    t.findings += s.findings;
    t.right += s.findings_true;
    if (!faults.empty() && s.top_entry) {
      ++t.tops;
      t.top_right += s.top_named;
    }
    for (const std::string& f : s.false_findings) ++t.false_codes[f.substr(0, f.find(':'))];
    if (c.show >= 0) {
      for (const Fault& f : fabric->faults) fmt::print("  fault: {}\n", f.describe());
      for (const Finding& f : report->findings) {
        fmt::print("  finding {} {}: {}\n", f.code, f.subject, f.message);
      }
      if (!report->attribution.empty()) {
        for (const AttributionEntry& e : report->attribution[0].entries) {
          fmt::print("  attribution {} {} {:.2f}\n", e.kind, e.subject, e.share);
        }
      }
      const LinkCoverage& cov = *report->p2p->coverage;
      fmt::print(
          "  coverage: {} rounds {} (+{} adaptive) measured {} of {} host pairs, inferred slow {}, "
          "healthy {}, unjudged {}\n",
          cov.schedule, cov.rounds, cov.adaptive_rounds, cov.measured_host_pairs, cov.host_pairs, cov.inferred_slow,
          cov.inferred_healthy, cov.unjudged);
    }
  }
  std::string falses;
  for (const auto& [code, count] : t.false_codes) falses += fmt::format("{} ({}) ", code, count);
  fmt::print("{:>6} {:>8} {:<17} {:>6} {:>7} {:>9} {:>8}  {}\n", ranks,
             sched ? std::string(name(*sched)) : std::string("auto"),
             faults.empty() ? "none" : std::string(name(faults[0])), t.trials,
             faults.empty() ? std::string("-") : fmt::format("{:.2f}", double(t.found) / std::max(1, t.faults)),
             t.findings ? fmt::format("{:.2f}", double(t.right) / t.findings) : std::string("-"),
             t.tops ? fmt::format("{:.2f}", double(t.top_right) / t.tops) : std::string("-"),
             falses.empty() ? "none" : falses);
  // The plan of the last seed, and how many c.seeds made the same.
  if (!plans.empty()) {
    const auto most =
        std::max_element(plans.begin(), plans.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    fmt::print("{:>15} plan: {} ({} of {} c.seeds)\n", "", most->first, most->second, t.trials);
  }
  return 0;
}

// The analysis at the largest size, every fault at once: its time (median of 3), the heap
// it takes beyond the report, and each step's time.
int largest_analysis(const Config& c, int big, const std::optional<LinkSchedule>& sched) {
  auto fabric = make_fabric(c.spec_for(big), std::vector<FaultKind>(std::begin(kAllFaults), std::end(kAllFaults)), 7);
  if (!fabric.ok()) {
    fmt::print(stderr, "{}\n", fabric.status().message());
    return 2;
  }
  const SimOptions o = c.options(sched);
  auto base = simulate(*fabric, o, 7);
  if (!base.ok()) return 2;
  std::vector<double> secs;
  long extra_kib = 0;
  Score s;
  for (int rep = 0; rep < 3; ++rep) {
    Report r = *base;
    const int64_t before = g_live.load();
    g_peak.store(before);
    const double t0 = steady_now_s();
    analyze(r);
    secs.push_back(steady_now_s() - t0);
    extra_kib = std::max<long>(extra_kib, static_cast<long>((g_peak.load() - before) / 1024));
    s = score(*fabric, r);
  }
  fmt::print(
      "analysis at {} ranks ({} hosts), schedule {}: {} links, {} findings ({} right), {} of {} faults "
      "found; time median {:.3f} s (target 1 s: {}), heap beyond the report at its peak {:.0f} MiB (target 1 GiB: "
      "{})\n",
      big, fabric->hosts.size(),
      sched ? std::string(name(*sched)) : "auto (" + std::string(name(base->p2p->coverage->schedule)) + ")",
      base->p2p->links.size(), s.findings, s.findings_true, s.faults_found, s.faults, median(secs),
      median(secs) <= 1 ? "met" : "MISSED", static_cast<double>(extra_kib) / 1024.0,
      extra_kib < (1 << 20) ? "met" : "MISSED");
  for (const std::string& m : s.missed) fmt::print("  missed: {}\n", m);
  // Where the time goes: the steps of analyze_diagnosis, one by one, on a fresh copy.
  Report r = *base;
  std::vector<std::pair<const char*, void (*)(Report&)>> steps = {{"sweep findings", add_sweep_findings},
                                                                  {"p2p findings", add_p2p_findings},
                                                                  {"counter findings", add_counter_findings},
                                                                  {"stalled links", discount_stalled_links},
                                                                  {"coverage", judge_link_coverage},
                                                                  {"attribution", attribute},
                                                                  {"verdict", decide_verdict}};
  std::string split;
  for (const auto& [what, step] : steps) {
    const double t0 = steady_now_s();
    step(r);
    split += fmt::format("{} {:.3f} s, ", what, steady_now_s() - t0);
  }
  fmt::print("  steps: {}\n", split.substr(0, split.size() - 2));
  return 0;
}

int main(int argc, char** argv) {
  Config c;
  auto& [scales, schedules, seeds, big_seeds, rounds, show, oversub, budget, fat, describe, template_path, tmpl] = c;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : "";
    if (a == "--ranks") {
      scales.clear();
      for (std::string_view x : split(v, ',')) scales.push_back(std::atoi(std::string(x).c_str()));
      ++i;
    } else if (a == "--schedules") {
      schedules.clear();
      for (std::string_view x : split(v, ',')) {
        if (x == "auto") {
          schedules.push_back(std::nullopt);
          continue;
        }
        auto s = link_schedule_from_name(x);
        if (!s.ok()) {
          fmt::print(stderr, "{}\n", s.status().message());
          return 2;
        }
        schedules.push_back(*s);
      }
      ++i;
    } else if (a == "--seeds") {
      seeds = std::atoi(v), ++i;
    } else if (a == "--big-seeds") {
      big_seeds = std::atoi(v), ++i;
    } else if (a == "--rounds") {
      rounds = std::atoi(v), ++i;
    } else if (a == "--budget") {
      budget = std::atof(v), ++i;
      if (!(budget > 0)) {
        fmt::print(stderr, "--budget {}: give seconds above 0\n", v);
        return 2;
      }
    } else if (a == "--oversubscription") {
      oversub = std::atof(v), ++i;
    } else if (a == "--fabric") {
      fat = std::string(v) == "fat", ++i;
    } else if (a == "--template") {
      template_path = v, ++i;
    } else if (a == "--no-fabric") {
      describe = false;
    } else if (a == "--show") {
      show = std::atoi(v), ++i;
    } else {
      fmt::print(stderr, "unknown argument '{}'; see the comment at the top of bench/fabric_sim.cpp\n", a);
      return 2;
    }
  }
  if (!template_path.empty()) {
    topo::TopologySet set;
    if (Status s = topo::read_nccl_xml(template_path, set); !s.ok() || set.hosts.empty()) {
      fmt::print(stderr, "--template {}: {}\n", template_path, s.message());
      return 2;
    }
    tmpl = set.hosts.front();
  }
  fmt::print(
      "fabric simulator: {} fabric, 8 GPUs and NICs per node, oversubscription {:g}, noise cv 3%, fabric "
      "description {}, sample budget {} rounds, auto's --budget {:g} s, topology {}\n",
      fat ? "fat-tree" : "rail-optimized", oversub, describe ? "given" : "not given", rounds, budget,
      tmpl ? template_path : "none");
  fmt::print("{:>6} {:>8} {:<17} {:>6} {:>7} {:>9} {:>8}  {}\n", "ranks", "schedule", "fault", "seeds", "recall",
             "precision", "top", "false findings (count)");
  for (int ranks : scales) {
    const FabricSpec spec = c.spec_for(ranks);
    for (const std::optional<LinkSchedule>& sched : schedules) {
      std::vector<std::vector<FaultKind>> cases = {{}};
      for (FaultKind k : kAllFaults) cases.push_back({k});
      for (const auto& faults : cases) {
        if (int rc = scorecard_row(c, ranks, spec, sched, faults); rc != 0) return rc;
      }
    }
  }
  const int big = *std::max_element(scales.begin(), scales.end());
  for (const std::optional<LinkSchedule>& sched : schedules) {
    if (int rc = largest_analysis(c, big, sched); rc != 0) return rc;
  }
  return 0;
}
