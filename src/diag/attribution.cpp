#include "diag/attribution.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "coll/collective.h"
#include "core/sizes.h"
#include "core/stats.h"
#include "report/finding_codes.h"

namespace fabscope {

namespace {

using Ev = nlohmann::ordered_json;
using LinkKey = std::pair<int, int>;  // (src rank, dst rank)

double cv_of(const std::vector<double>& v) {
  const Summary s = summarize(v);
  return s.stddev && s.mean > 0 ? *s.stddev / s.mean : 0;
}

// What the findings say about hosts and links, looked up by the attribution.
struct Flags {
  std::set<std::string> slow_hosts;               // p2p.slow_host
  std::set<LinkKey> slow_links;                   // p2p.slow_link (slow alone too, or not retested)
  std::map<LinkKey, double> congested;            // p2p.congested_link: its impact factor
  std::map<std::string, uint64_t> foreign_bytes;  // counters.foreign_traffic: excess bytes
  std::set<int> stragglers;
  // Topology findings that make a host's NIC path slow: host -> the finding.
  std::map<std::string, const Finding*> nic_paths;  // rank.straggler
  explicit Flags(const std::vector<Finding>& findings) {
    for (const Finding& f : findings) {
      auto link = [&] { return LinkKey{f.evidence.value("src_rank", -1), f.evidence.value("dst_rank", -1)}; };
      if (f.code == code::kP2pSlowHost) {
        slow_hosts.insert(f.hosts.begin(), f.hosts.end());
      } else if (f.code == code::kP2pSlowLink) {
        slow_links.insert(link());
      } else if (f.code == code::kP2pCongestedLink && f.severity != Severity::kInfo) {
        congested[link()] = f.evidence.value("impact_factor", 1.0);
      } else if ((f.code == code::kTopoNicFar || f.code == code::kTopoGpuWithoutNearNic ||
                  f.code == code::kTopoNicShared || f.code == code::kTopoPortDegraded ||
                  f.code == code::kTopoPcieDegraded) &&
                 f.severity != Severity::kInfo) {
        for (const std::string& h : f.hosts) nic_paths.emplace(h, &f);
      } else if (f.code == code::kRankStraggler) {
        stragglers.insert(f.evidence.value("rank", -1));
      } else if (f.code == code::kCountersForeignTraffic && !f.hosts.empty()) {
        foreign_bytes[f.hosts.front()] = f.evidence.value("excess_bytes", uint64_t{0});
      }
    }
  }
};

// The links a collective's data crosses, under the model fabscope states: a ring over
// the ranks in order for the ring collectives, every pair for the others.
std::vector<LinkKey> links_used(Collective c, int n) {
  std::vector<LinkKey> out;
  const bool pairwise = c == Collective::kAllToAll || c == Collective::kGather || c == Collective::kScatter;
  for (int a = 0; a < n; ++a) {
    if (!pairwise) {
      if (n > 1) out.push_back({a, (a + 1) % n});
      continue;
    }
    for (int b = 0; b < n; ++b) {
      if (a != b) out.push_back({a, b});
    }
  }
  return out;
}

std::string model_of(Collective c) {
  switch (info(c).bus_factor) {
    case CollectiveInfo::BusFactor::kAllReduce:
      return "ring: 2(n-1)/n * S / B per rank";
    case CollectiveInfo::BusFactor::kRing:
      return c == Collective::kAllToAll ? "pairwise: (n-1)/n * S / B per rank" : "ring: (n-1)/n * S / B per rank";
    case CollectiveInfo::BusFactor::kOne:
      return "pipeline: S / B";
  }
  return "S / B";
}

// Entries under construction: one per (kind, subject), excess in microseconds.
class Entries {
 public:
  explicit Entries(double excess) : left_(excess) {}
  double left() const { return left_; }
  // Adds up to `us` (what is left of the excess) to the entry (kind, subject).
  void add(AttributionKind kind, const std::string& subject, std::vector<std::string> hosts, std::vector<int> ranks,
           double us, const Ev& evidence) {
    us = std::min(us, left_);
    if (us <= 0) return;
    left_ -= us;
    for (AttributionEntry& e : entries_) {
      if (e.kind == kind && e.subject == subject) {
        e.excess_us += us;
        for (auto& [k, v] : evidence.items()) e.evidence[k] = v;
        return;
      }
    }
    AttributionEntry e;
    e.kind = kind;
    e.subject = subject;
    std::sort(hosts.begin(), hosts.end());
    hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
    e.hosts = std::move(hosts);
    e.ranks = std::move(ranks);
    e.excess_us = us;
    e.evidence = evidence;
    entries_.push_back(std::move(e));
  }
  // The link, host or noise entry whose hosts include `host`, if any.
  AttributionEntry* implicating(const std::string& host) {
    for (AttributionEntry& e : entries_) {
      if (e.kind != AttributionKind::kRank && std::find(e.hosts.begin(), e.hosts.end(), host) != e.hosts.end())
        return &e;
    }
    return nullptr;
  }
  std::vector<AttributionEntry> finish(double excess) {
    if (left_ > 0) {
      AttributionEntry u;
      u.kind = AttributionKind::kUnexplained;
      u.subject = "no one link, host or rank";
      u.excess_us = left_;
      u.evidence = Ev{{"hint",
                       "spread over every rank and link: the algorithm, the protocol, CPU or memory copies, or a "
                       "fabric slower under the collective's load than the link matrix measured"}};
      entries_.push_back(std::move(u));
    }
    std::stable_sort(entries_.begin(), entries_.end(), [](const AttributionEntry& a, const AttributionEntry& b) {
      const bool a_rest = a.kind == AttributionKind::kUnexplained, b_rest = b.kind == AttributionKind::kUnexplained;
      if (a_rest != b_rest) return b_rest;
      return a.excess_us > b.excess_us;
    });
    for (AttributionEntry& e : entries_) e.share = e.excess_us / excess;
    return std::move(entries_);
  }

