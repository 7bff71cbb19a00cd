// Which links a p2p run measures, in rounds whose flows run at the same time.
//  ring:  every rank sends to the next at once (a ring collective's exact link load)
//  pairs: round-robin rounds of disjoint pairs (circle method) covering every pair
//  pair:  one pair of ranks
// Bandwidth rounds hold directed flows; a bidirectional run carries both directions of
// each pair at once. Latency (ping-pong) needs disjoint pairs, so its rounds are
// matchings.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace fabscope {

enum class P2pPattern { kRing, kPairs, kPair };
enum class P2pMode { kBandwidth, kBidirectional, kLatency };
std::string_view name(P2pPattern p);
std::string_view name(P2pMode m);
Result<P2pPattern> p2p_pattern_from_name(std::string_view text);
Result<P2pMode> p2p_mode_from_name(std::string_view text);

struct Flow {
  int src = 0;
  int dst = 0;
  bool operator==(const Flow&) const = default;
};
using Round = std::vector<Flow>;

// The circle method: n-1 rounds of n/2 disjoint pairs for even n, n rounds with one
// rank idle for odd n. Each pair appears exactly once, lower rank first.
std::vector<std::vector<std::pair<int, int>>> round_robin_pairs(int nranks);

// The rounds of a run. For bandwidth, flows are directed (pairs: each pair once per
// direction, in separate rounds); for bidirectional both directions are in one round;
// for latency each flow is a ping-pong initiated by src and rounds are disjoint.
Result<std::vector<Round>> p2p_schedule(P2pPattern pattern, P2pMode mode, int nranks, std::pair<int, int> pair);

}  // namespace fabscope
