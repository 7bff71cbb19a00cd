#include "p2p/schedule.h"

#include <fmt/format.h>
#include <algorithm>

namespace fabscope {

std::string_view name(P2pPattern p) {
  switch (p) {
    case P2pPattern::kRing:
      return "ring";
    case P2pPattern::kPairs:
      return "pairs";
    case P2pPattern::kPair:
      return "pair";
  }
  return "?";
}

std::string_view name(P2pMode m) {
  switch (m) {
    case P2pMode::kBandwidth:
      return "bw";
    case P2pMode::kBidirectional:
      return "bibw";
    case P2pMode::kLatency:
      return "lat";
  }
  return "?";
}

Result<P2pPattern> p2p_pattern_from_name(std::string_view t) {
  for (P2pPattern p : {P2pPattern::kRing, P2pPattern::kPairs, P2pPattern::kPair}) {
    if (name(p) == t) return p;
  }
  return Status::Invalid(fmt::format("unknown pattern '{}'; allowed: ring, pairs, pair (or give --pair A,B)", t));
}

Result<P2pMode> p2p_mode_from_name(std::string_view t) {
  for (P2pMode m : {P2pMode::kBandwidth, P2pMode::kBidirectional, P2pMode::kLatency}) {
    if (name(m) == t) return m;
  }
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

}  // namespace fabscope