 private:
  double left_;
  std::vector<AttributionEntry> entries_;
};

// The link matrix at the attributed size: each link's median rate under load (over
// repeats), in a vector sorted by link (a 4,096-rank matrix has two million links).
struct LinkRates {
  struct Row {
    LinkKey key;
    double loaded = 0;
    const std::string* src_host = nullptr;
    const std::string* dst_host = nullptr;
  };
  std::vector<Row> rows;  // sorted by key
  std::map<LinkKey, double> alone;
  std::unordered_map<std::string_view, uint32_t> host_index;
  std::unordered_map<uint64_t, size_t> by_hosts;  // (src, dst host index) -> the slowest row between them
  double median = 0;

  const Row* find(const LinkKey& k) const {
    auto it = std::lower_bound(rows.begin(), rows.end(), k, [](const Row& r, const LinkKey& x) { return r.key < x; });
    return it != rows.end() && it->key == k ? &*it : nullptr;
  }
  // Between two hosts: the slowest link measured (a matrix of one rank per host, rails).
  const Row* between(const std::string& a, const std::string& b) const {
    auto ia = host_index.find(a), ib = host_index.find(b);
    if (ia == host_index.end() || ib == host_index.end()) return nullptr;
    auto it = by_hosts.find(uint64_t{ia->second} << 32 | ib->second);
    return it == by_hosts.end() ? nullptr : &rows[it->second];
  }
};

LinkRates link_rates(const P2pSection& p2p, uint64_t size) {
  LinkRates r;
  struct Measured {
    LinkKey key;
    double bw;
    const P2pLink* link;
  };
  std::vector<Measured> measured;
  for (const P2pLink& l : p2p.links) {
    if (l.size_bytes == size && l.bw_gbps) measured.push_back({{l.src_rank, l.dst_rank}, *l.bw_gbps, &l});
  }
  const auto by_key = [](const Measured& a, const Measured& b) { return a.key < b.key; };
  std::sort(measured.begin(), measured.end(), by_key);
  std::vector<double> all, repeats;
  r.rows.reserve(measured.size());
  all.reserve(measured.size());
  for (size_t i = 0; i < measured.size();) {
    size_t j = i;
    repeats.clear();
    for (; j < measured.size() && measured[j].key == measured[i].key; ++j) repeats.push_back(measured[j].bw);
    const P2pLink& l = *measured[i].link;
    r.rows.push_back({measured[i].key, repeats.size() == 1 ? repeats[0] : median(repeats), &l.src_host, &l.dst_host});
    all.push_back(r.rows.back().loaded);
    i = j;
  }
  std::unordered_map<int, uint32_t> host_of_rank;  // names hashed once per rank, not per link
  const auto host_at = [&](int rank, const std::string& host) {
    auto it = host_of_rank.find(rank);
    if (it != host_of_rank.end()) return it->second;
    const uint32_t h = r.host_index.emplace(host, static_cast<uint32_t>(r.host_index.size())).first->second;
    host_of_rank.emplace(rank, h);
    return h;
  };
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const LinkRates::Row& row = r.rows[i];
    const uint32_t a = host_at(row.key.first, *row.src_host), b = host_at(row.key.second, *row.dst_host);
    if (a == b) continue;
    auto [it, fresh] = r.by_hosts.emplace(uint64_t{a} << 32 | b, i);
    if (!fresh && row.loaded < r.rows[it->second].loaded) it->second = i;
  }
  for (const P2pLink& l : p2p.alone) {
    if (l.size_bytes == size && l.bw_gbps) r.alone[{l.src_rank, l.dst_rank}] = *l.bw_gbps;
  }
  r.median = median(all);
  return r;
}

std::string link_subject(const LinkKey& k, const LinkRates& rates) {
  const LinkRates::Row* row = rates.find(k);
  return !row ? fmt::format("link {} -> {}", k.first, k.second)
              : fmt::format("link {} -> {} ({} -> {})", k.first, k.second, *row->src_host, *row->dst_host);
}

std::string hosts_subject(const std::vector<std::string>& hosts) {
  std::string s = hosts.size() == 1 ? "host " : "hosts ";
  for (size_t i = 0; i < hosts.size(); ++i) s += (i ? ", " : "") + hosts[i];
  return s;
}

// The time attributed: the median of the collective phase's and the noise phase's runs
// (the collective phase's alone without a noise phase).
double measured_time(const Report& report, const std::string& collective, uint64_t size, double first_us) {
  if (!report.diagnosis) return first_us;
  for (const CollectiveRepeats& rep : report.diagnosis->collective_noise) {
    if (rep.collective == collective && rep.size_bytes == size && !rep.time_us.empty()) return median(rep.time_us);
  }
  return first_us;
}

// The runs of a collective at its attributed size (diagnosis.collective_noise), where the
// noise phase repeated it: which runs stand for the measured time (the median: the middle
// run, or the two middle ones for an even count) and which was the best.
class Runs {
 public:
  Runs(const Report& report, const std::string& collective, uint64_t size) {
    if (!report.diagnosis) return;
    for (const CollectiveRepeats& r : report.diagnosis->collective_noise) {
      if (r.collective == collective && r.size_bytes == size && !r.time_us.empty()) rep_ = &r;
    }
    if (!rep_) return;
    std::vector<size_t> order(rep_->time_us.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return rep_->time_us[x] < rep_->time_us[y]; });
    best_ = order.front();
    const size_t n = order.size();
    middle_ = n % 2 ? std::vector<size_t>{order[n / 2]} : std::vector<size_t>{order[n / 2 - 1], order[n / 2]};
  }
  // The rank's time holding the others back in each run, where every run recorded it.
  const std::vector<double>* held(int rank) const {
    if (!rep_) return nullptr;
    for (const RunsHeld& h : rep_->held) {
      if (h.rank == rank && h.us.size() == rep_->time_us.size()) return &h.us;
    }
    return nullptr;
  }
  // `per_run` (one figure per run) at the measured run, and at the best.
  double at_measured(const std::vector<double>& per_run) const {
    double sum = 0;
    for (size_t i : middle_) sum += per_run[i];
    return sum / static_cast<double>(middle_.size());
  }
  double at_best(const std::vector<double>& per_run) const { return per_run[best_]; }

