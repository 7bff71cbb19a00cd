// The fabric simulator's realism check (issue 39): its flow model's rate for each link of a
// link matrix measured on a real (virtual) fabric, beside the same flows of the same round,
// against what was measured; and the p2p findings of both, by the same rules.
//
//   fabscope_bench_sim_realism MEASURED.json --leaf-size N [--oversubscription X]
//       [--slow-link A B FRACTION] [--nic-gbps G] [--tolerance T]
//
// MEASURED.json: `fabscope p2p --mode bibw --schedule all` (one rank per host, ranks in
// host order) on a two-tier fabric: hosts in order under leaves of N, each leaf's uplink
// carrying its hosts' rate / X; the link between ranks A and B at FRACTION of a host's rate.
// The model's one free figure, a host link's rate, is the median of the links it gives a
// whole host link to (nothing shared), unless --nic-gbps sets it. Prints every link, then
// per kind (a whole host link, a share of an uplink, the slow link) the median and worst of
// measured / predicted; exits 1 where a kind's median is off by more than T (default 0.2).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/stats.h"
#include "diag/findings.h"
#include "report/report_json.h"
#include "sim/fabric_sim.h"

using namespace fabscope;
using namespace fabscope::sim;

namespace {

struct Args {
  std::string measured;
  int leaf_size = 0;
  double oversub = 1, nic_gbps = 0, tolerance = 0.2;
  int slow_a = -1, slow_b = -1;
  double slow_fraction = 1;
};

[[noreturn]] void usage(const std::string& why) {
  fmt::print(stderr,
             "sim_realism: {}\nusage: fabscope_bench_sim_realism MEASURED.json --leaf-size N [--oversubscription X] "
             "[--slow-link A B FRACTION] [--nic-gbps G] [--tolerance T]\n",
             why);
  std::exit(2);
}

double number(const char* text, const char* what) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (!end || *end || !(v > 0)) usage(fmt::format("{} '{}' is not a positive number", what, text));
  return v;
}

// A whole number from 0 (a rank, a leaf size), or a usage error naming the value.
int whole_number(const char* text, const char* what) {
  int v = -1;
  const std::string_view t(text);
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size() || v < 0) {
    usage(fmt::format("{} '{}' is not a whole number from 0", what, text));
  }
  return v;
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&](int k = 1) {
      if (i + k >= argc) usage(arg + " needs a value");
      return argv[i + k];
    };
    if (arg == "--leaf-size") {
      a.leaf_size = whole_number(next(), "--leaf-size"), ++i;
    } else if (arg == "--oversubscription") {
      a.oversub = number(next(), "--oversubscription"), ++i;
    } else if (arg == "--nic-gbps") {
      a.nic_gbps = number(next(), "--nic-gbps"), ++i;
    } else if (arg == "--tolerance") {
      a.tolerance = number(next(), "--tolerance"), ++i;
    } else if (arg == "--slow-link") {
      next(3);
      a.slow_a = whole_number(argv[i + 1], "--slow-link's first rank");
      a.slow_b = whole_number(argv[i + 2], "--slow-link's second rank");
      a.slow_fraction = number(argv[i + 3], "--slow-link's fraction");
      i += 3;
    } else if (a.measured.empty() && !arg.starts_with("--")) {
      a.measured = arg;
    } else {
      usage("unknown argument " + arg);
    }
  }
  if (a.measured.empty() || a.leaf_size < 1) usage("give MEASURED.json and --leaf-size");
  return a;
}

// The simulated fabric of the measured one: its hosts in rank order, one rank each.
Fabric fabric_of(const Report& measured, const Args& a, double nic_gbps) {
  FabricSpec spec;
  spec.kind = FabricKind::kFatTree;
  spec.nodes = static_cast<int>(measured.context.ranks.size());
  spec.gpus_per_node = 1;
  spec.nodes_per_leaf = a.leaf_size;
  spec.oversubscription = a.oversub;
  spec.nic_gbps = nic_gbps;
  spec.noise_cv = 0;
  auto f = make_fabric(spec, {}, 0);
  if (!f.ok()) usage(f.status().message());
  if (a.slow_a >= 0) {
    Fault x;
    x.kind = FaultKind::kSlowLink;
    x.rank = a.slow_a;
    x.peer_rank = a.slow_b;
    x.host = f->hosts.at(static_cast<size_t>(a.slow_a));
    x.peer = f->hosts.at(static_cast<size_t>(a.slow_b));
    x.factor = a.slow_fraction;
    f->faults.push_back(x);
  }
  return *f;
}

// Each measured link's predicted rate, beside the links of its round.
std::vector<double> predict(const Report& measured, const Fabric& f) {
  const std::vector<P2pLink>& links = measured.p2p->links;
  std::map<int, std::vector<size_t>> rounds;
  for (size_t i = 0; i < links.size(); ++i) rounds[links[i].round].push_back(i);
  std::vector<double> out(links.size(), 0);
  for (const auto& [index, members] : rounds) {
    Round round;
    for (size_t i : members) round.push_back({links[i].src_rank, links[i].dst_rank});
    const std::vector<double> rates = model_rates(f, round);
    for (size_t k = 0; k < members.size(); ++k) out[members[k]] = rates[k];
  }
  return out;
}

