#include "sim/fabric_sim.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/stats.h"
#include "diag/attribution.h"
#include "diag/fabric.h"
#include "diag/findings.h"
#include "diag/rules.h"
#include "p2p/p2p.h"
#include "report/finding_codes.h"
#include "topo/mapping.h"
#include "topo/topo_report.h"

namespace fabscope::sim {

std::string_view name(FabricKind k) { return k == FabricKind::kFatTree ? "fat-tree" : "rail-optimized"; }

std::string_view name(FaultKind k) {
  switch (k) {
    case FaultKind::kSlowLink:
      return "slow_link";
    case FaultKind::kSlowNic:
      return "slow_nic";
    case FaultKind::kSlowHost:
      return "slow_host";
    case FaultKind::kCongestedUplink:
      return "congested_uplink";
    case FaultKind::kStraggler:
      return "straggler";
    case FaultKind::kWrongNic:
      return "wrong_nic";
    case FaultKind::kNoisyNeighbour:
      return "noisy_neighbour";
  }
  return "?";
}

Result<FaultKind> fault_from_name(std::string_view text) {
  for (FaultKind k : kAllFaults) {
    if (name(k) == text) return k;
  }
  return Status::Invalid(fmt::format(
      "unknown fault '{}'; allowed: slow_link, slow_nic, slow_host, congested_uplink, straggler, wrong_nic, "
      "noisy_neighbour",
      text));
}

std::string Fault::describe() const {
  switch (kind) {
    case FaultKind::kSlowLink:
      return fmt::format("slow link {} -> {} ({} <-> {}, {:.0f}% left)", rank, peer_rank, host, peer, 100 * factor);
    case FaultKind::kSlowNic:
      return fmt::format("slow NIC of rank {} on {} ({:.0f}% left)", rank, host, 100 * factor);
    case FaultKind::kSlowHost:
      return fmt::format("slow host {} ({:.0f}% left)", host, 100 * factor);
    case FaultKind::kCongestedUplink:
      return fmt::format("congested uplink {} of leaf {}{} ({:.0f}% left)", uplink, leaf,
                         rail >= 0 ? fmt::format(" rail {}", rail) : std::string(), 100 * factor);
    case FaultKind::kStraggler:
      return fmt::format("straggler rank {} on {}", rank, host);
    case FaultKind::kWrongNic:
      return fmt::format("rank {} on {} uses NIC {} (far)", rank, host, far_nic);
    case FaultKind::kNoisyNeighbour:
      return fmt::format("noisy neighbour on {} ({:.0f}% of its NICs)", host, 100 * factor);
  }
  return "?";
}

namespace {

int group_of(const FabricSpec& s, int host) { return host / s.nodes_per_leaf; }
std::string group_name(const FabricSpec& s, int group) {
  return fmt::format("{}{:03d}", s.kind == FabricKind::kFatTree ? "leaf" : "su", group);
}
int group_count(const FabricSpec& s) { return (s.nodes + s.nodes_per_leaf - 1) / s.nodes_per_leaf; }

Status check_spec(const FabricSpec& s) {
  if (s.nodes < 2 || s.gpus_per_node < 1 || s.nodes_per_leaf < 1 || !(s.oversubscription >= 1) || !(s.nic_gbps > 0) ||
      !(s.nvlink_gbps > 0) || !(s.noise_cv >= 0)) {
    return Status::Invalid(fmt::format(
        "fabric spec: nodes {} (>= 2), gpus per node {} (>= 1), nodes per leaf {} (>= 1), oversubscription {} (>= 1), "
        "NIC {} GB/s (> 0), noise {} (>= 0)",
        s.nodes, s.gpus_per_node, s.nodes_per_leaf, s.oversubscription, s.nic_gbps, s.noise_cv));
  }
  return Status::Ok();
}

// The healthy fabric: its hosts and ranks, and its leaves under one spine.
Fabric lay_out(const FabricSpec& s) {
  Fabric f;
  f.spec = s;
  const int g = s.gpus_per_node;
  for (int h = 0; h < s.nodes; ++h) f.hosts.push_back(fmt::format("node{:04d}", h));
  for (int r = 0; r < s.nodes * g; ++r) f.ranks.push_back({f.hosts[static_cast<size_t>(r / g)], r % g});
  f.description.source = "simulated";
  f.description.oversubscription = s.oversubscription;
  const int groups = group_count(s);
  FabricSwitch spine{"spine", {}, {}};
  for (int grp = 0; grp < groups; ++grp) {
    FabricSwitch leaf{group_name(s, grp), {}, {}};
    for (int h = grp * s.nodes_per_leaf; h < std::min(s.nodes, (grp + 1) * s.nodes_per_leaf); ++h) {
      leaf.hosts.push_back(f.hosts[static_cast<size_t>(h)]);
    }
    spine.switches.push_back(leaf.name);
    f.description.switches.push_back(std::move(leaf));
  }
  if (groups > 1) f.description.switches.push_back(std::move(spine));
  return f;
}

// Where each fault goes, drawn from the seed: each on hosts no other fault has, a rank's
// local index and a leaf's uplink at random.
class FaultPlacer {
 public:
  FaultPlacer(const Fabric& f, size_t faults, uint64_t seed) : f_(f), faults_(faults), rng_(seed) {
    order_.resize(static_cast<size_t>(f.spec.nodes));
    for (int h = 0; h < f.spec.nodes; ++h) order_[static_cast<size_t>(h)] = h;
    std::shuffle(order_.begin(), order_.end(), rng_);
  }