 private:
  const CollectiveRepeats* rep_ = nullptr;
  std::vector<size_t> middle_;
  size_t best_ = 0;
};

// The largest run-to-run variation of the links touching `hosts` (diagnosis.link_noise).
double link_cv(const Report& report, const std::vector<std::string>& hosts) {
  double cv = 0;
  if (!report.diagnosis) return cv;
  for (const LinkVariation& v : report.diagnosis->link_noise) {
    if (std::find(hosts.begin(), hosts.end(), v.src_host) != hosts.end() ||
        std::find(hosts.begin(), hosts.end(), v.dst_host) != hosts.end()) {
      cv = std::max(cv, v.cv);
    }
  }
  return cv;
}

// The host a rank ran on, "?" for a rank the report does not list.
std::string host_of_rank(const Report& report, int rank) {
  return rank >= 0 && rank < static_cast<int>(report.context.ranks.size()) ? report.context.ranks[rank].host
                                                                           : std::string("?");
}

// The attribution's frame: the time measured against the ideal one, the time at which
// the bus bandwidth would equal the median link (busbw scales as 1/time).
Attribution time_against_ideal(const Report& report, const Sweep& s, const SweepPoint& p,
                               const std::optional<Collective>& c, const LinkRates& rates) {
  const PlacementResult& r = *p.out_of_place;
  Attribution a;
  a.collective = s.collective;
  a.size_bytes = p.size_bytes;
  a.nranks = s.nranks;
  a.measured_us = measured_time(report, s.collective, p.size_bytes, r.time_us);
  a.link_rate_gbps = rates.median;
  a.method = AttributionMethod::kLinkMatrix;
  a.model = c ? model_of(*c) : "S / B";
  a.ideal_us = rates.median > 0 ? r.time_us * r.busbw_gbps / rates.median : 0;
  a.excess_us = std::max(0.0, a.measured_us - a.ideal_us);
  return a;
}

