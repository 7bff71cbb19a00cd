#include "p2p/schedule.h"

#include <fmt/format.h>
#include <algorithm>
#include <bit>
#include <iterator>
#include <random>

namespace fabscope {

Result<P2pPattern> p2p_pattern_from_name(std::string_view t) {
  if (auto p = enum_from_name<P2pPattern>(t)) return *p;
  return Status::Invalid(fmt::format("unknown pattern '{}'; allowed: ring, pairs, pair (or give --pair A,B)", t));
}

Result<P2pMode> p2p_mode_from_name(std::string_view t) {
  if (auto m = enum_from_name<P2pMode>(t)) return *m;
  return Status::Invalid(fmt::format(
      "unknown mode '{}'; allowed: bw (unidirectional bandwidth), bibw (bidirectional), lat (ping-pong)", t));
}

std::vector<std::vector<std::pair<int, int>>> round_robin_pairs(int n) {
  std::vector<std::vector<std::pair<int, int>>> rounds;
  if (n < 2) return rounds;
  const int m = n % 2 == 0 ? n : n + 1;  // odd: a dummy rank m-1 sits out each round
  std::vector<int> ring(static_cast<size_t>(m));
  for (int i = 0; i < m; ++i) ring[static_cast<size_t>(i)] = i;
  for (int r = 0; r < m - 1; ++r) {
    std::vector<std::pair<int, int>> round;
    for (int i = 0; i < m / 2; ++i) {
      int a = ring[static_cast<size_t>(i)], b = ring[static_cast<size_t>(m - 1 - i)];
      if (a >= n || b >= n) continue;
      round.emplace_back(std::min(a, b), std::max(a, b));
    }
    std::sort(round.begin(), round.end());
    rounds.push_back(std::move(round));
    std::rotate(ring.begin() + 1, ring.end() - 1, ring.end());  // rank 0 stays, the rest turn
  }
  return rounds;
}

namespace {

// Splits undirected links into rounds of disjoint pairs (greedy, in order).
std::vector<Round> matchings(const std::vector<std::pair<int, int>>& links, int n) {
  std::vector<Round> rounds;
  std::vector<std::pair<int, int>> left = links;
  while (!left.empty()) {
    std::vector<bool> busy(static_cast<size_t>(n), false);
    Round round;
    std::vector<std::pair<int, int>> rest;
    for (auto [a, b] : left) {
      if (busy[static_cast<size_t>(a)] || busy[static_cast<size_t>(b)]) {
        rest.emplace_back(a, b);
        continue;
      }
      busy[static_cast<size_t>(a)] = busy[static_cast<size_t>(b)] = true;
      round.push_back({a, b});
    }
    rounds.push_back(std::move(round));
    left = std::move(rest);
  }
  return rounds;
}

}  // namespace

Result<std::vector<Round>> p2p_schedule(P2pPattern pattern, P2pMode mode, int n, std::pair<int, int> pair) {
  if (n < 2) return Status::Invalid(fmt::format("p2p needs at least 2 ranks; this job has {}", n));
  std::vector<Round> rounds;
  switch (pattern) {
    case P2pPattern::kPair: {
      auto [a, b] = pair;
      if (a < 0 || b < 0 || a >= n || b >= n || a == b) {
        return Status::Invalid(
            fmt::format("--pair {},{} is not two different ranks of this job; allowed: 0 to {}", a, b, n - 1));
      }
      if (mode == P2pMode::kBidirectional) {
        rounds.push_back({{a, b}, {b, a}});
      } else {
        rounds.push_back({{a, b}});
      }
      return rounds;
    }
    case P2pPattern::kRing: {
      std::vector<std::pair<int, int>> links;  // r -> r+1 (with two ranks: 0->1 and 1->0)
      for (int r = 0; r < n; ++r) links.emplace_back(r, (r + 1) % n);
      if (mode == P2pMode::kLatency) return matchings(links, n);
      Round round;
      auto add = [&round](Flow f) {
        if (std::find(round.begin(), round.end(), f) == round.end()) round.push_back(f);
      };
      for (auto [a, b] : links) {
        add({a, b});
        if (mode == P2pMode::kBidirectional) add({b, a});
      }
      rounds.push_back(std::move(round));
      return rounds;
    }
    case P2pPattern::kPairs: {
      for (const auto& rr : round_robin_pairs(n)) {
        Round forward, backward;
        for (auto [a, b] : rr) {
          forward.push_back({a, b});
          (mode == P2pMode::kBidirectional ? forward : backward).push_back({b, a});
        }
        rounds.push_back(std::move(forward));
        if (mode == P2pMode::kBandwidth) rounds.push_back(std::move(backward));
      }
      return rounds;
    }
  }
  return rounds;
}

Result<LinkSchedule> link_schedule_from_name(std::string_view t) {
  if (auto s = enum_from_name<LinkSchedule>(t)) return *s;
  return Status::Invalid(fmt::format(
      "unknown link schedule '{}'; allowed: auto, all (every pair of ranks), rail (every pair of hosts, rail by "
      "rail), sample (hosts under one leaf, then across, within the budget)",
      t));
}

std::vector<std::string> hosts_in_order(const std::vector<RankPlace>& ranks) {
  std::vector<std::string> hosts;
  std::set<std::string> seen;
  for (const RankPlace& r : ranks) {
    if (seen.insert(r.host).second) hosts.push_back(r.host);
  }
  return hosts;
}

namespace {

// Each host's ranks, in local rank order, by host index.
struct HostRanks {
  std::vector<std::string> hosts;
  std::map<std::string, size_t> index;
  std::vector<std::vector<int>> ranks;
  explicit HostRanks(const std::vector<RankPlace>& places) : hosts(hosts_in_order(places)) {
    for (size_t i = 0; i < hosts.size(); ++i) index[hosts[i]] = i;
    ranks.resize(hosts.size());
    std::vector<std::vector<std::pair<int, int>>> by_local(hosts.size());
    for (size_t r = 0; r < places.size(); ++r) {
      by_local[index[places[r].host]].emplace_back(places[r].local_rank, static_cast<int>(r));
    }
    for (size_t h = 0; h < hosts.size(); ++h) {
      std::sort(by_local[h].begin(), by_local[h].end());
      for (auto [local, r] : by_local[h]) ranks[h].push_back(r);
    }
  }
  // The rail flows of a host pair: the k-th rank of each, both directions.
  void add_rail_flows(size_t a, size_t b, Round& round) const {
    const size_t k = std::min(ranks[a].size(), ranks[b].size());
    for (size_t i = 0; i < k; ++i) {
      round.push_back({ranks[a][i], ranks[b][i]});
      round.push_back({ranks[b][i], ranks[a][i]});
    }
  }
  Round round_of(const std::vector<std::pair<int, int>>& host_pairs) const {
    Round round;
    for (auto [a, b] : host_pairs) add_rail_flows(static_cast<size_t>(a), static_cast<size_t>(b), round);
    return round;
  }
};

size_t rounds_for(size_t n) { return n < 2 ? 0 : (n % 2 == 0 ? n - 1 : n); }

}  // namespace

size_t schedule_rounds(LinkSchedule schedule, const std::vector<RankPlace>& ranks) {
  return schedule == LinkSchedule::kAll ? rounds_for(ranks.size()) : rounds_for(hosts_in_order(ranks).size());
}

uint64_t link_chunk_bytes(uint64_t largest_bytes, int nranks) {
  const uint64_t chunk =
      std::bit_floor(std::max<uint64_t>(largest_bytes / static_cast<uint64_t>(std::max(1, nranks)), 1));
  return std::clamp<uint64_t>(chunk, 64 << 10, 4 << 20);
}

int link_rounds_that_fit(double links_share_s, uint64_t chunk_bytes, double busbw_gbps) {
  const double bw = busbw_gbps > 0 ? busbw_gbps : 1.0;
  const double min_round_s = kMinLinkIters * static_cast<double>(chunk_bytes) / (bw * 1e9) + kRoundOverheadS;
  return static_cast<int>(std::clamp(kScheduleShare * links_share_s / min_round_s, 1.0, 1e6));
}

size_t schedule_links(LinkSchedule schedule, const std::vector<RankPlace>& ranks) {
  const size_t n = ranks.size();
  if (schedule == LinkSchedule::kAll) return n < 2 ? 0 : n * (n - 1);
  std::map<std::string, size_t> per_host;
  for (const RankPlace& r : ranks) ++per_host[r.host];
  size_t links = 0;
  for (auto a = per_host.begin(); a != per_host.end(); ++a) {
    for (auto b = std::next(a); b != per_host.end(); ++b) links += 2 * std::min(a->second, b->second);
  }
  return links;
}

size_t sample_rounds_within(const std::vector<RankPlace>& ranks, size_t max_links) {
  const size_t rounds = schedule_rounds(LinkSchedule::kRail, ranks);
  const size_t per_round = rounds == 0 ? 0 : schedule_links(LinkSchedule::kRail, ranks) / rounds;
  return std::max(kMinSampleRounds, per_round == 0 ? kMinSampleRounds : max_links / per_round);
}

LinkSchedule pick_link_schedule(const std::vector<RankPlace>& ranks, size_t max_rounds, size_t max_links) {
  const size_t hosts = hosts_in_order(ranks).size();
  const auto fits = [&](LinkSchedule s) {
    return schedule_rounds(s, ranks) <= max_rounds && schedule_links(s, ranks) <= max_links;
  };
  if (hosts < 2 || (ranks.size() == hosts && fits(LinkSchedule::kAll))) return LinkSchedule::kAll;
  if (fits(LinkSchedule::kRail)) return LinkSchedule::kRail;
  return LinkSchedule::kSample;
}

Result<LinkPlan> plan_links(const std::vector<RankPlace>& ranks, const LinkPlanOptions& o) {
  const int n = static_cast<int>(ranks.size());
  if (n < 2) return Status::Invalid(fmt::format("the link matrix needs at least 2 ranks; this job has {}", n));
  LinkPlan plan;
  plan.schedule = o.schedule;
  if (o.schedule == LinkSchedule::kAll) {
    auto rounds = p2p_schedule(P2pPattern::kPairs, P2pMode::kBidirectional, n, {0, 1});
    if (!rounds.ok()) return rounds.status();
    plan.rounds = std::move(*rounds);
    return plan;
  }
  const HostRanks hr(ranks);
  const int nhosts = static_cast<int>(hr.hosts.size());
  if (nhosts < 2) {
    return Status::Invalid(fmt::format("link schedule '{}' pairs hosts, and this job's {} ranks all run on {}; use all",
                                       name(o.schedule), n, hr.hosts.front()));
  }
  const auto all_rounds = round_robin_pairs(nhosts);
  if (o.schedule == LinkSchedule::kRail) {
    for (const auto& rr : all_rounds) plan.rounds.push_back(hr.round_of(rr));
    return plan;
  }
  const size_t budget = std::max(o.max_rounds, kMinSampleRounds);
  std::set<std::pair<int, int>> done;
  std::vector<std::string> leaf(static_cast<size_t>(nhosts));
  for (int h = 0; h < nhosts; ++h) {
    leaf[static_cast<size_t>(h)] = hr.hosts[static_cast<size_t>(h)];  // a host the description lacks: its own leaf
    if (o.leaf_of) {
      auto it = o.leaf_of->find(hr.hosts[static_cast<size_t>(h)]);
      if (it != o.leaf_of->end()) leaf[static_cast<size_t>(h)] = "leaf:" + it->second;
    }
  }
  if (o.leaf_of) {
    // Within each leaf at once (they share no uplink): round i holds every leaf's round i.
    std::map<std::string, std::vector<int>> members;
    for (int h = 0; h < nhosts; ++h) members[leaf[static_cast<size_t>(h)]].push_back(h);
    std::vector<std::vector<std::pair<int, int>>> intra;
    for (const auto& [name, hosts] : members) {
      const auto rr = round_robin_pairs(static_cast<int>(hosts.size()));
      if (intra.size() < rr.size()) intra.resize(rr.size());
      for (size_t i = 0; i < rr.size(); ++i) {
        for (auto [a, b] : rr[i]) intra[i].emplace_back(hosts[static_cast<size_t>(a)], hosts[static_cast<size_t>(b)]);
      }
    }
    const size_t cap = std::max<size_t>(1, budget / 2);  // half the budget at most: across leaves matters more
    for (size_t i = 0; i < intra.size() && i < cap; ++i) {
      for (auto [a, b] : intra[i]) done.insert({std::min(a, b), std::max(a, b)});
      plan.rounds.push_back(hr.round_of(intra[i]));
    }
    plan.intra_leaf_rounds = plan.rounds.size();
  }
  // The collective's own path next: hosts next to each other in rank order, which NCCL's
  // rings connect (two rounds, three for an odd count), so a slow link that slows the
  // collective is measured whatever the sample leaves out.
  {
    std::vector<std::vector<std::pair<int, int>>> ring(nhosts % 2 == 0 ? 2 : 3);
    for (int h = 0; h < nhosts; ++h) {
      const int next = (h + 1) % nhosts;
      if (nhosts == 2 && h == 1) break;  // two hosts: one pair
      const size_t r = nhosts % 2 == 1 && h == nhosts - 1 ? 2 : static_cast<size_t>(h % 2);
      ring[r].emplace_back(std::min(h, next), std::max(h, next));
    }
    for (const auto& round : ring) {
      if (plan.rounds.size() >= budget) break;
      std::vector<std::pair<int, int>> pairs;
      for (auto p : round) {
        if (done.insert(p).second) pairs.push_back(p);
      }
      if (pairs.empty()) continue;
      plan.rounds.push_back(hr.round_of(pairs));
      ++plan.ring_rounds;
    }
  }
  std::vector<size_t> order(all_rounds.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937_64 rng(o.seed);
  std::shuffle(order.begin(), order.end(), rng);
  for (size_t i : order) {
    if (plan.rounds.size() >= budget) break;
    std::vector<std::pair<int, int>> pairs;
    for (auto [a, b] : all_rounds[i]) {
      if (leaf[static_cast<size_t>(a)] == leaf[static_cast<size_t>(b)] && o.leaf_of) continue;
      if (done.count({a, b})) continue;
      pairs.emplace_back(a, b);
    }
    if (pairs.empty()) continue;
    for (auto p : pairs) done.insert(p);
    plan.rounds.push_back(hr.round_of(pairs));
  }
  return plan;
}

std::vector<Round> suspect_rounds(const std::vector<RankPlace>& ranks, const std::vector<std::string>& suspects,
                                  const std::set<std::pair<std::string, std::string>>& measured,
                                  const std::set<std::string>& avoid, int partners, uint64_t seed) {
  const HostRanks hr(ranks);
  std::mt19937_64 rng(seed);
  std::set<std::pair<int, int>> chosen;
  const auto known = [&](size_t a, size_t b) {
    const std::string &x = hr.hosts[a], &y = hr.hosts[b];
    return measured.count({std::min(x, y), std::max(x, y)}) > 0 || chosen.count({std::min(a, b), std::max(a, b)}) > 0;
  };
  for (const std::string& s : suspects) {
    auto it = hr.index.find(s);
    if (it == hr.index.end()) continue;
    const size_t me = it->second;
    std::vector<size_t> healthy, other;
    for (size_t h = 0; h < hr.hosts.size(); ++h) {
      if (h == me || known(me, h)) continue;
      (avoid.count(hr.hosts[h]) ? other : healthy).push_back(h);
    }
    std::shuffle(healthy.begin(), healthy.end(), rng);
    std::shuffle(other.begin(), other.end(), rng);
    healthy.insert(healthy.end(), other.begin(), other.end());
    for (size_t i = 0; i < healthy.size() && static_cast<int>(i) < partners; ++i) {
      chosen.insert({static_cast<int>(std::min(me, healthy[i])), static_cast<int>(std::max(me, healthy[i]))});
    }
  }
  // Host pairs into rounds of disjoint hosts (greedy, in order).
  std::vector<std::pair<int, int>> left(chosen.begin(), chosen.end());
  std::vector<Round> rounds;
  while (!left.empty()) {
    std::vector<bool> busy(hr.hosts.size(), false);
    std::vector<std::pair<int, int>> now, rest;
    for (auto [a, b] : left) {
      if (busy[static_cast<size_t>(a)] || busy[static_cast<size_t>(b)]) {
        rest.emplace_back(a, b);
        continue;
      }
      busy[static_cast<size_t>(a)] = busy[static_cast<size_t>(b)] = true;
      now.emplace_back(a, b);
    }
    rounds.push_back(hr.round_of(now));
    left = std::move(rest);
  }
  return rounds;
}

}  // namespace fabscope