  Result<Fault> place(FaultKind k) {
    Fault fault;
    fault.kind = k;
    if (k == FaultKind::kCongestedUplink) return on_uplink(fault);
    auto h = take_host();
    if (!h.ok()) return h.status();
    fault.host = f_.hosts[static_cast<size_t>(*h)];
    const int g = f_.spec.gpus_per_node;
    const int local = pick(g);
    switch (k) {
      case FaultKind::kSlowLink: {
        auto p = take_host();
        if (!p.ok()) return p.status();
        fault.peer = f_.hosts[static_cast<size_t>(*p)];
        fault.rank = *h * g + local;
        fault.peer_rank = *p * g + local;
        fault.factor = 0.25;
        break;
      }
      case FaultKind::kSlowNic:
        fault.rank = *h * g + local;
        fault.factor = 0.25;
        break;
      case FaultKind::kSlowHost:
        fault.factor = 0.3;
        break;
      case FaultKind::kStraggler:
        fault.rank = *h * g + local;
        fault.factor = 0.3;  // the share of the collective's time it holds the others
        break;
      case FaultKind::kWrongNic:
        if (g < 2) return Status::Invalid("a wrong NIC needs at least two NICs per node");
        fault.rank = *h * g + local;
        fault.far_nic = (local + g / 2) % g;
        fault.factor = 0.8;  // the path across the CPU sockets
        break;
      case FaultKind::kNoisyNeighbour:
        fault.factor = 0.4;
        break;
      case FaultKind::kCongestedUplink:
        break;
    }
    return fault;
  }

 private:
  // A leaf's uplink (a rail's, rail-optimized), at a tenth of its rate.
  Result<Fault> on_uplink(Fault fault) {
    const int groups = group_count(f_.spec);
    if (groups < 2)
      return Status::Invalid("a congested uplink needs at least two leaves (more nodes than a leaf holds)");
    fault.leaf = group_name(f_.spec, pick(groups));
    fault.uplink = pick(1 << 16);
    if (f_.spec.kind == FabricKind::kRailOptimized) fault.rail = pick(f_.spec.gpus_per_node);
    fault.factor = 0.1;
    return fault;
  }
  Result<int> take_host() {
    if (next_ >= order_.size()) {
      return Status::Invalid(fmt::format("{} faults need more hosts than the fabric's {}", faults_, f_.spec.nodes));
    }
    return order_[next_++];
  }
  int pick(int n) { return static_cast<int>(std::uniform_int_distribution<int>(0, n - 1)(rng_)); }

  const Fabric& f_;
  size_t faults_;
  std::mt19937_64 rng_;
  std::vector<int> order_;  // hosts in the order faults take them
  size_t next_ = 0;
};

}  // namespace

Result<Fabric> make_fabric(const FabricSpec& s, const std::vector<FaultKind>& faults, uint64_t seed) {
  FABSCOPE_RETURN_IF_ERROR(check_spec(s));
  Fabric f = lay_out(s);
  FaultPlacer placer(f, faults.size(), seed);
  for (FaultKind k : faults) {
    auto fault = placer.place(k);
    if (!fault.ok()) return fault.status();
    f.faults.push_back(std::move(*fault));
  }
  return f;
}

namespace {

// The flow model over one fabric with its faults.
class FlowModel {
 public:
  FlowModel(const Fabric& f, uint64_t seed) : f_(f), g_(f.spec.gpus_per_node), rng_(seed) {
    for (const Fault& x : f.faults) {
      switch (x.kind) {
        case FaultKind::kSlowLink:
          slow_pairs_[key(x.rank, x.peer_rank)] = x.factor;
          break;
        case FaultKind::kSlowNic:
          nic_factor_[x.rank] = x.factor;  // the NIC of that rank's local index
          break;
        case FaultKind::kSlowHost:
          host_factor_[host_index(x.host)] = x.factor;
          break;
        case FaultKind::kNoisyNeighbour:
          host_factor_.emplace(host_index(x.host), 1.0).first->second *= (1 - x.factor);
          noisy_.insert(x.host);
          break;
        case FaultKind::kWrongNic:
          nic_of_[x.rank] = x.far_nic;
          rank_factor_[x.rank] = x.factor;
          break;
        case FaultKind::kStraggler:
          rank_factor_[x.rank] = 0.3;  // its process stalls during the link matrix too
          break;
        case FaultKind::kCongestedUplink: {
          int grp = 0;
          for (const FabricSwitch& s : f.description.switches) {
            if (s.name == x.leaf) break;
            ++grp;
          }
          const int leaf = f.spec.kind == FabricKind::kFatTree ? grp : grp * g_ + x.rail;
          uplink_faults_.emplace_back(leaf, x.uplink, x.factor);
          break;
        }
      }
    }
    uplinks_ = std::max(1, static_cast<int>(std::lround(nics_per_leaf() / f.spec.oversubscription)));
    uplink_cap_ = nics_per_leaf() * f.spec.nic_gbps / (f.spec.oversubscription * uplinks_);
    for (const auto& [leaf, u, factor] : uplink_faults_) {
      uplink_factor_[static_cast<int64_t>(leaf) * uplinks_ + u % uplinks_] = factor;
    }
  }