// The links the collective uses, each as the matrix measured it, and the slowest of them.
struct UsedLinks {
  std::vector<LinkKey> keys;
  std::optional<LinkKey> slowest;
  double slowest_bw = 0;
};

UsedLinks used_links(const Report& report, Collective c, int nranks, const LinkRates& rates) {
  UsedLinks u;
  u.keys = links_used(c, nranks);
  for (LinkKey& k : u.keys) {
    const LinkRates::Row* row = rates.find(k);
    if (!row) {
      // Not measured rank to rank (a matrix of one rank per host, or rail by rail): the
      // hosts' slowest link.
      row = rates.between(host_of_rank(report, k.first), host_of_rank(report, k.second));
      if (!row) continue;
      k = row->key;
    }
    if (!u.slowest || row->loaded < u.slowest_bw) {
      u.slowest = k;
      u.slowest_bw = row->loaded;
    }
  }
  return u;
}

// Each link's busy time per call, where a trace gives one, and the links it covers.
struct LinkBusyTimes {
  std::map<LinkKey, double> busy_us;
  AttributionMethod method = AttributionMethod::kEngineTrace;
  std::vector<LinkKey> links;
};

LinkBusyTimes link_busy_times(const Report& report, const Sweep& s, const SweepPoint& p,
                              const std::vector<LinkKey>& used) {
  LinkBusyTimes t;
  t.links = used;
  // The engine's trace, where there is one.
  if (report.diagnosis) {
    for (const LinkBusy& b : report.diagnosis->link_busy) {
      if (b.collective == s.collective) t.busy_us[{b.src_rank, b.dst_rank}] = b.busy_us;
    }
  }
  if (!t.busy_us.empty() || !report.nccl_profile) return t;
  // NCCL's profiler plugin, where there is no trace: each link's network wait per call
  // (the sender's SendWait), on the links NCCL's own rings and trees used.
  for (const ProfilePoint& pp : report.nccl_profile->points) {
    if (pp.collective != s.collective || pp.size_bytes != p.size_bytes) continue;
    for (const ProfileLink& l : pp.links) {
      if (l.direction == LinkDirection::kSend && l.calls() > 0) t.busy_us[{l.rank, l.peer}] += l.network_us_per_call();
    }
  }
  if (!t.busy_us.empty()) {
    t.method = AttributionMethod::kNcclProfile;
    t.links.clear();
    for (const auto& [k, us] : t.busy_us) t.links.push_back(k);
  }
  return t;
}

// The link that bounds the collective: the busiest per call where a trace says, by its
// busy time beyond the median link's; otherwise the slowest link it uses.
struct BoundingLink {
  LinkKey key;
  double bw = 0;          // its rate under load
  double traced_us = -1;  // its busy time beyond the median link's; -1: no trace
  double busy_us = 0;     // with a trace: its busy time, and the median link's
  double median_busy_us = 0;
  std::optional<AttributionMethod> method;  // with a trace: how it was traced

  // Whether the link explains part of the excess: busier than the median link, or,
  // without a trace, slower than it.
  bool explains(double median_gbps) const { return bw > 0 && (traced_us > 0 || (traced_us < 0 && bw < median_gbps)); }
};