std::string kind_of(const P2pLink& l, const Args& a, double predicted, double nic) {
  if ((l.src_rank == a.slow_a && l.dst_rank == a.slow_b) || (l.src_rank == a.slow_b && l.dst_rank == a.slow_a)) {
    return "slow link";
  }
  return predicted >= 0.999 * nic ? "whole host link" : "uplink share";
}

// The p2p findings the rules give on `links` (codes and subjects), as diagnose would judge them.
std::set<std::string> findings_of(const Report& measured, const std::vector<P2pLink>& links) {
  Report r;
  r.context = measured.context;
  r.fabric = measured.fabric;
  r.p2p = *measured.p2p;
  r.p2p->links = links;
  r.p2p->alone.clear();
  add_p2p_findings(r);
  std::set<std::string> out;
  for (const Finding& x : r.findings) {
    if (x.severity != Severity::kInfo) out.insert(fmt::format("{} {}", x.code, x.subject));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  auto measured = load_report(a.measured);
  if (!measured.ok()) usage(measured.status().message());
  if (!measured->p2p || measured->p2p->links.empty()) usage(a.measured + " has no link matrix");
  const int ranks = static_cast<int>(measured->context.ranks.size());
  if (a.slow_a >= ranks || a.slow_b >= ranks || (a.slow_a >= 0 && a.slow_a == a.slow_b)) {
    usage(fmt::format("--slow-link {} {}: two different ranks of the {} ranks in {}", a.slow_a, a.slow_b, ranks,
                      a.measured));
  }
  const std::vector<P2pLink>& links = measured->p2p->links;
  double nic = a.nic_gbps;
  if (nic <= 0) {  // the median of what the model gives a whole host link (at 1 GB/s)
    const std::vector<double> unit = predict(*measured, fabric_of(*measured, a, 1.0));
    std::vector<double> whole;
    for (size_t i = 0; i < links.size(); ++i) {
      if (unit[i] >= 0.999 && links[i].bw_gbps && kind_of(links[i], a, unit[i], 1.0) != "slow link") {
        whole.push_back(*links[i].bw_gbps);
      }
    }
    if (whole.empty()) usage("no link the model gives a whole host link to: give --nic-gbps");
    nic = median(whole);
  }
  const Fabric f = fabric_of(*measured, a, nic);
  const std::vector<double> predicted = predict(*measured, f);
  fmt::print("host link {:.4f} GB/s{}; {} hosts, leaves of {}, {}:1 uplinks\n", nic,
             a.nic_gbps > 0 ? "" : " (the measured median of whole host links)", f.hosts.size(), a.leaf_size,
             a.oversub);
  fmt::print("{:>5} {:>9} {:>16} {:>12} {:>12} {:>9}\n", "round", "link", "kind", "predicted", "measured", "ratio");
  std::map<std::string, std::vector<double>> ratios;
  std::vector<P2pLink> as_predicted = links;
  for (size_t i = 0; i < links.size(); ++i) {
    const P2pLink& l = links[i];
    const std::string kind = kind_of(l, a, predicted[i], nic);
    const double got = l.bw_gbps.value_or(0), ratio = predicted[i] > 0 ? got / predicted[i] : 0;
    ratios[kind].push_back(ratio);
    as_predicted[i].bw_gbps = predicted[i];
    fmt::print("{:>5} {:>9} {:>16} {:>12.4f} {:>12.4f} {:>9.3f}\n", l.round,
               fmt::format("{} -> {}", l.src_rank, l.dst_rank), kind, predicted[i], got, ratio);
  }
  bool ok = true;
  for (const auto& [kind, r] : ratios) {
    const double mid = median(r);
    const auto [lo, hi] = std::minmax_element(r.begin(), r.end());
    const bool within = std::abs(mid - 1) <= a.tolerance;
    ok = ok && within;
    fmt::print("{:<16} {:>3} links: measured / predicted median {:.3f}, {:.3f} to {:.3f}{}\n", kind, r.size(), mid, *lo,
               *hi, within ? "" : fmt::format("  OFF by more than {:.0f}%", 100 * a.tolerance));
  }
  const std::set<std::string> real = findings_of(*measured, links), model = findings_of(*measured, as_predicted);
  for (const auto& [what, set] : {std::pair{"measured", &real}, std::pair{"predicted", &model}}) {
    fmt::print("findings on the {} links: {}\n", what, set->empty() ? "none" : "");
    for (const std::string& x : *set) fmt::print("  {}\n", x);
  }
  const bool same = real == model;
  fmt::print("realism: {} (link rates within {:.0f}% by kind: {}; the same findings: {})\n",
             ok && same ? "pass" : "FAIL", 100 * a.tolerance, ok ? "yes" : "no", same ? "yes" : "no");
  return ok && same ? 0 : 1;
}