  const std::set<std::string>& noisy() const { return noisy_; }
  int uplinks() const { return uplinks_; }

  // The rates of a round's flows, in order, each with noise. The flows that leave (enter)
  // a leaf are spread over its uplinks in turn from a start the round's first flow hashes
  // to, as adaptive routing balances them: a healthy non-blocking fabric has no collisions.
  // The resources are shared max-min fairly (as TCP's and IB's congestion control come
  // close to): each flow gets an equal share of its tightest resource, and what a flow held
  // back elsewhere (by a slow link, or a tighter resource) cannot use goes to the others. A
  // slow link caps its flows at its rate; a stalled rank's or a far NIC's flows move
  // their factor of what they get.
  std::vector<double> rates(const Round& round) {
    std::unordered_map<int64_t, int> turn;  // per leaf and direction: flows placed so far
    const uint64_t start = round.empty() ? 0 : mix(round.front().src, round.front().dst);
    std::vector<std::vector<int64_t>> res(round.size());
    std::vector<double> cap(round.size());
    for (size_t i = 0; i < round.size(); ++i) {
      const Flow& fl = round[i];
      res[i] = resources(fl, start, turn);
      cap[i] = host_of(fl.src) == host_of(fl.dst) ? f_.spec.nvlink_gbps : f_.spec.nic_gbps;
      if (auto it = slow_pairs_.find(key(fl.src, fl.dst)); it != slow_pairs_.end()) cap[i] *= it->second;
    }
    std::vector<double> out = max_min_fair(res, cap);
    std::lognormal_distribution<double> noise(0, f_.spec.noise_cv);
    for (size_t i = 0; i < round.size(); ++i) {
      for (int rank : {round[i].src, round[i].dst}) {
        if (auto it = rank_factor_.find(rank); it != rank_factor_.end()) out[i] *= it->second;
      }
      if (f_.spec.noise_cv > 0) out[i] *= noise(rng_);
    }
    return out;
  }

  int host_of(int rank) const { return rank / g_; }