std::optional<BoundingLink> bounding_link(const Report& report, const Sweep& s, const SweepPoint& p, Collective c,
                                          const LinkRates& rates) {
  const UsedLinks used = used_links(report, c, s.nranks, rates);
  std::optional<BoundingLink> bound;
  if (used.slowest) {
    bound.emplace();
    bound->key = *used.slowest;
    bound->bw = used.slowest_bw;
  }
  const LinkBusyTimes t = link_busy_times(report, s, p, used.keys);
  if (t.busy_us.empty()) return bound;
  std::vector<double> used_busy;
  const LinkKey* busiest = nullptr;
  for (const LinkKey& k : t.links) {
    auto it = t.busy_us.find(k);
    if (it == t.busy_us.end()) continue;
    used_busy.push_back(it->second);
    if (!busiest || it->second > t.busy_us.at(*busiest)) busiest = &k;
  }
  if (!busiest || !rates.find(*busiest)) return bound;
  const double busy = t.busy_us.at(*busiest), median_busy = median(used_busy);
  return BoundingLink{.key = *busiest,
                      .bw = rates.find(*busiest)->loaded,
                      .traced_us = std::max(0.0, busy - median_busy),
                      .busy_us = busy,
                      .median_busy_us = median_busy,
                      .method = t.method};
}

// The bounding link's share of the excess, named by what the findings say makes it slow:
// its NIC path, a slow host, congestion or foreign traffic, or the link itself.
void attribute_link(const Report& report, const LinkRates& rates, const Flags& flags, const BoundingLink& bound,
                    double ideal_us, Entries& entries) {
  const LinkKey k = bound.key;
  const std::string& src_host = *rates.find(k)->src_host;
  const std::string& dst_host = *rates.find(k)->dst_host;
  // Without a trace, the model: the bytes per rank it moves over each link took the
  // ideal time at the median rate, and this link's rate is lower.
  const double link_us = bound.traced_us >= 0 ? bound.traced_us : ideal_us * (rates.median / bound.bw - 1);
  Ev ev{{"link", link_subject(k, rates)},
        {"bw_gbps", bound.bw},
        {"median_gbps", rates.median},
        {"times_below_median", rates.median / bound.bw}};
  if (bound.traced_us >= 0) {
    ev["busy_us"] = bound.busy_us;
    ev["median_busy_us"] = bound.median_busy_us;
  }
  if (auto al = rates.alone.find(k); al != rates.alone.end()) ev["alone_gbps"] = al->second;
  // Foreign traffic on either end: the noise is named by every host that carries some.
  std::vector<std::string> noisy;
  if ((flags.foreign_bytes.count(src_host) || flags.foreign_bytes.count(dst_host)) &&
      bound.bw < kNoiseSlowdown * rates.median) {
    for (const auto& [h, bytes] : flags.foreign_bytes) noisy.push_back(h);
  }
  const bool flagged_slow =
      flags.slow_hosts.count(src_host) || flags.slow_hosts.count(dst_host) || flags.slow_links.count(k);
  const auto nic = flags.nic_paths.count(src_host) ? flags.nic_paths.find(src_host) : flags.nic_paths.find(dst_host);
  if (flagged_slow && nic != flags.nic_paths.end()) {
    // The topology says why: a GPU on a far NIC, a degraded port or PCIe link.
    ev["topology"] = {{"code", nic->second->code}, {"subject", nic->second->subject}};
    entries.add(AttributionKind::kNic, fmt::format("NIC path of host {} ({})", nic->first, nic->second->code),
                {nic->first}, {}, link_us, ev);
  } else if (flags.slow_hosts.count(src_host) || flags.slow_hosts.count(dst_host)) {
    const std::string h = flags.slow_hosts.count(src_host) ? src_host : dst_host;
    entries.add(AttributionKind::kHost, "host " + h, {h}, {}, link_us, ev);
  } else if (!noisy.empty() || flags.congested.count(k)) {
    if (auto cg = flags.congested.find(k); cg != flags.congested.end()) ev["impact_factor"] = cg->second;
    for (const std::string& h : noisy) ev["foreign_bytes"][h] = flags.foreign_bytes.at(h);
    ev["cause"] = noisy.empty() ? "congestion: slow beside other flows, fast alone" : "traffic not fabscope's";
    std::vector<std::string> hosts = noisy.empty() ? std::vector<std::string>{src_host, dst_host} : noisy;
    if (const double cv = link_cv(report, hosts); cv > 0) ev["link_cv"] = cv;
    std::sort(hosts.begin(), hosts.end());
    hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
    entries.add(AttributionKind::kNoise, hosts_subject(hosts), hosts, {k.first, k.second}, link_us, ev);
  } else if (flags.slow_links.count(k)) {
    entries.add(AttributionKind::kLink, link_subject(k, rates), {src_host, dst_host}, {k.first, k.second}, link_us, ev);
  }
}

// Ranks the others waited for: their share of each iteration's span, in the measured run
// where the noise phase's runs recorded it. Returns how much of the measured run's time over
// the best run's these ranks held beyond what they held in the best: run-to-run variance
// that is theirs (a rank stopped now and then holds the others longer in some runs).
double attribute_late_ranks(const Report& report, const ArrivalSplit& arrivals, const Runs& runs, const Flags& flags,
                            double excess, Entries& entries) {
  auto held_share = [](const RankArrival* x) { return x->held_share + x->stalled_share; };
  struct Late {
    const RankArrival* ra;
    const std::vector<double>* per_run;
    double held;
  };
  std::vector<Late> late;
  for (const RankArrival& ra : arrivals.ranks) {
    const std::vector<double>* per_run = runs.held(ra.rank);
    const double held = per_run ? runs.at_measured(*per_run) : held_share(&ra) * arrivals.span_us;
    if (held >= kMinRankShare * excess) late.push_back({&ra, per_run, held});
  }
  std::sort(late.begin(), late.end(), [](const Late& x, const Late& y) { return x.held > y.held; });
  double varied = 0;
  for (const auto& [ra, per_run, held] : late) {
    const std::string host = host_of_rank(report, ra->rank);
    const double their_variance = per_run ? std::max(0.0, held - runs.at_best(*per_run)) : 0.0;
    // A rank at an end of the slow link or on the slow host enters late because its
    // data came late: that wait is the link's.
    if (AttributionEntry* e = entries.implicating(host)) {
      const double before = e->evidence.value("downstream_wait_us", 0.0);
      entries.add(e->kind, e->subject, {}, {}, held, Ev{{"downstream_wait_us", before + held}});
      varied += their_variance;
      continue;
    }
    if (!flags.stragglers.count(ra->rank)) continue;  // named only where rank.straggler flags it
    Ev ev{{"held_share", held_share(ra)},
          {"stalled_share", ra->stalled_share},
          {"held_us", held},
          {"last_count", ra->last_count},
          {"iterations", arrivals.iterations},
          {"clock_bound_us", arrivals.clock_bound_us}};
    if (per_run) ev["held_us_per_run"] = *per_run;
    entries.add(AttributionKind::kRank, fmt::format("rank {} on {}", ra->rank, host), {host}, {ra->rank}, held, ev);
    varied += their_variance;
  }
  return varied;
}

// Run-to-run variance: the measured time beyond the best repeat, less what the late ranks
// held the others back longer in the measured run than in the best (`ranks_varied_us`).
void attribute_run_variance(const Report& report, const Attribution& a, const Flags& flags, double ranks_varied_us,
                            Entries& entries) {
  if (!report.diagnosis) return;
  for (const CollectiveRepeats& rep : report.diagnosis->collective_noise) {
    if (rep.collective != a.collective || rep.size_bytes != a.size_bytes || rep.time_us.size() < 2) continue;
    const double best = *std::min_element(rep.time_us.begin(), rep.time_us.end());
    if (rep.cv < kNoiseCv || a.measured_us <= best) continue;
    const double varied = a.measured_us - best;
    const double ranks = std::min(ranks_varied_us, varied);
    // What the ranks leave of the spread, where it is next to nothing, is not named.
    if (ranks > 0 && varied - ranks < kMinRankShare / 10 * a.excess_us) continue;
    std::vector<std::string> hosts;
    Ev ev{{"time_us", rep.time_us}, {"cv", rep.cv}, {"best_us", best}};
    if (ranks > 0) ev["ranks_held_us"] = ranks;
    for (const auto& [h, bytes] : flags.foreign_bytes) {
      hosts.push_back(h);
      ev["foreign_bytes"][h] = bytes;
    }
    if (const double cv = link_cv(report, hosts); cv > 0) ev["link_cv"] = cv;
    entries.add(AttributionKind::kNoise, hosts.empty() ? std::string("run-to-run variance") : hosts_subject(hosts),
                hosts, {}, varied - ranks, ev);
  }
}