 private:
  static int64_t key(int a, int b) { return static_cast<int64_t>(std::min(a, b)) << 32 | std::max(a, b); }
  int host_index(const std::string& host) const {
    return static_cast<int>(std::find(f_.hosts.begin(), f_.hosts.end(), host) - f_.hosts.begin());
  }
  int nic_of(int rank) const {
    auto it = nic_of_.find(rank);
    return host_of(rank) * g_ + (it == nic_of_.end() ? rank % g_ : it->second);
  }
  int leaf_of_nic(int nic) const {
    const int grp = group_of(f_.spec, nic / g_);
    return f_.spec.kind == FabricKind::kFatTree ? grp : grp * g_ + nic % g_;
  }
  // Resource keys: kind in the top bits. 1: NIC send, 2: NIC receive, 3: uplink up, 4: uplink down.
  static int64_t rk(int kind, int64_t id) { return static_cast<int64_t>(kind) << 48 | id; }
  static uint64_t mix(int a, int b) {
    return ((static_cast<uint64_t>(a) * 0x9E3779B97F4A7C15ull) ^ (static_cast<uint64_t>(b) * 0xC2B2AE3D27D4EB4Full)) >>
           17;
  }
  double nics_per_leaf() const {
    return f_.spec.kind == FabricKind::kFatTree ? f_.spec.nodes_per_leaf * g_ : f_.spec.nodes_per_leaf;
  }
  std::vector<int64_t> resources(const Flow& fl, uint64_t start, std::unordered_map<int64_t, int>& turn) const {
    if (host_of(fl.src) == host_of(fl.dst)) return {};
    const int a = nic_of(fl.src), b = nic_of(fl.dst);
    std::vector<int64_t> r = {rk(1, a), rk(2, b)};
    const int la = leaf_of_nic(a), lb = leaf_of_nic(b);
    if (la != lb) {
      const int64_t per = uplinks_;
      const int64_t up = (static_cast<int64_t>(start) + turn[rk(3, la)]++) % per;
      const int64_t down = (static_cast<int64_t>(start) + turn[rk(4, lb)]++) % per;
      r.push_back(rk(3, la * per + up));
      r.push_back(rk(4, lb * per + down));
    }
    return r;
  }
  // Progressive filling: every flow not yet held grows at the same pace until a resource
  // it crosses is full or it reaches its own cap; then it is held there.
  std::vector<double> max_min_fair(const std::vector<std::vector<int64_t>>& res, const std::vector<double>& cap) const {
    const size_t n = res.size();
    std::vector<double> rate(n, 0);
    std::vector<char> held(n, 0);
    std::unordered_map<int64_t, double> left;
    std::unordered_map<int64_t, int> growing;
    for (size_t i = 0; i < n; ++i) {
      for (int64_t r : res[i]) {
        left.emplace(r, capacity(r));
        ++growing[r];
      }
    }
    for (size_t active = n; active > 0;) {
      double step = std::numeric_limits<double>::infinity();
      for (size_t i = 0; i < n; ++i) {
        if (held[i]) continue;
        step = std::min(step, cap[i] - rate[i]);
        for (int64_t r : res[i]) step = std::min(step, left[r] / growing[r]);
      }
      step = std::max(step, 0.0);
      for (size_t i = 0; i < n; ++i) {
        if (held[i]) continue;
        rate[i] += step;
        for (int64_t r : res[i]) left[r] -= step;
      }
      const size_t before = active;
      for (size_t i = 0; i < n; ++i) {
        if (held[i]) continue;
        bool full = rate[i] >= cap[i] * (1 - 1e-12);
        for (int64_t r : res[i]) full = full || left[r] <= capacity(r) * 1e-12;
        if (!full) continue;
        held[i] = 1;
        --active;
        for (int64_t r : res[i]) --growing[r];
      }
      if (active == before) break;  // rounding left no flow at a bound: each is where it is
    }
    return rate;
  }
  double capacity(int64_t r) const {
    const int kind = static_cast<int>(r >> 48);
    const int64_t id = r & ((int64_t{1} << 48) - 1);
    if (kind == 1 || kind == 2) {
      const int nic = static_cast<int>(id);
      double c = f_.spec.nic_gbps;
      if (auto it = host_factor_.find(nic / g_); it != host_factor_.end()) c *= it->second;
      if (auto it = nic_factor_.find(nic); it != nic_factor_.end()) c *= it->second;  // rank index == NIC index
      return c;
    }
    double c = uplink_cap_;
    if (auto it = uplink_factor_.find(id); it != uplink_factor_.end()) c *= it->second;
    return c;
  }