// One collective's time beyond the ideal, split over the bounding link, late ranks and
// run-to-run variance; what none of them explains is left "unexplained".
Attribution attribute_one(const Report& report, const Sweep& s, const SweepPoint& p, const LinkRates& rates,
                          const Flags& flags) {
  auto parsed = collective_from_name(s.collective);
  const std::optional<Collective> c = parsed.ok() ? std::optional<Collective>(*parsed) : std::nullopt;
  Attribution a = time_against_ideal(report, s, p, c, rates);
  if (a.excess_us <= 0 || rates.median <= 0) return a;
  Entries entries(a.excess_us);
  if (c) {
    if (const std::optional<BoundingLink> bound = bounding_link(report, s, p, *c, rates)) {
      if (bound->method) a.method = *bound->method;
      if (bound->explains(rates.median)) attribute_link(report, rates, flags, *bound, a.ideal_us, entries);
    }
  }
  double ranks_varied_us = 0;
  if (p.out_of_place->arrivals) {
    const Runs runs(report, a.collective, a.size_bytes);
    ranks_varied_us = attribute_late_ranks(report, *p.out_of_place->arrivals, runs, flags, a.excess_us, entries);
  }
  attribute_run_variance(report, a, flags, ranks_varied_us, entries);
  a.entries = entries.finish(a.excess_us);
  return a;
}

}  // namespace

std::vector<RunsHeld> runs_held(const std::vector<double>& time_us,
                                const std::vector<std::optional<ArrivalSplit>>& runs) {
  std::vector<RunsHeld> out;
  if (runs.size() != time_us.size() ||
      std::any_of(runs.begin(), runs.end(), [](const auto& r) { return !r.has_value(); })) {
    return out;
  }
  auto held_us = [](const ArrivalSplit& run, const RankArrival& ra) {
    return (ra.held_share + ra.stalled_share) * run.span_us;
  };
  std::set<int> ranks;
  for (size_t i = 0; i < runs.size(); ++i) {
    for (const RankArrival& ra : runs[i]->ranks) {
      if (held_us(*runs[i], ra) >= kRunsHeldShare * time_us[i]) ranks.insert(ra.rank);
    }
  }
  for (int rank : ranks) {
    RunsHeld h{rank, {}};
    for (const std::optional<ArrivalSplit>& run : runs) {
      auto it =
          std::find_if(run->ranks.begin(), run->ranks.end(), [&](const RankArrival& x) { return x.rank == rank; });
      h.us.push_back(it == run->ranks.end() ? 0.0 : held_us(*run, *it));
    }
    out.push_back(std::move(h));
  }
  return out;
}

std::vector<LinkVariation> link_variation(const P2pSection& p2p, const std::vector<P2pLink>& again) {
  std::map<std::tuple<int, int, uint64_t>, LinkVariation> by_link;
  for (const auto* links : {&p2p.links, &again}) {
    for (const P2pLink& l : *links) {
      if (!l.bw_gbps) continue;
      LinkVariation& v = by_link[{l.src_rank, l.dst_rank, l.size_bytes}];
      v.src_rank = l.src_rank;
      v.dst_rank = l.dst_rank;
      v.src_host = l.src_host;
      v.dst_host = l.dst_host;
      v.bw_gbps.push_back(*l.bw_gbps);
    }
  }
  std::vector<LinkVariation> out;
  for (auto& [key, v] : by_link) {
    if (v.bw_gbps.size() < 2) continue;
    v.cv = cv_of(v.bw_gbps);
    for (const P2pLink& l : p2p.alone) {
      if (l.src_rank == v.src_rank && l.dst_rank == v.dst_rank && l.size_bytes == std::get<2>(key) && l.bw_gbps) {
        const double loaded = median(v.bw_gbps);
        if (loaded > 0) v.impact = *l.bw_gbps / loaded;
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

void attribute(Report& report) {
  report.attribution.clear();
  if (!report.p2p || report.p2p->mode == P2pMode::kLatency || report.p2p->links.empty()) return;
  const uint64_t size = report.diagnosis && report.diagnosis->link_size_bytes ? report.diagnosis->link_size_bytes
                                                                              : report.p2p->links.front().size_bytes;
  const LinkRates rates = link_rates(*report.p2p, size);
  const Flags flags(report.findings);
  std::set<std::string> done;  // the first dtype and op of each collective
  for (const Sweep& s : report.sweeps) {
    if (s.points.empty() || !done.insert(s.collective).second) continue;
    const SweepPoint& p = s.points.back();
    if (!p.out_of_place) continue;
    report.attribution.push_back(attribute_one(report, s, p, rates, flags));
  }
}

}  // namespace fabscope