  const Fabric& f_;
  int g_;
  std::mt19937_64 rng_;
  double uplink_cap_ = 0;
  int uplinks_ = 1;
  std::vector<std::tuple<int, int, double>> uplink_faults_;
  std::map<int64_t, double> slow_pairs_;
  std::map<int, double> nic_factor_, rank_factor_;
  std::map<int, double> host_factor_;
  std::map<int, int> nic_of_;
  std::map<int64_t, double> uplink_factor_;
  std::set<std::string> noisy_;
};

void add_round(const Fabric& f, FlowModel& model, const Round& round, int index, uint64_t chunk,
               std::vector<P2pLink>& into) {
  const std::vector<double> rates = model.rates(round);
  for (size_t i = 0; i < round.size(); ++i) {
    P2pLink l;
    l.round = index;
    l.src_rank = round[i].src;
    l.dst_rank = round[i].dst;
    l.src_host = f.ranks[static_cast<size_t>(l.src_rank)].host;
    l.dst_host = f.ranks[static_cast<size_t>(l.dst_rank)].host;
    l.size_bytes = chunk;
    l.iterations = 100;
    l.bw_gbps = rates[i];
    l.bw_peak_gbps = rates[i] * 1.02;
    l.msg_rate_mpps = rates[i] * 1e9 / static_cast<double>(chunk) / 1e6;
    into.push_back(std::move(l));
  }
}

std::set<std::pair<std::string, std::string>> measured_pairs(const P2pSection& p2p) {
  std::set<std::pair<std::string, std::string>> out;
  for (const P2pLink& l : p2p.links) {
    if (l.src_host != l.dst_host) out.insert({std::min(l.src_host, l.dst_host), std::max(l.src_host, l.dst_host)});
  }
  return out;
}

void add_topology(const Fabric& f, const topo::HostTopology& tmpl, Report& r) {
  // The template's own mapping: each GPU's nearest NIC.
  topo::TopologySet one;
  one.hosts.push_back(tmpl);
  std::vector<Finding> scratch;
  auto base = topo::analyze_topology(one, topo::AnalysisOptions(), scratch);
  if (!base.ok() || base->empty()) return;
  std::map<int, std::string> near;
  for (const topo::GpuMapping& m : base->front().gpus) {
    if (!m.best_nics.empty()) near[m.gpu] = m.best_nics.front();
  }
  std::vector<int> gpu_index;
  for (const topo::Gpu& gpu : tmpl.gpus) gpu_index.push_back(gpu.index);
  std::sort(gpu_index.begin(), gpu_index.end());
  std::map<int, int> wrong;  // rank -> far NIC (local index)
  for (const Fault& x : f.faults) {
    if (x.kind == FaultKind::kWrongNic) wrong[x.rank] = x.far_nic;
  }
  topo::TopologySet set;
  const int g = f.spec.gpus_per_node;
  for (size_t h = 0; h < f.hosts.size(); ++h) {
    topo::HostTopology host = tmpl;
    host.host = f.hosts[h];
    host.sources = {"simulated from " + (tmpl.sources.empty() ? std::string("a template") : tmpl.sources.front())};
    host.nccl_nets.clear();
    for (const topo::Nic& n : host.nics) host.nccl_nets.push_back(n.name);
    host.uses.clear();
    for (int local = 0; local < g && local < static_cast<int>(gpu_index.size()); ++local) {
      const int rank = static_cast<int>(h) * g + local;
      const int gpu = gpu_index[static_cast<size_t>(local)];
      auto w = wrong.find(rank);
      const int source_gpu = w == wrong.end() ? gpu : gpu_index[static_cast<size_t>(w->second) % gpu_index.size()];
      auto nic = near.find(source_gpu);
      if (nic == near.end()) continue;
      topo::NicUse use;
      use.gpu = gpu;
      use.rank = rank;
      use.nic = nic->second;
      use.net_index = static_cast<int>(std::find(host.nccl_nets.begin(), host.nccl_nets.end(), nic->second) -
                                       host.nccl_nets.begin());
      use.gdr = true;
      use.channels = 2;
      host.uses.push_back(use);
    }
    set.hosts.push_back(std::move(host));
  }
  auto analyses = topo::analyze_topology(set, topo::AnalysisOptions(), r.findings);
  if (!analyses.ok()) return;
  std::vector<std::pair<std::string, std::string>> signatures;
  for (size_t i = 0; i < set.hosts.size(); ++i) {
    signatures.emplace_back(set.hosts[i].host, topo::host_signature(set.hosts[i], (*analyses)[i]));
  }
  topo::add_host_differs(signatures, r.findings);
  r.topology = topo::topology_section(set, *analyses);
}

// The run's context: NCCL over the simulated hosts, one rank per GPU.
RunContext simulated_context(const Fabric& f) {
  const int n = static_cast<int>(f.ranks.size());
  RunContext c;
  c.backend = "nccl";
  c.backend_library = "simulated";
  c.memory = "cuda";
  c.nranks = n;
  c.hosts = f.hosts;
  for (int i = 0; i < n; ++i)
    c.ranks.push_back({i, f.ranks[static_cast<size_t>(i)].host, 1000 + i, i % f.spec.gpus_per_node});
  return c;
}

// The link matrix as diagnose measures it: the schedule's rounds, with --adaptive the
// suspects' extra partners, with --retest the slow links again alone.
// Diagnose's time for one round (budgeted runs): each flow moves its messages at its
// modelled rate, or, where that would take over kCutBeyondRounds rounds' time, what fits
// in one round (p2p's round_time_s); the round lasts as long as its slowest flow.
struct RoundClock {
  double per_round_s = 0;
  int iters = 0;
  uint64_t chunk = 0;
  double seconds(FlowModel& model, const Round& round) const {
    double slowest = 0;
    for (double rate : model.rates(round)) {
      double t = iters * static_cast<double>(chunk) / (std::max(rate, 1e-6) * 1e9);
      if (t > kCutBeyondRounds * per_round_s) t = per_round_s;
      slowest = std::max(slowest, t);
    }
    return slowest + kRoundOverheadS;
  }
};

Result<P2pSection> simulate_link_matrix(const Fabric& f, const SimOptions& o, uint64_t seed, FlowModel& model,
                                        double busbw_gbps, SimPlanned* planned) {
  const std::map<std::string, std::string> leaf_of = leaf_of_hosts(f.description);
  LinkPlanOptions plan_options;
  plan_options.schedule = o.schedule;
  plan_options.max_rounds = o.max_rounds;
  SimPlanned plan_made;
  RoundClock clock;
  uint64_t chunk = o.chunk_bytes;
  const bool budgeted = o.budget_s > 0;
  if (budgeted) {  // diagnose's plan: the links' share of the measuring phases' time
    plan_made.links_share_s =
        o.budget_s * (1 - kDiagnoseReserve) * kLinksWeight / (kCollectiveWeight + kLinksWeight + kNoiseWeight);
    chunk = link_chunk_bytes(kDiagnoseLargestBytes, static_cast<int>(f.ranks.size()));
    plan_made.fit_rounds = link_rounds_that_fit(plan_made.links_share_s, chunk, busbw_gbps);
    plan_options.schedule = pick_link_schedule(f.ranks, static_cast<size_t>(plan_made.fit_rounds));
    plan_options.max_rounds = static_cast<size_t>(plan_made.fit_rounds);
    if (plan_options.schedule == LinkSchedule::kSample) {
      plan_options.max_rounds = std::min(plan_options.max_rounds, sample_rounds_within(f.ranks));
    }
    plan_made.schedule = plan_options.schedule;
  }
  plan_options.leaf_of = o.describe_fabric ? &leaf_of : nullptr;
  plan_options.seed = seed;
  auto plan = plan_links(f.ranks, plan_options);
  if (!plan.ok()) return plan.status();
  P2pSection p2p;
  p2p.pattern = P2pPattern::kPairs;
  p2p.mode = P2pMode::kBidirectional;
  p2p.backend = "nccl";
  p2p.window = 8;
  p2p.warmup_iters = 4;
  LinkCoverage cov;
  cov.schedule = plan_options.schedule;
  cov.rounds = static_cast<int>(plan->rounds.size());
  cov.intra_leaf_rounds = static_cast<int>(plan->intra_leaf_rounds);
  plan_made.rounds = cov.rounds;
  if (budgeted) {
    clock.per_round_s = kScheduleShare * plan_made.links_share_s / static_cast<double>(std::max(cov.rounds, 1));
    clock.iters = std::clamp(
        static_cast<int>(clock.per_round_s * std::max(busbw_gbps, 1e-3) * 1e9 / static_cast<double>(chunk)), 16, 1000);
    clock.chunk = chunk;
  }
  // A round is measured where the links' share has time left for it (always, unbudgeted).
  const auto fits = [&](const Round& round) {
    if (!budgeted) return true;
    const double t = clock.seconds(model, round);
    if (plan_made.links_used_s + t > plan_made.links_share_s) return false;
    plan_made.links_used_s += t;
    return true;
  };
  int index = 0;
  for (const Round& round : plan->rounds) {
    fits(round);  // the schedule's rounds run whatever they take (diagnose cuts their slow flows)
    add_round(f, model, round, index++, chunk, p2p.links);
  }
  const FabricDescription* fabric = o.describe_fabric ? &f.description : nullptr;
  if (o.adaptive && plan_options.schedule == LinkSchedule::kSample) {
    const std::vector<std::string> suspects = link_suspects(p2p, fabric);
    std::set<std::string> avoid;
    for (const P2pSizeContext& c : p2p_size_contexts(p2p, fabric))
      avoid.insert(c.slow_hosts.begin(), c.slow_hosts.end());
    const auto extra = suspect_rounds(f.ranks, suspects, measured_pairs(p2p), avoid, kAdaptivePartners, seed + 1);
    for (const Round& round : extra) {
      if (!fits(round)) {
        ++plan_made.adaptive_cut;
        continue;
      }
      ++cov.adaptive_rounds;
      add_round(f, model, round, index++, chunk, p2p.links);
    }
  }
  plan_made.adaptive_rounds = cov.adaptive_rounds;
  if (o.retest) {
    for (const P2pLink& l : links_to_retest(p2p, 32, fabric)) {
      const Round alone_round{{l.src_rank, l.dst_rank}, {l.dst_rank, l.src_rank}};
      if (!fits(alone_round)) {
        ++plan_made.retests_cut;
        continue;
      }
      ++plan_made.retests;
      std::vector<P2pLink> alone;
      add_round(f, model, alone_round, l.round, chunk, alone);
      p2p.alone.push_back(alone.front());
    }
  }
  p2p.coverage = cov;
  if (planned) *planned = plan_made;
  return p2p;
}

// The straggler fault's rank and the share of the collective's time it holds the
// others; rank -1 without one.
std::pair<int, double> straggler_of(const Fabric& f) {
  std::pair<int, double> out{-1, 0.0};
  for (const Fault& x : f.faults) {
    if (x.kind == FaultKind::kStraggler) out = {x.rank, x.factor};
  }
  return out;
}

// Each rank's arrival at one point: late by a few microseconds at random, the
// straggler holding the others for its share of the time.
ArrivalSplit simulated_arrivals(int n, const PlacementResult& pl, double transfer, std::pair<int, double> straggler,
                                std::mt19937_64& rng) {
  const auto [rank, held_share] = straggler;
  std::uniform_real_distribution<double> late(0, 5);
  ArrivalSplit a;
  a.iterations = 20;
  a.span_us = pl.time_us;
  a.clock_bound_us = 1;
  a.transfer_us = transfer;
  a.skew_us = pl.time_us - transfer;
  for (int i = 0; i < n; ++i) {
    RankArrival ra;
    ra.rank = i;
    ra.late_us = late(rng);
    if (i == rank) {
      ra.last_count = 18;
      ra.held_us = held_share * pl.time_us * 0.6;
      ra.held_share = held_share * 0.6;
      ra.stalled_us = held_share * pl.time_us * 0.4;
      ra.stalled_share = held_share * 0.4;
    }
    a.ranks.push_back(ra);
  }
  return a;
}

// The all-reduce sweep: NCCL's rings cross from each node to the next rail by rail, all
// at once; the slowest crossing bounds the bus bandwidth. A straggler holds the rest back.
Sweep simulate_allreduce(const Fabric& f, FlowModel& model, std::mt19937_64& rng) {
  const int n = static_cast<int>(f.ranks.size());
  const int g = f.spec.gpus_per_node;
  Round ring;
  const int hosts = static_cast<int>(f.hosts.size());
  for (int h = 0; h < hosts; ++h) {
    for (int c = 0; c < g; ++c) ring.push_back({h * g + c, ((h + 1) % hosts) * g + c});
  }
  const std::vector<double> ring_rates = model.rates(ring);
  const double bottleneck = *std::min_element(ring_rates.begin(), ring_rates.end());
  const std::pair<int, double> straggler = straggler_of(f);
  Sweep s;
  s.collective = "allreduce";
  s.dtype = "float";
  s.op = "sum";
  s.nranks = n;
  s.busbw_factor = 2.0 * (n - 1) / n;
  std::lognormal_distribution<double> noise(0, f.spec.noise_cv);
  for (uint64_t size = 1 << 20; size <= (64u << 20); size *= 4) {
    SweepPoint p;
    p.size_bytes = size;
    p.count = size / 4;
    PlacementResult pl;
    const double transfer = static_cast<double>(size) * s.busbw_factor / (bottleneck * 1e3) + 20;  // 20 us latency
    pl.time_us = transfer / (1 - straggler.second) * noise(rng);
    pl.algbw_gbps = static_cast<double>(size) / 1e3 / pl.time_us;
    pl.busbw_gbps = pl.algbw_gbps * s.busbw_factor;
    pl.wrong = 0;
    pl.iterations = 20;
    pl.arrivals = simulated_arrivals(n, pl, transfer, straggler, rng);
    p.out_of_place = pl;
    p.in_place = pl;
    s.points.push_back(std::move(p));
  }
  return s;
}

// The largest all-reduce repeated: noisier where a neighbour shares the NICs.
Diagnosis simulated_diagnosis(const Sweep& allreduce, const SimOptions& o, const FlowModel& model) {
  Diagnosis d;
  d.link_size_bytes = o.budget_s > 0 ? link_chunk_bytes(kDiagnoseLargestBytes, allreduce.nranks) : o.chunk_bytes;
  const double t = allreduce.points.back().out_of_place->time_us;
  const double cv = model.noisy().empty() ? 0.01 : 0.08;
  CollectiveRepeats rep{"allreduce", 64u << 20, {t, t * (1 + cv), t * (1 - cv)}, 0, {}};
  rep.cv = summarize(rep.time_us).stddev.value_or(0) / summarize(rep.time_us).mean;
  d.collective_noise.push_back(std::move(rep));
  return d;
}

// Counters of the link phase: what each host's interfaces moved beside fabscope's bytes.
std::vector<CounterSample> simulated_counters(const Fabric& f, const SimOptions& o, const P2pSection& p2p,
                                              const FlowModel& model) {
  std::map<std::string, uint64_t> tx, rx;
  for (const P2pLink& l : p2p.links) {
    if (l.src_host == l.dst_host) continue;
    tx[l.src_host] += l.size_bytes * static_cast<uint64_t>(l.iterations);
    rx[l.dst_host] += l.size_bytes * static_cast<uint64_t>(l.iterations);
  }
  std::vector<CounterSample> out;
  for (const std::string& h : f.hosts) {
    CounterSample c;
    c.host = h;
    c.phase = fmt::format("links: p2p pairs bibw {} MiB", o.chunk_bytes >> 20);
    c.duration_s = 10;
    c.fabscope_tx_bytes = tx[h];
    c.fabscope_rx_bytes = rx[h];
    // Another tenant with 40% of the NICs moved 40/60 of what fabscope moved beside it.
    const uint64_t foreign = model.noisy().count(h) ? (tx[h] + rx[h]) / 3 : 0;
    InterfaceDelta d;
    d.name = "ib0";
    d.deltas = {{"tx_bytes", tx[h] + tx[h] / 50 + foreign}, {"rx_bytes", rx[h] + rx[h] / 50 + foreign}};
    c.interfaces.push_back(std::move(d));
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

Result<Report> simulate(const Fabric& f, const SimOptions& o, uint64_t seed, SimPlanned* planned) {
  FlowModel model(f, seed ^ 0x5eed);
  std::mt19937_64 rng(seed);
  Report r;
  r.context = simulated_context(f);
  if (o.describe_fabric) r.fabric = f.description;
  // A budgeted plan needs the collective's bus bandwidth first, as diagnose's calibration
  // gives it; otherwise the link matrix is simulated first (the scorecard's seeds as they were).
  if (o.budget_s > 0) r.sweeps.push_back(simulate_allreduce(f, model, rng));
  const double busbw = r.sweeps.empty() ? 0 : r.sweeps[0].points.back().out_of_place->busbw_gbps;
  auto p2p = simulate_link_matrix(f, o, seed, model, busbw, planned);
  if (!p2p.ok()) return p2p.status();
  if (r.sweeps.empty()) r.sweeps.push_back(simulate_allreduce(f, model, rng));
  r.p2p = std::move(*p2p);
  r.diagnosis = simulated_diagnosis(r.sweeps[0], o, model);
  r.counters = simulated_counters(f, o, *r.p2p, model);
  if (o.host_template) add_topology(f, *o.host_template, r);
  return r;
}

std::vector<double> model_rates(const Fabric& fabric, const Round& round) {
  FlowModel model(fabric, 0);
  return model.rates(round);
}

void analyze(Report& report) {
  analyze_diagnosis(report);
  decide_verdict(report);
}

namespace {

bool names_host(const Finding& x, const std::string& host) {
  return std::find(x.hosts.begin(), x.hosts.end(), host) != x.hosts.end() ||
         x.evidence.value("host", std::string()) == host;
}

bool matches(const Fabric& fab, const Fault& f, const Finding& x) {
  switch (f.kind) {
    case FaultKind::kSlowLink:
      return x.code == code::kP2pSlowLink && names_host(x, f.host) && names_host(x, f.peer);
    case FaultKind::kSlowNic:
      return x.code == code::kP2pSlowNic && names_host(x, f.host);
    case FaultKind::kSlowHost:
      return x.code == code::kP2pSlowHost && names_host(x, f.host);
    case FaultKind::kCongestedUplink:
      return x.code == code::kP2pCongestedUplink && x.evidence.value("leaf", std::string()) == f.leaf;
    case FaultKind::kStraggler:
      return x.code == code::kRankStraggler && x.evidence.value("rank", -1) == f.rank;
    case FaultKind::kWrongNic:
      return (x.code == code::kTopoNicFar || x.code == code::kP2pSlowNic) && names_host(x, f.host);
    case FaultKind::kNoisyNeighbour:
      return x.code == code::kCountersForeignTraffic && names_host(x, f.host);
  }
  (void)fab;
  return false;
}

bool entry_names(const Fault& f, const AttributionEntry& e) {
  if (f.kind == FaultKind::kCongestedUplink) return e.subject.find(f.leaf) != std::string::npos;
  if (f.kind == FaultKind::kStraggler) return std::find(e.ranks.begin(), e.ranks.end(), f.rank) != e.ranks.end();
  return std::find(e.hosts.begin(), e.hosts.end(), f.host) != e.hosts.end() ||
         (!f.peer.empty() && std::find(e.hosts.begin(), e.hosts.end(), f.peer) != e.hosts.end());
}

}  // namespace

Score score(const Fabric& fabric, const Report& r) {
  Score s;
  s.faults = static_cast<int>(fabric.faults.size());
  for (const Fault& f : fabric.faults) {
    const bool found =
        std::any_of(r.findings.begin(), r.findings.end(), [&](const Finding& x) { return matches(fabric, f, x); });
    if (found) {
      ++s.faults_found;
    } else {
      s.missed.push_back(f.describe());
    }
  }
  for (const Finding& x : r.findings) {
    if (x.severity == Severity::kInfo) continue;
    const bool cause = code::in_area(x.code, code::kAreaP2p) || code::in_area(x.code, code::kAreaRank) ||
                       code::in_area(x.code, code::kAreaCounters) || code::in_area(x.code, code::kAreaTopo);
    if (!cause) continue;
    ++s.findings;
    if (std::any_of(fabric.faults.begin(), fabric.faults.end(),
                    [&](const Fault& f) { return matches(fabric, f, x); })) {
      ++s.findings_true;
    } else {
      s.false_findings.push_back(fmt::format("{}: {}", x.code, x.subject));
    }
  }
  for (const Attribution& a : r.attribution) {
    for (const AttributionEntry& e : a.entries) {
      if (e.kind == AttributionKind::kUnexplained) continue;
      s.top_entry = true;
      s.top_named =
          std::any_of(fabric.faults.begin(), fabric.faults.end(), [&](const Fault& f) { return entry_names(f, e); });
      break;
    }
    break;
  }
  return s;
}

}  // namespace fabscope::sim
